package eval

import (
	"math"
	"testing"
)

func TestTrainRisk(t *testing.T) {
	// y depends on x0 (positive) and not on x1 (noise-like, alternating).
	var x [][]float64
	var gold []bool
	for i := range 200 {
		v := float64(i%20) / 20
		x = append(x, []float64{v, float64(i % 3)})
		gold = append(gold, v > 0.6 || (i%7 == 0 && v > 0.4))
	}
	m, err := TrainRisk(x, gold, RiskTrainOptions{L2: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if m.Weights[0] <= 1 || math.Abs(m.Weights[1]) > 0.5 {
		t.Errorf("weights %v: want a strong positive weight on x0 and a small one on x1", m.Weights)
	}
	again, _ := TrainRisk(x, gold, RiskTrainOptions{L2: 0.01})
	if again.Bias != m.Bias || again.Weights[0] != m.Weights[0] || again.Threshold != m.Threshold {
		t.Error("training is not deterministic")
	}
	lo, _ := m.Probability([]float64{0.1, 1})
	hi, _ := m.Probability([]float64{0.9, 1})
	if lo >= m.Threshold || hi < m.Threshold {
		t.Errorf("probabilities %v / %v around threshold %v", lo, hi, m.Threshold)
	}
	if _, err := m.Probability([]float64{1}); err == nil {
		t.Error("a vector of the wrong length must fail")
	}
	if _, err := TrainRisk(x, make([]bool, len(x)), RiskTrainOptions{}); err == nil {
		t.Error("training on one class must fail")
	}
	if _, err := TrainRisk(nil, nil, RiskTrainOptions{}); err == nil {
		t.Error("training on nothing must fail")
	}
}

func TestBestF1Threshold(t *testing.T) {
	th, f := BestF1Threshold([]float64{0.9, 0.8, 0.3, 0.1}, []bool{true, true, false, false})
	if f != 1 || th <= 0.3 || th > 0.8 {
		t.Errorf("threshold %v F1 %v", th, f)
	}
}
