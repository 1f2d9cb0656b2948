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
	choices := crossValidate(folds,
		func(train []int) Choice { return tuneOn(cands, train) },
		func(_ int, c Choice, row int) {
			o := cands[indexOf(cands, c.Candidate)].Outcomes[row]
			pred, spans := ThresholdDecision(c.Threshold)(o)
			pooled[row] = decided{o: o, pred: pred, spans: spans}
		})
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
			"(of %d) and the risk threshold with the best response-level F1 on the other %d folds are chosen and applied "+
			"to the held-out fold only; figures pool the held-out predictions", k, seed, len(cands), k-1),
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

// tuneOn returns the candidate and threshold with the best F1 on rows.
// Thresholds are midpoints between consecutive distinct risks, so a choice
// does not sit exactly on a training row's value. Ties keep the earlier
// candidate and the higher threshold.
func tuneOn(cands []Candidate, rows []int) Choice {
	best := Choice{Candidate: cands[0].Name, Threshold: 0.5, TrainF1: -1}
	type rg struct {
		risk float64
		gold bool
	}
	for _, c := range cands {
		pts := make([]rg, len(rows))
		pos := 0
		for i, r := range rows {
			pts[i] = rg{c.Outcomes[r].Risk, c.Outcomes[r].Gold}
			if pts[i].gold {
				pos++
			}
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].risk > pts[j].risk })
		tp, fp := 0, 0
		for i := 0; i < len(pts); {
			v := pts[i].risk
			for i < len(pts) && pts[i].risk == v {
				if pts[i].gold {
					tp++
				} else {
					fp++
				}
				i++
			}
			next := 0.0
			if i < len(pts) {
				next = pts[i].risk
			}
			t := (v + next) / 2
			if i == len(pts) {
				t = v / 2
			}
			score := f1(ratio(tp, tp+fp), ratio(tp, pos))
			if score > best.TrainF1 {
				best = Choice{Candidate: c.Name, Threshold: t, TrainF1: score}
			}
		}
	}
	return best
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
