package risk

import (
	"context"
	"math"
	"testing"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

func TestTrain(t *testing.T) {
	// y depends on x0 (positive) and not on x1 (noise-like, alternating).
	var x [][]float64
	var gold []bool
	for i := range 200 {
		v := float64(i%20) / 20
		x = append(x, []float64{v, float64(i % 3)})
		gold = append(gold, v > 0.6 || (i%7 == 0 && v > 0.4))
	}
	m, err := Train(x, gold, TrainOptions{L2: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if m.Weights[0] <= 1 || math.Abs(m.Weights[1]) > 0.5 {
		t.Errorf("weights %v: want a strong positive weight on x0 and a small one on x1", m.Weights)
	}
	again, _ := Train(x, gold, TrainOptions{L2: 0.01})
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
	if _, err := Train(x, make([]bool, len(x)), TrainOptions{}); err == nil {
		t.Error("training on one class must fail")
	}
	if _, err := Train(nil, nil, TrainOptions{}); err == nil {
		t.Error("training on nothing must fail")
	}
}

func TestBestF1Threshold(t *testing.T) {
	th, f := BestF1Threshold([]float64{0.9, 0.8, 0.3, 0.1}, []bool{true, true, false, false})
	if f != 1 || th <= 0.3 || th > 0.8 {
		t.Errorf("threshold %v F1 %v", th, f)
	}
}

func TestFeaturesAndShippedModel(t *testing.T) {
	secs := []schema.Section{{Title: "Passage 1", Content: "Grill the steak for five minutes on each side."}, {Title: "Passage 2", Content: "Rest the meat before serving."}}
	ctx := context.Background()
	faithful, err := judge.Score(ctx, schema.JudgeRequest{Query: "how do I grill a steak", Response: "Grill the steak for five minutes on each side (Passage 1).", Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	invented, err := judge.Score(ctx, schema.JudgeRequest{Query: "how do I grill a steak", Response: "Grill the steak for five minutes on each side (Passage 2). Marinate it overnight in Worcestershire sauce with garlic, rosemary and 3 tablespoons of olive oil, as Gordon Ramsay recommends.", Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	ff, fi := Features(faithful), Features(invented)
	if len(ff) != len(Names()) {
		t.Fatalf("%d features, %d names", len(ff), len(Names()))
	}
	idx := map[string]int{}
	for i, n := range Names() {
		idx[n] = i
	}
	for _, name := range []string{"novel_terms", "novel_numbers", "novel_names", "miscited"} {
		if fi[idx[name]] <= ff[idx[name]] {
			t.Errorf("%s: invented %v, faithful %v", name, fi[idx[name]], ff[idx[name]])
		}
	}
	m := RAGTruthQA()
	pf, err1 := m.Probability(ff)
	pi, err2 := m.Probability(fi)
	if err1 != nil || err2 != nil || pi <= pf {
		t.Errorf("shipped model: faithful %v, invented %v (%v %v)", pf, pi, err1, err2)
	}
	j := judge.NewOffline(judge.WithThresholds(judge.Thresholds{Window: 2}), judge.WithRejectAbstentions(false), judge.WithRisk(m))
	vf, _ := j.Judge(ctx, schema.JudgeRequest{Query: "how do I grill a steak", Response: "Grill the steak for five minutes on each side (Passage 1).", Sections: secs})
	vi, _ := j.Judge(ctx, schema.JudgeRequest{Query: "how do I grill a steak", Response: invented.Claims[0].Claim.Text + " Marinate it overnight in Worcestershire sauce with garlic, rosemary and 3 tablespoons of olive oil, as Gordon Ramsay recommends.", Sections: secs})
	if vf.IsHallucinated || !vi.IsHallucinated {
		t.Errorf("WithRisk: faithful %v (%s), invented %v (%s)", vf.IsHallucinated, vf.Reasoning, vi.IsHallucinated, vi.Reasoning)
	}
}
