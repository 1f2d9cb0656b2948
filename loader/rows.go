package loader

import (
	"strconv"
	"strings"

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
// body section, its row sections (rowReader.rows).
func withRows(secs []schema.Section) []schema.Section {
	var out []schema.Section
	var rr rowReader
	for _, s := range secs {
		out = append(out, s)
		out = append(out, rr.rows(s)...)
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
func (rr *rowReader) rows(s schema.Section) []schema.Section {
	if s.Kind != schema.KindBody {
		return nil
	}
	var found []tables.Row
	var tr tables.Reader
	for _, sent := range textproc.Sentences(s.Content) {
		found = append(found, tr.ReadRows(sent)...)
	}
	if strings.Contains(s.Content, "|") {
		found = append(found, tables.PipeRows(s.Content)...)
	}
	var out []schema.Section
	for _, r := range found {
		key := strconv.Itoa(s.Page) + "\x00" + r.Text
		if !r.Headed || rr.seen[key] {
			continue
		}
		if rr.seen == nil {
			rr.seen = map[string]bool{}
		}
		rr.seen[key] = true
		row := s
		row.Path = append([]string(nil), s.Path...)
		row.Content = r.Text
		row.Kind = schema.KindTableRow
		row.Chunk = rowChunk + rr.n
		row.ID = sectionID(s.Source, "row\x1f"+s.ID, rr.n)
		rr.n++
		out = append(out, row)
	}
	return out
}
