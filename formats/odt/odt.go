// Package odt reads OpenDocument text documents (.odt, .ott: LibreOffice
// and OpenOffice Writer, and what Word and Google Docs save as
// OpenDocument) with archive/zip and encoding/xml only.
//
// What it extracts from content.xml:
//   - paragraphs (text:p, in lists, sections, text boxes and table cells
//     alike; text:s spaces, tabs and line breaks as spaces; tracked
//     deletions, footnotes, annotations and the field declarations left
//     out);
//   - headings: text:h with its text:outline-level (1 when absent), and a
//     text:p whose style, through its parent styles, is a heading style
//     (a style:default-outline-level, or the "Title" or "Heading N"
//     styles);
//   - tables as Table blocks, one row a line, cells joined by " | "
//     (covered cells of a merged range left out, a nested table's text
//     in its cell);
//   - pages: a page advances at each text:soft-page-break (where Writer
//     last laid the document out) and, where the file has none, at a
//     paragraph or table whose style breaks before it (fo:break-before
//     "page") or after it. Without either the whole document is page 1.
//
// The title comes from meta.xml (dc:title). Headers, footers, and the
// list numbers Writer draws are not extracted.
//
// A password-protected document (its content.xml encrypted, as the
// manifest says) gives formats.ErrEncrypted; a spreadsheet, presentation
// or drawing (another OpenDocument type) formats.ErrUnsupported. Every part
// is read through a size limit (MaxPartSize), so a zip bomb fails with
// formats.ErrTooLarge.
package odt

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/zipx"
)

// MaxPartSize is the largest decompressed size of one part (content.xml,
// styles.xml, meta.xml) Parse reads.
const MaxPartSize = 64 << 20

// maxStyleDepth bounds parent-style chains (cyclic in broken files).
const maxStyleDepth = 16

// MaxDepth bounds how deep the body's elements nest: the reader descends
// them recursively, and a few megabytes of nested tags would otherwise
// exhaust the stack (a fatal error no recover catches).
const MaxDepth = 1000

// errTooDeep is the cause of a body nested beyond MaxDepth.
var errTooDeep = fmt.Errorf("elements nested more than %d deep", MaxDepth)

const (
	nsText   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	nsTable  = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	nsStyle  = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
	nsFO     = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
	nsOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	nsDC     = "http://purl.org/dc/elements/1.1/"
	nsMan    = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
	mimeText = "application/vnd.oasis.opendocument.text"
)

// Parse reads an OpenDocument text file. Errors match formats.ErrCorrupt
// (not a valid zip or XML, no content.xml), formats.ErrEncrypted,
// formats.ErrUnsupported (another OpenDocument type), formats.ErrTooLarge
// (a part beyond MaxPartSize) or formats.ErrEmpty (no text).
func Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	return parse(ctx, source, data, MaxPartSize)
}

func parse(ctx context.Context, source string, data []byte, limit int64) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "empty file")
	}
	a, err := zipx.Open(source, "OpenDocument", data, limit)
	if err != nil {
		return nil, err
	}
	if mt, err := a.Read("mimetype"); err == nil && len(mt) > 0 {
		m := strings.TrimSpace(string(mt))
		if !strings.HasPrefix(m, mimeText) {
			kind := strings.TrimPrefix(m, "application/vnd.oasis.opendocument.")
			return nil, formats.Errorf(source, formats.ErrUnsupported, "OpenDocument %s is not read (only text documents are)", kind)
		}
	}
	if man, err := a.Read("META-INF/manifest.xml"); err == nil && encrypted(man) {
		return nil, formats.Errorf(source, formats.ErrEncrypted, "encrypted OpenDocument (password required)")
	}
	content, err := a.Read("content.xml")
	if err != nil {
		return nil, err
	}
	if content == nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "zip file has no content.xml (not an OpenDocument)")
	}
	st := styles{}
	if b, err := a.Read("styles.xml"); err == nil && b != nil {
		if err := st.read(b); err != nil {
			return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed styles.xml: %w", err)
		}
	} else if err != nil {
		return nil, err
	}
	if err := st.read(content); err != nil { // its automatic styles
		return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed content.xml: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b := &builder{styles: st, page: 1}
	if err := b.body(ctx, content); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed content.xml: %w", err)
	}
	if len(b.blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "OpenDocument has no text")
	}
	title := ""
	if m, err := a.Read("meta.xml"); err == nil && m != nil {
		title = metaTitle(m)
	}
	return &document.Document{Source: source, Format: formats.ODT, Title: title, Blocks: b.blocks, Pages: b.page}, nil
}

// encrypted reports whether the manifest gives content.xml encryption
// data.
func encrypted(manifest []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(manifest))
	inContent := false
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == nsMan && t.Name.Local == "file-entry" {
				inContent = attr(t, nsMan, "full-path") == "content.xml"
			}
			if inContent && t.Name.Space == nsMan && t.Name.Local == "encryption-data" {
				return true
			}
		case xml.EndElement:
			if t.Name.Space == nsMan && t.Name.Local == "file-entry" {
				inContent = false
			}
		}
	}
}

func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// style is one paragraph or table style.
type style struct {
	parent, display string
	outline         int // default outline level, 0 when not set
	breakBefore     bool
	breakAfter      bool
}

// styles are the paragraph and table styles by name, from styles.xml and
// content.xml's automatic styles.
type styles map[string]*style

func (s styles) read(b []byte) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	var cur *style
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Space == nsOffice && t.Name.Local == "body":
				return nil // content.xml: the styles come before the body
			case t.Name.Space == nsStyle && t.Name.Local == "style":
				cur = &style{parent: attr(t, nsStyle, "parent-style-name"), display: attr(t, nsStyle, "display-name")}
				cur.outline, _ = strconv.Atoi(attr(t, nsStyle, "default-outline-level"))
				if name := attr(t, nsStyle, "name"); name != "" {
					s[name] = cur
				}
			case cur != nil && t.Name.Space == nsStyle && (t.Name.Local == "paragraph-properties" || t.Name.Local == "table-properties"):
				cur.breakBefore = attr(t, nsFO, "break-before") == "page"
				cur.breakAfter = attr(t, nsFO, "break-after") == "page"
			}
		case xml.EndElement:
			if t.Name.Space == nsStyle && t.Name.Local == "style" {
				cur = nil
			}
		}
	}
}

// level returns the heading level of a paragraph of style name (0: not a
// heading), following parent styles.
func (s styles) level(name string) int {
	for i := 0; i < maxStyleDepth && name != ""; i++ {
		st := s[name]
		if st == nil {
			return nameLevel(name)
		}
		if st.outline > 0 {
			return st.outline
		}
		if l := nameLevel(name); l > 0 {
			return l
		}
		if l := nameLevel(st.display); l > 0 {
			return l
		}
		name = st.parent
	}
	return 0
}

// nameLevel reads a heading level from a style name ("Heading_20_1":
// a style's name encodes its spaces, its display name does not).
func nameLevel(name string) int {
	return formats.HeadingLevel(strings.ReplaceAll(name, "_20_", " "))
}

// breaks returns whether a paragraph or table of style name starts, or
// ends, a page, following parent styles.
func (s styles) breaks(name string) (before, after bool) {
	for i := 0; i < maxStyleDepth && name != ""; i++ {
		st := s[name]
		if st == nil {
			return
		}
		before, after = before || st.breakBefore, after || st.breakAfter
		name = st.parent
	}
	return
}

// builder collects the blocks of the body.
type builder struct {
	styles styles
	blocks []document.Block
	page   int
	// soft is set once the document has a soft page break: Writer's
	// layout then gives every page, and the styles' breaks are not
	// counted again.
	soft bool
	// pendingBreak is a page break a style asked for after its block.
	pendingBreak bool
	// para and paraPage are the text and start page of the paragraph
	// being read: a soft page break before any of its text moves its
	// start to the new page.
	para     *strings.Builder
	paraPage *int
	// depth is how deep the reader is in the body's elements.
	depth int
}

// descend enters one more level of nested elements, refusing more than
// MaxDepth; ascend leaves it.
func (b *builder) descend() error {
	if b.depth >= MaxDepth {
		return errTooDeep
	}
	b.depth++
	return nil
}

func (b *builder) ascend() { b.depth-- }

// skipped are the elements whose text is not the document's.
var skipped = map[xml.Name]bool{
	{Space: nsText, Local: "note"}:                    true, // footnotes and endnotes
	{Space: nsText, Local: "tracked-changes"}:         true,
	{Space: nsText, Local: "sequence-decls"}:          true,
	{Space: nsText, Local: "variable-decls"}:          true,
	{Space: nsText, Local: "user-field-decls"}:        true,
	{Space: nsOffice, Local: "annotation"}:            true,
	{Space: nsOffice, Local: "annotation-end"}:        true,
	{Space: nsOffice, Local: "forms"}:                 true,
	{Space: nsText, Local: "alphabetical-index-mark"}: true,
}

func (b *builder) body(ctx context.Context, content []byte) error {
	d := xml.NewDecoder(bytes.NewReader(content))
	inBody := false
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		t, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if !inBody {
			// (text:use-soft-page-breaks says nothing: Writer sets it on
			// documents it wrote no soft break in)
			inBody = t.Name.Space == nsOffice && t.Name.Local == "text"
			continue
		}
		if err := b.element(d, t); err != nil {
			return err
		}
	}
}

// element reads the element t starts (a block-level element of the body,
// a section or a list) to its end.
func (b *builder) element(d *xml.Decoder, t xml.StartElement) error {
	if err := b.descend(); err != nil {
		return err
	}
	defer b.ascend()
	switch {
	case skipped[t.Name]:
		return d.Skip()
	case t.Name.Space == nsText && (t.Name.Local == "p" || t.Name.Local == "h"):
		return b.paragraph(d, t)
	case t.Name.Space == nsTable && t.Name.Local == "table":
		return b.table(d, t)
	case t.Name.Space == nsText && t.Name.Local == "soft-page-break":
		b.softBreak()
		return d.Skip()
	}
	// a container (section, list, list item, index body, text box …):
	// its children in order
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch c := tok.(type) {
		case xml.StartElement:
			if err := b.element(d, c); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

func (b *builder) softBreak() {
	if !b.soft {
		// Writer's layout gives the pages, hard breaks included: count
		// them from the start again
		b.soft = true
		b.page = 1
		for i := range b.blocks {
			b.blocks[i].Page = 1
		}
	}
	b.page++
	b.pendingBreak = false
}

// styleBreak applies the page breaks a block's style asks for, before it,
// when the document has no soft page breaks.
func (b *builder) styleBreak(name string) (after bool) {
	before, after := b.styles.breaks(name)
	if b.soft {
		return false
	}
	if (before || b.pendingBreak) && len(b.blocks) > 0 {
		b.page++
	}
	b.pendingBreak = false
	return after
}

// add appends a block that starts on page, unless its text is blank.
func (b *builder) add(kind document.Kind, level int, text string, page int) {
	text = formats.CleanText(text)
	if text == "" {
		return
	}
	b.blocks = append(b.blocks, document.Block{Kind: kind, Level: level, Text: text, Page: page})
}

// paragraph reads a text:p or text:h; a soft page break inside it moves
// the page after the paragraph's start.
func (b *builder) paragraph(d *xml.Decoder, t xml.StartElement) error {
	name := attr(t, nsText, "style-name")
	after := b.styleBreak(name)
	level := 0
	if t.Name.Local == "h" {
		level = 1
		if l, err := strconv.Atoi(attr(t, nsText, "outline-level")); err == nil && l > 0 {
			level = l
		}
	} else {
		level = b.styles.level(name)
	}
	page := b.page
	var text strings.Builder
	b.para = &text
	b.paraPage = &page
	err := b.inline(d, &text)
	b.para, b.paraPage = nil, nil
	if err != nil {
		return err
	}
	kind := document.Paragraph
	if level > 0 {
		kind = document.Heading
	}
	b.add(kind, level, text.String(), page)
	b.pendingBreak = after
	return nil
}

// inline reads the text of a paragraph to its end: spans, links, fields'
// shown values, spaces. Soft page breaks inside it advance the page.
func (b *builder) inline(d *xml.Decoder, text *strings.Builder) error {
	if err := b.descend(); err != nil {
		return err
	}
	defer b.ascend()
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch c := tok.(type) {
		case xml.CharData:
			text.Write(c)
		case xml.StartElement:
			switch {
			case skipped[c.Name]:
				if err := d.Skip(); err != nil {
					return err
				}
				continue
			case c.Name.Space == nsText && c.Name.Local == "s":
				n, err := strconv.Atoi(attr(c, nsText, "c"))
				if err != nil || n < 1 {
					n = 1
				}
				text.WriteString(strings.Repeat(" ", min(n, 64)))
			case c.Name.Space == nsText && (c.Name.Local == "tab" || c.Name.Local == "line-break"):
				text.WriteByte(' ')
			case c.Name.Space == nsText && c.Name.Local == "soft-page-break":
				b.softBreak()
				if b.para == text && strings.TrimSpace(text.String()) == "" {
					*b.paraPage = b.page // the paragraph starts the new page
				}
			case c.Name.Space == nsText && (c.Name.Local == "p" || c.Name.Local == "h"):
				// a paragraph inside a paragraph (a text box's, a
				// frame's): its text on its own
				text.WriteByte(' ')
			}
			if err := b.inline(d, text); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// table reads a table:table: one Table block, one row a line.
func (b *builder) table(d *xml.Decoder, t xml.StartElement) error {
	after := b.styleBreak(attr(t, nsTable, "style-name"))
	page := b.page
	var rows []string
	var row []string
	var walk func() error
	walk = func() error {
		if err := b.descend(); err != nil {
			return err
		}
		defer b.ascend()
		for {
			tok, err := d.Token()
			if err != nil {
				return err
			}
			switch c := tok.(type) {
			case xml.StartElement:
				switch {
				case c.Name.Space == nsTable && c.Name.Local == "table-row":
					row = nil
					if err := walk(); err != nil {
						return err
					}
					if strings.Join(row, "") != "" {
						rows = append(rows, strings.Join(row, " | "))
					}
				case c.Name.Space == nsTable && c.Name.Local == "covered-table-cell":
					if err := d.Skip(); err != nil {
						return err
					}
				case c.Name.Space == nsTable && c.Name.Local == "table-cell":
					var cell strings.Builder
					if err := b.inline(d, &cell); err != nil {
						return err
					}
					row = append(row, formats.CleanText(cell.String()))
				case c.Name.Space == nsText && c.Name.Local == "soft-page-break":
					b.softBreak()
					if err := d.Skip(); err != nil {
						return err
					}
				default: // header rows, row groups, columns
					if err := walk(); err != nil {
						return err
					}
				}
			case xml.EndElement:
				return nil
			}
		}
	}
	if err := walk(); err != nil {
		return err
	}
	if len(rows) > 0 {
		b.blocks = append(b.blocks, document.Block{Kind: document.Table, Text: strings.Join(rows, "\n"), Page: page})
	}
	b.pendingBreak = after
	return nil
}

// metaTitle returns meta.xml's dc:title.
func metaTitle(b []byte) string {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Space == nsDC && t.Name.Local == "title" {
			var s string
			if d.DecodeElement(&s, &t) != nil {
				return ""
			}
			return formats.CleanText(s)
		}
	}
}
