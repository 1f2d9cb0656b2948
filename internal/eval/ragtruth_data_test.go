package eval

import (
	"context"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

// TestRAGTruthOfflineJudge runs the offline judge's cross-validated
// benchmark on the RAGTruth subsets (QA always when the data is present;
// summary and data-to-text unless -short) and holds the measured F1.
func TestRAGTruthOfflineJudge(t *testing.T) {
	testenv.Long(t, "judges the RAGTruth QA, summary and data-to-text sets")
	for _, tc := range []struct {
		file  string
		minF1 float64 // just under the measured cross-validated F1
		long  bool
		// beatYes: must beat always answering "hallucinated".
		beatYes bool
	}{
		{"ragtruth_qa.jsonl", 0.60, false, true},
		{"ragtruth_summary.jsonl", 0.45, true, true},
		{"ragtruth_data2txt.jsonl", 0.78, true, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if tc.long && (testing.Short() || raceEnabled) {
				t.Skip("long: run without -short and without -race (ten times slower under the race detector)")
			}
			srcs, err := LoadRAGTruth(testenv.SharedPath(t, "data", "ragtruth", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			scorer, variants := OfflineJudgeCandidates(true)
			cands, err := RunDeterministicSweep(context.Background(), scorer, variants, srcs, JudgeRunOptions{Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			res, err := CrossValidate(cands, 5, 1)
			if err != nil {
				t.Fatal(err)
			}
			all := Overall(res.Scores)
			t.Logf("%s: cv F1 %.3f (P %.3f R %.3f) span F1 %.3f always-yes %.3f", tc.file, all.F1, all.Precision, all.Recall, all.SpanF1, all.AlwaysYesF1)
			for _, c := range res.Choices {
				t.Logf("  fold %d: %s threshold %.3f train %.3f held-out %.3f", c.Fold, c.Candidate, c.Threshold, c.TrainF1, c.TestF1)
			}
			if all.F1 < tc.minF1 || (tc.beatYes && all.F1 <= all.AlwaysYesF1) {
				t.Errorf("cross-validated F1 %.3f under %.2f (always-yes %.3f)", all.F1, tc.minF1, all.AlwaysYesF1)
			}
		})
	}
}
