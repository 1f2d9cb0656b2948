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
	"sync"
	"syscall"
	"testing"

	"github.com/docmind/docmind/formats/pdf"
)

// TestHugePageRenderIsBounded renders a tiny PDF whose one page is 200 ×
// 200 inches (14400 points a side) at the default resolution and at the
// largest ?dpi=, three at once: each answer is a PNG within
// pdf.MaxRenderPixels and pdf.MaxRenderSide (the page scaled down), never
// PDFium's panic text or the file's path. Under the race detector, which
// makes turning 16 Mi pixels into a PNG take a minute, the page is 200 ×
// 1 inches: bounded by its side.
func TestHugePageRenderIsBounded(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "poster.pdf")
	w, h := 14400.0, 14400.0
	if raceEnabled {
		h = 72
	}
	if err := os.WriteFile(file, sizedPDF(w, h, "A very large poster."), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, sum := freshIndex(t, dir)
	if sum.Indexed != 1 {
		t.Fatalf("ingest: %+v", sum)
	}
	ts, s := newServerOn(t, ix, nil)
	defer s.Close()
	id, _ := documentIDs(t, ts)
	var wg sync.WaitGroup
	for _, q := range []string{"", "?dpi=300", "?dpi=300"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, b := call(t, ts, "GET", fmt.Sprintf("/api/v1/documents/%d/pages/1%s", id, q), "")
			if status != 200 {
				if bytes.Contains(b, []byte("panic")) || bytes.Contains(b, []byte(dir)) {
					t.Errorf("page%s: the reply shows PDFium's panic or the path: %s", q, b)
				}
				t.Errorf("page%s: status %d: %s", q, status, b)
				return
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Errorf("page%s: not a PNG: %v", q, err)
				return
			}
			pw, ph := img.Bounds().Dx(), img.Bounds().Dy()
			if pw*ph > pdf.MaxRenderPixels || pw > pdf.MaxRenderSide || ph > pdf.MaxRenderSide || pw < 1000 {
				t.Errorf("page%s: %d×%d pixels, want at most %d pixels, %d a side, and the page still legible", q, pw, ph, pdf.MaxRenderPixels, pdf.MaxRenderSide)
			}
		}()
	}
	wg.Wait()
	status, _, b := call(t, ts, "GET", fmt.Sprintf("/api/v1/documents/%d/pages/1/highlights?q=poster&dpi=300", id), "")
	var hl PageHighlights
	if err := json.Unmarshal(b, &hl); status != 200 || err != nil || hl.Width*hl.Height > pdf.MaxRenderPixels || hl.DPI >= 300 || hl.Found != 1 {
		t.Errorf("highlights: %d %v %+v", status, err, hl)
	}
}

func TestFitDPI(t *testing.T) {
	for _, c := range []struct {
		w, h    float64
		dpi     int
		want    int
		tooLong bool
	}{
		{612, 792, 110, 110, false},
		{612, 792, 300, 300, false},
		{14400, 14400, 110, 20, false},
		{1, 1e6, 300, 1, false},
		{5e6, 5e6, 110, 0, true},
		{0, 792, 110, 0, true},
	} {
		got, err := pdf.FitDPI(c.w, c.h, c.dpi)
		if got != c.want || (err != nil) != c.tooLong {
			t.Errorf("FitDPI(%g, %g, %d) = %d, %v; want %d (error %v)", c.w, c.h, c.dpi, got, err, c.want, c.tooLong)
		}
	}
}

// TestPageReadsOnlyRegularFilesInTheirFolder swaps the indexed PDF for a
// named pipe, then for a link to /dev/zero and to a PDF outside the
// folder: each read is refused at once with one line, never a hang or
// the device's endless bytes.
func TestPageReadsOnlyRegularFilesInTheirFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	os.Mkdir(dir, 0o700)
	file := filepath.Join(dir, "terms.pdf")
	data := twoPagePDF("Late payment penalties apply after thirty days.")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ix, _ := freshIndex(t, dir)
	ts, s := newServerOn(t, ix, nil)
	defer s.Close()
	id, _ := documentIDs(t, ts)
	page := fmt.Sprintf("/api/v1/documents/%d/pages/1", id)

	os.Remove(file)
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	status, _, b := call(t, ts, "GET", page, "")
	wantError(t, status, b, http.StatusGone, "not a regular file (named pipe)")

	os.Remove(file)
	if err := os.Symlink("/dev/zero", file); err != nil {
		t.Fatal(err)
	}
	status, _, b = call(t, ts, "GET", page, "")
	wantError(t, status, b, http.StatusForbidden, "outside its folder")

	outside := filepath.Join(filepath.Dir(dir), "elsewhere.pdf")
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(file)
	if err := os.Symlink(outside, file); err != nil {
		t.Fatal(err)
	}
	status, _, b = call(t, ts, "GET", page, "")
	wantError(t, status, b, http.StatusForbidden, "outside its folder")
	if strings.Contains(string(b), dir) {
		t.Errorf("the error shows the path: %s", b)
	}
}
