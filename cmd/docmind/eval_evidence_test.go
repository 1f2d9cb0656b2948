package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/llm/openaitest"
)

// eval evidence over the fixture whose ranks are known
// (internal/eval/testdata/evidence): the table, a progress line per
// question when stderr is not a terminal, and the thresholds.
func TestEvalEvidence(t *testing.T) {
	dir := filepath.Join("internal", "eval", "testdata", "evidence")
	docs, qa := filepath.Join(dir, "docs"), filepath.Join(dir, "qa.jsonl")
	r := runCLI(t, nil, "eval", "evidence", "--docs", docs, qa)
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"2 with evidence to find, 2 skipped", "first pass @5     0.500", "first pass @20     1.000", "repairs  What happened to the keeper's lantern glass? — evidence at rank 13 of the first pass, not handed on"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{"evidence 1/2 clock: evidence rank 1", "evidence 2/2 repairs: evidence rank 13"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks the progress line %q:\n%s", want, r.stderr)
		}
	}

	// Thresholds: recall@20 is met, recall@5 is not; one line names it.
	r = runCLI(t, nil, "eval", "evidence", "--docs", docs, qa, "--json", "--min-recall-at-20", "1", "--min-recall-at-5", "0.6")
	last := strings.TrimSpace(r.stderr)
	last = last[strings.LastIndex(last, "\n")+1:]
	if r.code != exitError || !strings.Contains(last, "evidence recall@5 0.500 < --min-recall-at-5 0.600") || strings.Contains(last, "recall@20") {
		t.Errorf("thresholds: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "evidence 1/2") {
		t.Errorf("--json in a pipe printed progress lines:\n%s", r.stderr)
	}
}

// eval qa --match takes lead or jaccard; anything else is a usage error
// naming the rules.
func TestEvalQAMatchFlag(t *testing.T) {
	r := runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", "--match", "f1", filepath.Join("internal", "eval", "testdata", "qa", "contract_heldout.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "lead or jaccard") {
		t.Errorf("--match f1: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// --split test runs the held-out contract questions only; the dev set has
// none, which is an error.
func TestEvalSplitFlag(t *testing.T) {
	qa := filepath.Join("internal", "eval", "testdata", "qa")
	r := runCLI(t, nil, "eval", "evidence", "--docs", "examples/contract", "--split", "test", "--json", filepath.Join(qa, "contract_heldout.jsonl"))
	if r.code != exitOK || !strings.Contains(r.stdout, `"questions": 20`) {
		t.Errorf("--split test: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", "--split", "test", filepath.Join(qa, "contract.jsonl"))
	if r.code != exitError || !strings.Contains(r.stderr, "none of the 55 questions is in the test split") {
		t.Errorf("--split test of the dev set: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", "--split", "train", filepath.Join(qa, "contract.jsonl"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "dev, test or all") {
		t.Errorf("--split train: exit %d\n%s", r.code, r.stderr)
	}
}

// In LLM mode eval evidence runs the model's pipeline: the first pass
// stops after retrieval (one decomposition, no generation), then the real
// run decomposes once more and answers as ask does, here over two passes
// (the 5% answer rejected, then 1.5%), all through the real client to
// the scripted server.
func TestEvalEvidenceLLMMode(t *testing.T) {
	srv := openaitest.New(t)
	generations := contractModel(t, srv, "5%", "1.5%")
	qa := filepath.Join(t.TempDir(), "qa.jsonl")
	row := `{"id":"late","question":"What are the penalties?","answers":["1.5% per month"],"source":"master-services-agreement.md","page":8}` + "\n"
	if err := os.WriteFile(qa, []byte(row), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, llmEnv(srv), "eval", "evidence", "--docs", "examples/contract", qa, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	var rep struct {
		Measured int `json:"measured"`
		Results  []struct {
			EvidenceRank int  `json:"evidence_rank"`
			HandedOn     bool `json:"handed_on"`
			Passes       int  `json:"passes"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if rep.Measured != 1 || len(rep.Results) != 1 {
		t.Fatalf("report %+v, want one result", rep)
	}
	if rep.Results[0].EvidenceRank < 1 || !rep.Results[0].HandedOn || rep.Results[0].Passes != 2 {
		t.Errorf("report %+v, want the evidence found, handed on, over 2 passes", rep)
	}
	if got := srv.Calls(openaitest.RouteDecomposition); got != 2 {
		t.Errorf("decompositions = %d, want 2 (the first pass, the real run)", got)
	}
	if got := generations.Load(); got != 2 {
		t.Errorf("generations = %d, want 2 (the real run's two answers; the first pass generates nothing)", got)
	}
}
