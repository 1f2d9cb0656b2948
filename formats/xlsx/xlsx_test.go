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
