package loader

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

func TestSniffFixtures(t *testing.T) {
	dir := testenv.SharedPath(t, "fixtures", "docs")
	want := map[string]string{
		"contract.pdf": "pdf", "empty.pdf": "", "garbage.pdf": "pdf", "trunc60.pdf": "pdf",
		"contract.docx": "docx", "policy.md": "markdown", "policy_pandoc.html": "html",
		"handbook.html": "html", "enc/renamed_pdf.txt": "pdf", "enc/noext_docx": "docx",
		"enc/handbook.txt": "html", "enc/policy.markdown": "markdown", "enc/notes_sjis.txt": "text",
		"enc/c2.odt": "odt",
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		w, ok := want[filepath.ToSlash(rel)]
		if !ok {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		got, reason := sniff(data, rel)
		if got != w {
			t.Errorf("sniff(%s) = %q (%s), want %q", rel, got, reason, w)
		}
		if got == "" && reason == "" {
			t.Errorf("sniff(%s): unsupported without a reason", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"x.txt", "%PDF-1.7\n...", "pdf"},
		{"x.bin", "junk before\n%PDF-1.4", "pdf"},
		{"a.png", "\x89PNG\r\n\x1a\n....", "image"},
		{"scan.tif", "II*\x00....", "image"},
		{"mail", "Return-Path: <a@b.c>\nFrom: A <a@b.c>\nSubject: Hi\n\nBody", "eml"},
		{"not mail", "From: A\nSubject: Hi\n\nBody", "text"},
		{"x.xlsx", "PK\x03\x04 broken xl/workbook.xml", ""},
		{"a.doc", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1....", "doc"},
		{"letter.rtf", "{\\rtf1\\ansi Hi}", "rtf"},
		{"page", "  <!DOCTYPE html><html>", "html"},
		{"page.htm", "<p>plain fragment", "html"},
		{"notes", "<notes> are not html", "text"},
		{"README.md", "# Title", "markdown"},
		{"data.csv", "a,b\n1,2", "csv"},
		{"data.TSV", "a\tb\n1\t2", "csv"},
		{"saved.eml", "Subject: x\n\nbody", "eml"},
		{"x.zip", "PK\x03\x04 broken", ""},
	}
	for _, tt := range tests {
		if got, reason := sniff([]byte(tt.data), tt.name); got != tt.want {
			t.Errorf("sniff(%s) = %q (%s), want %q", tt.name, got, reason, tt.want)
		}
	}
}
