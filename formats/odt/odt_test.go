package odt

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/docx"
	"github.com/docmind/docmind/formats/internal/fixture"
)

// The files in testdata were written by LibreOffice 7.4 (soffice
// --headless --convert-to odt): contract, handbook and policy from the
// shared fixtures' Word documents, features from features.html
// (scripts/gen-office-fixtures.sh makes them again).

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseFile(t *testing.T, name string) *document.Document {
	t.Helper()
	doc, err := Parse(context.Background(), name, read(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

// features.html, as Writer saved it: headings of three levels, a table
// with a header row, text in other scripts and symbols, runs of spaces, a
// page break, a list.
func TestFeatures(t *testing.T) {
	doc := parseFile(t, "features.odt")
	if doc.Format != formats.ODT || doc.Title != "Travel Handbook" || doc.Pages != 2 {
		t.Errorf("format %q, title %q, pages %d", doc.Format, doc.Title, doc.Pages)
	}
	want := []document.Block{
		{Kind: document.Heading, Level: 1, Text: "Travel Handbook", Page: 1},
		{Kind: document.Paragraph, Text: "Überweisung of 1.250 € — the “per diem” applies to trips abroad.", Page: 1},
		{Kind: document.Heading, Level: 2, Text: "1. Allowances", Page: 1},
		{Kind: document.Paragraph, Text: "Daily allowances depend on the destination.", Page: 1},
		{Kind: document.Table, Text: "Destination | Per diem | Hotel cap\nGermany | 28 € | 150 €\nFrance | 32 € | 170 €", Page: 1},
		{Kind: document.Heading, Level: 3, Text: "1.1 Receipts", Page: 1},
		{Kind: document.Paragraph, Text: "Keep every receipt for seven years.", Page: 1},
		{Kind: document.Paragraph, Text: "Claims are paid within 30 days of approval.", Page: 2},
		{Kind: document.Heading, Level: 2, Text: "2. Approval", Page: 2},
		{Kind: document.Paragraph, Text: "Line managers approve trips under 1,000 €.", Page: 2},
		{Kind: document.Paragraph, Text: "Directors approve the rest.", Page: 2},
	}
	if len(doc.Blocks) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(doc.Blocks), len(want), doc.Blocks)
	}
	for i, w := range want {
		if doc.Blocks[i] != w {
			t.Errorf("block %d = %+v, want %+v", i, doc.Blocks[i], w)
		}
	}
}

// The shared fixtures' Word documents, saved as OpenDocument by Writer,
// read as the Word parser reads the originals: the same headings at the
// same levels, the same paragraphs and tables. Pages differ where Writer
// laid the pages out otherwise than Word (its soft page breaks are what
// the file records).
func TestSameAsTheWordOriginal(t *testing.T) {
	for _, name := range []string{"contract", "handbook", "policy"} {
		t.Run(name, func(t *testing.T) {
			orig, err := docx.Parse(context.Background(), name+".docx", fixture.Read(t, name+".docx"))
			if err != nil {
				t.Fatal(err)
			}
			doc := parseFile(t, name+".odt")
			if doc.Title != orig.Title {
				t.Errorf("title %q, Word's %q", doc.Title, orig.Title)
			}
			if len(doc.Blocks) != len(orig.Blocks) {
				t.Fatalf("%d blocks, Word's %d", len(doc.Blocks), len(orig.Blocks))
			}
			for i, b := range doc.Blocks {
				o := orig.Blocks[i]
				if b.Kind != o.Kind || b.Level != o.Level || b.Text != o.Text {
					t.Errorf("block %d = %s %d %q\nWord's    %s %d %q", i, b.Kind, b.Level, b.Text, o.Kind, o.Level, o.Text)
				}
			}
		})
	}
}

// Writer's layout of the contract: the glossary appendix starts on page
// 13 (Word put it on 14), the policy's last paragraph on page 2; the
// handbook has no page breaks at all.
func TestPagesFromWritersLayout(t *testing.T) {
	for _, c := range []struct {
		file, text  string
		page, pages int
	}{
		{"contract.odt", "Appendix A – Glossary (two columns)", 13, 13},
		{"policy.odt", "Text under a level-4 heading.", 2, 2},
		{"handbook.odt", "Travel & Expenses Policy", 1, 1},
	} {
		doc := parseFile(t, c.file)
		found := false
		for _, b := range doc.Blocks {
			if b.Text == c.text {
				found = true
				if b.Page != c.page {
					t.Errorf("%s: %q on page %d, want %d", c.file, c.text, b.Page, c.page)
				}
			}
		}
		if !found || doc.Pages != c.pages {
			t.Errorf("%s: found %v, pages %d (want %d)", c.file, found, doc.Pages, c.pages)
		}
	}
}

// zipOf builds a zip of the named parts.
func zipOf(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range parts {
		f, err := w.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const body = `<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>%s</office:text></office:body></office:document-content>`

func content(inner string) string { return strings.Replace(body, "%s", inner, 1) }

func TestErrors(t *testing.T) {
	good := read(t, "features.odt")
	manifest := `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"><manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="x"/></manifest:file-entry></manifest:manifest>`
	for _, c := range []struct {
		name string
		data []byte
		want error
		says string
	}{
		{"empty", nil, formats.ErrEmpty, "empty file"},
		{"truncated", good[:len(good)/2], formats.ErrCorrupt, "not a valid OpenDocument (zip) file"},
		{"spreadsheet", zipOf(t, map[string]string{"mimetype": "application/vnd.oasis.opendocument.spreadsheet", "content.xml": content("")}), formats.ErrUnsupported, "OpenDocument spreadsheet is not read"},
		{"encrypted", zipOf(t, map[string]string{"mimetype": mimeText, "META-INF/manifest.xml": manifest, "content.xml": "\x9c\x01binary"}), formats.ErrEncrypted, "password required"},
		{"no content", zipOf(t, map[string]string{"mimetype": mimeText}), formats.ErrCorrupt, "no content.xml"},
		{"malformed", zipOf(t, map[string]string{"content.xml": content("<text:p>unclosed")}), formats.ErrCorrupt, "malformed content.xml"},
		{"no text", zipOf(t, map[string]string{"content.xml": content("<text:p>  </text:p>")}), formats.ErrEmpty, "no text"},
	} {
		_, err := Parse(context.Background(), c.name+".odt", c.data)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
	// a part beyond the limit
	if _, err := parse(context.Background(), "big.odt", good, 1024); !errors.Is(err, formats.ErrTooLarge) {
		t.Errorf("small limit: %v, want ErrTooLarge", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, "x.odt", good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// What the body holds besides paragraphs: footnotes, annotations and
// tracked deletions are not the text; a covered cell of a merged range
// is not a cell; a paragraph styled by a heading style is a heading.
func TestBodyElements(t *testing.T) {
	inner := `<text:p>Fees are due monthly<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note>.<office:annotation><text:p>A comment.</text:p></office:annotation></text:p>` +
		`<text:tracked-changes><text:changed-region><text:deletion><text:p>Deleted text.</text:p></text:deletion></text:changed-region></text:tracked-changes>` +
		`<text:p text:style-name="Heading_20_2">Payment</text:p>` +
		`<text:p>Three<text:s text:c="3"/>spaces<text:tab/>and<text:line-break/>lines.</text:p>` +
		`<table:table xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"><table:table-row><table:table-cell table:number-columns-spanned="2"><text:p>Merged</text:p></table:table-cell><table:covered-table-cell/></table:table-row><table:table-row><table:table-cell><text:p>a</text:p><text:p>b</text:p></table:table-cell><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table>`
	doc, err := Parse(context.Background(), "x.odt", zipOf(t, map[string]string{"mimetype": mimeText, "content.xml": content(inner)}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range doc.Blocks {
		got = append(got, b.Kind.String()+":"+b.Text)
	}
	want := []string{"paragraph:Fees are due monthly.", "heading:Payment", "paragraph:Three spaces and lines.", "table:Merged\na b | c"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("blocks %q\nwant   %q", got, want)
	}
	if doc.Blocks[1].Level != 2 {
		t.Errorf("heading level %d", doc.Blocks[1].Level)
	}
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"features.odt", "handbook.odt"} {
		f.Add(read(f, name))
	}
	f.Add(zipOf(f, map[string]string{"content.xml": content(`<text:h text:outline-level="99">x</text:h><text:soft-page-break/>`)}))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(context.Background(), "fuzz.odt", data)
		if err == nil && (doc == nil || len(doc.Blocks) == 0) {
			t.Fatalf("no error and no blocks")
		}
	})
}

// Elements nested beyond MaxDepth are refused in one line: the reader
// descends them recursively, and millions of nested tags (a few megabytes
// of content.xml, a few kilobytes zipped) exhausted the stack, a fatal
// error that ended the whole program.
func TestDeepNesting(t *testing.T) {
	nest := func(n int) []byte {
		return zipOf(t, map[string]string{"content.xml": content(strings.Repeat("<text:section>", n) + "<text:p>deep</text:p>" + strings.Repeat("</text:section>", n))})
	}
	if doc, err := Parse(context.Background(), "ok.odt", nest(MaxDepth-10)); err != nil || doc.Blocks[0].Text != "deep" {
		t.Errorf("%d levels: %v", MaxDepth-10, err)
	}
	_, err := Parse(context.Background(), "deep.odt", nest(20*MaxDepth))
	if !errors.Is(err, formats.ErrCorrupt) || !strings.Contains(err.Error(), "nested more than 1000 deep") {
		t.Errorf("%d levels: %v, want ErrCorrupt saying how deep", 20*MaxDepth, err)
	}
}
