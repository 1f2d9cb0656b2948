//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/schema"
)

// runCLITimeout runs the command like runCLI with extra environment, but
// fails the test when it does not finish within d (a hang on a pipe or an
// endless device must fail, not stall the suite).
func runCLITimeout(t *testing.T, d time.Duration, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + t.TempDir()}, env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("docmind %s did not finish within %s (hung?); stderr:\n%s", strings.Join(args, " "), d, se.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running docmind: %v", err)
	}
	return result{so.String(), se.String(), code}
}

// specialFolder is a folder with one real document, a named pipe, a
// symbolic link to the pipe and a symbolic link to /dev/zero.
func specialFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	doc, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "examples", "contract", "master-services-agreement.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "msa.md"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "pipe"), filepath.Join(dir, "pipe-link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.txt")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAskDocsSkipsSpecialFiles(t *testing.T) {
	dir := specialFolder(t)
	r := runCLITimeout(t, 2*time.Minute, nil, "-v", "ask", "--docs", dir, "--json", "What are the late payment penalties?")
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"pipe", "pipe-link.md", "zero.txt"} {
		if !strings.Contains(r.stderr, "skipped "+filepath.Join(dir, name)+": not a regular file") {
			t.Errorf("stderr does not say %s was skipped as not a regular file:\n%s", name, r.stderr)
		}
	}
	st := decodeState(t, r.stdout)
	if len(st.RetrievedSections) == 0 || !strings.HasSuffix(st.RetrievedSections[0].Source, "msa.md") {
		t.Errorf("want sections of msa.md, got %+v", st.RetrievedSections)
	}
}

func TestAskDocsSpecialPath(t *testing.T) {
	dir := specialFolder(t)
	for _, p := range []string{"/dev/zero", filepath.Join(dir, "zero.txt"), filepath.Join(dir, "pipe"), filepath.Join(dir, "pipe-link.md")} {
		r := runCLITimeout(t, time.Minute, nil, "ask", "--docs", p, "What is this?")
		if r.code != exitError {
			t.Fatalf("ask --docs %s: exit %d, want %d; stderr:\n%s", p, r.code, exitError, r.stderr)
		}
		assertOneLineError(t, r, "not a regular file")
		if r.stdout != "" {
			t.Errorf("stdout should be empty, got %q", r.stdout)
		}
	}
}

// ask --docs answers from the same index ingest builds: same sections,
// same answer, same verdict as ingest then ask --index.
func TestAskDocsMatchesIndex(t *testing.T) {
	q := "What are the late payment penalties?"
	viaDocs := runCLITimeout(t, 2*time.Minute, nil, "ask", "--docs", "examples/contract", "--json", q)
	if viaDocs.code != 0 {
		t.Fatalf("ask --docs: exit %d\n%s", viaDocs.code, viaDocs.stderr)
	}
	ixDir := t.TempDir()
	if r := runCLITimeout(t, 2*time.Minute, nil, "ingest", "--index", ixDir, "examples/contract"); r.code != 0 {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	viaIndex := runCLITimeout(t, 2*time.Minute, nil, "ask", "--index", ixDir, "--json", q)
	if viaIndex.code != 0 {
		t.Fatalf("ask --index: exit %d\n%s", viaIndex.code, viaIndex.stderr)
	}
	a, b := decodeState(t, viaDocs.stdout), decodeState(t, viaIndex.stdout)
	if a.Answer() != b.Answer() || a.Answer() == "" || len(a.RetrievedSections) != len(b.RetrievedSections) {
		t.Fatalf("--docs and --index differ:\n%s\n---\n%s", a.Answer(), b.Answer())
	}
	for i := range a.RetrievedSections {
		if a.RetrievedSections[i].ID != b.RetrievedSections[i].ID {
			t.Errorf("section %d: %s vs %s", i, a.RetrievedSections[i].ID, b.RetrievedSections[i].ID)
		}
	}
	if !strings.HasPrefix(a.RetrievedSections[0].Source, "examples/contract/") {
		t.Errorf("--docs sources should be shown under the folder given, got %s", a.RetrievedSections[0].Source)
	}
}

// The per-folder cache is reused (unchanged files are not parsed again),
// removed files are pruned, and an unusable cache falls back to a
// temporary index removed at exit.
func TestAskDocsCache(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fees.md", "# Fees\n\nThe monthly fee is 400 euros, payable in advance.\n")
	write("hours.md", "# Support hours\n\nSupport is available from 8am to 6pm on working days.\n")
	cache := t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	ask := func(q string) *schema.State {
		t.Helper()
		r := runCLITimeout(t, time.Minute, env, "ask", "--docs", dir, "--json", q)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		return decodeState(t, r.stdout)
	}
	ask("What is the monthly fee?")
	abs, _ := filepath.Abs(dir)
	db := index.PathInDir(filepath.Join(cache, "docmind", "folders", index.StableID(abs, "", 0, 0)))
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("no cached index at %s: %v", db, err)
	}
	if err := os.Remove(filepath.Join(dir, "fees.md")); err != nil {
		t.Fatal(err)
	}
	st := ask("When is support available?")
	for _, s := range st.RetrievedSections {
		if strings.HasSuffix(s.Source, "fees.md") {
			t.Errorf("removed file still answers: %+v", s)
		}
	}
	ix, err := index.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := ix.Documents(context.Background())
	ix.Close()
	if err != nil || len(docs) != 1 || !strings.HasSuffix(docs[0].Path, "hours.md") {
		t.Fatalf("cached index documents = %+v, %v; want hours.md only", docs, err)
	}

	// A cache location that cannot be created: a temporary index is used
	// and removed at exit.
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	r := runCLITimeout(t, time.Minute, []string{"XDG_CACHE_HOME=" + notDir, "TMPDIR=" + tmp}, "ask", "--docs", dir, "--json", "When is support available?")
	if r.code != 0 {
		t.Fatalf("unusable cache: exit %d\n%s", r.code, r.stderr)
	}
	var st2 schema.State
	if err := json.Unmarshal([]byte(r.stdout), &st2); err != nil || len(st2.RetrievedSections) == 0 {
		t.Fatalf("unusable cache: no answer (%v)\n%s", err, r.stdout)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary index left behind: %v", left)
	}
}

// TestAskDocsNothingUsableLeavesNoCache: ask --docs on a folder with no
// usable document fails with one line and leaves no cache folder behind.
func TestAskDocsNothingUsableLeavesNoCache(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "blob.dat"), []byte("\x00\x01\x02\xff\xfe binary \x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, folder := range []string{t.TempDir(), dir} {
		r := runCLITimeout(t, time.Minute, []string{"XDG_CACHE_HOME=" + cache}, "ask", "--docs", folder, "What is the monthly fee?")
		if r.code == 0 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Fatalf("%s: exit %d, want a failure in one line:\n%s", folder, r.code, r.stderr)
		}
		left, _ := os.ReadDir(filepath.Join(cache, "docmind", "folders"))
		if len(left) != 0 {
			t.Errorf("%s (%s): cache folders left behind: %v", folder, strings.TrimSpace(r.stderr), left)
		}
	}
}
