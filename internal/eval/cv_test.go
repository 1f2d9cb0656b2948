package eval

import (
	"fmt"
	"slices"
	"testing"
)

func TestSourceFolds(t *testing.T) {
	var ids []string
	for s := range 23 {
		for r := range 1 + s%4 { // sources with 1..4 rows each
			_ = r
			ids = append(ids, fmt.Sprintf("src%d", s))
		}
	}
	folds, err := SourceFolds(ids, 5, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(folds) != 5 {
		t.Fatalf("%d folds", len(folds))
	}
	tested := make([]int, len(ids))
	for f, fold := range folds {
		if len(fold.Train)+len(fold.Test) != len(ids) {
			t.Errorf("fold %d: %d train + %d test != %d rows", f, len(fold.Train), len(fold.Test), len(ids))
		}
		trainSrc := map[string]bool{}
		for _, r := range fold.Train {
			trainSrc[ids[r]] = true
		}
		for _, r := range fold.Test {
			tested[r]++
			if slices.Contains(fold.Train, r) {
				t.Errorf("fold %d: row %d both tuned on and tested", f, r)
			}
			if trainSrc[ids[r]] {
				t.Errorf("fold %d: source %s on both sides", f, ids[r])
			}
		}
	}
	for r, n := range tested {
		if n != 1 {
			t.Errorf("row %d tested %d times, want once", r, n)
		}
	}
	again, _ := SourceFolds(ids, 5, 7)
	other, _ := SourceFolds(ids, 5, 8)
	if fmt.Sprint(again) != fmt.Sprint(folds) {
		t.Error("same seed gave different folds")
	}
	if fmt.Sprint(other) == fmt.Sprint(folds) {
		t.Error("another seed gave the same folds")
	}
	if _, err := SourceFolds(ids[:3], 5, 1); err == nil {
		t.Error("more folds than sources must fail")
	}
	if _, err := SourceFolds(ids, 1, 1); err == nil {
		t.Error("one fold must fail")
	}
}

// TestCrossValidateNeverScoresTunedRows checks the mechanism: every row a
// fold's choice is applied to is absent from what that choice was tuned on.
func TestCrossValidateNeverScoresTunedRows(t *testing.T) {
	ids := make([]string, 40)
	for i := range ids {
		ids[i] = fmt.Sprint("s", i/3)
	}
	folds, err := SourceFolds(ids, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	var seen [][]int
	applied := 0
	crossValidate(folds,
		func(train []int) int { seen = append(seen, slices.Clone(train)); return len(seen) - 1 },
		func(fold, choice int, row int) {
			applied++
			if fold != choice {
				t.Errorf("fold %d applied the choice of fold %d", fold, choice)
			}
			if slices.Contains(seen[choice], row) {
				t.Errorf("row %d scored by a choice tuned on it", row)
			}
		})
	if applied != len(ids) {
		t.Errorf("%d rows scored, want %d", applied, len(ids))
	}
}

// TestCrossValidateHeldOut builds two folds that disagree: in fold 1 high
// risk means hallucinated, in fold 2 low risk does. Honest
// cross-validation tunes fold 2's threshold on fold 1 (and vice versa),
// which the hand-computed figures below reflect; tuning on all rows would
// instead flag everything (F1 2/3).
func TestCrossValidateHeldOut(t *testing.T) {
	var rows []JudgeOutcome
	for s := range 4 {
		for _, risk := range []float64{0.8, 0.2} {
			rows = append(rows, JudgeOutcome{Task: TaskQA, SourceID: fmt.Sprint(s), Risk: risk})
		}
	}
	ids := make([]string, len(rows))
	for i, o := range rows {
		ids[i] = o.Task + "/" + o.SourceID
	}
	folds, err := SourceFolds(ids, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range folds[0].Test {
		rows[r].Gold = rows[r].Risk > 0.5
	}
	for _, r := range folds[1].Test {
		rows[r].Gold = rows[r].Risk < 0.5
	}
	if f := Overall(Score(rows, ThresholdDecision(0))).F1; !near(f, 2.0/3) {
		t.Fatalf("flag-everything F1 = %v, want 2/3", f)
	}
	res, err := CrossValidate([]Candidate{{Name: "only", Outcomes: rows}}, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Fold 1 is tuned on fold 2's rows, where flagging everything is best
	// (F1 2/3); applied to fold 1 it also scores 2/3.
	if c := res.Choices[0]; !near(c.TrainF1, 2.0/3) || c.Threshold > 0.2 || !near(c.TestF1, 2.0/3) {
		t.Errorf("fold 1 choice %+v", c)
	}
	// Fold 2 is tuned on fold 1's rows, separable between 0.2 and 0.8
	// (F1 1); on fold 2 that flags exactly the wrong rows (F1 0).
	if c := res.Choices[1]; c.TrainF1 != 1 || c.Threshold <= 0.2 || c.Threshold >= 0.8 || c.TestF1 != 0 {
		t.Errorf("fold 2 choice %+v", c)
	}
	// Pooled: fold 1 TP 2 FP 2; fold 2 FP 2 FN 2 -> P 1/3, R 1/2, F1 0.4.
	if all := Overall(res.Scores); all.Confusion != (Confusion{TP: 2, FP: 4, FN: 2}) || !near(all.F1, 0.4) {
		t.Errorf("pooled held-out = %+v, want F1 0.4", all)
	}
}

func TestCrossValidatePicksCandidate(t *testing.T) {
	// Candidate "good" separates perfectly at 0.5; "noise" does not.
	var good, noise []JudgeOutcome
	for i := range 20 {
		gold := i%3 == 0
		r := 0.1
		if gold {
			r = 0.9
		}
		good = append(good, JudgeOutcome{Task: TaskQA, SourceID: fmt.Sprint(i), Gold: gold, Risk: r, Claims: []ClaimSpan{{Span: Span{0, 4}, Risk: r}}, GoldSpans: []Span{{0, 4}}})
		noise = append(noise, JudgeOutcome{Task: TaskQA, SourceID: fmt.Sprint(i), Gold: gold, Risk: float64(i%5) / 5})
	}
	for i := range good {
		if !good[i].Gold {
			good[i].GoldSpans = nil
		}
	}
	res, err := CrossValidate([]Candidate{{Name: "noise", Outcomes: noise}, {Name: "good", Outcomes: good}}, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Choices {
		if c.Candidate != "good" {
			t.Errorf("fold %d chose %s", c.Fold, c.Candidate)
		}
	}
	all := res.Scores[len(res.Scores)-1]
	if all.F1 != 1 || all.SpanF1 != 1 || all.Responses != 20 {
		t.Errorf("pooled = %+v", all)
	}
	if _, err := CrossValidate([]Candidate{{Name: "a", Outcomes: good}, {Name: "b", Outcomes: good[:3]}}, 5, 1); err == nil {
		t.Error("candidates with different rows must fail")
	}
}
