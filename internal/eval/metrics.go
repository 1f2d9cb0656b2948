package eval

import (
	"math"
	"slices"
	"sort"
)

// Confusion counts binary decisions. The positive class is the one being
// detected: "hallucinated" for the judge benchmark, "unanswerable" (the
// pipeline abstained) for abstention.
type Confusion struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	TN int `json:"tn"`
}

// Add records one decision: predicted is the system's call, gold the truth.
func (c *Confusion) Add(predicted, gold bool) {
	switch {
	case predicted && gold:
		c.TP++
	case predicted && !gold:
		c.FP++
	case !predicted && gold:
		c.FN++
	default:
		c.TN++
	}
}

// Merge adds the counts of o to c.
func (c *Confusion) Merge(o Confusion) {
	c.TP += o.TP
	c.FP += o.FP
	c.FN += o.FN
	c.TN += o.TN
}

// Total returns the number of decisions recorded.
func (c Confusion) Total() int { return c.TP + c.FP + c.FN + c.TN }

// Precision returns TP/(TP+FP), or 0 when nothing was predicted positive.
func (c Confusion) Precision() float64 { return ratio(c.TP, c.TP+c.FP) }

// Recall returns TP/(TP+FN), or 0 when there are no positives.
func (c Confusion) Recall() float64 { return ratio(c.TP, c.TP+c.FN) }

// F1 returns the harmonic mean of precision and recall (0 when both are 0).
func (c Confusion) F1() float64 { return f1(c.Precision(), c.Recall()) }

// rocArea returns how well a value ranks the right cases above the wrong
// ones: the share of (right, wrong) pairs in which the right case's value
// is higher, a tie counting half (the ROC area; 0.5 tells nothing, 1
// separates them), rounded to three decimals. It is 0 when either side is
// empty.
func rocArea(right, wrong []float64) float64 {
	if len(right) == 0 || len(wrong) == 0 {
		return 0
	}
	w := slices.Sorted(slices.Values(wrong))
	var sum float64
	for _, a := range right {
		below, _ := slices.BinarySearch(w, a)                             // wrong values under a
		upto, _ := slices.BinarySearch(w, math.Nextafter(a, math.Inf(1))) // and equal to it
		sum += float64(below) + float64(upto-below)/2
	}
	return round3(sum / float64(len(right)*len(wrong)))
}

func ratio(num, den int) float64 {
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// Span is a half-open range [Start, End) of characters (Unicode code
// points, as RAGTruth counts them) in a response.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// SpanCounts counts characters for span-level scoring: how many were
// predicted, how many are gold, and how many are both. Counts from several
// responses add up (micro-averaging over characters).
type SpanCounts struct {
	Predicted int `json:"predicted_chars"`
	Gold      int `json:"gold_chars"`
	Overlap   int `json:"overlap_chars"`
}

// CountSpans scores predicted against gold spans of one response by
// character overlap. Overlapping spans within either list are merged first,
// so no character counts twice.
func CountSpans(predicted, gold []Span) SpanCounts {
	p, g := mergeSpans(predicted), mergeSpans(gold)
	c := SpanCounts{Predicted: spanLen(p), Gold: spanLen(g)}
	i, j := 0, 0
	for i < len(p) && j < len(g) {
		lo, hi := max(p[i].Start, g[j].Start), min(p[i].End, g[j].End)
		if hi > lo {
			c.Overlap += hi - lo
		}
		if p[i].End < g[j].End {
			i++
		} else {
			j++
		}
	}
	return c
}

// Add returns the sum of c and o.
func (c SpanCounts) Add(o SpanCounts) SpanCounts {
	return SpanCounts{Predicted: c.Predicted + o.Predicted, Gold: c.Gold + o.Gold, Overlap: c.Overlap + o.Overlap}
}

// Precision returns the share of predicted characters that are gold.
func (c SpanCounts) Precision() float64 { return ratio(c.Overlap, c.Predicted) }

// Recall returns the share of gold characters that were predicted.
func (c SpanCounts) Recall() float64 { return ratio(c.Overlap, c.Gold) }

// F1 returns the harmonic mean of span precision and recall.
func (c SpanCounts) F1() float64 { return f1(c.Precision(), c.Recall()) }

// mergeSpans returns the non-empty spans sorted and with overlaps merged.
func mergeSpans(in []Span) []Span {
	s := make([]Span, 0, len(in))
	for _, sp := range in {
		if sp.End > sp.Start {
			s = append(s, sp)
		}
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Start < s[j].Start })
	out := s[:0]
	for _, sp := range s {
		if n := len(out); n > 0 && sp.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}

func spanLen(s []Span) int {
	n := 0
	for _, sp := range s {
		n += sp.End - sp.Start
	}
	return n
}

// percentile returns the p-th percentile (0..100) of sorted values by the
// nearest-rank method, or 0 for no values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	rank = min(max(rank, 0), len(sorted)-1)
	return sorted[rank]
}

// round3 rounds f to three decimals for reports.
func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }
