package main

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --index names the index directory; the database file itself, as ingest
// prints it ("index: DIR/docmind.db"), is taken for its directory, and
// any other file is refused with what --index wants.
func TestIndexFlagTakesTheDatabaseFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	if r := runCLI(t, nil, "ingest", "--index", dir, "examples/contract"); r.code != exitOK {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	r := runCLI(t, nil, "index", "stats", "--index", filepath.Join(dir, "docmind.db"))
	if r.code != exitOK || !strings.Contains(r.stdout, "documents  2") {
		t.Fatalf("index stats --index DIR/docmind.db: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	other := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(other, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "index", "stats", "--index", other)
	if r.code != exitError {
		t.Fatalf("--index FILE: exit %d, want %d", r.code, exitError)
	}
	assertOneLineError(t, r, "is a file: give the index directory")
}

// A damaged index file gets one line that says so and what to do; an
// empty one is no index, and reading it does not turn it into one.
func TestDamagedIndexSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "docmind.db")
	junk := make([]byte, 100_000)
	rand.Read(junk)
	if err := os.WriteFile(db, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"index", "stats", "--index", dir},
		{"ask", "--index", dir, "What are the late payment penalties?"},
		{"ingest", "--index", dir, "examples/contract"},
	} {
		r := runCLI(t, nil, args...)
		if r.code != exitError {
			t.Fatalf("%v: exit %d, want %d\n%s", args, r.code, exitError, r.stderr)
		}
		assertOneLineError(t, r, "is damaged")
		if !strings.Contains(r.stderr, "delete it and run docmind ingest again") || strings.Contains(r.stderr, "create schema") {
			t.Errorf("%v: %s", args, r.stderr)
		}
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "index", "stats", "--index", dir)
	assertOneLineError(t, r, "no index at")
	if fi, err := os.Stat(db); err != nil || fi.Size() != 0 {
		t.Errorf("index stats wrote the empty file: %v %v", fi.Size(), err)
	}
}

// Neither a document's text nor a file's name acts on the terminal: the
// escape sequences of a text file are not printed in its answer, and a
// name holding a line break and an escape is printed quoted, on the one
// line a pipe gets per file.
func TestNoTerminalControlsInOutput(t *testing.T) {
	docs := t.TempDir()
	text := "Late Fees\n\nThe late fee is 4 percent \x1b]0;pwned\x07per month\x1b[2J payable.\n"
	name := filepath.Join(docs, "fees\nnote\x1b[2J.txt")
	if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := runCLI(t, nil, "ingest", "--index", dir, docs)
	if r.code != exitOK {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	for _, out := range []string{r.stderr, r.stdout} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("ingest printed a control character: %q", out)
		}
	}
	if !strings.Contains(r.stderr, `[1/1] indexed "`) || !strings.Contains(r.stderr, `fees\nnote\x1b[2J.txt": 1 section`) {
		t.Errorf("ingest's line for the file: %q", r.stderr)
	}
	for _, args := range [][]string{
		{"ask", "--index", dir, "What is the late fee?"},
		{"index", "documents", "--index", dir},
	} {
		r := runCLI(t, nil, args...)
		if r.code != exitOK || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") || !strings.Contains(r.stdout, "Late Fees") {
			t.Errorf("%v: exit %d, output %q", args, r.code, r.stdout+r.stderr)
		}
	}
}
