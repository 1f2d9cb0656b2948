package loader

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/html"
	"github.com/docmind/docmind/schema"
)

// A statement of income flattened into one paragraph (as the PDF reader
// gives FedEx's) yields, beside the section that holds it, one section of
// kind table-row per headed row: the row with its column headers and
// unit, under the section's title, citing the page the row is on. Prose
// gives none, a row that two overlapping chunks hold is one section, and
// NoTableRows turns them off.
func TestTableRowSections(t *testing.T) {
	table := "CONSOLIDATED STATEMENTS OF INCOME (IN MILLIONS, EXCEPT PER SHARE AMOUNTS) Years ended May 31, 2023 2022 2021 " +
		"REVENUE $ 90,155 $ 93,512 $ 83,959 Salaries and employee benefits 31,019 32,058 30,173 Purchased transportation 21,790 24,118 21,674 " +
		"OPERATING INCOME 4,912 6,245 5,857 NET INCOME $ 3,972 $ 3,826 $ 5,231"
	doc := &document.Document{Source: "fedex.pdf", Format: formats.PDF, Pages: 3, Blocks: []document.Block{
		{Kind: document.Heading, Level: 1, Text: "Financial Statements", Page: 2},
		{Kind: document.Paragraph, Text: "Revenue fell 4% in fiscal 2023, to $90.2 billion, as volumes declined in 2023 and 2022 across 3 segments.", Page: 2},
		{Kind: document.Paragraph, Text: table, Page: 3},
	}}
	secs := Sections(doc, SectionOptions{})
	var rows []schema.Section
	keys := map[string]bool{}
	ids := map[string]bool{}
	for _, s := range secs {
		if keys[s.Key()] || ids[s.ID] {
			t.Errorf("section %q repeats a key or ID", s.Content)
		}
		keys[s.Key()], ids[s.ID] = true, true
		if s.Kind == schema.KindTableRow {
			rows = append(rows, s)
		}
	}
	want := []string{
		"REVENUE: 2023 $90,155; 2022 $93,512; 2021 $83,959 (in millions)",
		"Salaries and employee benefits: 2023 31,019; 2022 32,058; 2021 30,173 (in millions)",
		"Purchased transportation: 2023 21,790; 2022 24,118; 2021 21,674 (in millions)",
		"OPERATING INCOME: 2023 4,912; 2022 6,245; 2021 5,857 (in millions)",
		"NET INCOME: 2023 $3,972; 2022 $3,826; 2021 $5,231 (in millions)",
	}
	if len(rows) != len(want) {
		var got []string
		for _, r := range rows {
			got = append(got, r.Content)
		}
		t.Fatalf("row sections:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	// a row cites the page it is on: the section runs over pages 2–3,
	// its table is on page 3
	for i, r := range rows {
		if r.Content != want[i] || r.Title != "Financial Statements" || r.Page != 3 || r.PageEnd != 0 || r.Source != "fedex.pdf" {
			t.Errorf("row %d = %q (%q, pages %d–%d), want %q on page 3", i, r.Content, r.Title, r.Page, r.PageEnd, want[i])
		}
	}
	// the same when the section is packed into chunks
	for _, s := range Sections(doc, SectionOptions{ChunkSize: 400, Overlap: 0}) {
		if s.Kind == schema.KindTableRow && (s.Page != 3 || s.PageEnd != 0) {
			t.Errorf("chunked: row %q on pages %d–%d, want 3", s.Content, s.Page, s.PageEnd)
		}
	}
	// and when a paged text file is read as a stream: the rows the stream
	// gives are those of the whole file, on the table's page
	paged := "Financial Statements\n\n" + doc.Blocks[1].Text + "\n\f" + table + "\n"
	checkStreamMatches(t, "paged-table.txt", []byte(paged))
	got, _, err := streamed("paged-table.txt", []byte(paged), SectionOptions{}, func(r io.Reader) io.Reader { return r })
	if err != nil {
		t.Fatal(err)
	}
	streamedRows := 0
	for _, s := range got {
		if s.Kind == schema.KindTableRow {
			streamedRows++
			if s.Page != 2 || s.PageEnd != 0 {
				t.Errorf("text file: row %q on pages %d–%d, want 2", s.Content, s.Page, s.PageEnd)
			}
		}
	}
	if streamedRows != len(want) {
		t.Errorf("text file: %d rows, want %d", streamedRows, len(want))
	}
	// overlapping chunks of one long table: each row once
	long := document.Block{Kind: document.Paragraph, Text: strings.Repeat(table+" ", 8), Page: 3}
	doc.Blocks = []document.Block{doc.Blocks[0], long}
	n := 0
	for _, s := range Sections(doc, SectionOptions{ChunkSize: 400, Overlap: 150}) {
		if s.Kind == schema.KindTableRow {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("%d row sections from overlapping chunks of a repeated table, want %d", n, len(want))
	}
	// a table on page 3 and again on page 4, in overlapping chunks that
	// start on either page: each row once on each page, citing it
	p4 := long
	p4.Page = 4
	doc.Blocks = []document.Block{doc.Blocks[0], long, p4}
	onPage := map[int]int{}
	for _, s := range Sections(doc, SectionOptions{ChunkSize: 400, Overlap: 150}) {
		if s.Kind == schema.KindTableRow {
			onPage[s.Page]++
			if s.PageEnd != 0 {
				t.Errorf("row %q cites pages %d–%d, want one page", s.Content, s.Page, s.PageEnd)
			}
		}
	}
	if onPage[3] != len(want) || onPage[4] != len(want) || len(onPage) != 2 {
		t.Errorf("rows by page %v, want %d on each of pages 3 and 4", onPage, len(want))
	}
	doc.Blocks = []document.Block{doc.Blocks[0], long}
	for _, s := range Sections(doc, SectionOptions{NoTableRows: true}) {
		if s.Kind == schema.KindTableRow {
			t.Fatalf("NoTableRows: a row section %q", s.Content)
		}
	}
}

// Tables with cells give row sections too, through the real readers: an
// HTML filing's statement (spacer and "$" cells) and a Markdown table,
// which is read as a stream.
func TestTableRowSectionsFromCells(t *testing.T) {
	dir := t.TempDir()
	page := `<html><body><h2>Consolidated Statements of Operations</h2>
<p>(in thousands, except per share amounts)</p>
<table>
<tr><td></td><td colspan="3">Year Ended December 31,</td></tr>
<tr><td></td><td>2015</td><td></td><td>2014</td></tr>
<tr><td>Total revenue</td><td>$</td><td>2,490,821</td><td></td><td>$</td><td>2,396,998</td></tr>
<tr><td>Net income</td><td></td><td>648,748</td><td></td><td></td><td>499,129</td></tr>
</table></body></html>`
	md := "# Results\n\nRevenue grew in 2022.\n\n| In millions | 2022 | 2021 |\n|---|---|---|\n| Revenue | $ 1,645 | $ 1,582 |\n| Net income | 812 | 790 |\n"
	for name, body := range map[string]string{"ops.html": page, "results.md": md} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := New(WithParser(formats.HTML, ParserFunc(html.Parse)))
	want := map[string][]string{
		"ops.html": {
			"Total revenue: 2015 $2,490,821; 2014 $2,396,998 (in thousands)",
			"Net income: 2015 648,748; 2014 499,129 (in thousands)",
		},
		"results.md": {
			"Revenue: 2022 $1,645; 2021 $1,582 (in millions)",
			"Net income: 2022 812; 2021 790 (in millions)",
		},
	}
	for name, rows := range want {
		secs, err := l.LoadFile(context.Background(), filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range secs {
			if s.Kind == schema.KindTableRow {
				got = append(got, s.Content)
			}
		}
		if !reflect.DeepEqual(got, rows) {
			t.Errorf("%s: row sections %q, want %q", name, got, rows)
		}
	}
}
