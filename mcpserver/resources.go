package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/index"
)

// DocumentURIPrefix starts the URI of every document resource; the
// document's id in the index follows it.
const DocumentURIPrefix = "docmind://documents/"

// DocumentURI is the resource URI of the document with this index id.
func DocumentURI(id int64) string { return DocumentURIPrefix + strconv.FormatInt(id, 10) }

// documentMIME is the type of a document resource's text: its sections
// as Markdown headings and paragraphs.
const documentMIME = "text/markdown"

// addResources lists every indexed document and adds the template that
// reads any of them.
func (s *server) addResources(ctx context.Context, srv *mcp.Server) error {
	docs, err := s.cfg.Index.Documents(ctx)
	if err != nil {
		return err
	}
	for _, d := range docs {
		srv.AddResource(&mcp.Resource{
			URI:         DocumentURI(d.ID),
			Name:        s.cfg.Display(d.Path),
			Title:       d.Title,
			MIMEType:    documentMIME,
			Description: fmt.Sprintf("%s document, %d page(s), %d section(s), as indexed by DocMind", d.Format, d.Pages, d.Sections),
		}, s.readDocument)
	}
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: DocumentURIPrefix + "{id}",
		Name:        "document",
		Title:       "An indexed document",
		MIMEType:    documentMIME,
		Description: "The text of an indexed document, section by section with page numbers.",
	}, s.readDocument)
	return nil
}

// readDocument reads a document resource: its sections in order.
func (s *server) readDocument(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := strconv.ParseInt(strings.TrimPrefix(uri, DocumentURIPrefix), 10, 64)
	if err != nil || !strings.HasPrefix(uri, DocumentURIPrefix) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	doc, ok, err := s.document(ctx, id)
	if err != nil {
		return nil, errorLine(err)
	}
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	secs, err := s.cfg.Index.Sections(ctx, doc.Path)
	if err != nil {
		return nil, errorLine(err)
	}
	var b strings.Builder
	title := doc.Title
	if title == "" {
		title = s.cfg.Display(doc.Path)
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	for _, sec := range secs {
		fmt.Fprintf(&b, "## %s (%s, id %s)\n\n%s\n\n", sec.Title, sec.PageRef(), sec.ID, strings.TrimSpace(sec.Content))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: documentMIME, Text: b.String()}}}, nil
}

// document finds the indexed document with this id.
func (s *server) document(ctx context.Context, id int64) (index.Document, bool, error) {
	docs, err := s.cfg.Index.Documents(ctx)
	if err != nil {
		return index.Document{}, false, err
	}
	for _, d := range docs {
		if d.ID == id {
			return d, true, nil
		}
	}
	return index.Document{}, false, nil
}
