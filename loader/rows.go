package loader

import (
	"strconv"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/textproc/tables"
)

// A table row is a retrievable unit. A financial statement flattened into
// one section ("REVENUE $ 90,155 $ 93,512 $ 83,959 OPERATING EXPENSES: …")
// competes for a question about one figure with every other section that
// states many figures, and its words ("revenue", "2023") are diluted by
// the rest of the table. Each row of such a table, read back with its
// column headers and unit (package tables: "Total revenue: 2015
// $2,490,821; 2014 $2,396,998; 2013 $2,135,539 (in thousands)"), is also a
// section of its own, of kind table-row, beside the section that holds the
// whole table: same title, heading path and pages. A question about the
// figure finds the row; the section that holds the table stays for the
// questions about it as a whole.

// rowChunk is the first chunk number of a document's row sections: a row
// is told apart from the chunks of the section it is read from (which
// share its title and page) by its chunk number, and no section has as
// many chunks.
const rowChunk = 1 << 20

// withRows returns secs (a document's sections, in order) with, after each
// body section, its row sections (rowReader.rows); turns are where each
// section's text goes on to another page.
func withRows(doc *document.Document, secs []schema.Section, turns [][]pageTurn) []schema.Section {
	var out []schema.Section
	var rr rowReader
	for i, s := range secs {
		out = append(out, s)
		out = append(out, rr.rows(doc, s, turns[i])...)
	}
	return out
}

// rowReader reads the row sections of one document's sections, in order.
type rowReader struct {
	seen map[string]bool // page and text of the rows read
	n    int             // the rows read
}

// rows returns the row sections of s when it is body text: a section for
// each headed row of the tables it holds, flattened (tables.Reader) or
// with cell separators (tables.PipeRows). A row whose values do not each
// stand under a column header says too little to stand alone; a row that
// overlapping chunks both hold, or that a table repeats on the same page,
// is read once.
func (rr *rowReader) rows(doc *document.Document, s schema.Section, turns []pageTurn) []schema.Section {
	if s.Kind != schema.KindBody {
		return nil
	}
	type found struct {
		row           tables.Row
		page, pageEnd int // of the sentence it was read from
	}
	var rows []found
	var tr tables.Reader
	cursor := 0
	for _, sent := range textproc.Sentences(s.Content) {
		// the pages of the sentence: a row of a section that runs over
		// two pages cites the page it is on
		page, pageEnd := s.Page, s.PageEnd
		if len(turns) > 0 {
			if i := strings.Index(s.Content[cursor:], sent); i >= 0 {
				off := cursor + i
				cursor = off + len(sent)
				page, pageEnd = pageAt(s.Page, turns, off), pageAt(s.Page, turns, max(off, cursor-1))
			}
		}
		for _, r := range tr.ReadRows(sent) {
			rows = append(rows, found{r, page, pageEnd})
		}
	}
	if strings.Contains(s.Content, "|") {
		for _, r := range tables.PipeRows(s.Content) {
			rows = append(rows, found{r, s.Page, s.PageEnd})
		}
	}
	var out []schema.Section
	for _, f := range rows {
		key := strconv.Itoa(f.page) + "\x00" + f.row.Text
		if !f.row.Headed || rr.seen[key] {
			continue
		}
		if rr.seen == nil {
			rr.seen = map[string]bool{}
		}
		rr.seen[key] = true
		row := s
		row.Path = append([]string(nil), s.Path...)
		row.Content = f.row.Text
		row.Kind = schema.KindTableRow
		row.Chunk = rowChunk + rr.n
		row.ID = sectionID(s.Source, "row\x1f"+s.ID, rr.n)
		row.Page, row.PageEnd = f.page, 0
		if f.pageEnd > f.page {
			row.PageEnd = f.pageEnd
		}
		labelPages(doc, &row)
		rr.n++
		out = append(out, row)
	}
	return out
}
