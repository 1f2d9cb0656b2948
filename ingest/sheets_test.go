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
	return loader.New(loader.WithParser(formats.XLSX, loader.ParserFunc(xlsx.Parse)))
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

// A workbook is sectioned while read, at any size: the probe streams it.
// A sheet of a few rows gets the sections reading it whole gives; a long
// one gets every row once, in sections with ids of their own, and its
// last rows are found.
func TestWorkbookIngestedWhileRead(t *testing.T) {
	dir := t.TempDir()
	sales, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "formats", "xlsx", "testdata", "sales.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sales.xlsx"), string(sales))
	const n = 2*xlsx.PieceRows + 345
	writeWorkbook(t, filepath.Join(dir, "invoices.xlsx"), n)

	p := LoaderParser(sheetLoader()).(StreamParser)
	for _, name := range []string{"sales.xlsx", "invoices.xlsx"} {
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
		if sum.Skipped > 0 || sum.Indexed != 2 {
			t.Fatalf("summary %+v", sum)
		}
		return ix
	}
	streamed, whole := ingestWith(0), ingestWith(-1)
	sales1, _ := streamed.Sections(ctx, filepath.Join(dir, "sales.xlsx"))
	sales2, _ := whole.Sections(ctx, filepath.Join(dir, "sales.xlsx"))
	if len(sales1) == 0 || !reflect.DeepEqual(sales1, sales2) {
		t.Errorf("sales.xlsx: %d sections streamed, %d whole, or they differ", len(sales1), len(sales2))
	}
	doc, _, err := streamed.Document(ctx, filepath.Join(dir, "invoices.xlsx"))
	if err != nil || doc.Format != formats.XLSX || doc.Pages != 1 || doc.Title != "Invoices" {
		t.Errorf("invoices.xlsx: %+v %v", doc, err)
	}
	secs, err := streamed.Sections(ctx, filepath.Join(dir, "invoices.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	ids, chunks, rows := map[string]bool{}, map[int]bool{}, map[string]bool{}
	for _, s := range secs {
		if ids[s.ID] || chunks[s.Chunk] || s.Title != "Invoices" || s.Page != 1 {
			t.Fatalf("section %s (chunk %d, %q, page %d) repeats an id or chunk, or is misplaced", s.ID, s.Chunk, s.Title, s.Page)
		}
		ids[s.ID], chunks[s.Chunk] = true, true
		for _, line := range strings.Split(s.Content, "\n") { // chunks overlap
			if strings.HasPrefix(line, "Invoice: INV-") {
				rows[line] = true
			}
		}
	}
	if len(rows) != n {
		t.Errorf("%d rows in the sections, want %d", len(rows), n)
	}
	hits, err := streamed.Search(ctx, fmt.Sprintf("INV-%06d", n), 3)
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Section.Content, fmt.Sprintf("Invoice: INV-%06d; Region: ", n)) {
		t.Errorf("the last row is not found: %v %+v", err, hits)
	}
	// Unchanged, it is not read again.
	sum, err := Run(ctx, streamed, []string{dir}, Options{Parser: LoaderParser(sheetLoader())})
	if err != nil || sum.Unchanged != 2 {
		t.Errorf("again: %+v %v", sum, err)
	}
}
