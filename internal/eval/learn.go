package eval

import (
	"fmt"
)

// L2Grid is the ridge penalties offered to a learned candidate; the one
// used on a fold is chosen by an inner cross-validation on that fold's
// training rows (see TrainRiskModelCV).
var L2Grid = []float64{0.0001, 0.001, 0.01, 0.1}

// innerFolds is the number of inner folds used to choose the L2 penalty.
const innerFolds = 4

// TrainRiskModelCV trains a RiskModel on the outcomes' Features and
// gold labels for rows (all rows when nil). The L2 penalty is the one of
// L2Grid with the best F1 pooled over an inner innerFolds-fold
// cross-validation split by source (seed); the model is then trained on
// all of rows with it. Its Threshold is the best-F1 threshold on rows.
func TrainRiskModelCV(outcomes []JudgeOutcome, rows []int, seed uint64) (RiskModel, float64, error) {
	if rows == nil {
		rows = make([]int, len(outcomes))
		for i := range rows {
			rows[i] = i
		}
	}
	x := make([][]float64, len(rows))
	gold := make([]bool, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		o := outcomes[r]
		if len(o.Features) == 0 {
			return RiskModel{}, 0, fmt.Errorf("risk model: response %d of source %s has no features (judge error: %s)", r, o.SourceID, o.Err)
		}
		x[i], gold[i], ids[i] = o.Features, o.Gold, o.Task+"/"+o.SourceID
	}
	folds, err := SourceFolds(ids, innerFolds, seed)
	if err != nil {
		return RiskModel{}, 0, err
	}
	bestL2, bestF1 := L2Grid[0], -1.0
	for _, l2 := range L2Grid {
		var conf Confusion
		for _, f := range folds {
			xs, gs := make([][]float64, len(f.Train)), make([]bool, len(f.Train))
			for i, r := range f.Train {
				xs[i], gs[i] = x[r], gold[r]
			}
			m, err := TrainRisk(xs, gs, RiskTrainOptions{L2: l2})
			if err != nil {
				return RiskModel{}, 0, err
			}
			for _, r := range f.Test {
				p, err := m.Probability(x[r])
				if err != nil {
					return RiskModel{}, 0, err
				}
				conf.Add(p >= m.Threshold, gold[r])
			}
		}
		if f := conf.F1(); f > bestF1 {
			bestL2, bestF1 = l2, f
		}
	}
	m, err := TrainRisk(x, gold, RiskTrainOptions{L2: bestL2})
	return m, bestL2, err
}

// learnedRisk returns the model's probability for o (1 when o has no
// features, as for a judge error).
func learnedRisk(m *RiskModel, o JudgeOutcome) float64 {
	p, err := m.Probability(o.Features)
	if err != nil {
		return 1
	}
	return p
}
