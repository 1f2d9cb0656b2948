package doc

import (
	"strings"
	"unicode"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// builder turns paragraphs with their properties into blocks, keeping
// track of pages and open tables.
type builder struct {
	d        *decoder
	page     int
	pageText bool // something was emitted on the current page
	blocks   []document.Block
	table    *table // open top-level table
}

// table collects the rows of a table; inner is a nested table being read
// inside the current cell.
type table struct {
	rows  [][]string
	row   []string
	cell  []string // paragraphs of the cell being read
	inner *table
	page  int
}

// paragraph handles one paragraph of the main text.
func (b *builder) paragraph(p *rawPara) {
	props := b.d.props(p.fc)
	text, page := b.text(p, b.pageBreakBefore(props))
	depth := 0
	if props.inTable || props.itap > 0 {
		depth = max(props.itap, 1)
	}
	if depth == 0 {
		b.endTable()
		if text != "" {
			blk := document.Block{Kind: document.Paragraph, Text: text, Page: page}
			if level := b.headingLevel(props); level > 0 {
				blk.Kind, blk.Level = document.Heading, level
			}
			b.blocks = append(b.blocks, blk)
		}
	} else {
		b.tableParagraph(p, props, depth, text, page)
	}
	if p.term == 0x0C && b.sectionStartsPage(p.sect+1) {
		b.breakPage()
	}
}

// tableParagraph adds a paragraph of depth 1 (a cell of the top-level
// table) or more (a nested table) to the open table.
func (b *builder) tableParagraph(p *rawPara, props paraProps, depth int, text string, page int) {
	t := b.table
	if t == nil {
		t = &table{}
		b.table = t
	}
	if t.page == 0 && text != "" {
		t.page = page
	}
	if depth == 1 {
		t.flushInner()
		switch {
		case p.term == 0x07 && props.ttp: // row end mark
			t.addText(text)
			t.endRow()
		case p.term == 0x07: // cell end mark
			t.addText(text)
			t.endCell()
		default: // a paragraph inside a cell
			t.addText(text)
		}
		return
	}
	if t.inner == nil {
		t.inner = &table{}
	}
	in := t.inner
	switch {
	case props.innerTtp:
		in.addText(text)
		in.endRow()
	case props.innerCell:
		in.addText(text)
		in.endCell()
	default:
		in.addText(text)
	}
}

func (t *table) addText(s string) {
	if s != "" {
		t.cell = append(t.cell, s)
	}
}

func (t *table) endCell() {
	t.row = append(t.row, strings.Join(t.cell, " "))
	t.cell = nil
}

func (t *table) endRow() {
	if len(t.cell) > 0 {
		t.endCell()
	}
	if strings.TrimSpace(strings.Join(t.row, "")) != "" {
		t.rows = append(t.rows, t.row)
	}
	t.row = nil
}

// lines returns the table's rows, cells joined by " | ".
func (t *table) lines() []string {
	if len(t.row) > 0 || len(t.cell) > 0 {
		t.endRow()
	}
	var lines []string
	for _, r := range t.rows {
		lines = append(lines, strings.Join(r, " | "))
	}
	return lines
}

// flushInner folds a finished nested table into the current cell.
func (t *table) flushInner() {
	if t.inner == nil {
		return
	}
	t.addText(strings.Join(t.inner.lines(), " ; "))
	t.inner = nil
}

// endTable emits the open table, if any.
func (b *builder) endTable() {
	t := b.table
	if t == nil {
		return
	}
	b.table = nil
	t.flushInner()
	text := strings.Join(t.lines(), "\n")
	if text == "" {
		return
	}
	page := t.page
	if page == 0 {
		page = b.page
	}
	b.blocks = append(b.blocks, document.Block{Kind: document.Table, Text: text, Page: page})
	b.pageText = true
}

// text returns the paragraph's cleaned text and the page its first
// visible character lands on (0 when it has none), advancing pages at
// its page breaks; pageBreakBefore takes effect at the first visible
// character when the page already has text.
func (b *builder) text(p *rawPara, pageBreakBefore bool) (string, int) {
	var sb strings.Builder
	page := 0
	for _, r := range p.text {
		if r == pageBreak {
			b.breakPage()
			sb.WriteByte(' ')
			continue
		}
		if !unicode.IsSpace(r) {
			if page == 0 {
				if pageBreakBefore && b.pageText {
					b.breakPage()
				}
				page = b.page
			}
			b.pageText = true
		}
		sb.WriteRune(r)
	}
	return formats.CleanText(sb.String()), page
}

func (b *builder) breakPage() {
	b.page++
	b.pageText = false
}

// sectionStartsPage reports whether section i begins on a new page (its
// break code is not "continuous" or "new column"); without section
// information every section break starts a page.
func (b *builder) sectionStartsPage(i int) bool {
	if i < len(b.d.sections) {
		return b.d.sections[i].bkc >= 2
	}
	return true
}

// style returns the style of index istd, nil when there is none.
func (b *builder) style(istd int) *style {
	if istd >= 0 && istd < len(b.d.styles) {
		return &b.d.styles[istd]
	}
	return nil
}

// pageBreakBefore resolves "page break before" from the paragraph, then
// its style chain.
func (b *builder) pageBreakBefore(p paraProps) bool {
	if p.pageBreakBefore >= 0 {
		return p.pageBreakBefore == 1
	}
	s := b.style(p.istd)
	for seen := 0; s != nil && seen < maxStyleDepth; seen++ {
		if s.pageBreakBefore >= 0 {
			return s.pageBreakBefore == 1
		}
		s = b.style(s.base)
	}
	return false
}

// headingLevel resolves a paragraph's heading level (1-9), 0 when it is
// not a heading: its own outline level, else its style chain's (outline
// level, built-in heading or Title, or a heading name).
func (b *builder) headingLevel(p paraProps) int {
	if p.outline >= 0 {
		return outlineLevel(p.outline)
	}
	s := b.style(p.istd)
	for seen := 0; s != nil && seen < maxStyleDepth; seen++ {
		if s.outline >= 0 {
			return outlineLevel(s.outline)
		}
		if s.sti >= stiHeading1 && s.sti <= stiHeading9 {
			return s.sti
		}
		if s.sti == stiTitle {
			return 1
		}
		// a heading name (user styles copied from localized documents
		// keep such names)
		if l := formats.HeadingLevel(s.name); l > 0 {
			return l
		}
		s = b.style(s.base)
	}
	return 0
}

// outlineLevel maps an outline level to a heading level: 0-8 are levels
// 1-9, 9 is body text.
func outlineLevel(l int) int {
	if l <= 8 {
		return l + 1
	}
	return 0
}
