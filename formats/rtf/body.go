package rtf

import (
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// body builds the blocks from the document text and its structure
// (paragraph, cell and row ends, page and section breaks).
type body struct {
	blocks   []document.Block
	text     strings.Builder // the open paragraph
	textPage int             // page its first visible text landed on, 0 before any
	page     int
	pageText bool // something was emitted on the current page
	// sectBreak is set at \sect: whether the next section starts a new
	// page (sbkPage) is only known from the properties that follow.
	sectBreak bool
	sbkPage   bool
	table     *table  // the open table
	stories   []story // text boxes being read, innermost last
}

// table collects a table's rows while they are read.
type table struct {
	rows       [][]string
	row        []string
	cell       []string // paragraphs of the cell being read
	lastNested bool     // the cell's last part is a nested table's row
	nestRow    []string // cells of the nested row being read
	nestCell   []string // paragraphs of the nested cell being read
	page       int
}

// story is the paragraph and table interrupted by a text box.
type story struct {
	depth    int // group depth of the \shptxt group
	text     string
	textPage int
	table    *table
}

func (b *body) write(s string, pp paraProps) {
	if b.textPage == 0 && strings.TrimSpace(s) != "" {
		b.startText(pp)
	}
	b.text.WriteString(s)
}

// startText is called when a paragraph gets its first visible text:
// a pending section break or page break before takes effect here.
func (b *body) startText(pp paraProps) {
	if b.sectBreak {
		b.sectBreak = false
		if b.sbkPage && b.pageText {
			b.breakPage()
		}
	}
	if pp.pagebb && b.pageText {
		b.breakPage()
	}
	b.textPage = b.page
	b.pageText = true
}

func (b *body) breakPage() {
	b.page++
	b.pageText = false
}

// take ends the open paragraph and returns its text and page.
func (b *body) take() (string, int) {
	text, page := formats.CleanText(b.text.String()), b.textPage
	b.text.Reset()
	b.textPage = 0
	if page == 0 {
		page = b.page
	}
	return text, page
}

// endPara ends a paragraph with properties pp: a heading of the given
// level (0: a plain paragraph), or a part of a table cell.
func (b *body) endPara(pp paraProps, level int) {
	text, page := b.take()
	if pp.intbl {
		if text != "" {
			tb := b.openTable(page)
			if pp.itap >= 2 {
				tb.nestCell = append(tb.nestCell, text)
			} else {
				tb.addPara(text)
			}
		}
		return
	}
	b.closeTable()
	if text == "" {
		return
	}
	blk := document.Block{Kind: document.Paragraph, Text: text, Page: page}
	if level > 0 {
		blk.Kind, blk.Level = document.Heading, level
	}
	b.blocks = append(b.blocks, blk)
}

func (b *body) openTable(page int) *table {
	if b.table == nil {
		b.table = &table{}
	}
	if b.table.page == 0 {
		b.table.page = page
	}
	return b.table
}

// cell handles \cell (or \nestcell, nested): the open paragraph ends the
// cell.
func (b *body) cell(nested bool) {
	text, page := b.take()
	tb := b.openTable(0)
	if tb.page == 0 && text != "" {
		tb.page = page
	}
	if nested {
		if text != "" {
			tb.nestCell = append(tb.nestCell, text)
		}
		tb.endNestCell()
		return
	}
	if text != "" {
		tb.addPara(text)
	}
	tb.endCell()
}

// row handles \row (or \nestrow, nested).
func (b *body) row(nested bool) {
	tb := b.table
	if tb == nil {
		return
	}
	if nested {
		tb.endNestRow()
		return
	}
	if text, _ := b.take(); text != "" {
		tb.addPara(text) // text after the last \cell
	}
	if len(tb.cell) > 0 {
		tb.endCell()
	}
	tb.endRow()
}

// closeTable emits the open table as one block.
func (b *body) closeTable() {
	tb := b.table
	if tb == nil {
		return
	}
	b.table = nil
	if len(tb.cell) > 0 || len(tb.nestCell) > 0 || len(tb.nestRow) > 0 {
		tb.endCell()
	}
	if len(tb.row) > 0 {
		tb.endRow()
	}
	lines := make([]string, 0, len(tb.rows))
	for _, r := range tb.rows {
		lines = append(lines, strings.Join(r, " | "))
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		return
	}
	page := tb.page
	if page == 0 {
		page = b.page
	}
	b.blocks = append(b.blocks, document.Block{Kind: document.Table, Text: text, Page: page})
}

func (t *table) addPara(text string) {
	t.cell = append(t.cell, text)
	t.lastNested = false
}

func (t *table) endNestCell() {
	t.nestRow = append(t.nestRow, strings.Join(t.nestCell, " "))
	t.nestCell = nil
}

// endNestRow flattens a nested table's row into the outer cell: its cells
// joined by " | ", and consecutive rows by " ; ".
func (t *table) endNestRow() {
	if len(t.nestCell) > 0 {
		t.endNestCell()
	}
	text := strings.Join(t.nestRow, " | ")
	t.nestRow = nil
	if strings.Trim(text, " |") == "" {
		return
	}
	if n := len(t.cell); n > 0 && t.lastNested {
		t.cell[n-1] += " ; " + text
	} else {
		t.cell = append(t.cell, text)
	}
	t.lastNested = true
}

func (t *table) endCell() {
	if len(t.nestCell) > 0 || len(t.nestRow) > 0 {
		t.endNestRow()
	}
	t.row = append(t.row, strings.Join(t.cell, " "))
	t.cell = nil
	t.lastNested = false
}

// endRow keeps the row unless all its cells are blank.
func (t *table) endRow() {
	if strings.Join(t.row, "") != "" {
		t.rows = append(t.rows, t.row)
	}
	t.row = nil
}

// startStory sets the open paragraph and table aside while a text box
// (the \shptxt group at the given depth) is read.
func (b *body) startStory(depth int) {
	b.stories = append(b.stories, story{depth: depth, text: b.text.String(), textPage: b.textPage, table: b.table})
	b.text.Reset()
	b.textPage = 0
	b.table = nil
}

// endStory ends the text box's last paragraph (with properties pp and
// heading level) and table, and gets back to what it interrupted.
func (b *body) endStory(pp paraProps, level int) {
	b.endPara(pp, level)
	b.closeTable()
	n := len(b.stories)
	s := b.stories[n-1]
	b.stories = b.stories[:n-1]
	b.text.Reset()
	b.text.WriteString(s.text)
	b.textPage = s.textPage
	b.table = s.table
}
