package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wrap keeps the summary of a --json report, drops its per-question
// results, and records what produced it; render puts each figure beside
// its command and machine, and a share of nothing as "—".
func TestWrapAndRender(t *testing.T) {
	raw := `{"answerable_correct": 0.976, "answered_accuracy": 1, "abstention_precision": 0.5, "abstention_recall": 1,
		"citation_page_accuracy": 0, "citation_checked": 0, "latency_p50_ms": 17.8, "wrong_answers": 2, "results": [{"id": "q1"}]}`
	var out bytes.Buffer
	err := wrap([]string{"-name", "qa-x", "-kind", "eval qa", "-title", "a set", "-command", "docmind eval qa x.jsonl --json",
		"-seconds", "3", "-load", "0.5 0.4 0.3", "-commit", "abc1234"}, strings.NewReader(raw), &out)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Result), "results") || len(r.Trimmed) != 1 || r.Machine.NProc == 0 || r.Commit != "abc1234" {
		t.Errorf("report %+v: want the results trimmed, the machine and the commit recorded", r)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "qa-x.json"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := render(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| **a set** | answerable answered correctly | 97.6% |", "| citation page right | — |",
		"| latency p50 | 18 ms |", "| wrong answers (answered, not correct) | 2 |", "`docmind eval qa x.jsonl --json`", "abc1234", "load 0.5 0.4 0.3, 3 s"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if err := wrap([]string{"-name", "x", "-kind", "eval qa", "-command", "c"}, strings.NewReader("[1]"), &out); err == nil {
		t.Error("a report that is not a JSON object was wrapped")
	}
	if err := wrap([]string{"-name", "x", "-kind", "eval qaa", "-command", "c"}, strings.NewReader("{}"), &out); err == nil {
		t.Error("a report of an unknown kind was wrapped: the table could not render it")
	}
}

// An eval evidence report (the golden output of docmind eval evidence
// --json) gets its own section, after the answers, with first-pass recall
// at 1, 3, 5 and 20 picked from first_pass by k, the sections handed on,
// any pass and the right document at 5; a k the report lacks is "—".
func TestRenderEvidence(t *testing.T) {
	golden, err := os.ReadFile("../../cmd/docmind/testdata/golden/eval-evidence.json")
	if err != nil {
		t.Fatal(err)
	}
	// first_pass of the golden report: evidence 0.5 at k = 1, 3, 5, and 1 at 20
	var fields map[string]any
	if err := json.Unmarshal(golden, &fields); err != nil {
		t.Fatal(err)
	}
	fields["first_pass"] = fields["first_pass"].([]any)[1:] // no k = 1
	noK1, _ := json.Marshal(fields)
	dir := t.TempDir()
	for _, c := range []struct{ name, kind, raw string }{
		{"evidence-a", "eval evidence", string(golden)},
		{"evidence-b", "eval evidence", string(noK1)},
		{"qa-a", "eval qa", `{"answerable_correct": 1}`},
	} {
		var out bytes.Buffer
		if err := wrap([]string{"-name", c.name, "-kind", c.kind, "-title", c.name + " set", "-command", "c", "-commit", "abc1234"},
			strings.NewReader(c.raw), &out); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".json"), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	table, err := render(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b, _ := strings.Cut(table, "**evidence-b set**")
	for _, want := range []string{
		"| **evidence-a set** | questions measured (answerable, evidence located) | 2 |",
		"| first-pass evidence recall at 1 | 50.0% |",
		"| first-pass evidence recall at 3 | 50.0% |",
		"| first-pass evidence recall at 5 | 50.0% |",
		"| first-pass evidence recall at 20 | 100.0% |",
		"| evidence in the sections handed on | 50.0% |",
		"| evidence in any pass (retries too) | 50.0% |",
		"| right document in the first pass's 5 | 100.0% |",
	} {
		if !strings.Contains(a, want) {
			t.Errorf("the evidence-a rows lack %q:\n%s", want, a)
		}
	}
	if !strings.Contains(b, "| first-pass evidence recall at 1 | — |") || !strings.Contains(b, "| first-pass evidence recall at 20 | 100.0% |") {
		t.Errorf("a report without k = 1: want recall at 1 \"—\" and at 20 still found:\n%s", b)
	}
	qa := strings.Index(table, "## Answers (docmind eval qa")
	ev := strings.Index(table, "## Evidence recall (docmind eval evidence, offline)")
	if qa < 0 || ev < 0 || ev < qa || strings.Count(table, "## Evidence recall") != 1 || ev > strings.Index(table, "evidence-a set") {
		t.Errorf("want one evidence section, after the answers, holding both evidence reports:\n%s", table)
	}
}

// Every figure the table shows is a field of its command's --json output,
// as the command's golden file holds it: a misspelt path would show "—"
// for every report.
func TestFiguresAreInTheGoldenReports(t *testing.T) {
	for kind, fs := range figures {
		if kind == "test time" || kind == "measurements" {
			continue // not a docmind command: the envelope's seconds, or worded figures
		}
		name := "../../cmd/docmind/testdata/golden/" + strings.ReplaceAll(kind, " ", "-") + ".json"
		data, err := os.ReadFile(name)
		if err != nil {
			t.Errorf("kind %q: %v", kind, err)
			continue
		}
		var result map[string]any
		if err := json.Unmarshal(data, &result); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range fs {
			for _, p := range [][]string{f.path, f.of} {
				if p != nil && find(result, p) == nil {
					t.Errorf("kind %q, figure %q: %s has nothing at %v", kind, f.label, name, p)
				}
			}
		}
	}
}

// A measurement (a benchmark program's output) shows its own worded
// figures, in their order, under the speed and memory heading; one without
// figures, or with a figure that is not two strings, is an error.
func TestRenderMeasurements(t *testing.T) {
	raw := `{"figures": [{"label": "lexical p50 vs the MaxScore floor @100k", "value": "1.4×"}, {"label": "peak RSS", "value": "88 MiB | 0.9× pdftotext"}]}`
	var out bytes.Buffer
	if err := wrap([]string{"-name", "perf-x", "-kind", "measurements", "-title", "lexical search", "-command", "go test ./index -bench X"},
		strings.NewReader(raw), &out); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "perf-x.json"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	table, err := render(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Speed and memory", "| **lexical search** | lexical p50 vs the MaxScore floor @100k | 1.4× |",
		`| peak RSS | 88 MiB \| 0.9× pdftotext |`} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	for _, bad := range []string{`{}`, `{"figures": [{"label": "x", "value": 3}]}`} {
		out.Reset()
		if err := wrap([]string{"-name", "perf-y", "-kind", "measurements", "-command", "c"}, strings.NewReader(bad), &out); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "perf-y.json"), out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := render(dir); err == nil {
			t.Errorf("a measurement %s rendered", bad)
		}
	}
}
