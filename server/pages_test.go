package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/testenv"
)

// twoPagePDF writes a US-letter PDF with one line of text on each page.
func twoPagePDF(lines ...string) []byte { return sizedPDF(612, 792, lines...) }

// sizedPDF writes a PDF of w×h point pages with one line of text on each.
func sizedPDF(w, h float64, lines ...string) []byte {
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
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", w, h, 5+2*i))
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

// TestPageHighlights finds quotes on real PDF pages: a generated page
// whose text position is known, and page 8 of the sample contract PDF in
// ../shared, where the quote runs over three lines.
func TestPageHighlights(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "terms.pdf"), twoPagePDF("Late payment penalties apply after thirty days.", "Termination requires ninety days notice."), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\n\nPlain text about invoices.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, _ := freshIndex(t, dir)
	ts, s := newServerOn(t, ix, nil)
	defer s.Close()
	pdfID, mdID := documentIDs(t, ts)
	hl := func(id int64, page, query string) string {
		return fmt.Sprintf("/api/v1/documents/%d/pages/%s/highlights?%s", id, page, query)
	}
	get := func(path string) PageHighlights {
		t.Helper()
		status, h, b := call(t, ts, "GET", path, "")
		if status != 200 || h.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %s", path, status, b)
		}
		var out PageHighlights
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	// The quote as the index holds it: other spacing and case.
	out := get(hl(pdfID, "1", "q="+url.QueryEscape("penalties  APPLY after")))
	if out.Width != 935 || out.Height != 1210 || out.Found != 1 || len(out.Rects) != 1 || out.Page != 1 || out.DPI != DefaultPageDPI {
		t.Fatalf("highlights %+v, want one rectangle on the 935×1210 page", out)
	}
	// 14 pt Helvetica from x = 72 pt, baseline 92 pt below the top: at
	// 110 dpi the text starts at 110 px and its baseline is at 140 px;
	// "penalties" starts after "Late payment ".
	r := out.Rects[0]
	if r.X < 160 || r.X > 260 || r.Y < 110 || r.Y > 140 || r.Y+r.H < 135 || r.Y+r.H > 150 || r.W < 150 || r.W > 300 {
		t.Errorf("rectangle %+v is not where the quote is drawn", r)
	}
	// At 36 dpi the rectangle scales with the PNG.
	small := get(hl(pdfID, "1", "dpi=36&q=penalties+apply+after"))
	if small.Width != 306 || len(small.Rects) != 1 || abs(small.Rects[0].X-r.X*36/110) > 2 || abs(small.Rects[0].Y-r.Y*36/110) > 2 {
		t.Errorf("at 36 dpi: %+v, want %+v scaled by 36/110", small, r)
	}
	// Not on this page: no rectangles, not an error.
	if none := get(hl(pdfID, "2", "q=penalties")); none.Found != 0 || len(none.Rects) != 0 || none.Rects == nil {
		t.Errorf("quote from another page: %+v, want found 0 and rects []", none)
	}

	for _, tc := range []struct {
		path, want string
		status     int
	}{
		{hl(pdfID, "3", "q=x"), "it has 2 pages", 404},
		{hl(pdfID, "0", "q=x"), "it has 2 pages", 404},
		{hl(pdfID, "1", ""), "q is required", 400},
		{hl(pdfID, "1", "q=+"), "each q must be", 400},
		{hl(pdfID, "1", "q="+strings.Repeat("a", MaxHighlightQuoteBytes+1)), "each q must be", 400},
		{hl(pdfID, "1", "q=x&dpi=9999"), "dpi=", 400},
		{hl(mdID, "1", "q=x"), "only PDF pages", http.StatusUnsupportedMediaType},
		{hl(999, "1", "q=x"), "no document 999", 404},
		{"/api/v1/documents/abc/pages/1/highlights?q=x", "invalid document id", 400},
	} {
		status, _, b := call(t, ts, "GET", tc.path, "")
		wantError(t, status, b, tc.status, tc.want)
	}
	status, _, b := call(t, ts, "POST", hl(pdfID, "1", "q=x"), `{}`)
	wantError(t, status, b, 405, "use GET")
}

// TestPageHighlightsContractPDF highlights the judge's quote on page 8 of
// the contract PDF (../shared/fixtures/docs/contract.pdf): three lines,
// so three rectangles, one under the other, inside the page.
func TestPageHighlightsContractPDF(t *testing.T) {
	ix, _ := freshIndex(t, testenv.SharedPath(t, "fixtures", "docs", "contract.pdf"))
	ts, s := newServerOn(t, ix, nil)
	defer s.Close()
	id, _ := documentIDs(t, ts)
	quote := "If any undisputed invoice remains unpaid 30 days after the due date, the Customer shall pay interest on the overdue amount at the rate of 1.5% per month (18% per annum), accruing daily from the due date until payment in full."
	status, _, b := call(t, ts, "GET", fmt.Sprintf("/api/v1/documents/%d/pages/8/highlights?q=%s", id, url.QueryEscape(quote)), "")
	var out PageHighlights
	if err := json.Unmarshal(b, &out); err != nil || status != 200 {
		t.Fatalf("%d %s", status, b)
	}
	if out.Found != 1 || len(out.Rects) < 2 {
		t.Fatalf("highlights %+v, want the quote's lines", out)
	}
	for i, r := range out.Rects {
		if r.X < 0 || r.Y < 0 || r.X+r.W > out.Width || r.Y+r.H > out.Height {
			t.Errorf("rectangle %+v outside the %d×%d page", r, out.Width, out.Height)
		}
		if i > 0 && r.Y <= out.Rects[i-1].Y {
			t.Errorf("rectangle %d %+v is not below the one before %+v", i, r, out.Rects[i-1])
		}
	}
	// The same quote is not on page 7.
	status, _, b = call(t, ts, "GET", fmt.Sprintf("/api/v1/documents/%d/pages/7/highlights?q=%s", id, url.QueryEscape(quote)), "")
	if status != 200 || !strings.Contains(string(b), `"rects":[]`) {
		t.Errorf("page 7: %d %s", status, b)
	}
}

// documentIDs returns the ids of the index's PDF and its other document.
func documentIDs(t *testing.T, ts *httptest.Server) (pdfID, otherID int64) {
	t.Helper()
	status, _, b := call(t, ts, "GET", "/api/v1/documents", "")
	var docs []index.Document
	if err := json.Unmarshal(b, &docs); err != nil || status != 200 {
		t.Fatalf("documents: %d %s", status, b)
	}
	for _, d := range docs {
		if d.Format == "pdf" {
			pdfID = d.ID
		} else {
			otherID = d.ID
		}
	}
	return pdfID, otherID
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
