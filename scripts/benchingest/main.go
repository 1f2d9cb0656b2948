// Command benchingest measures docmind's PDF ingest against pdftotext
// (poppler-utils) on the same files, in one run, and prints a
// "measurements" report: {"figures": [{"label", "value"}]}, each value
// a worded ratio with the figures it comes from. scripts/bench-ingest.sh
// runs it and wraps the report (scripts/benchtable wrap).
//
//	go run ./scripts/benchingest -docmind /tmp/docmind -jobs 2 ../shared/fixtures/filings
//
// docmind ingests the folder into a new index (nothing read before) with
// PDFium's compiled code in its cache (a first, untimed ingest of one
// file fills it, as any run after the first on a machine finds it);
// pdftotext then converts every PDF with -jobs processes at a time.
// Pages/s are the pages docmind indexed over each one's wall time (on a
// busy machine, CPU time per page is the steadier comparison); peak
// RSS is docmind's whole process (getrusage maxrss) and, for pdftotext,
// the largest single process (the jobs running at once hold at most
// -jobs times that).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"time"
)

type figure struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

type ingestSummary struct {
	Indexed     int     `json:"indexed"`
	Skipped     int     `json:"skipped"`
	Pages       int     `json:"pages"`
	DurationMS  float64 `json:"duration_ms"`
	PagesPerSec float64 `json:"pages_per_s"`
	PeakRSS     int64   `json:"peak_rss_bytes"`
	cpu         float64 // user+system seconds of the process
}

func main() {
	docmind := flag.String("docmind", "docmind", "the docmind binary")
	jobs := flag.Int("jobs", runtime.NumCPU(), "pdftotext processes at a time")
	flag.Parse()
	if flag.NArg() != 1 {
		fail(fmt.Errorf("usage: benchingest [-docmind BIN] [-jobs N] FOLDER"))
	}
	dir := flag.Arg(0)
	files, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil || len(files) == 0 {
		fail(fmt.Errorf("no PDF files in %s", dir))
	}
	sort.Strings(files)
	tmp, err := os.MkdirTemp("", "benchingest-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)

	// warm PDFium's compilation cache with one file, untimed
	if _, err := ingest(*docmind, filepath.Join(tmp, "warm"), files[0]); err != nil {
		fail(err)
	}
	sum, err := ingest(*docmind, filepath.Join(tmp, "index"), dir)
	if err != nil {
		fail(err)
	}
	if sum.Indexed != len(files) || sum.Pages == 0 {
		fail(fmt.Errorf("docmind indexed %d of %d files (%d skipped), %d pages", sum.Indexed, len(files), sum.Skipped, sum.Pages))
	}
	ptSecs, ptRSS, ptCPU, err := pdftotext(files, *jobs)
	if err != nil {
		fail(err)
	}
	dmSecs := sum.DurationMS / 1000
	dmRate, ptRate := float64(sum.Pages)/dmSecs, float64(sum.Pages)/ptSecs
	mib := func(b int64) float64 { return float64(b) / (1 << 20) }
	figs := []figure{
		{"PDF ingest pages/s vs pdftotext (goal ≥ 0.5×)", fmt.Sprintf("%.2f× (docmind %.1f pages/s, %d pages in %.1f s; pdftotext %.1f pages/s in %.1f s, %d jobs)",
			dmRate/ptRate, dmRate, sum.Pages, dmSecs, ptRate, ptSecs, *jobs)},
		{"PDF ingest CPU time per page vs pdftotext", fmt.Sprintf("%.1f× (docmind %.1f ms, %.1f CPU s in all, index writes included; pdftotext %.1f ms, %.1f CPU s)",
			sum.cpu/ptCPU, 1000*sum.cpu/float64(sum.Pages), sum.cpu, 1000*ptCPU/float64(sum.Pages), ptCPU)},
		{"PDF ingest peak RSS (goal ≤ 100 MiB)", fmt.Sprintf("%.0f MiB, %.1f× pdftotext's largest process (%.0f MiB; %d at a time hold at most %.0f MiB)",
			mib(sum.PeakRSS), float64(sum.PeakRSS)/float64(ptRSS), mib(ptRSS), *jobs, mib(ptRSS)*float64(*jobs))},
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"figures": figs}); err != nil {
		fail(err)
	}
}

// ingest runs docmind ingest --json PATH into a new index in dir.
func ingest(docmind, dir, path string) (ingestSummary, error) {
	var sum ingestSummary
	cmd := exec.Command(docmind, "ingest", "--json", "--index", dir, path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return sum, fmt.Errorf("docmind ingest %s: %w", path, err)
	}
	if err := json.Unmarshal(out, &sum); err != nil {
		return sum, fmt.Errorf("docmind ingest --json: %w", err)
	}
	sum.cpu = cpuSeconds(cmd.ProcessState)
	return sum, nil
}

// cpuSeconds is a finished process's user and system time.
func cpuSeconds(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// pdftotext converts files with jobs processes at a time and returns the
// wall time, the largest process's peak RSS in bytes and the CPU seconds
// of all.
func pdftotext(files []string, jobs int) (float64, int64, float64, error) {
	queue := make(chan string)
	var (
		mu    sync.Mutex
		peak  int64
		cpu   float64
		first error
		wg    sync.WaitGroup
	)
	start := time.Now()
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range queue {
				cmd := exec.Command("pdftotext", f, os.DevNull)
				err := cmd.Run()
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("pdftotext %s: %w", f, err)
				}
				cpu += cpuSeconds(cmd.ProcessState)
				if cmd.ProcessState != nil {
					if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
						peak = max(peak, int64(ru.Maxrss)<<10) // KiB on Linux
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, f := range files {
		queue <- f
	}
	close(queue)
	wg.Wait()
	return time.Since(start).Seconds(), peak, cpu, first
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchingest:", err)
	os.Exit(1)
}
