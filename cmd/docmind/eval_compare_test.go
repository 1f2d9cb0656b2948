package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCompare compares two real eval qa runs of the same questions,
// the default threshold and one (0.99) that refuses every answer under
// it: each question answered right before and refused after is listed
// as worse, and the figures are the reports' own.
func TestEvalCompare(t *testing.T) {
	dir := t.TempDir()
	qa := filepath.Join(dir, "qa.jsonl")
	rows := `{"id":"q01","question":"What are the late payment penalties?","answers":["1.5% per month"],"source":"master-services-agreement.md","page":8}
{"id":"q02","question":"How much is the Monthly Service Fee under the Standard tier?","facts":["US$18,000"],"source":"master-services-agreement.md","page":6}
{"id":"u01","question":"What is the warranty period?","answerable":false}
`
	if err := os.WriteFile(qa, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, extra ...string) (string, map[string]any) {
		t.Helper()
		r := runCLI(t, nil, append([]string{"eval", "qa", "--docs", "examples/contract", qa, "--json"}, extra...)...)
		if r.code != exitOK {
			t.Fatalf("eval qa %v: exit %d\n%s", extra, r.code, r.stderr)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		var rep map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		return path, rep
	}
	before, repB := run("before.json")
	after, repA := run("after.json", "--min-confidence", "0.99")
	outcome := func(rep map[string]any) map[string]string {
		out := map[string]string{}
		for _, x := range rep["results"].([]any) {
			r := x.(map[string]any)
			switch {
			case r["answered"] == true && r["correct"] == true:
				out[r["id"].(string)] = "right"
			case r["answered"] == true:
				out[r["id"].(string)] = "wrong"
			default:
				out[r["id"].(string)] = "refused"
			}
		}
		return out
	}
	ob, oa := outcome(repB), outcome(repA)
	var lost []string
	for id := range ob {
		if ob[id] == "right" && oa[id] == "refused" {
			lost = append(lost, id)
		}
	}
	if len(lost) == 0 {
		t.Fatalf("no answer right at the default threshold is refused at 0.99: before %v, after %v", ob, oa)
	}

	r := runCLI(t, nil, "eval", "compare", "--json", before, after)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var c struct {
		Before struct {
			Right int `json:"right"`
		}
		Worse   int `json:"worse"`
		Changed []struct {
			ID, Change, Before, After string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if c.Worse != len(lost) || len(c.Changed) != len(lost) {
		t.Errorf("worse %d, changed %+v; want the %d answers lost: %v", c.Worse, c.Changed, len(lost), lost)
	}
	for _, q := range c.Changed {
		if q.Change != "worse" || q.Before != "right" || q.After != "refused" || ob[q.ID] != "right" {
			t.Errorf("changed %+v", q)
		}
	}
	if want := int(repB["correct"].(float64)); c.Before.Right != want {
		t.Errorf("before right = %d, the report's correct = %d", c.Before.Right, want)
	}

	r = runCLI(t, nil, "eval", "compare", before, after)
	if r.code != exitOK || !strings.Contains(r.stdout, "changed outcome: 0 better, ") || !strings.Contains(r.stdout, "right -> refused") {
		t.Errorf("text: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// reports of other questions: one line, exit 1
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(strings.SplitAfter(rows, "\n")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", other, "--json")
	otherRep := filepath.Join(dir, "other.json")
	if err := os.WriteFile(otherRep, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "compare", before, otherRep)
	if r.code != exitError || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "compare reports of the same questions") {
		t.Errorf("other questions: exit %d, stderr %q", r.code, r.stderr)
	}
}
