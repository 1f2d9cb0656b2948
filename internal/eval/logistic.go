package eval

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// RiskModel is a logistic regression over an answer's features
// (riskFeatures), for the learned candidate of `docmind eval judge`: the
// probability that the answer is hallucinated is
// sigmoid(Bias + sum_i Weights[i] * (x_i - Mean[i]) / Scale[i]), and the
// answer is judged hallucinated when it reaches Threshold. Train one with
// Train on labelled assessments.
type RiskModel struct {
	// Features names the features the weights apply to
	// (riskFeatureNames at training time); Probability refuses vectors of another length.
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// Threshold is the least probability judged hallucinated.
	Threshold float64 `json:"threshold"`
}

// Probability returns the model's probability that an answer with
// features x is hallucinated, or an error when x does not fit the model.
func (m RiskModel) Probability(x []float64) (float64, error) {
	if len(x) != len(m.Weights) || len(m.Mean) != len(x) || len(m.Scale) != len(x) {
		return 0, fmt.Errorf("risk model: %d features given, the model has %d weights", len(x), len(m.Weights))
	}
	z := m.Bias
	for i, v := range x {
		z += m.Weights[i] * (v - m.Mean[i]) / m.Scale[i]
	}
	return sigmoid(z), nil
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// RiskTrainOptions tunes Train.
type RiskTrainOptions struct {
	// L2 is the ridge penalty on the standardised weights (not the bias),
	// per row. Default 0.01.
	L2 float64
	// Iterations is the most Newton steps taken. Default 50.
	Iterations int
}

// Train fits a logistic regression of gold (hallucinated = true)
// on the feature vectors x: features are standardised by their mean and
// standard deviation on x, and the mean log-loss plus L2/2 times the
// squared weights is minimised by Newton's method (iteratively reweighted
// least squares) from zero weights, so the same data always gives the same
// model. Threshold is set to the probability with the best F1 on x itself:
// choose thresholds on training rows, never on the rows you score.
func TrainRisk(x [][]float64, gold []bool, opts RiskTrainOptions) (RiskModel, error) {
	if len(x) == 0 || len(x) != len(gold) {
		return RiskModel{}, fmt.Errorf("risk model: %d feature rows and %d labels", len(x), len(gold))
	}
	d := len(x[0])
	for i, r := range x {
		if len(r) != d {
			return RiskModel{}, fmt.Errorf("risk model: row %d has %d features, row 0 has %d", i, len(r), d)
		}
	}
	pos := 0
	for _, g := range gold {
		if g {
			pos++
		}
	}
	if pos == 0 || pos == len(gold) {
		return RiskModel{}, errors.New("risk model: training needs both hallucinated and faithful examples")
	}
	if opts.L2 <= 0 {
		opts.L2 = 0.01
	}
	if opts.Iterations <= 0 {
		opts.Iterations = 50
	}
	n := float64(len(x))
	m := RiskModel{Mean: make([]float64, d), Scale: make([]float64, d), Weights: make([]float64, d)}
	if d == len(riskFeatureNames) {
		m.Features = riskFeatureNames
	}
	for j := range d {
		var s, ss float64
		for _, r := range x {
			s += r[j]
		}
		mean := s / n
		for _, r := range x {
			ss += (r[j] - mean) * (r[j] - mean)
		}
		m.Mean[j] = mean
		m.Scale[j] = math.Sqrt(ss / n)
		if m.Scale[j] < 1e-9 {
			m.Scale[j] = 1
		}
	}
	z := make([][]float64, len(x))
	for i, r := range x {
		z[i] = make([]float64, d)
		for j, v := range r {
			z[i][j] = (v - m.Mean[j]) / m.Scale[j]
		}
	}
	w, bias, err := FitLogistic(z, gold, nil, opts.L2, opts.Iterations)
	if err != nil {
		return RiskModel{}, fmt.Errorf("risk model: %w", err)
	}
	m.Bias = bias
	copy(m.Weights, w)
	probs := make([]float64, len(x))
	for i, r := range x {
		probs[i], _ = m.Probability(r)
	}
	m.Threshold, _ = BestF1Threshold(probs, gold)
	return m, nil
}

// FitLogistic fits a ridge-penalised logistic regression of y on the rows
// of x by Newton's method: it minimises the weighted mean log loss plus
// l2/2 * |w|^2 (the bias is not penalised), for at most iterations steps.
// weights nil weighs every row the same.
func FitLogistic(x [][]float64, y []bool, weights []float64, l2 float64, iterations int) ([]float64, float64, error) {
	if len(x) == 0 || len(x) != len(y) || weights != nil && len(weights) != len(x) {
		return nil, 0, errors.New("logistic fit: rows, labels and weights differ in number")
	}
	d := len(x[0])
	total := 0.0
	for i := range x {
		total += weightOf(weights, i)
	}
	w := make([]float64, d+1) // bias first
	row := make([]float64, d+1)
	for range iterations {
		g := make([]float64, d+1)
		h := make([][]float64, d+1)
		for k := range h {
			h[k] = make([]float64, d+1)
		}
		for i, r := range x {
			row[0] = 1
			copy(row[1:], r)
			p := sigmoid(dot(w, row))
			e := p
			if y[i] {
				e--
			}
			wi := weightOf(weights, i) / total
			s := math.Max(p*(1-p), 1e-9)
			for a, va := range row {
				g[a] += wi * e * va
				for b := a; b < len(row); b++ {
					h[a][b] += wi * s * va * row[b]
				}
			}
		}
		for a := 1; a <= d; a++ {
			g[a] += l2 * w[a]
			h[a][a] += l2
		}
		h[0][0] += 1e-9
		for a := range h {
			for b := 0; b < a; b++ {
				h[a][b] = h[b][a]
			}
		}
		step, err := solve(h, g)
		if err != nil {
			return nil, 0, err
		}
		size := 0.0
		for k := range w {
			w[k] -= step[k]
			size = math.Max(size, math.Abs(step[k]))
		}
		if size < 1e-8 {
			break
		}
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, errors.New("logistic fit diverged")
		}
	}
	return w[1:], w[0], nil
}

func weightOf(weights []float64, i int) float64 {
	if weights == nil {
		return 1
	}
	return weights[i]
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// solve returns x with a x = b by Gaussian elimination with partial
// pivoting; a and b are overwritten.
func solve(a [][]float64, b []float64) ([]float64, error) {
	n := len(b)
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return nil, errors.New("singular system while fitting")
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		for r := c + 1; r < n; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < n; k++ {
				a[r][k] -= f * a[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, nil
}

// BestF1Threshold returns the score threshold (a midpoint between
// consecutive distinct scores) that maximises F1 when scores at or above
// it are predicted positive, and that F1. Ties keep the higher threshold.
func BestF1Threshold(scores []float64, gold []bool) (float64, float64) {
	idx := make([]int, len(scores))
	pos := 0
	for i := range idx {
		idx[i] = i
		if gold[i] {
			pos++
		}
	}
	sortByScoreDesc(idx, scores)
	best, bestF1 := 0.5, -1.0
	tp, fp := 0, 0
	for i := 0; i < len(idx); {
		v := scores[idx[i]]
		for i < len(idx) && scores[idx[i]] == v {
			if gold[idx[i]] {
				tp++
			} else {
				fp++
			}
			i++
		}
		t := v / 2
		if i < len(idx) {
			t = (v + scores[idx[i]]) / 2
		}
		var f float64
		if tp > 0 {
			p, r := float64(tp)/float64(tp+fp), float64(tp)/float64(pos)
			f = 2 * p * r / (p + r)
		}
		if f > bestF1 {
			best, bestF1 = t, f
		}
	}
	return best, bestF1
}

func sortByScoreDesc(idx []int, s []float64) {
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
}
