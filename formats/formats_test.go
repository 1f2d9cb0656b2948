package formats_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

func TestDetectFixtures(t *testing.T) {
	dir := fixture.Dir(t)
	want := map[string]string{
		"contract.pdf": "pdf", "empty.pdf": "", "garbage.pdf": "pdf", "trunc60.pdf": "pdf",
		"contract.docx": "docx", "policy.md": "markdown", "policy_pandoc.html": "html",
		"handbook.html": "html", "enc/renamed_pdf.txt": "pdf", "enc/noext_docx": "docx",
		"enc/handbook.txt": "html", "enc/policy.markdown": "markdown", "enc/notes_sjis.txt": "text",
		"enc/c2.odt": "",
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
		got, reason := formats.Detect(rel, data)
		if got != w {
			t.Errorf("Detect(%s) = %q (%s), want %q", rel, got, reason, w)
		}
		if got == "" && reason == "" {
			t.Errorf("Detect(%s): unsupported without a reason", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"x.txt", "%PDF-1.7\n...", "pdf"},
		{"x.bin", "junk before\n%PDF-1.4", "pdf"},
		{"a.png", "\x89PNG\r\n\x1a\n....", ""},
		{"a.doc", "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1....", ""},
		{"page", "  <!DOCTYPE html><html>", "html"},
		{"page.htm", "<p>plain fragment", "html"},
		{"notes", "<notes> are not html", "text"},
		{"README.md", "# Title", "markdown"},
		{"data.csv", "a,b\n1,2", "text"},
		{"x.zip", "PK\x03\x04 broken", ""},
	}
	for _, tt := range tests {
		if got, reason := formats.Detect(tt.name, []byte(tt.data)); got != tt.want {
			t.Errorf("Detect(%s) = %q (%s), want %q", tt.name, got, reason, tt.want)
		}
	}
}

func TestError(t *testing.T) {
	cause := errors.New("xref broken")
	err := formats.Errorf("dir/contract.pdf", formats.ErrCorrupt, "damaged PDF: %w", cause)
	if err.Error() != "dir/contract.pdf: damaged PDF: xref broken" {
		t.Errorf("message = %q", err)
	}
	if !errors.Is(err, formats.ErrCorrupt) || !errors.Is(err, cause) || errors.Is(err, formats.ErrEmpty) {
		t.Errorf("errors.Is does not see the kind and the cause")
	}
	if formats.Reason(err) != "damaged PDF: xref broken" || formats.Reason(cause) != "xref broken" {
		t.Errorf("Reason = %q", formats.Reason(err))
	}
}

func TestRecover(t *testing.T) {
	f := func() (err error) {
		defer formats.Recover("bad.bin", &err)
		var m map[string]int
		m["boom"]++ // panics
		return nil
	}
	err := f()
	if !errors.Is(err, formats.ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
}

func TestCleanText(t *testing.T) {
	if got := formats.CleanText("  e\ufb03cient\u00a0 \ufb01nal  \u2212l  co\u00adop \n"); got != "efficient final -l coop" {
		t.Errorf("CleanText = %q", got)
	}
}
