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

// addResources adds the template that reads any indexed document, a
// resource for each document in the index now, and the middleware that
// keeps that list current: before each request the server handles
// (resources/list among them), documents indexed since are added and
// documents deleted are removed, so that a file uploaded through docmind
// serve, or ingested by another process, is listed at once and clients
// get notifications/resources/list_changed.
func (s *server) addResources(ctx context.Context, srv *mcp.Server) error {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: DocumentURIPrefix + "{id}",
		Name:        "document",
		Title:       "An indexed document",
		MIMEType:    documentMIME,
		Description: "The text of an indexed document, section by section with page numbers.",
	}, s.readDocument)
	if err := s.syncResources(ctx, srv); err != nil {
		return err
	}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if err := s.syncResources(ctx, srv); err != nil && method == "resources/list" {
				return nil, errorLine(err)
			}
			return next(ctx, method, req)
		}
	})
	return nil
}

// syncResources makes the server's document resources those of the
// index: it adds or updates the documents whose resource is missing or
// different and removes those no longer indexed. Nothing changes (and no
// client is notified) when the list is current.
func (s *server) syncResources(ctx context.Context, srv *mcp.Server) error {
	docs, err := s.cfg.Index.Documents(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listed == nil {
		s.listed = map[string]mcp.Resource{}
	}
	current := make(map[string]bool, len(docs))
	for _, d := range docs {
		r := mcp.Resource{
			URI:         DocumentURI(d.ID),
			Name:        s.cfg.Display(d.Path),
			Title:       d.Title,
			MIMEType:    documentMIME,
			Description: fmt.Sprintf("%s document, %d page(s), %d section(s), as indexed by DocMind", d.Format, d.Pages, d.Sections),
		}
		current[r.URI] = true
		if old, ok := s.listed[r.URI]; ok && old.Name == r.Name && old.Title == r.Title && old.Description == r.Description {
			continue
		}
		s.listed[r.URI] = r
		srv.AddResource(&r, s.readDocument)
	}
	var gone []string
	for uri := range s.listed {
		if !current[uri] {
			gone = append(gone, uri)
			delete(s.listed, uri)
		}
	}
	if len(gone) > 0 {
		srv.RemoveResources(gone...)
	}
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
