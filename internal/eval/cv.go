package eval

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/docmind/docmind/schema"
)

// NamedJudge is one judge configuration offered to tuning.
type NamedJudge struct {
	Name  string
	Judge schema.Judge
}

// Candidate is a judge configuration's outcomes on every response, in the
// same row order for all candidates.
type Candidate struct {
	Name     string
	Outcomes []JudgeOutcome
	// Learn marks a candidate whose response risk is learned: on each
	// fold a RiskModel is trained on the training rows' Features
	// (TrainRiskModelCV) and its probability replaces the outcome's Risk;
	// claim spans are the claims the verdict marked unsupported.
	Learn bool
}

// RunCandidates runs every judge over sources (see RunJudge).
func RunCandidates(ctx context.Context, judges []NamedJudge, sources []RAGTruthSource, opts JudgeRunOptions) ([]Candidate, error) {
	out := make([]Candidate, 0, len(judges))
	for _, nj := range judges {
		o, err := RunJudge(ctx, nj.Judge, sources, opts)
		if err != nil {
			return nil, fmt.Errorf("candidate %s: %w", nj.Name, err)
		}
		out = append(out, Candidate{Name: nj.Name, Outcomes: o})
	}
	return out, nil
}

// Fold is one cross-validation split of row indices.
type Fold struct {
	Train []int
	Test  []int
}

// SourceFolds splits rows into k folds by source: every row of a source
// lands in the same fold, so no source is both tuned on and scored. Sources
// are shuffled with seed and dealt round-robin. sourceIDs[i] is row i's
// source.
func SourceFolds(sourceIDs []string, k int, seed uint64) ([]Fold, error) {
	var uniq []string
	seen := map[string]bool{}
	for _, s := range sourceIDs {
		if !seen[s] {
			seen[s] = true
			uniq = append(uniq, s)
		}
	}
	if k < 2 || k > len(uniq) {
		return nil, fmt.Errorf("cross-validation: %d folds need at least 2 and at most the %d sources", k, len(uniq))
	}
	sort.Strings(uniq)
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	rng.Shuffle(len(uniq), func(i, j int) { uniq[i], uniq[j] = uniq[j], uniq[i] })
	foldOf := make(map[string]int, len(uniq))
	for i, s := range uniq {
		foldOf[s] = i % k
	}
	folds := make([]Fold, k)
	for row, s := range sourceIDs {
		f := foldOf[s]
		for i := range folds {
			if i == f {
				folds[i].Test = append(folds[i].Test, row)
			} else {
				folds[i].Train = append(folds[i].Train, row)
			}
		}
	}
	return folds, nil
}

// crossValidate tunes on each fold's training rows and applies the tuned
// choice to that fold's test rows only. It is the one place that decides
// which rows a choice may see.
func crossValidate[C any](folds []Fold, tune func(train []int) C, apply func(fold int, c C, row int)) []C {
	choices := make([]C, len(folds))
	for f, fold := range folds {
		choices[f] = tune(fold.Train)
		for _, row := range fold.Test {
			apply(f, choices[f], row)
		}
	}
	return choices
}

// Choice is what tuning picked on one fold.
type Choice struct {
	Fold      int     `json:"fold"`
	Candidate string  `json:"candidate"`
	Threshold float64 `json:"threshold"`
	// TrainF1 is the F1 on the training folds; TestF1 on the held-out fold.
	TrainF1 float64 `json:"train_f1"`
	TestF1  float64 `json:"test_f1"`
	TestN   int     `json:"test_responses"`
	// L2 is the ridge penalty of a learned candidate's model, chosen by an
	// inner cross-validation on the training rows.
	L2    float64 `json:"l2,omitempty"`
	model *RiskModel
}

// CVResult is a cross-validated judge benchmark.
type CVResult struct {
	Method  string   `json:"method"`
	K       int      `json:"k"`
	Seed    uint64   `json:"seed"`
	Choices []Choice `json:"choices"`
	// Scores pool the held-out predictions of every fold.
	Scores []TaskScore `json:"scores"`
}

// CrossValidate picks, on each fold's training rows, the candidate and the
// risk threshold with the best response-level F1, and scores the held-out
// rows with that choice. Rows are split by source (SourceFolds, k folds,
// seed). All candidates must have the same rows.
func CrossValidate(cands []Candidate, k int, seed uint64) (*CVResult, error) {
	if len(cands) == 0 {
		return nil, errors.New("cross-validation: no candidates")
	}
	rows := cands[0].Outcomes
	for _, c := range cands[1:] {
		if len(c.Outcomes) != len(rows) {
			return nil, fmt.Errorf("cross-validation: candidate %s has %d rows, %s has %d", c.Name, len(c.Outcomes), cands[0].Name, len(rows))
		}
	}
	ids := make([]string, len(rows))
	for i, o := range rows {
		ids[i] = o.Task + "/" + o.SourceID
	}
	folds, err := SourceFolds(ids, k, seed)
	if err != nil {
		return nil, err
	}
	pooled := make([]decided, len(rows))
	var tuneErr error
	choices := crossValidate(folds,
		func(train []int) Choice {
			c, err := tuneOn(cands, train, seed)
			if err != nil && tuneErr == nil {
				tuneErr = err
			}
			return c
		},
		func(_ int, c Choice, row int) {
			o := cands[indexOf(cands, c.Candidate)].Outcomes[row]
			pred, spans := c.decide(o)
			pooled[row] = decided{o: o, pred: pred, spans: spans}
		})
	if tuneErr != nil {
		return nil, fmt.Errorf("cross-validation: %w", tuneErr)
	}
	for f := range choices {
		choices[f].Fold = f + 1
		var conf Confusion
		for _, row := range folds[f].Test {
			conf.Add(pooled[row].pred, pooled[row].o.Gold)
		}
		choices[f].TestF1, choices[f].TestN = conf.F1(), len(folds[f].Test)
	}
	return &CVResult{
		Method: fmt.Sprintf("%d-fold cross-validation split by source_id (seed %d): on each fold the judge configuration "+
			"(of %d; a learned candidate's logistic model is trained on those folds with its L2 penalty chosen by an inner "+
			"%d-fold cross-validation by source) and the risk threshold with the best response-level F1 on the other %d folds "+
			"are chosen and applied to the held-out fold only; figures pool the held-out predictions", k, seed, len(cands), innerFolds, k-1),
		K: k, Seed: seed, Choices: choices, Scores: scoreDecided(pooled),
	}, nil
}

func indexOf(cands []Candidate, name string) int {
	for i, c := range cands {
		if c.Name == name {
			return i
		}
	}
	return 0
}

// decide applies a fold's choice to one outcome of the chosen candidate.
func (c Choice) decide(o JudgeOutcome) (bool, []Span) {
	if c.model == nil {
		return ThresholdDecision(c.Threshold)(o)
	}
	if learnedRisk(c.model, o) < c.Threshold {
		return false, nil
	}
	return true, o.PredictedSpans(0.5)
}

// tuneOn returns the candidate and threshold with the best F1 on rows.
// Thresholds are midpoints between consecutive distinct risks, so a choice
// does not sit exactly on a training row's value. Ties keep the earlier
// candidate and the higher threshold. A learned candidate's risks come
// from a model trained on rows.
func tuneOn(cands []Candidate, rows []int, seed uint64) (Choice, error) {
	best := Choice{Candidate: cands[0].Name, Threshold: 0.5, TrainF1: -1}
	for _, c := range cands {
		risks := make([]float64, len(rows))
		gold := make([]bool, len(rows))
		var model *RiskModel
		var l2 float64
		if c.Learn {
			m, pen, err := TrainRiskModelCV(c.Outcomes, rows, seed)
			if err != nil {
				return best, fmt.Errorf("candidate %s: %w", c.Name, err)
			}
			model, l2 = &m, pen
		}
		for i, r := range rows {
			o := c.Outcomes[r]
			risks[i], gold[i] = o.Risk, o.Gold
			if model != nil {
				risks[i] = learnedRisk(model, o)
			}
		}
		t, score := BestF1Threshold(risks, gold)
		if score > best.TrainF1 {
			best = Choice{Candidate: c.Name, Threshold: t, TrainF1: score, L2: l2, model: model}
		}
	}
	return best, nil
}

type decided struct {
	o     JudgeOutcome
	pred  bool
	spans []Span
}

func scoreDecided(rows []decided) []TaskScore {
	by := map[string]*TaskScore{}
	all := &TaskScore{Task: "overall"}
	for _, d := range rows {
		ts := by[d.o.Task]
		if ts == nil {
			ts = &TaskScore{Task: d.o.Task}
			by[d.o.Task] = ts
		}
		sc := CountSpans(d.spans, d.o.GoldSpans)
		for _, t := range []*TaskScore{ts, all} {
			t.Responses++
			if d.o.Gold {
				t.Hallucinated++
			}
			if d.o.Err != "" {
				t.Errors++
			}
			t.Confusion.Add(d.pred, d.o.Gold)
			t.Spans = t.Spans.Add(sc)
		}
	}
	var out []TaskScore
	for _, t := range sortedTasks(by) {
		out = append(out, by[t].finish())
	}
	return append(out, all.finish())
}
