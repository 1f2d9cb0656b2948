package pdf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pdfium "github.com/klippa-app/go-pdfium"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/internal/testenv"
)

type devLine struct {
	Page         int
	Text         string
	Size, Y, Top float64
	Bold         bool
}

type devBookmark struct {
	Title       string
	Level, Page int
}

type devRaw struct {
	Title     string
	Pages     int
	Labels    map[int]string
	Bookmarks []devBookmark
	Lines     []devLine
	Loaded    int
}

// devInstance reads the PDF at f and takes a PDFium instance from the
// test reader's pool until the test ends.
func devInstance(t *testing.T, f string) (pdfium.Pdfium, []byte) {
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := reader(t).pool.GetInstanceWithContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	return inst, data
}

// devRawDoc extracts a filing, or loads its raw extraction from
// $DOCMIND_RAWCACHE when that holds one (dev aid: layout iterations
// without PDFium).
func devRawDoc(t *testing.T, f string) *rawDoc {
	cache := os.Getenv("DOCMIND_RAWCACHE")
	cf := filepath.Join(cache, filepath.Base(f)+".json")
	var dr devRaw
	if cache != "" {
		if b, err := os.ReadFile(cf); err == nil && json.Unmarshal(b, &dr) == nil {
			raw := &rawDoc{title: dr.Title, pages: dr.Pages, labels: dr.Labels, loaded: dr.Loaded}
			for _, b := range dr.Bookmarks {
				raw.bookmarks = append(raw.bookmarks, bookmark{b.Title, b.Level, b.Page})
			}
			for _, l := range dr.Lines {
				raw.lines = append(raw.lines, line{page: l.Page, text: l.Text, size: l.Size, y: l.Y, fromTop: l.Top, bold: l.Bold})
			}
			return raw
		}
	}
	inst, data := devInstance(t, f)
	raw, err := extract(context.Background(), inst, f, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cache != "" {
		dr = devRaw{Title: raw.title, Pages: raw.pages, Labels: raw.labels, Loaded: raw.loaded}
		for _, b := range raw.bookmarks {
			dr.Bookmarks = append(dr.Bookmarks, devBookmark{b.title, b.level, b.page})
		}
		for _, l := range raw.lines {
			dr.Lines = append(dr.Lines, devLine{l.page, l.text, l.size, l.y, l.fromTop, l.bold})
		}
		b, _ := json.Marshal(dr)
		os.MkdirAll(cache, 0o755)
		os.WriteFile(cf, b, 0o644)
	}
	return raw
}

// TestDevWriteFilings writes the parsed text of every filing to
// $DOCMIND_DEVOUT/<name>.txt (dev aid).
func TestDevWriteFilings(t *testing.T) {
	out := os.Getenv("DOCMIND_DEVOUT")
	if out == "" {
		t.Skip("DOCMIND_DEVOUT not set")
	}
	files, _ := filepath.Glob(filepath.Join(testenv.SharedPath(t, "fixtures", "filings"), "*.pdf"))
	for _, f := range files {
		raw := devRawDoc(t, f)
		doc, err := build(f, raw, false)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "TITLE %q ENTITY %q PERIOD %q LABELS %v\n", doc.Title, doc.Entity, doc.Period, doc.PageLabels)
		for _, bl := range doc.Blocks {
			if bl.Kind == document.Heading {
				fmt.Fprintf(&b, "[p%d] ## H%d %s\n", bl.Page, bl.Level, bl.Text)
			} else {
				fmt.Fprintf(&b, "[p%d] %s\n", bl.Page, bl.Text)
			}
		}
		os.WriteFile(filepath.Join(out, strings.TrimSuffix(filepath.Base(f), ".pdf")+".txt"), []byte(b.String()), 0o644)
	}
}
