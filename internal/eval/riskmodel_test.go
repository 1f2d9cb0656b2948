package eval

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/judge/risk"
)

// TestShippedRiskModel checks that risk.RAGTruthQA is what training on the
// whole RAGTruth QA subset gives (TrainRAGTruthQARiskModel), so a change to
// the features or the training shows up here; `go generate ./judge/risk/`
// rewrites the model.
func TestShippedRiskModel(t *testing.T) {
	testenv.Long(t, "trains the risk model on RAGTruth QA")
	if testing.Short() {
		t.Skip("long: run without -short")
	}
	m, _, err := TrainRAGTruthQARiskModel(context.Background(), testenv.SharedPath(t, "data", "ragtruth", "ragtruth_qa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := risk.RAGTruthQA()
	close := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if len(got.Weights) != len(m.Weights) || !close(got.Bias, m.Bias) || !close(got.Threshold, m.Threshold) {
		t.Fatalf("shipped model differs from training (bias %v vs %v, threshold %v vs %v); regenerate with go generate ./judge/risk/", got.Bias, m.Bias, got.Threshold, m.Threshold)
	}
	for i := range m.Weights {
		if !close(got.Weights[i], m.Weights[i]) || !close(got.Mean[i], m.Mean[i]) || !close(got.Scale[i], m.Scale[i]) {
			t.Fatalf("feature %s differs from training; regenerate with go generate ./judge/risk/", m.Features[i])
		}
	}
}

func TestRiskModelSourceRoundTrips(t *testing.T) {
	src, err := RiskModelSource(risk.RAGTruthQA(), 0.0001)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DO NOT EDIT", "package risk", "func RAGTruthQA() Model", "L2 0.0001"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated source lacks %q:\n%s", want, src)
		}
	}
}
