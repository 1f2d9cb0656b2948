package loader

import (
	"strconv"

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
// body section, the headed rows of the tables it holds (tables.Row.Headed:
// a row whose values do not each stand under a column header says too
// little to stand alone). A row that overlapping chunks both hold, or
// that a table repeats on the same page, is added once.
func withRows(secs []schema.Section) []schema.Section {
	var out []schema.Section
	seen := map[string]bool{}
	n := 0
	for _, s := range secs {
		out = append(out, s)
		if s.Kind != schema.KindBody {
			continue
		}
		var tr tables.Reader
		for _, sent := range textproc.Sentences(s.Content) {
			for _, r := range tr.ReadRows(sent) {
				key := strconv.Itoa(s.Page) + "\x00" + r.Text
				if !r.Headed || seen[key] {
					continue
				}
				seen[key] = true
				row := s
				row.Path = append([]string(nil), s.Path...)
				row.Content = r.Text
				row.Kind = schema.KindTableRow
				row.Chunk = rowChunk + n
				row.ID = sectionID(s.Source, "row\x1f"+s.ID, n)
				n++
				out = append(out, row)
			}
		}
	}
	return out
}
