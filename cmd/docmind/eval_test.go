package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/judge"
)

// TestEvalQAOverFolder runs `eval qa` end to end over examples/contract
// with a tiny set using the new row fields, then --gold and a threshold.
func TestEvalQAOverFolder(t *testing.T) {
	dir := t.TempDir()
	qa := filepath.Join(dir, "qa.jsonl")
	// q01's expected page is wrong on purpose: the answer cites page 8,
	// listed in other_pages.
	rows := `{"id":"q01","kind":"direct","type":"lookup","question":"What are the late payment penalties?","answers":["1.5% per month"],"source":"master-services-agreement.md","page":3,"other_pages":[8],"printed_page":null}
{"id":"q02","kind":"direct","type":"lookup","question":"How much is the Monthly Service Fee under the Standard tier?","facts":["US$18,000"],"source":"master-services-agreement.md","page":6,"printed_page":6}
{"id":"u01","kind":"unanswerable","type":"unanswerable","question":"What is the warranty period?","answerable":false,"why":"the contract has no warranty clause"}
`
	if err := os.WriteFile(qa, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", qa, "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var rep struct {
		Questions         int                `json:"questions"`
		Answered          int                `json:"answered"`
		Coverage          float64            `json:"coverage"`
		AnsweredAccuracy  float64            `json:"answered_accuracy"`
		AnswerableCorrect float64            `json:"answerable_correct"`
		CitationPages     float64            `json:"citation_page_accuracy"`
		AURC              *float64           `json:"aurc"`
		WrongAnswers      *int               `json:"wrong_answers"`
		RiskCoverage      []map[string]any   `json:"risk_coverage"`
		ByType            map[string]any     `json:"by_type"`
		Results           []map[string]any   `json:"results"`
		Abstention        map[string]float64 `json:"abstention"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if rep.Questions != 3 || rep.Answered != 2 || rep.AnswerableCorrect != 1 || rep.AnsweredAccuracy != 1 || rep.CitationPages != 1 {
		t.Errorf("report = %+v", rep)
	}
	if rep.AURC == nil || rep.WrongAnswers == nil || len(rep.RiskCoverage) == 0 || rep.ByType["lookup"] == nil {
		t.Errorf("report lacks new fields: %s", r.stdout)
	}
	for _, res := range rep.Results {
		if _, ok := res["confidence"]; !ok {
			t.Errorf("result lacks confidence: %v", res)
		}
	}

	// Human output.
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", qa)
	for _, want := range []string{"coverage", "accuracy among answered", "AURC", "wrong answers", "by type:", "risk–coverage"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}

	// A threshold missed: exit 1 with one line naming the flag.
	// (a fact the answer does not state makes one answer wrong, so the
	// AURC is over 0)
	missed := filepath.Join(dir, "missed.jsonl")
	if err := os.WriteFile(missed, []byte(rows+`{"id":"q03","kind":"direct","type":"lookup","question":"What are the late payment penalties?","facts":["9% per day"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", missed, "--json", "--max-aurc", "0")
	last := strings.TrimSpace(r.stderr)
	last = last[strings.LastIndex(last, "\n")+1:]
	if r.code != exitError || !strings.HasPrefix(last, "docmind: ") || !strings.Contains(last, "--max-aurc") {
		t.Errorf("--max-aurc 0: exit %d, stderr:\n%s", r.code, r.stderr)
	}

	// --gold: answers replace the facts; a gold file that disagrees on
	// answerability is an error.
	gold := filepath.Join(dir, "gold.jsonl")
	g := `{"id":"q01","is_impossible":false,"answers":["1.5% per month"]}
{"id":"q02","is_impossible":false,"answers":["US$18,000","18,000"]}
{"id":"u01","is_impossible":true,"answers":[]}
`
	if err := os.WriteFile(gold, []byte(g), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", qa, "--gold", gold, "--json")
	if r.code != exitOK || !strings.Contains(r.stdout, `"answerable_correct": 1`) {
		t.Errorf("--gold: exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	if err := os.WriteFile(gold, []byte(strings.Replace(g, `"u01","is_impossible":true`, `"u01","is_impossible":false`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "qa", "--docs", "examples/contract", qa, "--gold", gold)
	if r.code != exitError || !strings.Contains(r.stderr, "u01") || !strings.Contains(r.stderr, "is_impossible") {
		t.Errorf("gold mismatch: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestEvalCalibrate fits a calibration on an eval qa report of the
// contract's questions and writes the judge's generated file.
func TestEvalCalibrate(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "contract.json")
	r := runCLI(t, nil, "eval", "qa", "--min-confidence", "0", "--json", "--docs", "examples/contract", "internal/eval/testdata/qa/contract_heldout.jsonl")
	if r.code != exitOK {
		t.Fatalf("eval qa: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `"signals"`) {
		t.Fatalf("eval qa --json results carry no signals:\n%.2000s", r.stdout)
	}
	if err := os.WriteFile(report, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "calibration.go")
	r = runCLI(t, nil, "eval", "calibrate", report, "--out", out, "--json")
	if r.code != exitOK {
		t.Fatalf("eval calibrate: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var fit struct {
		Signals   []string  `json:"signals"`
		Weights   []float64 `json:"weights"`
		Threshold float64   `json:"threshold"`
		Sets      []struct {
			Name   string           `json:"name"`
			Points []map[string]any `json:"points"`
		} `json:"sets"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fit); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(fit.Signals) == 0 || len(fit.Weights) != len(fit.Signals) || len(fit.Sets) != 1 || fit.Sets[0].Name != "contract" || len(fit.Sets[0].Points) == 0 {
		t.Errorf("fit = %+v", fit)
	}
	src, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Code generated by docmind eval calibrate", "docmind eval calibrate contract.json", "calibrationWeights", "calibrationThreshold"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("calibration.go lacks %q:\n%s", want, src)
		}
	}
	// --shipped reports the model this build ships, at its threshold
	r = runCLI(t, nil, "eval", "calibrate", report, "--shipped", "--json")
	if r.code != exitOK {
		t.Fatalf("eval calibrate --shipped: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var shipped struct {
		Weights   []float64 `json:"weights"`
		Threshold float64   `json:"threshold"`
		Shipped   bool      `json:"shipped"`
		Sets      []struct {
			AURC float64 `json:"aurc"`
		} `json:"sets"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &shipped); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if w, _, th := judge.ShippedCalibration(); !shipped.Shipped || shipped.Threshold != th || !slices.Equal(shipped.Weights, w) || len(shipped.Sets) != 1 {
		t.Errorf("--shipped = %+v, want the shipped weights and threshold %v", shipped, th)
	}
	if r = runCLI(t, nil, "eval", "calibrate", report, "--shipped", "--out", out); r.code != exitUsage {
		t.Errorf("--shipped --out: exit %d, want a usage error; stderr %q", r.code, r.stderr)
	}
	// Two reports under other names are two domains: each is scored by
	// a model fitted on the other (the table and --json); --domain groups
	// them into one, leaving nothing to hold out; a malformed --domain is
	// a usage error.
	other := filepath.Join(dir, "heldout.json")
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "calibrate", report, other)
	if r.code != exitOK || !strings.Contains(r.stdout, "leave one domain out") || !strings.Contains(r.stdout, "heldout      held out") {
		t.Errorf("two domains: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "eval", "calibrate", report, other, "--domain", "contracts=contract,heldout", "--json")
	if r.code != exitOK || strings.Contains(r.stdout, "leave_one_domain_out") {
		t.Errorf("one domain: exit %d\n%.600s", r.code, r.stdout)
	}
	if r = runCLI(t, nil, "eval", "calibrate", report, "--domain", "contracts"); r.code != exitUsage {
		t.Errorf("--domain contracts: exit %d, want a usage error", r.code)
	}
	// A report without signals (another version, or not offline) is one
	// clear error line.
	if err := os.WriteFile(report, []byte(`{"results":[{"id":"x","answered":true}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "calibrate", report)
	if r.code == exitOK || !strings.Contains(r.stderr, "no answers with signals") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestEvalRelevance runs `eval relevance` over the tiny SQuAD-style
// fixture: the judge reads each question's own sentence; the threshold
// flag fails the run (exit 1, one line) when half the answerable
// questions are never accepted; bad invocations are usage errors.
func TestEvalRelevance(t *testing.T) {
	docs := filepath.Join("internal", "eval", "testdata", "tinysquad", "docs")
	gold := filepath.Join("internal", "eval", "testdata", "tinysquad", "gold.jsonl")
	r := runCLI(t, nil, "eval", "relevance", "--docs", docs, "--gold", gold, "--json", "--min-accuracy-at-half", "0.5")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var rep struct {
		Questions    int `json:"questions"`
		Judged       int `json:"judged"`
		AcceptedGold int `json:"accepted_gold"`
		AtHalf       *struct {
			Accuracy float64 `json:"accuracy"`
		} `json:"at_half"`
		Results []struct {
			ID       string  `json:"id"`
			Accepted bool    `json:"accepted"`
			Conf     float64 `json:"confidence"`
			Sentence string  `json:"sentence"`
			Missing  string  `json:"missing"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if rep.Questions != 9 || rep.Judged != 7 || rep.AcceptedGold != 3 || rep.AtHalf == nil || rep.AtHalf.Accuracy != 1 {
		t.Errorf("report %+v", rep)
	}
	for _, res := range rep.Results {
		// at the default threshold every accepted sentence is confident
		if res.Accepted && res.Conf < judge.DefaultMinConfidence {
			t.Errorf("%s accepted at %.3f, under the default threshold", res.ID, res.Conf)
		}
		if res.ID == "u4" && !strings.Contains(res.Missing, "oak-river.md") {
			t.Errorf("u4: missing = %q", res.Missing)
		}
	}
	// the table
	r = runCLI(t, nil, "eval", "relevance", "--docs", docs, "--gold", gold, "--min-confidence", "0")
	if r.code != exitOK || !strings.Contains(r.stdout, "gold sentences accepted  3 (1.000 of answerable)") || !strings.Contains(r.stdout, "confidence >=") {
		t.Errorf("table: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// only distractors and an answerable question whose document is missing
	sub := filepath.Join(t.TempDir(), "gold.jsonl")
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(t), gold))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, `"is_impossible":true`) {
			lines = append(lines, l)
		}
	}
	lines = append(lines, `{"id":"a9","doc":"oak-river.md","paragraph":1,"question":"Who first mapped the Oak River?","is_impossible":false,"answers":["Anna Keller"]}`)
	if err := os.WriteFile(sub, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "eval", "relevance", "--docs", docs, "--gold", sub, "--min-accuracy-at-half", "0.5")
	if r.code != exitError || !strings.Contains(r.stderr, "never accepted") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("threshold: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// no row's document in the folder: one error line
	if err := os.WriteFile(sub, []byte(lines[len(lines)-1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, nil, "eval", "relevance", "--docs", docs, "--gold", sub); r.code != exitError || !strings.Contains(r.stderr, "no row of") || !strings.Contains(r.stderr, "oak-river.md") {
		t.Errorf("no document: exit %d\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"eval", "relevance", "--docs", docs},
		{"eval", "relevance", "--docs", docs, "--gold", gold, "extra"},
	} {
		if r := runCLI(t, nil, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, r.code, exitUsage, r.stderr)
		}
	}
	if r := runCLI(t, nil, "eval", "relevance", "--docs", docs, "--gold", filepath.Join(t.TempDir(), "none.jsonl")); r.code != exitError || !strings.Contains(r.stderr, "none.jsonl") {
		t.Errorf("missing gold file: exit %d\n%s", r.code, r.stderr)
	}
}
