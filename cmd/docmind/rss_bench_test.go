//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkIngestLargeTextPeakRSS ingests one large plain-text file (32
// MiB) with the built docmind in a fresh process and reports that
// process's peak resident memory (peak-MiB) and its ratio to the file's
// size (x-file-size). Run it alone:
//
//	go test ./cmd/docmind -run '^$' -bench IngestLargeTextPeakRSS -benchtime 1x
func BenchmarkIngestLargeTextPeakRSS(b *testing.B) {
	dir := bigTextFolder(b, 32<<20)
	fi, err := os.Stat(filepath.Join(dir, "big.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var peak int64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(binPath, "ingest", "--index", b.TempDir(), dir)
		cmd.Env = []string{"HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + b.TempDir()}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("ingest: %v\n%s", err, out)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss*1024) // KiB on Linux
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(peak)/float64(fi.Size()), "x-file-size")
}
