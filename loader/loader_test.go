package loader

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
	"github.com/docmind/docmind/internal/testenv"
)

func docxBytes(t *testing.T, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("<w:document/>"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"pdf magic", "x.txt", []byte("%PDF-1.7\n..."), formats.PDF},
		{"docx by content", "noext", docxBytes(t, "word/document.xml"), formats.DOCX},
		{"other zip", "a.docx", docxBytes(t, "content.xml"), formats.Binary},
		{"doctype html", "page.txt", []byte("  <!DOCTYPE html><html><body>x</body></html>"), formats.HTML},
		{"html tag", "page", []byte("<html lang=en><p>x"), formats.HTML},
		{"markdown headings", "notes.txt", []byte("# One\n\ntext\n\n## Two\n"), formats.Markdown},
		{"page marker", "c.txt", []byte("<!-- page: 1 -->\nText"), formats.Markdown},
		{"fenced code", "c", []byte("Run:\n```\nx\n```\n"), formats.Markdown},
		{"md name tiebreak", "plain.md", []byte("Just prose."), formats.Markdown},
		{"one heading in .txt", "x.txt", []byte("# only one\nprose"), formats.Text},
		{"plain text", "readme", []byte("Hello there.\n\nSecond paragraph."), formats.Text},
		{"utf8 bom text", "b.txt", []byte("\xEF\xBB\xBFHello"), formats.Text},
		{"utf16 bom", "u.txt", []byte("\xFF\xFEH\x00i\x00"), formats.Text},
		{"utf16 no bom", "u.txt", []byte("H\x00e\x00l\x00l\x00o\x00 \x00w\x00o\x00r\x00l\x00d\x00"), formats.Text},
		{"legacy 8-bit", "l.txt", []byte("Gr\xfc\xdfe aus M\xfcnchen, 1,5 % pro Monat."), formats.Text},
		{"nul bytes", "x.md", []byte("abc\x00def"), formats.Binary},
		{"png", "a.md", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), formats.Image},
		{"damaged xlsx", "a.xlsx", []byte("PK\x03\x04\x00 xl/workbook.xml"), formats.XLSX},
		{"csv", "a.csv", []byte("a,b\n1,2\n"), formats.CSV},
		{"binary csv", "a.csv", []byte("a,b\x00\x01\n"), formats.Binary},
		{"control chars", "c.txt", bytes.Repeat([]byte{0x01, 0x02, 'a'}, 50), formats.Binary},
		{"rtf", "letter.txt", []byte("{\\rtf1\\ansi\\deff0 {\\fonttbl{\\f0 Times;}}Hello\\par}"), formats.RTF},
		{"rtf after a bom and a line break", "x", []byte("\xEF\xBB\xBF\r\n{\\rtf1 Hi}"), formats.RTF},
		{"rtf word in text", "x.txt", []byte("Save it as {\\rtf1 ...} if you must."), formats.Text},
		{"damaged odt", "a.odt", []byte("PK\x03\x04\x14\x00\x00\x00\x00\x00mimetypeapplication/vnd.oasis.opendocument.textPK"), formats.ODT},
		{"empty", "e.txt", nil, formats.Text},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Detect(tt.data, tt.file); got != tt.want {
				t.Errorf("Detect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDetectSharedFixtures(t *testing.T) {
	docs := filepath.Join(testenv.SharedDir(t), "fixtures", "docs")
	tests := map[string]string{
		"contract.pdf":                formats.PDF,
		"contract.docx":               formats.DOCX,
		"policy.md":                   formats.Markdown,
		"handbook.html":               formats.HTML,
		"enc/renamed_pdf.txt":         formats.PDF,
		"enc/noext_docx":              formats.DOCX,
		"enc/handbook.txt":            formats.HTML,
		"enc/c2.odt":                  formats.ODT,
		"enc/policy.markdown":         formats.Markdown,
		"enc/notes_utf8.txt":          formats.Text,
		"enc/notes_utf16bom.txt":      formats.Text,
		"enc/notes_utf16le_nobom.txt": formats.Text,
		"enc/notes_cp1252.txt":        formats.Text,
		"enc/notes_sjis.txt":          formats.Text,
	}
	for name, want := range tests {
		data, err := os.ReadFile(filepath.Join(docs, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := Detect(data, name); got != want {
			t.Errorf("Detect(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestLoadSharedPolicyMarkdown(t *testing.T) {
	path := filepath.Join(testenv.SharedDir(t), "fixtures", "docs", "policy.md")
	secs, err := New().LoadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, s := range secs {
		titles[s.Title] = true
		if strings.Contains(s.Title, "Not a heading") || strings.Contains(s.Title, "Quoted heading") {
			t.Errorf("false heading %q", s.Title)
		}
	}
	for _, want := range []string{"Password Requirements", "Exceptions", "Data Classification", "Incident Response", "Late Payment of Security Fines"} {
		if !titles[want] {
			t.Errorf("missing section %q in %v", want, titles)
		}
	}
}

func writeFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadDir(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{
		"b.md":             []byte("# Beta\n\nBeta text."),
		"a.txt":            []byte("ALPHA\n\nAlpha text."),
		"sub/c.markdown":   []byte("# Gamma\n\n<!-- page: 2 -->\nGamma text."),
		"image.png":        []byte("\x89PNG\r\n\x1a\n\x00\x00"),
		"empty.txt":        nil,
		"blank.md":         []byte("  \n\n\t"),
		"headings-only.md": []byte("# Only\n## Headings"),
		"legacy.txt":       []byte("Gr\xfc\xdfe"),
		"scan.pdf":         []byte("%PDF-1.4 ..."),
		".hidden.md":       []byte("# Hidden\n\ntext"),
		".git/config.md":   []byte("# Git\n\ntext"),
	})
	secs, rep, err := New().LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range secs {
		got = append(got, filepath.Base(s.Source)+":"+s.Title)
	}
	if want := "a.txt:ALPHA b.md:Beta c.markdown:Gamma"; strings.Join(got, " ") != want {
		t.Errorf("sections %q, want %q", strings.Join(got, " "), want)
	}
	if secs[2].Page != 2 {
		t.Errorf("gamma page = %d", secs[2].Page)
	}
	if len(rep.Files) != 3 {
		t.Errorf("files %+v", rep.Files)
	}
	reasons := map[string]string{}
	for _, s := range rep.Skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	wantReasons := map[string]string{
		"image.png":        "not a text document",
		"empty.txt":        "empty file",
		"blank.md":         "empty file",
		"headings-only.md": "no text content",
		"legacy.txt":       "not valid UTF-8",
		"scan.pdf":         "PDF documents are not supported",
	}
	for f, want := range wantReasons {
		if !strings.Contains(reasons[f], want) {
			t.Errorf("skip reason for %s = %q, want it to contain %q", f, reasons[f], want)
		}
	}
	if len(rep.Skipped) != len(wantReasons) {
		t.Errorf("skipped %+v", rep.Skipped)
	}
}

func TestLoadDirErrors(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(writeFiles(t, map[string][]byte{"f.md": []byte("# A\n\nx")}), "f.md")
	onlyBad := writeFiles(t, map[string][]byte{"x.bin": {0, 1, 2}})
	tests := []struct {
		name, dir, want string
	}{
		{"missing", filepath.Join(t.TempDir(), "nope"), "does not exist"},
		{"file", file, "is not a folder"},
		{"empty", t.TempDir(), "no documents found"},
		{"nothing usable", onlyBad, "no usable documents"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := New().LoadDir(ctx, tt.dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.dir) {
				t.Errorf("err = %v, want it to mention %q and the folder", err, tt.want)
			}
		})
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := New().LoadDir(cctx, filepath.Dir(file)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{"bin.dat": {0, 0, 0, 1}})
	_, err := New().LoadFile(context.Background(), filepath.Join(dir, "bin.dat"))
	if !errors.Is(err, ErrNotText) || !strings.Contains(err.Error(), "bin.dat") {
		t.Errorf("binary: err = %v", err)
	}
	_, err = New().LoadFile(context.Background(), filepath.Join(dir, "missing.md"))
	if err == nil || !strings.Contains(err.Error(), "missing.md") {
		t.Errorf("missing: err = %v", err)
	}
	_, err = New(WithMaxFileSize(2)).LoadFile(context.Background(), filepath.Join(dir, "bin.dat"))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("too big: err = %v", err)
	}
}

func TestPluggableParserAndDecoder(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{
		"scan.pdf":   []byte("%PDF-1.4 fake"),
		"legacy.txt": []byte("Gr\xfc\xdfe aus M\xfcnchen."),
		"boom.html":  []byte("<html><body>x</body></html>"),
	})
	pdf := ParserFunc(func(_ context.Context, src string, data []byte) (*document.Document, error) {
		return &document.Document{Source: src, Format: formats.PDF, Pages: 1, Blocks: []document.Block{
			{Kind: document.Heading, Level: 1, Text: "Scanned", Page: 1},
			{Kind: document.Paragraph, Text: "pdf text of " + string(data[:8]), Page: 1},
		}}, nil
	})
	latin1 := TextDecoderFunc(func(data []byte) (string, error) {
		r := make([]rune, len(data))
		for i, b := range data {
			r[i] = rune(b)
		}
		return string(r), nil
	})
	panicky := ParserFunc(func(context.Context, string, []byte) (*document.Document, error) { panic("bad input") })
	l := New(WithParser(formats.PDF, pdf), WithParser(formats.HTML, panicky), WithDecoder(latin1))
	secs, rep, err := l.LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != 2 || secs[0].Content != "Grüße aus München." || secs[1].Title != "Scanned" || secs[1].Page != 1 {
		t.Errorf("sections %+v", secs)
	}
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0].Reason, "html parser failed: bad input") {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	if got := strings.Join(l.Formats(), ","); got != "html,markdown,pdf,text" {
		t.Errorf("formats %s", got)
	}
}

// Whatever the parser, the terminal's control characters leave the
// document's title and text: answers and titles are printed.
func TestParseStripsTerminalControls(t *testing.T) {
	p := ParserFunc(func(_ context.Context, src string, _ []byte) (*document.Document, error) {
		return &document.Document{Source: src, Format: formats.PDF, Pages: 1, Title: "Fees\x1b]0;x\x07", Blocks: []document.Block{
			{Kind: document.Heading, Level: 1, Text: "Late \x1b[2JFees", Page: 1},
			{Kind: document.Paragraph, Text: "4 percent\u009b per month", Page: 1},
		}}, nil
	})
	doc, err := New(WithParser(formats.PDF, p)).Parse(context.Background(), "a.pdf", []byte("%PDF-1.4 fake"))
	if err != nil {
		t.Fatal(err)
	}
	all := doc.Title
	for _, b := range doc.Blocks {
		all += b.Text
	}
	if strings.ContainsAny(all, "\x1b\x07\u009b") || doc.Blocks[1].Text != "4 percent  per month" {
		t.Errorf("parsed %q", all)
	}
}
