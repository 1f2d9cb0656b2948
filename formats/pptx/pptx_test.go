package pptx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
)

func deckFile(t testing.TB) []byte { return fixture.Local(t, "review.pptx") }

func TestParseDeck(t *testing.T) {
	doc, err := Parse(context.Background(), "review.pptx", deckFile(t))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != formats.PPTX || doc.Pages != 3 || doc.Title != "Quarterly review Q3 2024" {
		t.Errorf("format %q pages %d title %q", doc.Format, doc.Pages, doc.Title)
	}
	want := []document.Block{
		{Kind: document.Heading, Level: 1, Text: "Quarterly review", Page: 1},
		{Text: "Third quarter 2024", Page: 1},
		{Text: "Prepared by the finance team", Page: 1},
		{Kind: document.Heading, Level: 1, Text: "Revenue by region", Page: 2},
		{Text: "EMEA grew 9% to 1,204", Page: 2},
		{Text: "APAC flat at 912", Page: 2},
		{Kind: document.Table, Text: "Region | Q3 2024\nEMEA | 1,204\nAPAC | 912", Page: 2},
		{Text: "Speaker notes: Mention that the EMEA figure includes the new Lisbon office.", Page: 2},
		{Kind: document.Heading, Level: 1, Text: "Slide 3", Page: 3},
		{Text: "A slide without a title placeholder keeps its number.", Page: 3},
		{Text: "Speaker notes: Skip this slide if time is short.", Page: 3},
	}
	if len(doc.Blocks) != len(want) {
		t.Fatalf("got %d blocks, want %d:\n%+v", len(doc.Blocks), len(want), doc.Blocks)
	}
	for i := range want {
		if doc.Blocks[i] != want[i] {
			t.Errorf("block %d:\n got %+v\nwant %+v", i, doc.Blocks[i], want[i])
		}
	}
}

// rezip rewrites the fixture with part name replaced by content (or
// given a header claiming size bytes when content is nil).
func rezip(t *testing.T, name string, content []byte, size uint64) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(deckFile(t)), int64(len(deckFile(t))))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range zr.File {
		if f.Name == name {
			if content == nil {
				w, _ := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, UncompressedSize64: size, CompressedSize64: 1})
				w.Write([]byte("x"))
			} else {
				w, _ := zw.Create(name)
				w.Write(content)
			}
			continue
		}
		w, _ := zw.Create(f.Name)
		rc, _ := f.Open()
		var part bytes.Buffer
		part.ReadFrom(rc)
		rc.Close()
		w.Write(part.Bytes())
	}
	zw.Close()
	return b.Bytes()
}

func onePart(t *testing.T, name string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create(name)
	w.Write([]byte("<x/>"))
	zw.Close()
	return b.Bytes()
}

func TestBadDecks(t *testing.T) {
	good := deckFile(t)
	for _, tc := range []struct {
		name string
		data []byte
		kind error
	}{
		{"truncated", good[:len(good)/2], formats.ErrCorrupt},
		{"ole", []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1..."), formats.ErrUnsupported},
		{"bomb slide", rezip(t, "ppt/slides/slide2.xml", nil, MaxPartSize+1), formats.ErrTooLarge},
		{"malformed slide", rezip(t, "ppt/slides/slide1.xml", []byte("<p:sld><a:p>"), 0), formats.ErrCorrupt},
		{"no presentation", rezip(t, "ppt/presentation.xml", nil, 0), formats.ErrCorrupt},
		{"not a deck", onePart(t, "word/document.xml"), formats.ErrUnsupported},
	} {
		_, err := Parse(context.Background(), "x.pptx", tc.data)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.kind)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", tc.name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(deckFile(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := parse(context.Background(), "f.pptx", data, 1<<20)
		if err == nil && !hasText(doc.Blocks) {
			t.Fatal("no error and no text")
		}
	})
}
