package eval

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestConfusion(t *testing.T) {
	var c Confusion
	for _, d := range []struct{ pred, gold bool }{{true, true}, {true, false}, {false, true}, {true, true}, {false, false}} {
		c.Add(d.pred, d.gold)
	}
	if c != (Confusion{TP: 2, FP: 1, FN: 1, TN: 1}) {
		t.Fatalf("counts = %+v", c)
	}
	// P = 2/3, R = 2/3, F1 = 2/3.
	if !near(c.Precision(), 2.0/3) || !near(c.Recall(), 2.0/3) || !near(c.F1(), 2.0/3) {
		t.Errorf("P/R/F1 = %v %v %v, want 2/3 each", c.Precision(), c.Recall(), c.F1())
	}
	var empty Confusion
	if empty.Precision() != 0 || empty.Recall() != 0 || empty.F1() != 0 {
		t.Error("empty confusion must score 0, not NaN")
	}
	// Always-yes on 1 positive of 4: P = 1/4, R = 1, F1 = 0.4.
	yes := Confusion{TP: 1, FP: 3}
	if !near(yes.F1(), 0.4) {
		t.Errorf("always-yes F1 = %v, want 0.4", yes.F1())
	}
}

func TestCountSpans(t *testing.T) {
	tests := []struct {
		name        string
		pred, gold  []Span
		want        SpanCounts
		p, r, f1val float64
	}{
		{
			name: "overlapping predictions merge",
			pred: []Span{{0, 10}, {5, 15}}, gold: []Span{{10, 20}},
			// pred [0,15) = 15 chars, gold 10, overlap [10,15) = 5.
			want: SpanCounts{Predicted: 15, Gold: 10, Overlap: 5},
			p:    1.0 / 3, r: 0.5, f1val: 0.4,
		},
		{
			name: "two gold spans, one prediction covering both",
			pred: []Span{{0, 30}}, gold: []Span{{2, 4}, {20, 28}},
			want: SpanCounts{Predicted: 30, Gold: 10, Overlap: 10},
			p:    1.0 / 3, r: 1, f1val: 0.5,
		},
		{
			name: "disjoint",
			pred: []Span{{0, 3}}, gold: []Span{{3, 6}},
			want: SpanCounts{Predicted: 3, Gold: 3},
		},
		{
			name: "no prediction",
			gold: []Span{{1, 5}},
			want: SpanCounts{Gold: 4},
		},
		{
			name: "empty and reversed spans ignored",
			pred: []Span{{4, 4}, {9, 2}, {0, 2}}, gold: []Span{{1, 2}},
			want: SpanCounts{Predicted: 2, Gold: 1, Overlap: 1},
			p:    0.5, r: 1, f1val: 2.0 / 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CountSpans(tt.pred, tt.gold)
			if got != tt.want {
				t.Fatalf("CountSpans = %+v, want %+v", got, tt.want)
			}
			if !near(got.Precision(), tt.p) || !near(got.Recall(), tt.r) || !near(got.F1(), tt.f1val) {
				t.Errorf("P/R/F1 = %v %v %v, want %v %v %v", got.Precision(), got.Recall(), got.F1(), tt.p, tt.r, tt.f1val)
			}
		})
	}
	// Micro-averaging: counts add before dividing.
	sum := CountSpans([]Span{{0, 10}}, []Span{{0, 10}}).Add(CountSpans([]Span{{0, 30}}, []Span{{40, 50}}))
	if sum != (SpanCounts{Predicted: 40, Gold: 20, Overlap: 10}) || !near(sum.F1(), 2*0.25*0.5/0.75) {
		t.Errorf("summed counts %+v F1 %v", sum, sum.F1())
	}
}

func TestPercentile(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tt := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {90, 9}, {10, 1}, {0, 1}, {100, 10}} {
		if got := percentile(v, tt.p); got != tt.want {
			t.Errorf("p%v = %v, want %v", tt.p, got, tt.want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing must be 0")
	}
}

// rocArea is the share of right-wrong pairs the right case ranks above,
// ties counting half; empty sides give 0.
func TestRocArea(t *testing.T) {
	for _, c := range []struct {
		right, wrong []float64
		want         float64
	}{
		{[]float64{0.9, 0.8}, []float64{0.1, 0.2}, 1},
		{[]float64{0.1}, []float64{0.9}, 0},
		// 0.7 beats 0.5 and ties 0.7; 0.3 beats neither: 1.5 of 4
		{[]float64{0.7, 0.3}, []float64{0.5, 0.7}, 0.375},
		{nil, []float64{0.5}, 0},
		{[]float64{0.5}, nil, 0},
	} {
		if got := rocArea(c.right, c.wrong); got != c.want {
			t.Errorf("rocArea(%v, %v) = %v, want %v", c.right, c.wrong, got, c.want)
		}
	}
}
