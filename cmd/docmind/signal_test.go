//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/threads"
)

// bigTextFolder is a folder with one plain-text document of about size
// bytes, long enough that ingesting it takes seconds.
func bigTextFolder(t testing.TB, size int) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Written through a small buffer: the benchmarks make files of
	// hundreds of MiB.
	w := &countingWriter{w: bufio.NewWriterSize(f, 1<<20)}
	words := strings.Fields("payment invoice late penalty contract service term notice party agreement fee interest")
	for i := 0; w.n < size; i++ {
		if i%50 == 0 {
			fmt.Fprintf(w, "\nSECTION %d\n\n", i/50)
		}
		for j := 0; j < 12; j++ {
			io.WriteString(w, words[(i*7+j*5)%len(words)])
			io.WriteString(w, " ")
		}
		io.WriteString(w, "end.\n")
	}
	if err := w.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w *bufio.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// Ctrl-C (SIGINT) or SIGTERM ends a run within a second, whatever it is
// doing — parsing, analysing or writing a large document — with a
// one-line message and exit code 1.
func TestInterruptEndsRunWithinASecond(t *testing.T) {
	dir := bigTextFolder(t, 32<<20) // ingested in over 2 s even on a quiet machine
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, after := range []time.Duration{0, time.Second, 2 * time.Second} {
			t.Run(fmt.Sprintf("%s %s into the ingest", sig, after), func(t *testing.T) {
				cmd := exec.Command(binPath, "ask", "--docs", dir, "What are the late payment penalties?")
				cmd.Dir = testenv.RepoRoot(t)
				cache := t.TempDir()
				cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cache}
				var so, se bytes.Buffer
				cmd.Stdout, cmd.Stderr = &so, &se
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				// The signal comes `after` the ingest has begun (its index
				// file exists).
				began := time.Now()
				for {
					if m, _ := filepath.Glob(filepath.Join(cache, "docmind", "folders", "*", "docmind.db")); len(m) > 0 {
						break
					}
					if time.Since(began) > time.Minute {
						t.Fatal("the ingest did not begin within a minute")
					}
					time.Sleep(10 * time.Millisecond)
				}
				select {
				case err := <-exited:
					t.Fatalf("the run ended before the signal (%v): make the document larger; stderr:\n%s", err, se.String())
				case <-time.After(after):
				}
				sent := time.Now()
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				select {
				case <-exited:
				case <-time.After(30 * time.Second):
					cmd.Process.Kill()
					<-exited
					t.Fatalf("still running 30 s after %s; stderr:\n%s", sig, se.String())
				}
				took := time.Since(sent)
				// The 1 s bound holds on a quiet machine (CI runs this test
				// alone, without -race, after the race run). Under -race the
				// other packages' tests saturate both cores and the forced
				// exit was seen to take 1.2–1.5 s: 3 s there.
				bound := time.Second
				if raceEnabled {
					bound = 3 * time.Second
				}
				if took > bound {
					t.Errorf("exited %s after %s, want within %s", took.Round(time.Millisecond), sig, bound)
				}
				r := result{so.String(), se.String(), cmd.ProcessState.ExitCode()}
				if r.code != exitError {
					t.Errorf("exit code %d, want %d", r.code, exitError)
				}
				if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
					t.Fatalf("stderr shows a crash:\n%s", r.stderr)
				}
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if last := lines[len(lines)-1]; last != "docmind: interrupted" {
					t.Errorf("last stderr line %q, want %q; stderr:\n%s", last, "docmind: interrupted", r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("stdout should be empty, got %q", r.stdout)
				}
			})
		}
	}
}

// A cancelled run ends with the one interruption line, whatever error the
// cancelled step returned: SQLite answers a statement cut off mid-way with
// "interrupted (9)", not context.Canceled (seen in CI when the signal came
// while the index's schema was being created).
func TestCancelledRunSaysInterrupted(t *testing.T) {
	sqliteErr := errors.New("open index /tmp/x/docmind.db: create schema: interrupted (9)")
	ctx, cancel := context.WithCancelCause(context.Background())
	var se bytes.Buffer
	if code := reportError(ctx, sqliteErr, &se); code != exitError || !strings.Contains(se.String(), "create schema") {
		t.Errorf("before cancelling: exit %d, stderr %q; want the error itself", code, se.String())
	}
	cancel(threads.ErrInterrupted)
	se.Reset()
	code := reportError(ctx, sqliteErr, &se)
	if code != exitError {
		t.Errorf("exit code %d, want %d", code, exitError)
	}
	if got := strings.TrimSpace(se.String()); got != "docmind: interrupted" {
		t.Errorf("stderr %q, want %q", got, "docmind: interrupted")
	}
}
