package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// textParser is a minimal real parser: paragraphs separated by blank
// lines become sections titled by their first line; form feeds separate
// pages. NUL bytes mean a binary file; the text "PANIC" makes it panic
// (standing in for a third-party parser bug).
func textParser(delay time.Duration) Parser {
	return ParserFunc(func(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, error) {
		if delay > 0 {
			time.Sleep(delay)
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil, 0, "", errors.New("binary content, not text")
		}
		if bytes.Contains(data, []byte("PANIC")) {
			panic("parser bug")
		}
		var secs []schema.Section
		for p, page := range strings.Split(string(data), "\f") {
			for i, para := range strings.Split(page, "\n\n") {
				para = strings.TrimSpace(para)
				if para == "" {
					continue
				}
				title, _, _ := strings.Cut(para, "\n")
				secs = append(secs, schema.Section{Title: title, Content: para, Page: p + 1, Chunk: i})
			}
		}
		return secs, strings.Count(string(data), "\f") + 1, "text", nil
	})
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openIndex(t *testing.T, path string) *index.Index {
	t.Helper()
	ix, err := index.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func statuses(s *Summary) map[string]Result {
	m := map[string]Result{}
	for _, r := range s.Results {
		m[filepath.Base(r.Path)] = r
	}
	return m
}

func TestIngestIncrementalAndPrune(t *testing.T) {
	ctx := context.Background()
	docs := t.TempDir()
	write(t, filepath.Join(docs, "contract.txt"), "Payment Terms\nInvoices are due in 30 days.\n\fLate Payment Penalties\nA late fee of 1.5% per month applies.")
	write(t, filepath.Join(docs, "notes.md"), "Warranty\nThe warranty lasts twelve months.")
	write(t, filepath.Join(docs, "sub", "deep.txt"), "Termination\nSixty days notice.")
	write(t, filepath.Join(docs, "empty.txt"), "")
	write(t, filepath.Join(docs, "blank.txt"), "\n\n   \n")
	write(t, filepath.Join(docs, "big.txt"), strings.Repeat("large ", 400))
	write(t, filepath.Join(docs, "binary.txt"), "text\x00\x01\x02")
	write(t, filepath.Join(docs, "crash.txt"), "PANIC")
	write(t, filepath.Join(docs, ".hidden", "secret.txt"), "hidden")
	// The index lives inside the folder being ingested: it must not index itself.
	ixPath := filepath.Join(docs, "idx", index.FileName)
	ix := openIndex(t, ixPath)

	var progress []Progress
	var mu sync.Mutex
	started := map[string]bool{}
	startedFirst := true // every file's Started comes before the Progress reporting it
	opt := Options{Parser: textParser(0), MaxFileSize: 1000,
		Started: func(path string) { mu.Lock(); started[path] = true; mu.Unlock() },
		Progress: func(p Progress) {
			mu.Lock()
			startedFirst = startedFirst && started[p.Current]
			mu.Unlock()
			progress = append(progress, p)
		}}
	sum, err := Run(ctx, ix, []string{docs}, opt)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(sum)
	want := map[string]struct {
		status Status
		reason string
	}{
		"contract.txt": {Indexed, ""},
		"notes.md":     {Indexed, ""},
		"deep.txt":     {Indexed, ""},
		"empty.txt":    {Skipped, "empty file"},
		"blank.txt":    {Skipped, "no text found"},
		"big.txt":      {Skipped, "larger than the 1000 B limit"},
		"binary.txt":   {Skipped, "binary content"},
		"crash.txt":    {Skipped, "parser failed: parser bug"},
	}
	if len(got) != len(want) {
		t.Fatalf("results %+v, want %d files", sum.Results, len(want))
	}
	for name, w := range want {
		r := got[name]
		if r.Status != w.status || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("%s: %s (%q), want %s (%q)", name, r.Status, r.Reason, w.status, w.reason)
		}
	}
	if sum.Indexed != 3 || sum.Skipped != 5 || sum.Sections != 4 || sum.Pages != 4 {
		t.Errorf("summary counts: %+v", sum)
	}
	if c := got["contract.txt"]; c.Pages != 2 || c.Sections != 2 || c.Format != "text" {
		t.Errorf("contract result: %+v", c)
	}
	if len(started) != 8 || !startedFirst {
		t.Errorf("Started called for %d files (want 8), before their Progress: %v", len(started), startedFirst)
	}
	if len(progress) != 8 || progress[7].FilesDone != 8 || progress[7].FilesTotal != 8 || progress[7].Sections != 4 || progress[7].Bytes != progress[7].BytesTotal {
		t.Errorf("progress: %+v", progress)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i].FilesDone <= progress[i-1].FilesDone {
			t.Errorf("progress not increasing: %+v", progress)
		}
	}
	hits, err := ix.Search(ctx, "late fee", 1)
	if err != nil || len(hits) != 1 || hits[0].Section.Page != 2 || hits[0].Section.Source != filepath.Join(docs, "contract.txt") {
		t.Fatalf("search after ingest: %+v %v", hits, err)
	}

	// Re-running is a no-op: nothing rewritten.
	before, _ := ix.Documents(ctx)
	st1, _ := ix.Stats(ctx)
	sum, err = Run(ctx, ix, []string{docs}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed != 0 || sum.Unchanged != 3 || sum.Skipped != 5 {
		t.Fatalf("second run not a no-op: %+v", sum)
	}
	after, _ := ix.Documents(ctx)
	for i := range before {
		if !before[i].IngestedAt.Equal(after[i].IngestedAt) || before[i].ID != after[i].ID {
			t.Fatalf("document rewritten on no-op run: %+v -> %+v", before[i], after[i])
		}
	}
	if st2, _ := ix.Stats(ctx); st2 != st1 {
		t.Fatalf("stats changed on no-op run: %+v -> %+v", st1, st2)
	}

	// A changed file is replaced; the others stay.
	write(t, filepath.Join(docs, "contract.txt"), "Payment Terms\nInvoices are due in 45 days.")
	sum, err = Run(ctx, ix, []string{docs}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed != 1 || sum.Unchanged != 2 || statuses(sum)["contract.txt"].Status != Indexed {
		t.Fatalf("third run: %+v", sum)
	}
	if hits, _ := ix.Search(ctx, "late fee", 5); len(hits) != 0 {
		t.Fatalf("old content of a changed file still found: %+v", hits)
	}
	if hits, _ := ix.Search(ctx, "invoices due", 5); len(hits) != 1 || !strings.Contains(hits[0].Section.Content, "45 days") {
		t.Fatalf("new content missing: %+v", hits)
	}

	// A file that turns corrupt keeps its previous version.
	write(t, filepath.Join(docs, "notes.md"), "bad\x00")
	sum, _ = Run(ctx, ix, []string{docs}, opt)
	if r := statuses(sum)["notes.md"]; r.Status != Skipped {
		t.Fatalf("corrupt file: %+v", r)
	}
	if hits, _ := ix.Search(ctx, "warranty", 5); len(hits) != 1 {
		t.Fatalf("previous version of a now-corrupt file lost: %+v", hits)
	}

	// Prune removes documents whose files are gone, and only those.
	os.Remove(filepath.Join(docs, "sub", "deep.txt"))
	sum, err = Run(ctx, ix, []string{docs}, Options{Parser: textParser(0), MaxFileSize: 1000, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Removed != 1 || statuses(sum)["deep.txt"].Status != Removed {
		t.Fatalf("prune: %+v", sum)
	}
	if d, _ := ix.Documents(ctx); len(d) != 2 {
		t.Fatalf("documents after prune: %+v", d)
	}
	// Prune limited to roots leaves other documents alone.
	other := t.TempDir()
	write(t, filepath.Join(other, "o.txt"), "Other\nother text")
	if _, err := Run(ctx, ix, []string{filepath.Join(other, "o.txt")}, Options{Parser: textParser(0)}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(docs, "notes.md"))
	os.Remove(filepath.Join(other, "o.txt"))
	removed, err := Prune(ctx, ix, []string{docs})
	if err != nil || len(removed) != 1 || filepath.Base(removed[0].Path) != "notes.md" {
		t.Fatalf("prune under root: %+v %v", removed, err)
	}
	if removed, _ := Prune(ctx, ix, nil); len(removed) != 1 || filepath.Base(removed[0].Path) != "o.txt" {
		t.Fatalf("prune everywhere: %+v", removed)
	}
}

func TestMissingAndUnreadable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openIndex(t, filepath.Join(t.TempDir(), index.FileName))
	write(t, filepath.Join(dir, "locked", "x.txt"), "x")
	write(t, filepath.Join(dir, "locked.txt"), "Locked\ntext")
	os.Chmod(filepath.Join(dir, "locked.txt"), 0)
	os.Chmod(filepath.Join(dir, "locked"), 0)
	defer os.Chmod(filepath.Join(dir, "locked"), 0o755)
	sum, err := Run(ctx, ix, []string{filepath.Join(dir, "missing.txt"), dir}, Options{Parser: textParser(0)})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(sum)
	if r := got["missing.txt"]; r.Status != Skipped || r.Reason != "file not found" {
		t.Errorf("missing: %+v", r)
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: permissions are not enforced, permission cases not checked")
		return
	}
	if r := got["locked.txt"]; r.Status != Skipped || r.Reason != "permission denied" {
		t.Errorf("unreadable file: %+v", r)
	}
	if r := got["locked"]; r.Status != Skipped || r.Reason != "permission denied" {
		t.Errorf("unreadable folder: %+v", r)
	}
}

func TestDescribeFSError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission}, "permission denied"},
		{&fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}, "file not found"},
		{&fs.PathError{Op: "read", Path: "x", Err: syscall.EIO}, "input/output error"},
	} {
		if got := loader.DescribeFSError(tc.err); got != tc.want {
			t.Errorf("loader.DescribeFSError(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestConcurrentReaderDuringIngest(t *testing.T) {
	ctx := context.Background()
	docs := t.TempDir()
	for i := 0; i < 60; i++ {
		write(t, filepath.Join(docs, fmt.Sprintf("f%02d.txt", i)), fmt.Sprintf("Clause %d\nThe common clause text number %d with payment terms.", i, i))
	}
	ixPath := filepath.Join(t.TempDir(), index.FileName)
	writer := openIndex(t, ixPath)
	reader := openIndex(t, ixPath)
	var stop atomic.Bool
	var reads, maxSeen atomic.Int64
	var rerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := 0
		for !stop.Load() {
			hits, err := reader.Search(ctx, "common clause payment", 100)
			if err != nil {
				rerr = err
				return
			}
			if len(hits) < last {
				rerr = fmt.Errorf("reader saw %d sections after %d", len(hits), last)
				return
			}
			last = len(hits)
			maxSeen.Store(int64(last))
			reads.Add(1)
		}
	}()
	sum, err := Run(ctx, writer, []string{docs}, Options{Parser: textParser(2 * time.Millisecond), Workers: 1})
	stop.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if rerr != nil {
		t.Fatalf("reader failed during ingest: %v", rerr)
	}
	if sum.Indexed != 60 || reads.Load() < 2 {
		t.Fatalf("indexed %d, reads %d", sum.Indexed, reads.Load())
	}
	if st, _ := writer.Stats(ctx); st.Segments != 1 {
		t.Fatalf("bulk ingest left %d lexical segments, want 1 (optimized)", st.Segments)
	}
	if hits, _ := reader.Search(ctx, "common clause payment", 100); len(hits) != 60 {
		t.Fatalf("reader sees %d sections after ingest, want 60", len(hits))
	}
}

// The crash test re-executes the test binary as a child that ingests
// slowly and reports progress on stdout; the parent kills it with SIGKILL
// mid-ingest, then checks the index.
const childEnv = "DOCMIND_INGEST_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(childIngest(spec))
	}
	os.Exit(m.Run())
}

func childIngest(spec string) int {
	ixPath, docs, _ := strings.Cut(spec, "|")
	ctx := context.Background()
	ix, err := index.Open(ctx, ixPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = Run(ctx, ix, []string{docs}, Options{Parser: textParser(0), Workers: 1, Progress: func(p Progress) {
		fmt.Printf("done %d\n", p.FilesDone)
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// parts per document: large enough that the child spends most of its time
// inside write transactions, so the kill usually lands in one.
const parts = 100

func version(i, v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Doc %d version %d\n", i, v)
	for j := 0; j < parts; j++ {
		fmt.Fprintf(&b, "\n\nPart %d\nversion%d text of document %d part %d with shared words", j, v, i, j)
	}
	return b.String()
}

func TestCrashMidIngestKeepsIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("re-exec crash test skipped in -short mode")
	}
	ctx := context.Background()
	docs := t.TempDir()
	const n = 24
	for i := 0; i < n; i++ {
		write(t, filepath.Join(docs, fmt.Sprintf("d%02d.txt", i)), version(i, 1))
	}
	ixPath := filepath.Join(t.TempDir(), index.FileName)
	ix, err := index.Open(ctx, ixPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, ix, []string{docs}, Options{Parser: textParser(0)}); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	for i := 0; i < n; i++ {
		write(t, filepath.Join(docs, fmt.Sprintf("d%02d.txt", i)), version(i, 2))
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+ixPath+"|"+docs)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	done := 0
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "done "); ok {
			done, _ = strconv.Atoi(v)
			if done >= n/3 {
				break
			}
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if done < n/3 || done >= n {
		t.Fatalf("child reported %d files before the kill (stderr: %s)", done, stderr.String())
	}

	ix, err = index.Open(ctx, ixPath)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer ix.Close()
	var check string
	if err := ix.DB().QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check after kill: %q %v", check, err)
	}
	// Every document is whole: all its sections are from one version.
	list, err := ix.Documents(ctx)
	if err != nil || len(list) != n {
		t.Fatalf("documents after kill: %d %v", len(list), err)
	}
	v2 := 0
	for _, d := range list {
		secs, err := ix.Sections(ctx, d.Path)
		if err != nil || len(secs) != parts+1 {
			t.Fatalf("%s has %d sections after kill (%v)", d.Path, len(secs), err)
		}
		want := "version1"
		if strings.Contains(secs[1].Content, "version2") {
			want, v2 = "version2", v2+1
		}
		for _, s := range secs[1:] {
			if !strings.Contains(s.Content, want) {
				t.Fatalf("%s mixes versions after kill", d.Path)
			}
		}
	}
	if v2 < done-1 || v2 == n {
		t.Fatalf("%d documents at version 2 after %d reported done", v2, done)
	}
	// Search works on the mixed but consistent index, and finishing the
	// ingest completes it.
	if hits, err := ix.Search(ctx, "version1 shared words", 10); err != nil || len(hits) == 0 {
		t.Fatalf("search after kill: %d %v", len(hits), err)
	}
	sum, err := Run(ctx, ix, []string{docs}, Options{Parser: textParser(0)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed+sum.Unchanged != n || sum.Unchanged < v2 {
		t.Fatalf("resume after kill: %+v", sum)
	}
	if hits, _ := ix.Search(ctx, "version1", 10); len(hits) != 0 {
		t.Fatalf("old versions remain after resuming: %d", len(hits))
	}
}

// Named pipes and links to pipes or devices are reported as skipped with
// the reason, never opened (opening a pipe for reading would block).
func TestSpecialFilesSkipped(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ix := openIndex(t, filepath.Join(t.TempDir(), index.FileName))
	write(t, filepath.Join(dir, "a.txt"), "Alpha\ntext")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "pipe"), filepath.Join(dir, "pipe-link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.txt")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, ix, []string{dir, "/dev/zero"}, Options{Parser: textParser(0)})
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(sum)
	for name, want := range map[string]string{"pipe": "named pipe", "pipe-link.txt": "named pipe", "zero.txt": "character device"} {
		if r := got[name]; r.Status != Skipped || !strings.Contains(r.Reason, want) {
			t.Errorf("%s: %+v, want skipped: %s", name, r, want)
		}
	}
	if sum.Indexed != 1 || sum.Skipped != 4 {
		t.Errorf("indexed %d, skipped %d; want 1 and 4 (pipe, two links, /dev/zero)", sum.Indexed, sum.Skipped)
	}
}
