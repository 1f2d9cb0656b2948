package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/ingest"
)

// slowBar is a progress bar on a fake clock, with one 2 MiB file.
func slowBar(t *testing.T, tty bool) (*progressBar, *strings.Builder, *time.Time, string) {
	t.Helper()
	big := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	bar := &progressBar{w: &buf, tty: tty, inflight: map[string]reading{}, now: func() time.Time { return now }}
	return bar, &buf, &now, big
}

// TestProgressNamesASlowFileOnTheBar: a file read for over 2 s is named
// on the bar, with its size and time, also before any file is done, and
// no longer once it is done.
func TestProgressNamesASlowFileOnTheBar(t *testing.T) {
	bar, buf, now, big := slowBar(t, true)
	bar.started(big)
	*now = now.Add(time.Second)
	bar.tick()
	if buf.Len() != 0 {
		t.Fatalf("a file read for 1 s is named: %q", buf.String())
	}
	*now = now.Add(2 * time.Second)
	bar.tick()
	if !strings.HasSuffix(buf.String(), "\r\x1b[Kreading big.txt (2 MiB) 3s") {
		t.Fatalf("after 3 s: %q", buf.String())
	}
	bar.update(ingest.Progress{FilesDone: 1, FilesTotal: 2, Sections: 5, Last: ingest.Result{Path: big}})
	last := buf.String()[strings.LastIndex(buf.String(), "\r"):]
	if strings.Contains(last, "reading") || !strings.Contains(last, "1/2 files") {
		t.Errorf("after the file is done: %q", last)
	}
	bar.started(big)
	*now = now.Add(3 * time.Second)
	bar.tick() // named again
	bar.finish()
	n := buf.Len()
	bar.tick() // a tick the finish raced with draws nothing
	if buf.Len() != n {
		t.Errorf("a tick after finish drew %q", buf.String()[n:])
	}
	bar.finish() // twice: no panic
}

// TestProgressNamesASlowFileInAPipe: in a pipe, a file read for 10 s gets
// one line saying so, and another each minute after.
func TestProgressNamesASlowFileInAPipe(t *testing.T) {
	bar, buf, now, big := slowBar(t, false)
	bar.started(big)
	for _, step := range []time.Duration{5 * time.Second, 5 * time.Second, 20 * time.Second, 50 * time.Second} {
		*now = now.Add(step)
		bar.tick()
	}
	want := "reading " + big + " (2 MiB): 10s so far\nreading " + big + " (2 MiB): 1m20s so far\n"
	if buf.String() != want {
		t.Errorf("lines:\n%q\nwant\n%q", buf.String(), want)
	}
}

// TestShowProgressStops: the watcher showProgress starts ends with finish.
func TestShowProgressStops(t *testing.T) {
	var buf strings.Builder
	a := &app{stderr: &buf}
	var opt ingest.Options
	bar := a.showProgress(&opt, true)
	if opt.Started == nil || opt.Progress == nil {
		t.Fatal("showProgress set no Started or Progress")
	}
	bar.finish()
	select {
	case <-bar.stop:
	default:
		t.Fatal("finish left the watcher running")
	}
}
