package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/xlsx"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/loader"
)

// sheetLoader is a loader that reads workbooks (as docmind.NewLoader's
// does).
func sheetLoader() *loader.Loader {
	return loader.New(loader.WithParser(formats.XLSX, loader.ParserFunc(xlsx.Parse)), loader.WithParser(formats.CSV, loader.ParserFunc(xlsx.ParseCSV)))
}

// writeWorkbook writes a workbook of one sheet, "Invoices": a header and
// n rows.
func writeWorkbook(t testing.TB, path string, n int) {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	f.SetSheetName("Sheet1", "Invoices")
	sw, err := f.NewStreamWriter("Invoices")
	if err != nil {
		t.Fatal(err)
	}
	sw.SetRow("A1", []any{"Invoice", "Region", "Amount"})
	for i := 1; i <= n; i++ {
		if err := sw.SetRow(fmt.Sprintf("A%d", i+1), []any{fmt.Sprintf("INV-%06d", i), []string{"EMEA", "APAC", "Americas"}[i%3], i * 37 % 10000}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
}

// A workbook or a CSV file is sectioned while read, at any size: the probe
// streams it. A sheet of a few rows gets the sections reading it whole
// gives; a long one gets every row once, in sections with ids of their
// own, and its last rows are found.
func TestWorkbookIngestedWhileRead(t *testing.T) {
	dir := t.TempDir()
	sales, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "formats", "xlsx", "testdata", "sales.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sales.xlsx"), string(sales))
	const n = 2*xlsx.PieceRows + 345
	writeWorkbook(t, filepath.Join(dir, "invoices.xlsx"), n)
	write(t, filepath.Join(dir, "prices.csv"), "SKU,Price\nX-100,4.50\nX-200,129.00\n")
	var csv strings.Builder
	csv.WriteString("Invoice;Region;Amount\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&csv, "INV-%06d;%s;%d\n", i, []string{"EMEA", "APAC", "Americas"}[i%3], i*37%10000)
	}
	write(t, filepath.Join(dir, "invoices.csv"), csv.String())

	p := LoaderParser(sheetLoader()).(StreamParser)
	for _, name := range []string{"sales.xlsx", "invoices.xlsx", "prices.csv", "invoices.csv"} {
		probe := p.NewProbe(filepath.Join(dir, name))
		data, _ := os.ReadFile(filepath.Join(dir, name))
		for b := bytes.NewReader(data); b.Len() > 0; { // in pieces, as a file is read
			chunk := make([]byte, 7)
			k, _ := b.Read(chunk)
			probe.Write(chunk[:k])
		}
		if probe.Stream() == nil {
			t.Errorf("%s: the probe does not stream a workbook", name)
		}
		if streamAbove(DefaultStreamAbove, name) > int64(len(data)) {
			t.Errorf("%s (%d bytes) is not probed", name, len(data))
		}
	}

	ctx := context.Background()
	ingestWith := func(streamAbove int64) *index.Index {
		ix := openIndex(t, filepath.Join(t.TempDir(), index.FileName))
		sum, err := Run(ctx, ix, []string{dir}, Options{Parser: LoaderParser(sheetLoader()), StreamAbove: streamAbove})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Skipped > 0 || sum.Indexed != 4 {
			t.Fatalf("summary %+v", sum)
		}
		return ix
	}
	streamed, whole := ingestWith(0), ingestWith(-1)
	for _, name := range []string{"sales.xlsx", "prices.csv"} {
		s1, _ := streamed.Sections(ctx, filepath.Join(dir, name))
		s2, _ := whole.Sections(ctx, filepath.Join(dir, name))
		if len(s1) == 0 || !reflect.DeepEqual(s1, s2) {
			t.Errorf("%s: %d sections streamed, %d whole, or they differ", name, len(s1), len(s2))
		}
	}
	for _, name := range []string{"invoices.xlsx", "invoices.csv"} {
		path := filepath.Join(dir, name)
		doc, _, err := streamed.Document(ctx, path)
		if err != nil || doc.Format != map[bool]string{true: formats.XLSX, false: formats.CSV}[strings.HasSuffix(name, ".xlsx")] {
			t.Errorf("%s: %+v %v", name, doc, err)
		}
		secs, err := streamed.Sections(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		ids, chunks, rows := map[string]bool{}, map[int]bool{}, map[string]bool{}
		for _, s := range secs {
			if ids[s.ID] || chunks[s.Chunk] || s.Title != secs[0].Title {
				t.Fatalf("%s: section %s (chunk %d, %q) repeats an id or chunk, or is misplaced", name, s.ID, s.Chunk, s.Title)
			}
			ids[s.ID], chunks[s.Chunk] = true, true
			for _, line := range strings.Split(s.Content, "\n") { // chunks overlap
				if strings.HasPrefix(line, "Invoice: INV-") {
					rows[line] = true
				}
			}
		}
		if len(rows) != n {
			t.Errorf("%s: %d rows in the sections, want %d", name, len(rows), n)
		}
	}
	hits, err := streamed.Search(ctx, fmt.Sprintf("INV-%06d", n), 3)
	found := map[string]bool{}
	for _, h := range hits {
		if strings.Contains(h.Section.Content, fmt.Sprintf("Invoice: INV-%06d; Region: ", n)) {
			found[filepath.Base(h.Section.Source)] = true
		}
	}
	if err != nil || !found["invoices.xlsx"] || !found["invoices.csv"] {
		t.Errorf("the last row is not found in both: %v, found in %v", err, found)
	}
	// Unchanged, it is not read again.
	sum, err := Run(ctx, streamed, []string{dir}, Options{Parser: LoaderParser(sheetLoader())})
	if err != nil || sum.Unchanged != 4 {
		t.Errorf("again: %+v %v", sum, err)
	}
}
