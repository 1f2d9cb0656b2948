package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Bad numbers are usage errors before any work: NaN passed every
// --min-* gate (every comparison with NaN is false), and a share over 1
// ran the whole evaluation before failing; a missing question file is
// named, and a malformed one read, before the documents are indexed; an
// evaluation with nothing to measure fails instead of reporting 0.
func TestBadNumbersAndInputsFailFirst(t *testing.T) {
	beir := t.TempDir()
	for name, body := range map[string]string{"corpus.jsonl": "", "queries.jsonl": "", "qrels/test.tsv": "query-id\tcorpus-id\tscore\n"} {
		p := filepath.Join(beir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"id\": \"q1\", \"question\": }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"ask", "--min-confidence", "NaN", "--docs", "examples/contract", "late fee?"}, exitUsage, "--min-confidence must be a number, got NaN"},
		{[]string{"ask", "--review", "--review-below", "NaN", "--docs", "examples/contract", "late fee?"}, exitUsage, "--review-below must be a number"},
		{[]string{"eval", "qa", "--min-correct", "NaN", "--docs", "examples/contract", "internal/eval/testdata/qa/contract.jsonl"}, exitUsage, "--min-correct must be a number"},
		{[]string{"eval", "qa", "--min-correct", "1.5", "--docs", "examples/contract", "internal/eval/testdata/qa/contract.jsonl"}, exitUsage, "--min-correct must be between 0 and 1"},
		{[]string{"eval", "judge", "--min-f1", "+Inf", "x.jsonl"}, exitUsage, "--min-f1 must be a number"},
		{[]string{"eval", "judge", "--cv", "-2", "x.jsonl"}, exitUsage, "--cv must be 0 (none) or 2 or more"},
		{[]string{"eval", "judge", "--concurrency", "0", "x.jsonl"}, exitUsage, "--concurrency must be 1 or more"},
		{[]string{"eval", "retrieval", "--beir", beir, "--b", "5"}, exitUsage, "--b between 0 and 1"},
		{[]string{"eval", "retrieval", "--beir", beir}, exitError, "nothing to measure"},
		{[]string{"eval", "qa", "--docs", "examples/contract", "missing.jsonl"}, exitError, "read missing.jsonl: no such file"},
		{[]string{"eval", "evidence", "--docs", "examples/contract", "missing.jsonl"}, exitError, "read missing.jsonl: no such file"},
		{[]string{"eval", "qa", "--docs", "examples/contract", bad}, exitError, "line 1: not a QA row"},
		{[]string{"eval", "evidence", "--docs", "examples/contract", bad}, exitError, "line 1: not a QA row"},
		{[]string{"eval", "qa", "--docs", "examples/contract", "--gold", bad, "internal/eval/testdata/qa/contract.jsonl"}, exitError, "line 1"},
	} {
		r := runCLI(t, nil, tc.args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, r.code, tc.code, r.stderr)
			continue
		}
		assertOneLineError(t, r, tc.want)
	}
}
