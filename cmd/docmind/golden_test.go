package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// runInProcess runs the command line through run(), in this process (so
// that coverage sees the commands), with an environment free of LLM
// configuration, the repository as working folder for relative paths, and
// home, cache and state folders of its own.
func runInProcess(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	for k, v := range env {
		vars[k] = v
	}
	var so, se bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &so, &se, func(k string) string { return vars[k] })
	return result{so.String(), se.String(), code}
}

// volatileKeys are JSON fields whose values change from run to run (times,
// durations, ids, sizes of database files): the golden files hold a
// placeholder for them.
var volatileKeys = map[string]bool{
	"duration_ms": true, "created": true, "updated": true, "ingested_at": true, "id": true,
	"size_bytes": true, "latency_ms": true, "p50_ms": true, "p95_ms": true, "p99_ms": true, "mean_ms": true,
}

// sectionID matches a section id, which hashes the document's absolute
// path and so differs from clone to clone.
var sectionID = regexp.MustCompile(`^[0-9a-f]{16}(~[0-9]+)?$`)

var tempPath = regexp.MustCompile(`/[^"\s]*?/(Test[^/"\s]*|docmind-[^/"\s]*)/[0-9]+`)

// normalise re-indents a JSON document with volatile values replaced, and
// the repository's and test folders' paths made placeholders.
func normalise(t *testing.T, out, repo string) string {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if volatileKeys[k] {
					x[k] = "<" + k + ">"
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			if sectionID.MatchString(x) {
				return "<section-id>"
			}
			s := strings.ReplaceAll(x, repo, "<repo>")
			return tempPath.ReplaceAllString(s, "<tmp>")
		}
		return v
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(walk(v)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkGolden compares got with testdata/golden/name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/docmind -run TestJSONOutputShapes -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: the output differs from the golden file (run with -update after checking the change):\n--- got\n%s", name, got)
	}
}

// Every command's --json output has one documented shape: snake_case
// fields, durations in milliseconds, a question's outcome with the state's
// fields at the top level and its run beside them. The commands run in
// process through run(), and their output is compared with golden files.
func TestJSONOutputShapes(t *testing.T) {
	repo := testenv.RepoRoot(t)
	contract := filepath.Join(repo, "examples", "contract")
	ixDir := t.TempDir()
	data := t.TempDir()
	env := map[string]string{"DOCMIND_INDEX": ixDir, "DOCMIND_DATA_DIR": data}
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"ingest.json", []string{"ingest", "--json", contract}, exitOK},
		{"index-stats.json", []string{"index", "stats", "--json"}, exitOK},
		{"ask.json", []string{"ask", "--json", "What are the late payment penalties?"}, exitOK},
		{"ask-fallback.json", []string{"ask", "--json", "What is the warranty period?"}, exitFallback},
		{"ask-thread.json", []string{"ask", "--json", "--thread", "t1", "What are the late payment penalties?"}, exitOK},
		{"runs-ls.json", []string{"runs", "ls", "--json"}, exitOK},
	}
	for _, c := range cases {
		r := runInProcess(t, env, c.args...)
		if r.code != c.code {
			t.Fatalf("%v: exit %d, want %d\n%s", c.args, r.code, c.code, r.stderr)
		}
		checkGolden(t, c.name, normalise(t, r.stdout, repo))
	}
}
