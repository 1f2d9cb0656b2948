//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// BenchmarkIngestLargeTextPeakRSS ingests one large plain-text file (32
// MiB, or DOCMIND_RSS_BENCH_MB MiB) with the built docmind in a fresh
// process and reports that process's peak resident memory (peak-MiB) and
// its ratio to the file's size (x-file-size). The file size limit is
// raised above the file's size. Run it alone:
//
//	go test ./cmd/docmind -run '^$' -bench IngestLargeTextPeakRSS -benchtime 1x
//	DOCMIND_RSS_BENCH_MB=477 go test ./cmd/docmind -run '^$' -bench IngestLargeTextPeakRSS -benchtime 1x -timeout 60m
//
// (477 MiB is 500 MB.)
func BenchmarkIngestLargeTextPeakRSS(b *testing.B) {
	mib := 32
	if s := os.Getenv("DOCMIND_RSS_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("DOCMIND_RSS_BENCH_MB=%q: want a positive number of MiB", s)
		}
		mib = n
	}
	dir := bigTextFolder(b, mib<<20)
	fi, err := os.Stat(filepath.Join(dir, "big.txt"))
	if err != nil {
		b.Fatal(err)
	}
	var peak int64
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(binPath, "ingest", "--index", b.TempDir(), "--max-file-size", strconv.FormatInt(2*fi.Size(), 10), dir)
		cmd.Env = []string{"HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + b.TempDir()}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr // a line per file
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("ingest: %v\n%s%s", err, out, stderr.Bytes())
		}
		if !indexedOne(out) {
			b.Fatalf("ingest did not index the file:\n%s", out)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = max(peak, ru.Maxrss*1024) // KiB on Linux
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(peak)/float64(fi.Size()), "x-file-size")
}

// indexedOne reports an ingest summary that indexed one file.
func indexedOne(out []byte) bool {
	return len(out) >= 10 && string(out[:10]) == "1 indexed,"
}
