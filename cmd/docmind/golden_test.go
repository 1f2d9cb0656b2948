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

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/llm/openaitest"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// runInProcess runs the command line through run(), in this process (so
// that coverage sees the commands), with an environment free of LLM
// configuration, the repository as working folder for relative paths, and
// home, cache and state folders of its own.
func runInProcess(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	return runInProcessStdin(t, env, "", args...)
}

// runInProcessStdin is runInProcess with stdin.
func runInProcessStdin(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CACHE_HOME": filepath.Join(home, "cache"), "XDG_STATE_HOME": filepath.Join(home, "state")}
	for k, v := range env {
		vars[k] = v
	}
	var so, se bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &so, &se, func(k string) string { return vars[k] })
	return result{so.String(), se.String(), code}
}

// volatileKeys are JSON fields whose values change from run to run (times,
// durations, ids, sizes of database files): the golden files hold a
// placeholder for them, 0 for a number.
var volatileKeys = map[string]bool{
	"duration_ms": true, "created": true, "updated": true, "ingested_at": true, "id": true,
	"size_bytes": true, "latency_ms": true, "p50_ms": true, "p95_ms": true, "p99_ms": true, "mean_ms": true,
	"run_id": true, "parent": true, "latency_p50_ms": true, "latency_p95_ms": true,
	"index_ms": true, "search_ms": true, "pages_per_s": true, "peak_rss_bytes": true,
	"endpoint": true,
}

// sectionID matches a section id, which hashes the document's absolute
// path and so differs from clone to clone.
var sectionID = regexp.MustCompile(`^[0-9a-f]{16}(~[0-9]+)?$`)

// loopback matches a scripted server's address, whose port differs from
// run to run.
var loopback = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)

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
					// a number stays a number (docs/json.md shows each
					// field's type): 0; anything else a placeholder
					if _, ok := e.(json.Number); ok {
						x[k] = json.Number("0")
					} else {
						x[k] = "<" + k + ">"
					}
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
			s = loopback.ReplaceAllString(s, "<endpoint>")
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

// A volatile value keeps its JSON type in the golden files, for
// docs/json.md (generated from them) gives each field's type: a duration,
// a size or a document id is a number there, as in the output, and a run
// id a string.
func TestNormaliseKeepsTypes(t *testing.T) {
	got := normalise(t, `{"duration_ms": 12.5, "size_bytes": 4096, "id": 3, "run_id": "3fa9c2d1e0b4", "parent": null}`, "/repo")
	want := "{\n  \"duration_ms\": 0,\n  \"id\": 0,\n  \"parent\": \"<parent>\",\n  \"run_id\": \"<run_id>\",\n  \"size_bytes\": 0\n}\n"
	if got != want {
		t.Errorf("normalise:\n%s\nwant\n%s", got, want)
	}
}

// normaliseLines normalises JSON lines, one document a line.
func normaliseLines(t *testing.T, out, repo string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		b.WriteString(normalise(t, l, repo))
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
// process through run(), and their output is compared with golden files;
// every command that registers a JSON flag (addJSONFlag) must have one.
func TestJSONOutputShapes(t *testing.T) {
	repo := testenv.RepoRoot(t)
	contract := filepath.Join(repo, "examples", "contract")
	evalData := filepath.Join(repo, "internal", "eval", "testdata")
	ixDir := t.TempDir()
	data := t.TempDir()
	env := map[string]string{"DOCMIND_INDEX": ixDir, "DOCMIND_DATA_DIR": data}
	qa := filepath.Join(t.TempDir(), "qa.jsonl")
	if err := os.WriteFile(qa, []byte(`{"id":"late","question":"What are the late payment penalties?","facts":["1.5%"],"source":"master-services-agreement.md","page":8,"kind":"answerable","type":"Late Fee"}
{"id":"warranty","question":"What is the warranty period?","answerable":false,"kind":"unanswerable","type":"Warranty"}
{"id":"acme","question":"What are the late payment penalties for Acme Corp?","facts":["1.5%"],"source":"master-services-agreement.md","page":8,"why":"a name the documents never write: refused even at --min-confidence 0, so the report shows refusals"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// a file ingest skips, so that its result shows the reason
	unusable := t.TempDir()
	if err := os.WriteFile(filepath.Join(unusable, "blob.dat"), []byte("\x00\x01\x02\xff binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "contract.json")
	strict := filepath.Join(t.TempDir(), "contract-strict.json")
	covered := map[string]bool{}
	var reviewRun string
	cases := []struct {
		name    string
		command string // the command path, for the coverage check
		args    []string
		code    int
		stdin   string
		lines   bool
	}{
		{"ingest.json", "ingest", []string{"ingest", "--json", contract, unusable}, exitOK, "", false},
		{"index-stats.json", "index stats", []string{"index", "stats", "--json"}, exitOK, "", false},
		{"index-documents.json", "index documents", []string{"index", "documents", "--json"}, exitOK, "", false},
		{"ask.json", "ask", []string{"ask", "--json", "What are the late payment penalties?"}, exitOK, "", false},
		{"ask-fallback.json", "ask", []string{"ask", "--json", "What is the warranty period?"}, exitFallback, "", false},
		{"ask-thread.json", "ask", []string{"ask", "--json", "--thread", "t1", "What are the late payment penalties?"}, exitOK, "", false},
		{"ask-review.json", "ask", []string{"ask", "--json", "--review", "--thread", "t2", "What is the warranty period?"}, exitReview, "", false},
		{"resume.json", "resume", []string{"resume", "--json", "--reject", "--note", "not in the contract", "<review-run>"}, exitFallback, "", false},
		{"chat.jsonl", "chat", []string{"chat", "--json", "--thread", "t3"}, exitOK, "What are the late payment penalties?\nAnd after 60 days?\n", true},
		{"runs-ls.json", "runs ls", []string{"runs", "ls", "--json", "--thread", "t1"}, exitOK, "", false},
		{"runs-show.json", "runs show", []string{"runs", "show", "--json", "<review-run>"}, exitOK, "", false},
		{"runs-replay.json", "runs replay", []string{"runs", "replay", "--json", "--from", "judge", "<review-run>"}, exitReview, "", false},
		{"runs-export.jsonl", "runs export", []string{"runs", "export", "--jsonl", "--thread", "t1"}, exitOK, "", true},
		{"gc.json", "gc", []string{"gc", "--json"}, exitOK, "", false},
		{"eval-qa.json", "eval qa", []string{"eval", "qa", "--json", "--min-confidence", "0", qa}, exitOK, "", false},
		{"eval-judge.json", "eval judge", []string{"eval", "judge", "--json", "--cv", "0", "--ragtruth", filepath.Join(evalData, "ragtruth_tiny.jsonl")}, exitOK, "", false},
		{"eval-relevance.json", "eval relevance", []string{"eval", "relevance", "--json", "--docs", filepath.Join(evalData, "tinysquad", "docs"), "--gold", filepath.Join(evalData, "tinysquad", "gold.jsonl")}, exitOK, "", false},
		{"eval-retrieval.json", "eval retrieval", []string{"eval", "retrieval", "--json", "--beir", filepath.Join(evalData, "tinybeir")}, exitOK, "", false},
		{"eval-evidence.json", "eval evidence", []string{"eval", "evidence", "--json", "--docs", filepath.Join(evalData, "evidence", "docs"), filepath.Join(evalData, "evidence", "qa.jsonl")}, exitOK, "", false},
		{"eval-calibrate.json", "eval calibrate", []string{"eval", "calibrate", "--json", report, report}, exitOK, "", false},
		{"eval-compare.json", "eval compare", []string{"eval", "compare", "--json", report, strict}, exitOK, "", false},
		{"check.json", "check", []string{"check", "--json"}, exitOK, "", false},
	}
	// check talks to a model: a scripted one that does what it asks
	llmSrv := openaitest.New(t)
	checkedModel(llmSrv, nil)
	for _, c := range cases {
		args := append([]string(nil), c.args...)
		for i, a := range args {
			if a == "<review-run>" {
				args[i] = reviewRun
			}
		}
		runEnv := env
		if c.command == "check" {
			runEnv = map[string]string{}
			for k, v := range env {
				runEnv[k] = v
			}
			for k, v := range checkEnv(llmSrv) {
				runEnv[k] = v
			}
			// a reasoning model: the checks' notes say what was adapted
			runEnv["DOCMIND_MODEL"] = "gpt-5-mini"
		}
		r := runInProcessStdin(t, runEnv, c.stdin, args...)
		if r.code != c.code {
			t.Fatalf("%v: exit %d, want %d\n%s", args, r.code, c.code, r.stderr)
		}
		switch c.name {
		case "ask-review.json":
			reviewRun = decodeRun(t, r.stdout).Run.ID
		case "eval-qa.json":
			if err := os.WriteFile(report, []byte(r.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			// the same questions at a threshold that refuses the answers
			// under it, for eval compare
			s := runInProcessStdin(t, env, "", "eval", "qa", "--json", "--min-confidence", "0.95", qa)
			if s.code != exitOK {
				t.Fatalf("eval qa --min-confidence 0.95: exit %d\n%s", s.code, s.stderr)
			}
			if err := os.WriteFile(strict, []byte(s.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		covered[c.command] = true
		if c.lines {
			checkGolden(t, c.name, normaliseLines(t, r.stdout, repo))
		} else {
			checkGolden(t, c.name, normalise(t, r.stdout, repo))
		}
	}
	for path := range jsonCommands(t) {
		if !covered[path] {
			t.Errorf("docmind %s prints JSON but has no golden file here", path)
		}
	}
}

// jsonCommands returns the commands that register a JSON flag, by path
// without "docmind" ("eval qa"), with the flag.
func jsonCommands(t *testing.T) map[string]string {
	t.Helper()
	a := &app{getenv: func(string) string { return "" }}
	out := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if flag, ok := c.Annotations[jsonFlagAnnotation]; ok {
			out[strings.TrimPrefix(c.CommandPath(), "docmind ")] = flag
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCmd())
	if len(out) < 10 {
		t.Fatalf("only %d commands print JSON: %v", len(out), out)
	}
	return out
}

// docSection returns the "## title" section of the Markdown file doc
// (a path from the repository root), up to the next "## " heading.
func docSection(t *testing.T, doc, title string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("%s has no \"## %s\" section", doc, title)
	}
	section := text[i+1:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	return section
}

// docs/json.md (generated from the golden files, TestReferencePages)
// shows the JSON output of every command that prints JSON, under a
// heading naming its flag: every such command has a golden file.
func TestDocsShowEveryJSONShape(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), "docs", "json.md"))
	if err != nil {
		t.Fatal(err)
	}
	for path, flag := range jsonCommands(t) {
		if want := "## `docmind " + path + " " + flag; !strings.Contains(string(b), want) {
			t.Errorf("docs/json.md shows no output of docmind %s %s: give it a golden file (TestGoldenJSON)", path, flag)
		}
	}
}
