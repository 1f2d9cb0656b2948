package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/ingest"
)

// ocrFolder is a folder with a scanned PDF, a photo of a page and a
// workbook (the fixtures of formats/ocr and formats/xlsx).
func ocrFolder(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "..", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(n)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestIngestWithoutOCR: without Tesseract (or with --ocr never) the pages
// that need OCR are never dropped silently: one line says how many, why,
// and how to install Tesseract; --json reports them per file; the other
// files are indexed.
func TestIngestWithoutOCR(t *testing.T) {
	dir := ocrFolder(t, "formats/ocr/testdata/photo.png", "formats/ocr/testdata/bxp-2015-p6.scan.pdf", "formats/xlsx/testdata/sales.xlsx")
	noTesseract := []string{"DOCMIND_INDEX=" + t.TempDir(), "PATH=" + t.TempDir()}
	r := runCLI(t, noTesseract, "ingest", dir)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "1 indexed, 0 unchanged, 2 skipped") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	notice := "2 pages in 2 files need OCR and were not read: Tesseract (tesseract) is not installed; install Tesseract to read them: apt install tesseract-ocr tesseract-ocr-eng"
	if !strings.Contains(r.stderr, notice) {
		t.Errorf("stderr lacks the notice %q:\n%s", notice, r.stderr)
	}

	r = runCLI(t, []string{"DOCMIND_INDEX=" + t.TempDir()}, "ingest", "--json", "--ocr", "never", dir)
	var sum struct {
		NeedOCR int `json:"needs_ocr"`
		Results []struct {
			Path      string
			NeedOCR   int    `json:"needs_ocr"`
			OCRReason string `json:"ocr_reason"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, r.stdout)
	}
	if sum.NeedOCR != 2 {
		t.Errorf("needs_ocr = %d, want 2:\n%s", sum.NeedOCR, r.stdout)
	}
	for _, res := range sum.Results {
		if want := !strings.HasSuffix(res.Path, ".xlsx"); (res.NeedOCR == 1) != want || want && res.OCRReason != "OCR is off (--ocr never)" {
			t.Errorf("%s: needs_ocr %d, reason %q", res.Path, res.NeedOCR, res.OCRReason)
		}
	}
	if !strings.Contains(r.stderr, "2 pages in 2 files need OCR and were not read: OCR is off (--ocr never)\n") {
		t.Errorf("stderr lacks the notice:\n%s", r.stderr)
	}
	if r = runCLI(t, nil, "ingest", "--ocr", "sometimes", dir); r.code == exitOK || !strings.Contains(r.stderr, "want auto, always or never") {
		t.Errorf("--ocr sometimes: exit %d, stderr %q", r.code, r.stderr)
	}
	// ask --docs says it too.
	r = runCLI(t, noTesseract, "ask", "--provider", "offline", "--docs", dir, "What was the EMEA figure in Q3 2024?")
	if !strings.Contains(r.stderr, notice) {
		t.Errorf("ask --docs: stderr lacks the notice %q:\n%s", notice, r.stderr)
	}
}

// TestIngestOCR: with Tesseract, an image is read by OCR and its line
// says how many pages were OCR'd and how long it took.
func TestIngestOCR(t *testing.T) {
	requireTesseract(t)
	dir := ocrFolder(t, "formats/ocr/testdata/photo.png")
	r := runCLI(t, []string{"DOCMIND_INDEX=" + t.TempDir()}, "ingest", dir)
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "1 indexed") || !strings.Contains(r.stdout, "(1 page read by OCR)") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "photo.png: 1 page, ") || !strings.Contains(r.stderr, ", 1 page OCR'd in ") {
		t.Errorf("the file's line does not report OCR:\n%s", r.stderr)
	}
}

// TestProgressBarOCR: while a file is read by OCR, the progress line says
// which page of which file it is at, and stops saying so when it is done.
func TestProgressBarOCR(t *testing.T) {
	var buf strings.Builder
	bar := &progressBar{w: &buf}
	bar.update(ingest.Progress{FilesDone: 1, FilesTotal: 3, Pages: 4})
	bar.last = time.Time{}
	bar.ocrPage("/docs/scans/lease.pdf", 2, 40)
	if !strings.HasSuffix(buf.String(), "1/3 files · 4 pages · 0 sections · 0 sections/s · OCR lease.pdf 2/40 pages") {
		t.Errorf("line %q", buf.String())
	}
	bar.last = time.Time{}
	bar.ocrPage("/docs/scans/lease.pdf", 40, 40)
	if last := buf.String()[strings.LastIndex(buf.String(), "\r"):]; strings.Contains(last, "OCR") {
		t.Errorf("the OCR note stays after the file is done: %q", last)
	}
}

// requireTesseract skips the test without Tesseract on PATH, or fails it
// with CI_REQUIRE_TESSERACT=1 (CI installs it).
func requireTesseract(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("CI_REQUIRE_TESSERACT") == "1" {
			t.Fatal("tesseract is not installed and CI_REQUIRE_TESSERACT=1")
		}
		t.Skip("tesseract is not installed")
	}
}

// TestIngestRereadsOnceOCRCanRun: a PDF indexed while Tesseract was
// missing (a text page, then a scanned one) is read again by a later
// ingest with Tesseract, which says so, though the file is unchanged; an
// unchanged file that needed no OCR is not, and neither is the PDF while
// Tesseract is still missing or once it has been read by OCR.
func TestIngestRereadsOnceOCRCanRun(t *testing.T) {
	requireTesseract(t)
	dir := ocrFolder(t, "formats/ocr/testdata/bxp-2015-p5-6.mixed.pdf", "examples/contract/master-services-agreement.md")
	idx := "DOCMIND_INDEX=" + t.TempDir()
	noTesseract := []string{idx, "PATH=" + t.TempDir()}
	type summary struct {
		Indexed, Unchanged int
		Results            []struct {
			Path      string
			Status    string
			Reason    string
			OCRPages  int    `json:"ocr_pages"`
			NeedOCR   int    `json:"needs_ocr"`
			OCRReason string `json:"ocr_reason"`
		}
	}
	ingestJSON := func(env []string) summary {
		t.Helper()
		r := runCLI(t, env, "ingest", "--json", dir)
		var sum summary
		if err := json.Unmarshal([]byte(r.stdout), &sum); r.code != exitOK || err != nil {
			t.Fatalf("exit %d, %v:\n%s%s", r.code, err, r.stdout, r.stderr)
		}
		return sum
	}
	sum := ingestJSON(noTesseract)
	if sum.Indexed != 2 || sum.Results[0].NeedOCR != 1 || !strings.Contains(sum.Results[0].OCRReason, "not installed") {
		t.Fatalf("without Tesseract: %+v", sum)
	}
	if sum = ingestJSON(noTesseract); sum.Unchanged != 2 {
		t.Errorf("again without Tesseract: %+v, want both unchanged", sum)
	}
	r := runCLI(t, []string{idx}, "ingest", dir)
	const again = "read again now that OCR can run: 1 page needed it when the file was indexed (Tesseract (tesseract) is not installed)"
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "1 indexed, 1 unchanged") || !strings.Contains(r.stdout, "(1 page read by OCR)") ||
		!strings.Contains(r.stdout, "bxp-2015-p5-6.mixed.pdf: "+again+"\n") {
		t.Fatalf("with Tesseract: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "1 page OCR'd in ") || !strings.Contains(r.stderr, "("+again+")") {
		t.Errorf("the file's line does not say it was read again by OCR:\n%s", r.stderr)
	}
	if sum = ingestJSON([]string{idx}); sum.Unchanged != 2 {
		t.Errorf("once read by OCR: %+v, want both unchanged", sum)
	}
}
