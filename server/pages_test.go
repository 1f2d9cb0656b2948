package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/index"
)

// twoPagePDF writes a US-letter PDF with one line of text on each page.
func twoPagePDF(lines ...string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(lines)
	kids := make([]string, n)
	for i := range lines {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i, l := range lines {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		stream := fmt.Sprintf("BT /F1 14 Tf 72 700 Td (%s) Tj ET", l)
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

func TestDocumentPagesAsPNG(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "terms.pdf")
	if err := os.WriteFile(file, twoPagePDF("Late payment penalties apply after thirty days.", "Termination requires ninety days notice."), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n\nPlain text about invoices.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, sum := freshIndex(t, dir)
	if sum.Indexed != 2 {
		t.Fatalf("ingest: %+v", sum)
	}
	ts, s := newServerOn(t, ix, nil)
	defer s.Close()
	status, _, b := call(t, ts, "GET", "/api/v1/documents", "")
	var docs []index.Document
	if err := json.Unmarshal(b, &docs); err != nil || status != 200 || len(docs) != 2 {
		t.Fatalf("documents: %d %s", status, b)
	}
	var pdfID, mdID int64
	for _, d := range docs {
		if d.Format == "pdf" {
			pdfID = d.ID
		} else {
			mdID = d.ID
		}
	}
	page := func(id int64, rest string) string { return fmt.Sprintf("/api/v1/documents/%d/pages/%s", id, rest) }

	status, h, b := call(t, ts, "GET", page(pdfID, "2"), "")
	if status != 200 || h.Get("Content-Type") != "image/png" {
		t.Fatalf("page 2: %d %s %.200s", status, h.Get("Content-Type"), b)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	// 612 × 792 points at 110 dpi
	if w, ht := img.Bounds().Dx(), img.Bounds().Dy(); w != 935 || ht != 1210 {
		t.Errorf("page is %d×%d pixels, want 935×1210 at %d dpi", w, ht, DefaultPageDPI)
	}
	// Text is drawn: not every pixel is white.
	dark := false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y && !dark; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
				dark = true
				break
			}
		}
	}
	if !dark {
		t.Error("the rendered page is blank")
	}
	status, _, b = call(t, ts, "GET", page(pdfID, "1")+"?dpi=36", "")
	if img, err := png.Decode(bytes.NewReader(b)); status != 200 || err != nil || img.Bounds().Dx() != 306 {
		t.Fatalf("page 1 at 36 dpi: %d %v", status, err)
	}

	status, _, b = call(t, ts, "GET", page(pdfID, "3"), "")
	wantError(t, status, b, 404, "it has 2 pages")
	status, _, b = call(t, ts, "GET", page(pdfID, "1")+"?dpi=9999", "")
	wantError(t, status, b, 400, "dpi=")
	status, _, b = call(t, ts, "GET", page(mdID, "1"), "")
	wantError(t, status, b, http.StatusUnsupportedMediaType, "only PDF pages are rendered")
	status, _, b = call(t, ts, "GET", page(999, "1"), "")
	wantError(t, status, b, 404, "no document 999")

	if err := os.WriteFile(file, twoPagePDF("Changed.", "Changed."), 0o600); err != nil {
		t.Fatal(err)
	}
	status, _, b = call(t, ts, "GET", page(pdfID, "1"), "")
	wantError(t, status, b, 409, "changed since it was indexed")
	os.Remove(file)
	status, _, b = call(t, ts, "GET", page(pdfID, "1"), "")
	wantError(t, status, b, 410, "no longer readable")
}
