package ingest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The summary reports pages per second and the process's peak RSS, in
// its JSON too.
func TestSummaryReportsRateAndPeakRSS(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), "one\f\ftwo\f\fthree")
	write(t, filepath.Join(dir, "b.txt"), "four")
	ix := openIndex(t, filepath.Join(t.TempDir(), "ix.db"))
	sum, err := Run(context.Background(), ix, []string{dir}, Options{Parser: textParser(20 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pages != 6 {
		t.Fatalf("pages %d, want 6", sum.Pages)
	}
	want := float64(sum.Pages) / sum.Duration.Seconds()
	if sum.PagesPerSec <= 0 || sum.PagesPerSec > want*1.01+0.1 || sum.PagesPerSec < want*0.99-0.1 {
		t.Errorf("pages/s %v, want %v (%d pages in %s)", sum.PagesPerSec, want, sum.Pages, sum.Duration)
	}
	if runtime.GOOS == "linux" && sum.PeakRSS < 1<<20 {
		t.Errorf("peak RSS %d bytes: getrusage not read", sum.PeakRSS)
	}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"pages_per_s":`, `"peak_rss_bytes":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s: %s", k, b)
		}
	}
}

// An ingest of an empty folder has no results: "results" is the empty
// array docs/json.md shows, not null (docmind ingest --json empty/ printed
// "results": null, which a script iterating over it fails on).
func TestSummaryJSONResultsIsAnArray(t *testing.T) {
	sum, err := Run(context.Background(), openIndex(t, filepath.Join(t.TempDir(), "ix.db")), []string{t.TempDir()}, Options{Parser: textParser(0)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"results":[]`) {
		t.Errorf("JSON of an empty ingest: %s, want \"results\":[]", b)
	}
}
