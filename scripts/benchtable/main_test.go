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
		"citation_page_accuracy": 0, "citation_checked": 0, "latency_p50_ms": 17.8, "results": [{"id": "q1"}]}`
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
		"| latency p50 | 18 ms |", "`docmind eval qa x.jsonl --json`", "abc1234", "load 0.5 0.4 0.3, 3 s"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if err := wrap([]string{"-name", "x", "-kind", "eval qa", "-command", "c"}, strings.NewReader("[1]"), &out); err == nil {
		t.Error("a report that is not a JSON object was wrapped")
	}
}
