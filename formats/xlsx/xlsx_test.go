package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

func TestParseWorkbook(t *testing.T) {
	doc, err := Parse(context.Background(), "sales.xlsx", fixture.Local(t, "sales.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != formats.XLSX || doc.Title != "Regional sales 2024" || doc.Pages != 3 {
		t.Errorf("format %q title %q pages %d", doc.Format, doc.Title, doc.Pages)
	}
	want := []document.Block{
		{Kind: document.Heading, Level: 1, Text: "Sales", Page: 1},
		{Kind: document.Table, Page: 1, Text: "Region: EMEA; Q2 2024: 1,102; Q3 2024: 1,204; Owner: Ines Duarte\n" +
			"Region: APAC; Q2 2024: 877; Q3 2024: 912; Owner: Kenji Mori\n" +
			"Region: Americas; Q2 2024: 1,530; Owner: Ruth Okafor\n" +
			"Region: Total; Q2 2024: 3,509; Q3 2024: 2,116"},
		{Kind: document.Heading, Level: 1, Text: "Prices", Page: 2},
		{Kind: document.Table, Page: 2, Text: "SKU: X-100; Item: Cable, 2 m; C: in stock; Unit price: 4.50\n" +
			"SKU: X-200; Item: Dock \"Pro\"; Unit price: 129.00"},
	}
	if len(doc.Blocks) != len(want) {
		t.Fatalf("got %d blocks, want %d: %+v", len(doc.Blocks), len(want), doc.Blocks)
	}
	for i := range want {
		if doc.Blocks[i] != want[i] {
			t.Errorf("block %d:\n got %+v\nwant %+v", i, doc.Blocks[i], want[i])
		}
	}
}

func TestParseCSV(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"a.csv", "Region,Q3 2024\nEMEA,\"1,204\"\n\nAPAC,912,extra\n"},
		{"a.csv", "\uFEFFRegion;Q3 2024\nEMEA;1,204\nAPAC;912;extra\n"},
		{"a.tsv", "Region\tQ3 2024\nEMEA\t1,204\nAPAC\t912\textra\n"},
	} {
		doc, err := ParseCSV(context.Background(), tc.name, []byte(tc.data))
		if err != nil {
			t.Fatalf("%q: %v", tc.data, err)
		}
		want := "Region: EMEA; Q3 2024: 1,204\nRegion: APAC; Q3 2024: 912; C: extra"
		if len(doc.Blocks) != 1 || doc.Blocks[0].Text != want || doc.Blocks[0].Kind != document.Table {
			t.Errorf("%q: got %+v, want %q", tc.data, doc.Blocks, want)
		}
	}
}

func TestRowsInBlocks(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("n,square\n")
	for i := 1; i <= 2*RowsPerBlock+1; i++ {
		fmt.Fprintf(&sb, "%d,%d\n", i, i*i)
	}
	doc, err := ParseCSV(context.Background(), "n.csv", []byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Blocks) != 3 {
		t.Fatalf("%d blocks, want 3", len(doc.Blocks))
	}
	last := doc.Blocks[2].Text
	if want := fmt.Sprintf("n: %d; square: %d", 2*RowsPerBlock+1, (2*RowsPerBlock+1)*(2*RowsPerBlock+1)); last != want {
		t.Errorf("last block %q, want %q", last, want)
	}
}

func TestBadWorkbooks(t *testing.T) {
	ctx := context.Background()
	good := fixture.Local(t, "sales.xlsx")
	empty := excelize.NewFile()
	var eb bytes.Buffer
	if err := empty.Write(&eb); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		kind error
	}{
		{"truncated", good[:len(good)/2], formats.ErrCorrupt},
		{"not zip", []byte("PK\x03\x04 not really a zip"), formats.ErrCorrupt},
		{"ole", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1 rest"), formats.ErrUnsupported},
		{"encrypted", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o\x00"), formats.ErrEncrypted},
		{"empty workbook", eb.Bytes(), formats.ErrEmpty},
		{"bomb", bomb(t, "xl/worksheets/sheet1.xml", MaxPartSize+1), formats.ErrTooLarge},
		{"no workbook", bomb(t, "word/document.xml", 10), formats.ErrUnsupported},
	} {
		_, err := Parse(ctx, "x.xlsx", tc.data)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.kind)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", tc.name, err)
		}
	}
}

// bomb is a zip with one entry whose header claims size bytes.
func bomb(t *testing.T, name string, size uint64) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, UncompressedSize64: size, CompressedSize64: 1})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("x"))
	zw.Close()
	return b.Bytes()
}

func TestColumnName(t *testing.T) {
	for n, want := range map[int]string{1: "A", 26: "Z", 27: "AA", 52: "AZ", 703: "AAA"} {
		if got := ColumnName(n); got != want {
			t.Errorf("ColumnName(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(fixture.Local(f, "sales.xlsx"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(context.Background(), "f.xlsx", data)
		if err == nil && len(doc.Blocks) == 0 {
			t.Fatal("no error and no blocks")
		}
	})
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,\"2\"\"\n"))
	f.Add([]byte("a;b\n\"x\ny\";2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseCSV(context.Background(), "f.csv", data)
		if err == nil && len(doc.Blocks) == 0 {
			t.Fatal("no error and no blocks")
		}
	})
}

// bigWorkbook is a workbook of two sheets: "Big" with a header and n
// rows, then "Small" with a header and one row.
func bigWorkbook(t *testing.T, n int) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	f.SetSheetName("Sheet1", "Big")
	sw, err := f.NewStreamWriter("Big")
	if err != nil {
		t.Fatal(err)
	}
	sw.SetRow("A1", []any{"Invoice", "Amount"})
	for i := 2; i <= n+1; i++ {
		if err := sw.SetRow(fmt.Sprintf("A%d", i), []any{fmt.Sprintf("INV-%05d", i-1), i * 7}); err != nil {
			t.Fatal(err)
		}
	}
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.NewSheet("Small")
	f.SetSheetRow("Small", "A1", &[]any{"Item", "Price"})
	f.SetSheetRow("Small", "A2", &[]any{"Cable", "4.50"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Stream hands a large sheet on in pieces of at most PieceRows rows as
// they are read, each with the sheet's heading; put together they are
// the document Parse reads.
func TestStreamPieces(t *testing.T) {
	const n = 2*PieceRows + 150
	data := bigWorkbook(t, n)
	var pieces []*document.Document
	pages, err := Stream(context.Background(), "big.xlsx", data, func(p *document.Document) error {
		pieces = append(pieces, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages != 2 || len(pieces) != 4 {
		t.Fatalf("%d pages, %d pieces; want 2 pages, 4 pieces (3 of Big, 1 of Small)", pages, len(pieces))
	}
	rows := 0
	for i, p := range pieces {
		if p.Format != formats.XLSX || p.Source != "big.xlsx" || len(p.Blocks) < 2 || p.Blocks[0].Kind != document.Heading {
			t.Fatalf("piece %d: %+v", i, p)
		}
		k := 0
		for _, b := range p.Blocks[1:] {
			k += strings.Count(b.Text, "\n") + 1
			if b.Page != p.Blocks[0].Page {
				t.Errorf("piece %d: block on page %d under the heading of page %d", i, b.Page, p.Blocks[0].Page)
			}
		}
		if k > PieceRows {
			t.Errorf("piece %d holds %d rows, above %d", i, k, PieceRows)
		}
		if i < 3 {
			rows += k
		}
	}
	if rows != n || pieces[3].Blocks[0].Text != "Small" || pieces[3].Blocks[1].Text != "Item: Cable; Price: 4.50" {
		t.Errorf("Big has %d rows in its pieces, want %d; last piece %+v", rows, n, pieces[3].Blocks)
	}
	doc, err := Parse(context.Background(), "big.xlsx", data)
	if err != nil {
		t.Fatal(err)
	}
	var joined []document.Block
	for i, p := range pieces {
		if i == 0 || p.Blocks[0].Page != pieces[i-1].Blocks[0].Page {
			joined = append(joined, p.Blocks[0])
		}
		joined = append(joined, p.Blocks[1:]...)
	}
	if fmt.Sprint(joined) != fmt.Sprint(doc.Blocks) || doc.Pages != 2 {
		t.Errorf("Parse's %d blocks (%d pages) are not the pieces' %d", len(doc.Blocks), doc.Pages, len(joined))
	}
	// emit's error ends the stream and is returned.
	stop := errors.New("stop")
	calls := 0
	if _, err := Stream(context.Background(), "big.xlsx", data, func(*document.Document) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("emit failing: got %v after %d calls, want stop after 1", err, calls)
	}
}

// StreamCSV hands a long file on in pieces of at most PieceRows rows as
// they are read; put together they are what ParseCSV reads.
func TestStreamCSVPieces(t *testing.T) {
	const n = 2*PieceRows + 345
	var sb strings.Builder
	sb.WriteString("\uFEFFInvoice;Amount\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "INV-%05d;%d\n", i, i*7)
	}
	var pieces []*document.Document
	if err := StreamCSV(context.Background(), "i.csv", strings.NewReader(sb.String()), func(p *document.Document) error {
		pieces = append(pieces, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 3 {
		t.Fatalf("%d pieces, want 3", len(pieces))
	}
	var joined []document.Block
	for i, p := range pieces {
		rows := 0
		for _, b := range p.Blocks {
			rows += strings.Count(b.Text, "\n") + 1
		}
		if rows > PieceRows || p.Format != formats.CSV || p.Source != "i.csv" {
			t.Errorf("piece %d: %d rows, format %q, source %q", i, rows, p.Format, p.Source)
		}
		joined = append(joined, p.Blocks...)
	}
	doc, err := ParseCSV(context.Background(), "i.csv", []byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(joined) != fmt.Sprint(doc.Blocks) || !strings.HasPrefix(doc.Blocks[0].Text, "Invoice: INV-00001; Amount: 7\n") {
		t.Errorf("ParseCSV's %d blocks are not the pieces' %d; first %q", len(doc.Blocks), len(joined), doc.Blocks[0].Text)
	}
}
