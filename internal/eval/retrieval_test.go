package eval

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/internal/testenv"
)

func TestNDCGAndRecall(t *testing.T) {
	rels := map[string]int{"a": 2, "b": 1, "c": 1}
	tests := []struct {
		name       string
		ranked     []string
		ndcg, rec3 float64
	}{
		{"ideal", []string{"a", "b", "c"}, 1, 1},
		{"none", []string{"x", "y"}, 0, 0},
		// DCG = 2/log2(3) + 1/log2(4) + 1/log2(5); IDCG = 2 + 1/log2(3) + 1/log2(4).
		{"shifted", []string{"x", "a", "b", "c"}, (2/math.Log2(3) + 0.5 + 1/math.Log2(5)) / (2 + 1/math.Log2(3) + 0.5), 2.0 / 3},
		{"low grade first", []string{"b", "a"}, (1 + 2/math.Log2(3)) / (2 + 1/math.Log2(3) + 0.5), 2.0 / 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NDCG(tc.ranked, rels, 10); math.Abs(got-tc.ndcg) > 1e-12 {
				t.Errorf("NDCG = %v, want %v", got, tc.ndcg)
			}
			if got := Recall(tc.ranked, rels, 3); math.Abs(got-tc.rec3) > 1e-12 {
				t.Errorf("Recall@3 = %v, want %v", got, tc.rec3)
			}
		})
	}
	if got := NDCG([]string{"x", "a"}, rels, 1); got != 0 {
		t.Errorf("NDCG@1 with the hit at rank 2 = %v, want 0", got)
	}
}

// TestRetrievalTinyBEIR checks the whole path on a hand-made data set
// whose BM25 ranking (k1=0.9, b=0.4) was worked out by hand:
// q1 "apple banana" ranks d1, d2, d4 (judged d2=2, d4=1, d3=1);
// q2 "cherry grape" ranks d4, d3 (judged d3=1); q3 has no judgements.
func TestRetrievalTinyBEIR(t *testing.T) {
	rep, err := Retrieval(context.Background(), filepath.Join("testdata", "tinybeir"), RetrievalOptions{K1: 0.9, B: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	q1 := (2/math.Log2(3) + 1/math.Log2(4)) / (2 + 1/math.Log2(3) + 1/math.Log2(4))
	q2 := 1 / math.Log2(3)
	if math.Abs(rep.NDCGAt10-(q1+q2)/2) > 1e-9 {
		t.Errorf("ndcg@10 = %v, want %v", rep.NDCGAt10, (q1+q2)/2)
	}
	if math.Abs(rep.RecallAt100-(2.0/3+1)/2) > 1e-9 {
		t.Errorf("recall@100 = %v, want %v", rep.RecallAt100, (2.0/3+1)/2)
	}
	if rep.Queries != 2 || rep.Corpus != 4 || rep.Split != "test" {
		t.Errorf("report %+v", rep)
	}
	js, _ := json.Marshal(rep)
	var m map[string]any
	json.Unmarshal(js, &m)
	for _, k := range []string{"ndcg_at_10", "recall_at_100", "queries"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %s: %s", k, js)
		}
	}
	tr, err := Retrieval(context.Background(), filepath.Join("testdata", "tinybeir"), RetrievalOptions{Split: "train"})
	if err != nil || tr.Queries != 1 {
		t.Fatalf("train split: %+v %v", tr, err)
	}
}

func TestRetrievalErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Retrieval(ctx, t.TempDir(), RetrievalOptions{}); err == nil {
		t.Error("missing corpus accepted")
	}
	if _, err := Retrieval(ctx, filepath.Join("testdata", "tinybeir"), RetrievalOptions{Split: "dev"}); err == nil {
		t.Error("missing split accepted")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "qrels"), 0o755)
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(`{"_id":"d1","text":"x"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(`{"_id":"q1","text":"x"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "qrels", "test.tsv"), []byte("q9\td1\t1\n"), 0o644)
	if _, err := Retrieval(ctx, dir, RetrievalOptions{}); err == nil {
		t.Error("qrels for an unknown query accepted")
	}
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte("{not json\n"), 0o644)
	if _, err := Retrieval(ctx, dir, RetrievalOptions{}); err == nil {
		t.Error("bad corpus line accepted")
	}
}

// TestSciFact runs the real benchmark: BEIR SciFact test split, BM25 with
// the default parameters, target nDCG@10 >= 0.679 (Anserini: 0.6789).
func TestSciFact(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("SciFact run skipped in -short and -race mode")
	}
	dir := testenv.SharedPath(t, "data", "scifact")
	if _, err := os.Stat(filepath.Join(dir, "corpus.jsonl")); err != nil {
		t.Skip("SciFact not present at ", dir)
	}
	rep, err := Retrieval(context.Background(), dir, RetrievalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SciFact test: ndcg@10 %.4f recall@100 %.4f over %d queries (index %.1fs, search %.1fs)", rep.NDCGAt10, rep.RecallAt100, rep.Queries, rep.IndexMS/1000, rep.SearchMS/1000)
	if rep.Queries != 300 {
		t.Errorf("queries = %d, want 300", rep.Queries)
	}
	if rep.NDCGAt10 < 0.679 {
		t.Errorf("ndcg@10 = %.4f, want >= 0.679", rep.NDCGAt10)
	}
	if rep.RecallAt100 < 0.9 {
		t.Errorf("recall@100 = %.4f, want >= 0.9", rep.RecallAt100)
	}
}

func TestTuneBM25Tiny(t *testing.T) {
	reps, err := TuneBM25(context.Background(), filepath.Join("testdata", "tinybeir"), "test", []float64{0.9, 1.2}, []float64{0.4, 0.75})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 4 {
		t.Fatalf("got %d reports, want 4", len(reps))
	}
	for i := 1; i < len(reps); i++ {
		if reps[i].NDCGAt10 > reps[i-1].NDCGAt10 {
			t.Fatalf("reports not sorted best first: %+v", reps)
		}
	}
	seen := map[[2]float64]bool{}
	for _, r := range reps {
		seen[[2]float64{r.K1, r.B}] = true
		if r.Queries != 2 || r.Split != "test" {
			t.Fatalf("report %+v", r)
		}
	}
	if len(seen) != 4 {
		t.Fatalf("grid not covered: %v", seen)
	}
}
