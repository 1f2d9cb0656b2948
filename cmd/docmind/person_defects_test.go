package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// Ingesting a path that does not exist is an error (exit 1, one line) and
// creates no index.
func TestIngestMissingPathFails(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	r := runCLI(t, nil, "ingest", "--index", idx, "examples/contract", "no/such/folder")
	if r.code != exitError {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, exitError, r.stdout, r.stderr)
	}
	assertOneLineError(t, r, "no such file or folder: no/such/folder")
	if _, err := os.Stat(idx); !os.IsNotExist(err) {
		t.Errorf("the index was created (%v): nothing should be touched", err)
	}
	// With --prune a path that is gone names documents to remove: not an error.
	if r := runCLI(t, nil, "ingest", "--prune", "--index", idx, "no/such/folder"); r.code != 0 {
		t.Errorf("ingest --prune of a removed folder: exit %d\n%s", r.code, r.stderr)
	}
}

// runs ls --status rejects a status that does not exist, naming the valid
// ones.
func TestRunsLsRejectsUnknownStatus(t *testing.T) {
	r := runCLI(t, nil, "runs", "ls", "--status", "review", "--data-dir", t.TempDir())
	if r.code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, exitUsage, r.stdout, r.stderr)
	}
	assertOneLineError(t, r, `no run status "review"`)
	for _, s := range []string{"running", "interrupted", "awaiting_review", "done", "failed"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("the error does not name %s:\n%s", s, r.stderr)
		}
	}
}

// ask --docs in a pipe says which files it reads, a line each on stderr.
func TestAskDocsListsFilesReadInAPipe(t *testing.T) {
	cache := t.TempDir() // a cold cache: every file is read
	r := runCLI(t, []string{"XDG_CACHE_HOME=" + cache}, "ask", "--docs", "examples/contract", "What are the late payment penalties?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "] indexed ") || !strings.Contains(r.stderr, "master-services-agreement.md") {
		t.Errorf("stderr does not list the files read:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "] indexed ") {
		t.Errorf("the file lines went to stdout:\n%s", r.stdout)
	}
}

// A refusal keeps what it found: final_output stays the fallback message,
// and ask names the closest passages, labelled as not verified (human
// output and --json, where the refused draft also stays).
func TestRefusalNamesClosestPassages(t *testing.T) {
	const q = "How many days notice is needed to terminate for convenience in 2019?"
	r := runCLI(t, nil, "ask", "--docs", "examples/contract", q)
	if r.code != exitFallback {
		t.Fatalf("exit %d, want %d (a refusal)\n%s%s", r.code, exitFallback, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, schema.FallbackMessage) || !strings.Contains(r.stdout, "Closest passages found (not verified") ||
		!strings.Contains(r.stdout, "[1] ") || !strings.Contains(r.stdout, "examples/contract/master-services-agreement.md, page ") {
		t.Errorf("the refusal does not name the closest passages as not verified:\n%s", r.stdout)
	}
	// under each, the sentence that meets the question: the notice period
	// the refused draft could not vouch for is there to read
	if !strings.Contains(r.stdout, "      \"Client may terminate this Agreement, or any Statement of Work, for convenience by giving Provider at least ninety (90) days' prior written notice.\"") {
		t.Errorf("the closest passages do not show the sentence that meets the question:\n%s", r.stdout)
	}
	j := runCLI(t, nil, "ask", "--docs", "examples/contract", "--json", q)
	st := decodeState(t, j.stdout)
	if st.Answer() != schema.FallbackMessage || st.GeneratedResponse == nil || len(st.ClosestPassages) == 0 || st.ClosestPassages[0].Title == "" {
		t.Errorf("--json: final_output %q, draft %v, closest %+v", st.Answer(), st.GeneratedResponse, st.ClosestPassages)
	}
}

// A folder with no document in it is an error for ingest (exit 1, one
// line), and asking an index that holds no document is too: a refusal
// that blames the question ("no document mentions "fee"") would hide
// that nothing was ever indexed.
func TestEmptyFolderAndEmptyIndexFail(t *testing.T) {
	empty := t.TempDir()
	idx := filepath.Join(t.TempDir(), "idx")
	r := runCLI(t, nil, "ingest", "--index", idx, empty)
	if r.code != exitError {
		t.Fatalf("ingest of an empty folder: exit %d, want %d\n%s%s", r.code, exitError, r.stdout, r.stderr)
	}
	assertOneLineError(t, r, "no documents found in "+empty)
	r = runCLI(t, nil, "ask", "--index", idx, "What is the fee?")
	if r.code != exitError {
		t.Fatalf("ask of an empty index: exit %d, want %d\n%s%s", r.code, exitError, r.stdout, r.stderr)
	}
	assertOneLineError(t, r, "holds no documents: run docmind ingest PATH first")
	// the same index once it holds a document answers
	if r := runCLI(t, nil, "ingest", "--index", idx, "examples/contract"); r.code != exitOK {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "ask", "--index", idx, "What are the late payment penalties?"); r.code != exitOK {
		t.Errorf("ask after ingest: exit %d\n%s", r.code, r.stderr)
	}
}

// Flag values that cannot mean anything are usage errors (exit 2, one
// line) before any work: no file is read, no index made.
func TestBadFlagValuesAreUsageErrors(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ingest", "--index", idx, "--workers", "-3", "examples/contract"}, "--workers must be 0"},
		{[]string{"ingest", "--index", idx, "--max-file-size", "-1", "examples/contract"}, "--max-file-size must be a positive number"},
		{[]string{"ask", "--index", idx, "--provider", "bogus", "What is the fee?"}, `--provider "bogus": unknown LLM provider`},
		{[]string{"ask", "--index", idx, "--timeout", "-5s", "What is the fee?"}, "--timeout must be a positive duration"},
	} {
		r := runCLI(t, nil, c.args...)
		if r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, r.code, exitUsage, r.stderr)
			continue
		}
		assertOneLineError(t, r, c.want)
	}
	if _, err := os.Stat(idx); !os.IsNotExist(err) {
		t.Errorf("an index was made (%v)", err)
	}
}
