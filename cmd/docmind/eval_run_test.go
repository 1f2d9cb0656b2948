package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/eval"
	"github.com/docmind/docmind/internal/eval/evaltest"
	"github.com/docmind/docmind/schema"
)

func TestJudgeCommand(t *testing.T) {
	file := filepath.Join("..", "..", "internal", "eval", "testdata", "ragtruth_tiny.jsonl")
	var out bytes.Buffer
	res, err := judgeEval{Files: []string{file}, Judges: []eval.NamedJudge{{Name: "scripted", Judge: evaltest.TinyJudge()}}, Stdout: &out, MinF1: 0.9}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.CV != nil || eval.Overall(res.Headline()).F1 != 1 {
		t.Errorf("result = %+v", res)
	}
	for _, want := range []string{"judge scripted", "qa", "summary", "data2txt", "overall", "1.000"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	// A judge that failed on every response (a rejected key, a server
	// down) gave no verdict: no figures, one error naming the failure.
	out.Reset()
	_, err = judgeEval{Files: []string{file}, Judges: []eval.NamedJudge{{Name: "none", Judge: evaltest.ScriptedJudge{}}}, Stdout: &out, JSON: true}.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the judge failed on every response (4 of 4): unscripted response") || out.Len() != 0 {
		t.Errorf("judge failing everywhere: err = %v, stdout %q", err, out.String())
	}

	// A judge that failed on one response: it counts as hallucinated, and
	// the table says so.
	partial := evaltest.TinyJudge()
	delete(partial, "The late fee is 1.5% per month.")
	out.Reset()
	if _, err := (judgeEval{Files: []string{file}, Judges: []eval.NamedJudge{{Name: "partial", Judge: partial}}, Stdout: &out}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "errors: the judge failed on 1 of 4 responses, counted as hallucinated (first: unscripted response)"; !strings.Contains(out.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, out.String())
	}
	out.Reset()
	_, err = judgeEval{Files: []string{file}, Judges: []eval.NamedJudge{{Name: "partial", Judge: partial}}, Stdout: &out, JSON: true, MinF1: 0.9}.Run(context.Background())
	var te *thresholdError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "--min-f1") {
		t.Errorf("missed threshold: err = %v", err)
	}
	var js map[string]map[string]any
	if err := json.Unmarshal(out.Bytes(), &js); err == nil {
		t.Fatal("judge name should be a string, not an object") // sanity: mixed object
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	var qa map[string]float64
	if err := json.Unmarshal(raw["qa"], &qa); err != nil {
		t.Fatal(err)
	}
	// The failed response is predicted hallucinated; qa has 1 of 2.
	if qa["responses"] != 2 || qa["precision"] != 0.5 || qa["recall"] != 1 || qa["f1"] != 0.667 || qa["errors"] != 1 {
		t.Errorf("qa json = %v", qa)
	}
	for _, k := range []string{"span_f1", "hallucinated"} {
		if _, ok := qa[k]; !ok {
			t.Errorf("qa json lacks %s", k)
		}
	}

	if _, err := (judgeEval{Judges: []eval.NamedJudge{{Name: "x", Judge: evaltest.TinyJudge()}}}).Run(context.Background()); err == nil {
		t.Error("no files must fail")
	}
	if _, err := (judgeEval{Files: []string{"nope.jsonl"}, Judges: []eval.NamedJudge{{Name: "x", Judge: evaltest.TinyJudge()}}}).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestJudgeCommandCV(t *testing.T) {
	// Four copies of the tiny file under different source ids give enough
	// sources for 2 folds.
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "eval", "testdata", "ragtruth_tiny.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		for c := range 2 {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			rec["source_id"] = strconv.Itoa(10*c + i)
			line, _ := json.Marshal(rec)
			b.Write(line)
			b.WriteString("\n")
		}
	}
	file := filepath.Join(t.TempDir(), "rt.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := judgeEval{Files: []string{file}, Judges: []eval.NamedJudge{{Name: "scripted", Judge: evaltest.TinyJudge()}, {Name: "broken", Judge: evaltest.ScriptedJudge{}}}, CVFolds: 2, Seed: 1, Stdout: &out}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.CV == nil || len(res.CV.Choices) != 2 {
		t.Fatalf("cv = %+v", res.CV)
	}
	for _, c := range res.CV.Choices {
		if c.Candidate != "scripted" {
			t.Errorf("fold %d chose %s", c.Fold, c.Candidate)
		}
	}
	if !strings.Contains(out.String(), "cross-validated") || !strings.Contains(out.String(), "method: 2-fold") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestQACommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "qa.jsonl")
	rows := `{"id":"a","question":"late fee?","facts":["1.5%"],"page":8}
{"id":"b","question":"warranty?","answerable":false}
{"id":"c","question":"cap?","facts":["20%"],"page":6}
`
	if err := os.WriteFile(file, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	ask := func(_ context.Context, q string) (*schema.State, error) {
		switch q {
		case "late fee?":
			return evaltest.State("A late fee of 1.5% per month (Late Payment Penalties, page 8).", false, evaltest.OnePass), nil
		default:
			return evaltest.State(schema.FallbackMessage, true, evaltest.TwoPass), nil
		}
	}
	var out, prog bytes.Buffer
	rep, err := qaEval{File: file, Ask: ask, Stdout: &out, Progress: &prog, MinCorrect: 0.5, MinAbstainPrecision: 0.9}.Run(context.Background())
	var te *thresholdError
	if !errors.As(err, &te) || len(te.Misses) != 1 || !strings.Contains(te.Misses[0], "abstention precision") {
		t.Fatalf("err = %v", err)
	}
	if rep.Correct != 1 || !near(rep.AnsweredCorrectly, 0.5) || !near(rep.AbstentionPrecision, 0.5) || rep.AbstentionRecall != 1 {
		t.Errorf("report = %+v", rep)
	}
	for _, want := range []string{"answered correctly", "0.500 (1/2)", "c  cap? — abstained"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(prog.String(), "qa 3/3") {
		t.Errorf("progress = %q", prog.String())
	}
	out.Reset()
	if _, err := (qaEval{File: file, Ask: ask, Stdout: &out, JSON: true}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || js["answered_correctly"] != 0.5 || js["abstention_recall"] != 1.0 {
		t.Errorf("json = %v (%v)", js, err)
	}
}

// Runs that fail (an LLM error) count as missed; when every question's run
// failed (a rejected key, a server down) there is no report, only one
// error naming the first failure. eval evidence does the same.
func TestQAAndEvidenceCommandsWhenRunsFail(t *testing.T) {
	file := filepath.Join(t.TempDir(), "qa.jsonl")
	rows := `{"id":"a","question":"late fee?","facts":["1.5%"],"source":"c.md","page":8}
{"id":"b","question":"warranty?","answerable":false}
{"id":"c","question":"cap?","facts":["20%"],"source":"c.md","page":6}
`
	if err := os.WriteFile(file, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("decompose: example.com rejected the API key (401)")
	failAll := func(context.Context, string) (*schema.State, error) { return nil, boom }
	failSome := func(_ context.Context, q string) (*schema.State, error) {
		if q == "cap?" {
			return nil, boom
		}
		return evaltest.State(schema.FallbackMessage, true, evaltest.OnePass), nil
	}
	for _, asJSON := range []bool{false, true} {
		var out bytes.Buffer
		_, err := qaEval{File: file, Ask: failAll, Stdout: &out, JSON: asJSON}.Run(context.Background())
		if err == nil || err.Error() != "eval qa: every question failed (3 of 3): "+boom.Error() || out.Len() != 0 {
			t.Errorf("qa, every run failed, --json=%v: err = %v, stdout %q", asJSON, err, out.String())
		}
	}
	var out bytes.Buffer
	rep, err := qaEval{File: file, Ask: failSome, Stdout: &out}.Run(context.Background())
	if err != nil || rep.Errors != 1 {
		t.Fatalf("qa, one run failed: err = %v, report %+v", err, rep)
	}
	if want := "errors                   1 of 3 questions failed, counted as missed (first: " + boom.Error() + ")"; !strings.Contains(out.String(), want) {
		t.Errorf("qa table lacks %q:\n%s", want, out.String())
	}

	probeAll := func(context.Context, string) (eval.EvidenceRun, error) { return eval.EvidenceRun{}, boom }
	probeSome := func(_ context.Context, q string) (eval.EvidenceRun, error) {
		if q == "cap?" {
			return eval.EvidenceRun{}, boom
		}
		return eval.EvidenceRun{}, nil
	}
	for _, asJSON := range []bool{false, true} {
		out.Reset()
		_, err := evidenceEval{File: file, Probe: probeAll, Stdout: &out, JSON: asJSON}.Run(context.Background())
		if err == nil || err.Error() != "eval evidence: every question failed (2 of 2): "+boom.Error() || out.Len() != 0 {
			t.Errorf("evidence, every run failed, --json=%v: err = %v, stdout %q", asJSON, err, out.String())
		}
	}
	out.Reset()
	if _, err := (evidenceEval{File: file, Probe: probeSome, Stdout: &out}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "errors: 1 of 2 questions failed, counted as misses (first: " + boom.Error() + ")"; !strings.Contains(out.String(), want) {
		t.Errorf("evidence table lacks %q:\n%s", want, out.String())
	}
}

func TestQACommandGoldAndNewThresholds(t *testing.T) {
	dir := t.TempDir()
	qa := filepath.Join(dir, "qa.jsonl")
	gold := filepath.Join(dir, "gold.jsonl")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(qa, `{"id":"a","question":"where?","facts":["Frankreich"],"kind":"answerable","type":"place"}
{"id":"b","question":"when?","facts":["1066"],"kind":"answerable","type":"date"}
{"id":"c","question":"who?","answerable":false,"kind":"impossible","type":"unanswerable"}
`)
	write(gold, `{"id":"a","is_impossible":false,"answers":["France","in France"]}
{"id":"b","is_impossible":false,"answers":["1066"]}
{"id":"c","is_impossible":true,"answers":[]}
`)
	answers := map[string]string{
		"where?": "Normandy is in France. (See Normans, page 1)",
		"when?":  "The Normans were Norse. (See Normans, page 1)\nThey came from Denmark. (See Normans, page 1)\nThe conquest was in 1066. (See Normans, page 2)",
		"who?":   "Rollo. (See Normans, page 1)",
	}
	conf := map[string]float64{"where?": 0.9, "when?": 0.6, "who?": 0.3}
	ask := func(_ context.Context, q string) (*schema.State, error) {
		st := evaltest.State(answers[q], false, evaltest.OnePass)
		st.JudgeVerdict.ConfidenceScore = conf[q]
		return st, nil
	}
	var out bytes.Buffer
	maxAURC := 0.1
	rep, err := qaEval{File: qa, Gold: gold, Ask: ask, Stdout: &out, MinAnsweredAccuracy: 0.5, MaxAURC: &maxAURC, MinAnswerableCorrect: 0.4}.Run(context.Background())
	var te *thresholdError
	if !errors.As(err, &te) || len(te.Misses) != 2 || !strings.Contains(err.Error(), "--min-answered-accuracy") || !strings.Contains(err.Error(), "--max-aurc") {
		t.Fatalf("err = %v", err)
	}
	// a is right only through the gold answers; b's 1066 is in the third
	// sentence; c is an answered unanswerable. Answered 3, right 1:
	// risks 0, 1/2, 2/3 -> AURC (0 + 1/2 + 2/3) / 3.
	if rep.Correct != 1 || rep.Answered != 3 || rep.WrongAnswers != 2 || !near(rep.AnsweredAccuracy, 1.0/3) || !near(rep.AnswerableCorrect, 0.5) || !near(rep.AURC, (0.5+2.0/3)/3) {
		t.Errorf("report: %+v", rep)
	}
	for _, want := range []string{"coverage", "accuracy among answered", "0.333 (1/3)", "AURC", "wrong answers", "by type:", "  place", "risk–coverage", "no gold answer in the first two sentences"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if _, err := (qaEval{File: qa, Gold: gold, Ask: ask, Stdout: &out, JSON: true}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Answered         int                       `json:"answered"`
		Coverage         float64                   `json:"coverage"`
		AnsweredAccuracy float64                   `json:"answered_accuracy"`
		AURC             float64                   `json:"aurc"`
		WrongAnswers     int                       `json:"wrong_answers"`
		RiskCoverage     []map[string]float64      `json:"risk_coverage"`
		ByType           map[string]eval.KindScore `json:"by_type"`
		Results          []map[string]any          `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if js.Answered != 3 || js.Coverage != 1 || js.WrongAnswers != 2 || len(js.RiskCoverage) != 3 || js.RiskCoverage[0]["threshold"] != 0.9 || js.ByType["place"] != (eval.KindScore{Questions: 1, Right: 1}) {
		t.Errorf("json = %+v", js)
	}
	if js.Results[0]["confidence"] != 0.9 || js.Results[0]["answered"] != true {
		t.Errorf("result json = %v", js.Results[0])
	}

	// A gold file disagreeing on answerability is an error.
	write(gold, `{"id":"a","is_impossible":true,"answers":[]}
{"id":"b","is_impossible":false,"answers":["1066"]}
{"id":"c","is_impossible":true,"answers":[]}
`)
	if _, err := (qaEval{File: qa, Gold: gold, Ask: ask}).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "is_impossible") {
		t.Errorf("mismatch: err = %v", err)
	}
}

// near reports whether two figures agree to within rounding error.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
