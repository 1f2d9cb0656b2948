package loader

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/docx"
	"github.com/docmind/docmind/formats/html"
)

// Every error about one file names its path once. The parsers of package
// formats put the source in their errors ("a.docx: reason") and ParseFile
// and LoadDir add the path, which printed "a.docx: cannot parse as docx:
// a.docx: DOCX has no text".
func TestErrorsNameThePathOnce(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{
		"notext.docx": docxBytes(t, "word/document.xml"),
		"script.html": []byte("<html><body><script>var x = 1;</script></body></html>"),
		"bin.dat":     {0, 0, 0, 1},
		"blank.md":    []byte(" \n\t\n"),
		"sub/.hidden": []byte("x"),
	})
	l := New(WithParser(formats.DOCX, ParserFunc(docx.Parse)), WithParser(formats.HTML, ParserFunc(html.Parse)))
	for _, tc := range []struct {
		name string
		kind error // a sentinel the error must still match, or nil
	}{
		{"notext.docx", formats.ErrEmpty},
		{"script.html", formats.ErrEmpty},
		{"bin.dat", ErrNotText},
		{"blank.md", nil},
		{"missing.pdf", nil},
		{"sub", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			_, err := l.ParseFile(context.Background(), path)
			if err == nil {
				t.Fatal("ParseFile: no error")
			}
			if n := strings.Count(err.Error(), path); n != 1 {
				t.Errorf("ParseFile error names the path %d times: %v", n, err)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("ParseFile error %v does not match %v", err, tc.kind)
			}
			var fe *formats.Error
			if tc.kind == formats.ErrEmpty && !errors.As(err, &fe) {
				t.Errorf("ParseFile error %v no longer wraps the parser's *formats.Error", err)
			}
		})
	}
	_, rep, err := l.LoadDir(context.Background(), dir)
	if err == nil {
		t.Fatal("LoadDir: no error")
	}
	if len(rep.Skipped) != 4 {
		t.Fatalf("skipped %+v, want the 4 unusable files", rep.Skipped)
	}
	for _, s := range rep.Skipped {
		if strings.Contains(s.Reason, filepath.Base(s.Path)) {
			t.Errorf("skip reason for %s names the file again: %q", s.Path, s.Reason)
		}
	}
	if first := rep.Skipped[0].Path; strings.Count(err.Error(), first) != 1 {
		t.Errorf("LoadDir error names %s more than once: %v", first, err)
	}
}
