package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestJudgeCommand(t *testing.T) {
	file := filepath.Join("testdata", "ragtruth_tiny.jsonl")
	var out bytes.Buffer
	res, err := JudgeCommand{Files: []string{file}, Judges: []NamedJudge{{"scripted", tinyJudge()}}, Stdout: &out, MinF1: 0.9}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.CV != nil || overall(res.Headline()).F1 != 1 {
		t.Errorf("result = %+v", res)
	}
	for _, want := range []string{"judge scripted", "qa", "summary", "data2txt", "overall", "1.000"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	_, err = JudgeCommand{Files: []string{file}, Judges: []NamedJudge{{"none", scriptedJudge{}}}, Stdout: &out, JSON: true, MinF1: 0.9}.Run(context.Background())
	var te *ThresholdError
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
	// Failed judge: everything predicted hallucinated; qa has 1 of 2.
	if qa["responses"] != 2 || qa["precision"] != 0.5 || qa["recall"] != 1 || qa["f1"] != 0.667 {
		t.Errorf("qa json = %v", qa)
	}
	for _, k := range []string{"span_f1", "hallucinated"} {
		if _, ok := qa[k]; !ok {
			t.Errorf("qa json lacks %s", k)
		}
	}

	if _, err := (JudgeCommand{Judges: []NamedJudge{{"x", tinyJudge()}}}).Run(context.Background()); err == nil {
		t.Error("no files must fail")
	}
	if _, err := (JudgeCommand{Files: []string{"nope.jsonl"}, Judges: []NamedJudge{{"x", tinyJudge()}}}).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "nope.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestJudgeCommandCV(t *testing.T) {
	// Four copies of the tiny file under different source ids give enough
	// sources for 2 folds.
	data, err := os.ReadFile(filepath.Join("testdata", "ragtruth_tiny.jsonl"))
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
			rec["source_id"] = itoa(10*c + i)
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
	res, err := JudgeCommand{Files: []string{file}, Judges: []NamedJudge{{"scripted", tinyJudge()}, {"broken", scriptedJudge{}}}, CVFolds: 2, Seed: 1, Stdout: &out}.Run(context.Background())
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
			return state("A late fee of 1.5% per month (Late Payment Penalties, page 8).", false, onePass), nil
		default:
			return state(schema.FallbackMessage, true, twoPass), nil
		}
	}
	var out, prog bytes.Buffer
	rep, err := QACommand{File: file, Ask: ask, Stdout: &out, Progress: &prog, MinCorrect: 0.5, MinAbstainPrecision: 0.9}.Run(context.Background())
	var te *ThresholdError
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
	if _, err := (QACommand{File: file, Ask: ask, Stdout: &out, JSON: true}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	if err := json.Unmarshal(out.Bytes(), &js); err != nil || js["answered_correctly"] != 0.5 || js["abstention_recall"] != 1.0 {
		t.Errorf("json = %v (%v)", js, err)
	}
}
