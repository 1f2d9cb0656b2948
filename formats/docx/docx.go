// Package docx reads Word (.docx, Office Open XML) documents with
// archive/zip and encoding/xml only.
//
// What it extracts from word/document.xml:
//   - paragraphs (text of all runs, tabs as spaces, soft hyphens dropped,
//     deleted revisions and field instructions skipped);
//   - headings: a paragraph is a heading when its own w:outlineLvl, or its
//     style's (following w:basedOn chains), gives an outline level 0-8, or
//     when the style's w:name is "heading N" / "Title". Localized style ids
//     and names ("berschrift1", "Titre1", "Überschrift 1", "Kop 2", ...)
//     are recognised through those same rules, and as a last resort by a
//     list of localized words for "heading";
//   - tables as Table blocks, one row a line, cells joined by " | ";
//   - page numbers: when Word recorded w:lastRenderedPageBreak markers they
//     are used alone (they mark every page Word laid out, explicit breaks
//     included); otherwise pages advance at explicit breaks: w:br
//     w:type="page", w:pageBreakBefore (on the paragraph or its style) and
//     section breaks that start a new page. Pages start at 1. Without any
//     markers the whole document is page 1: DOCX has no layout, so the
//     numbers are a lower bound of the printed ones.
//
// The title comes from docProps/core.xml (dc:title). Headers, footers,
// footnotes, comments and Word's automatic list/heading numbering are not
// extracted.
//
// Limits: every part is read through a size limit (MaxPartSize), so a zip
// bomb fails with formats.ErrTooLarge instead of exhausting memory.
package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/zipx"
)

// MaxPartSize is the largest decompressed size of one part (document.xml,
// styles.xml, core.xml) Parse reads.
const MaxPartSize = 64 << 20

// maxStyleDepth bounds basedOn chains (they may be cyclic in broken files).
const maxStyleDepth = 16

const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// Parse reads a .docx file. Errors match formats.ErrCorrupt (not a valid
// zip or XML, no word/document.xml), formats.ErrEncrypted (a password
// protected Office file), formats.ErrUnsupported (another zip or Office
// format), formats.ErrTooLarge (a part beyond MaxPartSize) or
// formats.ErrEmpty (no text).
func Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	return parse(ctx, source, data, MaxPartSize)
}

// parse is Parse with the part size limit as a parameter (tests use a
// small one).
func parse(ctx context.Context, source string, data []byte, limit int64) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "empty file")
	}
	a, err := zipx.OpenOffice(source, "DOCX", "Word", ".doc", data, limit)
	if err != nil {
		return nil, err
	}
	parts := a.Parts
	main := parts["word/document.xml"]
	if main == nil {
		return nil, formats.Errorf(source, formats.ErrUnsupported, "zip file has no word/document.xml (not a Word document)")
	}

	styles := map[string]*style{}
	if f := parts["word/styles.xml"]; f != nil {
		b, err := readPart(f, limit)
		if err != nil {
			return nil, partError(source, f.Name, err, limit)
		}
		styles, err = parseStyles(b)
		if err != nil {
			return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed word/styles.xml: %w", err)
		}
	}
	title := ""
	if f := parts["docProps/core.xml"]; f != nil {
		if b, err := readPart(f, limit); err == nil {
			title = coreTitle(b)
		}
	}
	body, err := readPart(main, limit)
	if err != nil {
		return nil, partError(source, main.Name, err, limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	blocks, pages, err := parseBody(body, styles)
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed word/document.xml: %w", err)
	}
	if len(blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "Word document has no text")
	}
	return &document.Document{
		Source: source,
		Format: formats.DOCX,
		Title:  title,
		Blocks: blocks,
		Pages:  pages,
	}, nil
}

func partError(source, name string, err error, limit int64) error {
	return zipx.PartError(source, name, err, limit)
}

func readPart(f *zip.File, limit int64) ([]byte, error) { return zipx.ReadPart(f, limit) }

// style is one paragraph style definition from styles.xml.
type style struct {
	id, name, basedOn string
	outline           int // outline level 0-9, -1 when not set
	pageBreakBefore   int // 1 on, 0 off, -1 not set
}

func isW(n xml.Name) bool { return n.Space == nsW || n.Space == nsWStrict }

func attr(e xml.StartElement, local string) (string, bool) {
	for _, a := range e.Attr {
		if a.Name.Local == local && (isW(a.Name) || a.Name.Space == "") {
			return a.Value, true
		}
	}
	return "", false
}

// onOff reads a WordprocessingML boolean property (absent w:val means on).
func onOff(e xml.StartElement) bool {
	v, ok := attr(e, "val")
	if !ok {
		return true
	}
	switch strings.ToLower(v) {
	case "0", "false", "off", "none":
		return false
	}
	return true
}

func newDecoder(b []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	// Parts declare UTF-8 or UTF-16; UTF-8 is by far the norm and the XML
	// decoder rejects other declarations without a CharsetReader.
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) { return r, nil }
	return d
}

func parseStyles(b []byte) (map[string]*style, error) {
	d := newDecoder(b)
	styles := map[string]*style{}
	var cur *style
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return styles, nil
		}
		if err != nil {
			return styles, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !isW(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "style":
				typ, _ := attr(t, "type")
				id, _ := attr(t, "styleId")
				cur = nil
				if typ == "paragraph" || typ == "" {
					cur = &style{id: id, outline: -1, pageBreakBefore: -1}
					styles[id] = cur
				}
			case "name":
				if cur != nil {
					cur.name, _ = attr(t, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn, _ = attr(t, "val")
				}
			case "outlineLvl":
				if cur != nil {
					v, _ := attr(t, "val")
					if n, err := strconv.Atoi(v); err == nil {
						cur.outline = n
					}
				}
			case "pageBreakBefore":
				if cur != nil {
					cur.pageBreakBefore = 0
					if onOff(t) {
						cur.pageBreakBefore = 1
					}
				}
			}
		case xml.EndElement:
			if isW(t.Name) && t.Name.Local == "style" {
				cur = nil
			}
		}
	}
}

// headingLevel resolves a style id to a heading level (1-9), or 0 when the
// style is not a heading.
func headingLevel(styles map[string]*style, id string) int {
	seen := 0
	for s := styles[id]; s != nil && seen < maxStyleDepth; s = styles[s.basedOn] {
		seen++
		if s.outline >= 0 {
			if s.outline <= 8 {
				return s.outline + 1
			}
			return 0 // level 9 is "body text"
		}
		for _, v := range []string{s.name, s.id} {
			if l := formats.HeadingLevel(v); l > 0 {
				return l
			}
		}
		if s.basedOn == s.id {
			break
		}
	}
	if s := styles[id]; s == nil {
		// Undefined style: the id alone may still say "Heading2".
		return formats.HeadingLevel(id)
	}
	return 0
}

func stylePageBreakBefore(styles map[string]*style, id string) bool {
	seen := 0
	for s := styles[id]; s != nil && seen < maxStyleDepth; s = styles[s.basedOn] {
		seen++
		if s.pageBreakBefore >= 0 {
			return s.pageBreakBefore == 1
		}
	}
	return false
}

func coreTitle(b []byte) string {
	d := newDecoder(b)
	in := false
	var sb strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Local == "title"
		case xml.CharData:
			if in {
				sb.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "title" {
				return strings.Join(strings.Fields(sb.String()), " ")
			}
		}
	}
	return ""
}

// para collects one paragraph while its XML is read.
type para struct {
	text            strings.Builder
	styleID         string
	outline         int // from the paragraph's own pPr, -1 when not set
	endsSection     bool
	pageBreakBefore int // -1 not set
	page            int // page the first text landed on, 0 before any
}

// cell and table collect table content.
type table struct {
	rows [][]string
	row  []string
	page int
}

// body is the state of the document.xml walk.
type body struct {
	styles    map[string]*style
	useLast   bool // lastRenderedPageBreak markers present: use only those
	page      int
	pageText  bool // something was emitted on the current page
	blocks    []document.Block
	paras     []*para  // open paragraphs (text boxes nest them)
	tables    []*table // open tables
	cellText  []string // paragraphs of the cell being read, per table depth
	inSect    bool
	sectTypes []string    // w:type of each w:sectPr, in document order
	breaks    []sectBreak // section breaks where the page was advanced
	skip      int         // depth inside elements whose text is not content
	inText    bool        // inside a w:t, whose text is content
}

// sectBreak is a page advanced at the end of section sect, before block.
type sectBreak struct{ block, sect int }

// parseBody reads document.xml's body into blocks and returns them with
// the number of pages.
func parseBody(b []byte, styles map[string]*style) ([]document.Block, int, error) {
	w := &body{styles: styles, page: 1, useLast: bytes.Contains(b, []byte("lastRenderedPageBreak"))}
	d := newDecoder(b)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			w.startElement(t)
		case xml.EndElement:
			w.endElement(t)
		case xml.CharData:
			if w.inText && w.skip == 0 {
				w.write(string(t))
			}
		}
	}
	// Close anything left open by a truncated file.
	for len(w.paras) > 0 {
		w.endPara()
	}
	for len(w.tables) > 0 {
		w.endTable()
	}
	w.fixSections()
	return w.blocks, w.page, nil
}

// startElement handles an opening tag: the text and breaks of a run, a
// paragraph and its properties, section properties, a table's parts;
// the text of deleted runs, field codes, note and comment references and
// a markup-compatibility fallback is skipped.
func (w *body) startElement(t xml.StartElement) {
	if w.skip > 0 {
		w.skip++
		return
	}
	if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
		w.skip = 1 // mc:Choice has the same content
		return
	}
	if !isW(t.Name) {
		return
	}
	switch t.Name.Local {
	case "delText", "instrText", "footnoteReference", "endnoteReference", "commentReference":
		w.skip = 1
	case "t":
		w.inText = true
	case "tab", "ptab":
		if len(w.paras) > 0 {
			w.write(" ")
		}
	case "br", "cr":
		w.lineBreak(t)
	case "noBreakHyphen":
		w.write("-")
	case "lastRenderedPageBreak":
		if w.useLast {
			w.breakPage()
		}
	case "p":
		w.paras = append(w.paras, &para{outline: -1, pageBreakBefore: -1})
	case "pStyle", "outlineLvl", "pageBreakBefore":
		w.paraProperty(t)
	case "sectPr", "type":
		w.sectionProperty(t)
	case "tbl", "tr", "tc":
		w.startTablePart(t)
	}
}

// sectionProperty handles a w:sectPr, which inside a paragraph ends a
// section, and its w:type.
func (w *body) sectionProperty(t xml.StartElement) {
	switch t.Name.Local {
	case "sectPr":
		w.sectTypes = append(w.sectTypes, "")
		w.inSect = true
		if p := w.curPara(); p != nil {
			p.endsSection = true
		}
	case "type":
		if n := len(w.sectTypes); n > 0 && w.inSect {
			v, _ := attr(t, "val")
			w.sectTypes[n-1] = v
		}
	}
}

// startTablePart opens a table, a row or a cell.
func (w *body) startTablePart(t xml.StartElement) {
	switch t.Name.Local {
	case "tbl":
		w.tables = append(w.tables, &table{page: w.page})
		w.cellText = append(w.cellText, "")
	case "tr":
		if tb := w.curTable(); tb != nil {
			tb.row = nil
		}
	case "tc":
		if n := len(w.cellText); n > 0 {
			w.cellText[n-1] = ""
		}
	}
}

// lineBreak handles a w:br or w:cr: a page break (unless the rendered
// page breaks are used instead) or a line break, read as a space; a
// column break is ignored.
func (w *body) lineBreak(t xml.StartElement) {
	typ, _ := attr(t, "type")
	if typ == "page" {
		if !w.useLast {
			w.breakPage()
		}
	} else if typ != "column" {
		w.write(" ")
	}
}

// paraProperty records a property of the open paragraph from its w:pPr:
// its style, outline level or page break before.
func (w *body) paraProperty(t xml.StartElement) {
	p := w.curPara()
	if p == nil {
		return
	}
	switch t.Name.Local {
	case "pStyle":
		p.styleID, _ = attr(t, "val")
	case "outlineLvl":
		v, _ := attr(t, "val")
		if n, err := strconv.Atoi(v); err == nil {
			p.outline = n
		}
	case "pageBreakBefore":
		p.pageBreakBefore = 0
		if onOff(t) {
			p.pageBreakBefore = 1
		}
	}
}

// endElement handles a closing tag: the end of a run's text, of section
// properties, of a paragraph, or of a table's cell, row or whole.
func (w *body) endElement(t xml.EndElement) {
	if w.skip > 0 {
		w.skip--
		return
	}
	if !isW(t.Name) {
		return
	}
	switch t.Name.Local {
	case "t":
		w.inText = false
	case "sectPr":
		w.inSect = false
	case "p":
		w.endPara()
	case "tc", "tr", "tbl":
		w.endTablePart(t)
	}
}

// endTablePart closes a cell (its text becomes the row's next cell), a
// row (kept unless all its cells are blank) or a table.
func (w *body) endTablePart(t xml.EndElement) {
	switch t.Name.Local {
	case "tc":
		if tb := w.curTable(); tb != nil {
			n := len(w.cellText)
			tb.row = append(tb.row, strings.TrimSpace(w.cellText[n-1]))
			w.cellText[n-1] = ""
		}
	case "tr":
		if tb := w.curTable(); tb != nil {
			if strings.TrimSpace(strings.Join(tb.row, "")) != "" {
				tb.rows = append(tb.rows, tb.row)
			}
			tb.row = nil
		}
	case "tbl":
		w.endTable()
	}
}

func (w *body) curPara() *para {
	if n := len(w.paras); n > 0 {
		return w.paras[n-1]
	}
	return nil
}

func (w *body) curTable() *table {
	if n := len(w.tables); n > 0 {
		return w.tables[n-1]
	}
	return nil
}

func (w *body) write(s string) {
	p := w.curPara()
	if p == nil {
		return
	}
	if p.page == 0 && strings.TrimSpace(s) != "" {
		w.startText(p)
	}
	p.text.WriteString(s)
}

// startText is called when a paragraph gets its first visible text: a
// pending pageBreakBefore takes effect here.
func (w *body) startText(p *para) {
	if !w.useLast && w.pageText && (p.pageBreakBefore == 1 || p.pageBreakBefore == -1 && stylePageBreakBefore(w.styles, p.styleID)) {
		w.breakPage()
	}
	p.page = w.page
	w.pageText = true
}

func (w *body) breakPage() {
	w.page++
	w.pageText = false
}

func (w *body) endPara() {
	n := len(w.paras)
	if n == 0 {
		return
	}
	p := w.paras[n-1]
	w.paras = w.paras[:n-1]
	text := formats.CleanText(p.text.String())
	if p.endsSection && !w.useLast {
		defer func() {
			w.breaks = append(w.breaks, sectBreak{block: len(w.blocks), sect: len(w.sectTypes) - 1})
			w.breakPage()
		}()
	}
	if text == "" {
		return
	}
	if len(w.tables) > 0 && len(w.paras) == 0 {
		// Paragraph inside a table cell.
		i := len(w.cellText) - 1
		if w.cellText[i] != "" {
			text = w.cellText[i] + " " + text
		}
		w.cellText[i] = text
		return
	}
	level := 0
	if p.outline >= 0 {
		if p.outline <= 8 {
			level = p.outline + 1
		}
	} else {
		level = headingLevel(w.styles, p.styleID)
	}
	b := document.Block{Kind: document.Paragraph, Text: text, Page: p.page}
	if level > 0 {
		b.Kind, b.Level = document.Heading, level
	}
	w.blocks = append(w.blocks, b)
}

// fixSections undoes the page advance at section breaks whose following
// section is declared continuous (or starts in the next column): the type
// of a section is only known from its own w:sectPr, which comes after the
// break.
func (w *body) fixSections() {
	for i := len(w.breaks) - 1; i >= 0; i-- {
		br := w.breaks[i]
		if br.sect+1 >= len(w.sectTypes) {
			continue
		}
		switch w.sectTypes[br.sect+1] {
		case "continuous", "nextColumn":
			for j := br.block; j < len(w.blocks); j++ {
				w.blocks[j].Page--
			}
			w.page--
		}
	}
}

func (w *body) endTable() {
	n := len(w.tables)
	tb := w.tables[n-1]
	w.tables = w.tables[:n-1]
	w.cellText = w.cellText[:len(w.cellText)-1]
	var lines []string
	for _, r := range tb.rows {
		lines = append(lines, strings.Join(r, " | "))
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		return
	}
	if n > 1 {
		// Nested table: its text becomes part of the outer cell.
		i := len(w.cellText) - 1
		w.cellText[i] = strings.TrimSpace(w.cellText[i] + " " + strings.ReplaceAll(text, "\n", " ; "))
		return
	}
	page := tb.page
	if page < w.page && !w.pageText {
		page = w.page
	}
	w.blocks = append(w.blocks, document.Block{Kind: document.Table, Text: text, Page: page})
	w.pageText = true
}
