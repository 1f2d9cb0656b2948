package eval

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"

	"github.com/docmind/docmind/internal/testenv"
)

// offlineAsk builds the offline pipeline (rule-based decomposer, BM25,
// extractive generator, deterministic judge, default retries) over dir.
func offlineAsk(tb testing.TB, dir string) AskFunc {
	tb.Helper()
	run := offlineRunner(tb, dir)
	return func(ctx context.Context, q string) (*schema.State, error) { return run.Run(ctx, schema.NewState(q)) }
}

// offlineRunner is offlineAsk's run loop.
func offlineRunner(tb testing.TB, dir string) *chains.Runner {
	tb.Helper()
	secs, _, err := loader.New().LoadDir(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	run, err := chains.NewRunner(chains.Config{
		Decomposer: decomposer.NewOffline(), Retriever: retriever.NewBM25(secs),
		Generator: generator.NewOffline(), Judge: judge.NewOffline(judge.WithCorpus(secs)),
		MaxRetries: chains.DefaultMaxRetries, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return run
}

// indexAsk is offlineAsk answering from a persistent index of dir (a real
// SQLite file), as `docmind ingest` then `docmind ask` do: the index's
// retriever, and the judge reading the corpus statistics from the index.
func indexAsk(tb testing.TB, dir string) AskFunc {
	tb.Helper()
	ctx := context.Background()
	secs, _, err := loader.New().LoadDir(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	ix, err := index.Open(ctx, filepath.Join(tb.TempDir(), index.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ix.Close() })
	bySource := map[string][]schema.Section{}
	for _, s := range secs {
		bySource[s.Source] = append(bySource[s.Source], s)
	}
	for src, ss := range bySource {
		if err := ix.PutDocument(ctx, index.Document{Path: src, Hash: src}, ss); err != nil {
			tb.Fatal(err)
		}
	}
	run, err := chains.NewRunner(chains.Config{
		Decomposer: decomposer.NewOffline(), Retriever: ix.Retriever(),
		Generator: generator.NewOffline(), Judge: judge.NewOffline(judge.WithCorpusStats(ix.Corpus())),
		MaxRetries: chains.DefaultMaxRetries, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context, q string) (*schema.State, error) { return run.Run(ctx, schema.NewState(q)) }
}

// TestContractQAOffline runs the shipped question sets through the offline
// pipeline over examples/contract and holds the measured figures:
// contract.jsonl (the development set) and contract_heldout.jsonl (written
// before the lexicon was wired in, to check that it generalises).
//
// Both ways of answering are held to the same floors: from the loaded
// folder (ask --docs) and from a persistent index (ingest, then ask).
func TestContractQAOffline(t *testing.T) {
	if raceEnabled {
		// about 200 pipeline runs: minutes under the race detector. The
		// floors are checked without it by go test ./... and by .ci/run's
		// long-test step; the pipeline's concurrency by other race tests.
		t.Skip("the contract QA floors are checked without the race detector (.ci/run runs this test in its long-test step)")
	}
	dir := filepath.Join(testenv.RepoRoot(t), "examples", "contract")
	for name, ask := range map[string]AskFunc{"docs": offlineAsk(t, dir), "index": indexAsk(t, dir)} {
		t.Run(name, func(t *testing.T) { testContractQA(t, ask) })
	}
}

func testContractQA(t *testing.T, ask AskFunc) {
	// Floors just under the figures measured on 2026-11-24 with the
	// calibration fitted by scripts/calibrate.sh and its default threshold
	// (0.55): in memory (WithSections), development 0.881 / 0.812 / 1.000,
	// held-out 0.750 / 0.778 / 0.875; from the index (what ask --docs now
	// uses), development 0.786 / 0.619 / 1.000, held-out 0.667 / 0.636 /
	// 0.875. They are LOWER than the 2026-11-22 figures (0.929 / 1.000 /
	// 0.923): the threshold, chosen on three development sets with a wrong
	// answer costing twice a refusal, refuses paraphrased contract questions
	// whose focus terms the passage states in other words; see
	// BENCHMARKS.md. On 2026-11-28 the one decision model fitted on the
	// dev parts of five domains (docs/decision.md) gave the held-out set
	// 0.667 / 0.667 / 1.000 (8 of 12 answered, none wrong). The engine
	// must not get worse than this.
	tests := []struct {
		file                        string
		correct, abstainP, abstainR float64
	}{
		{"contract.jsonl", 0.76, 0.60, 0.95},
		{"contract_heldout.jsonl", 0.64, 0.60, 0.85},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rows, err := LoadQA(filepath.Join("testdata", "qa", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := RunQA(context.Background(), ask, rows, QAOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("correct %.3f (%d/%d) pages %.3f abstain P %.3f R %.3f retries %.2f p50 %.2fms p95 %.2fms",
				rep.AnsweredCorrectly, rep.Correct, rep.Answerable, rep.CitationPageAccuracy, rep.AbstentionPrecision, rep.AbstentionRecall, rep.MeanRetries, rep.LatencyP50Ms, rep.LatencyP95Ms)
			for _, r := range rep.Results {
				if why := r.Failure(); why != "" {
					t.Logf("%s %q: %s\n    answer: %.300s", r.ID, r.Question, why, r.Answer)
				}
			}
			if rep.AnsweredCorrectly < tt.correct || rep.AbstentionPrecision < tt.abstainP || rep.AbstentionRecall < tt.abstainR {
				t.Errorf("offline QA regressed: correct %.3f, abstention precision %.3f, recall %.3f (floors %.2f / %.2f / %.2f)",
					rep.AnsweredCorrectly, rep.AbstentionPrecision, rep.AbstentionRecall, tt.correct, tt.abstainP, tt.abstainR)
			}
			if rep.Errors != 0 || rep.LLMCallsPerQ != 0 {
				t.Errorf("offline run: %d errors, %.1f LLM calls per question", rep.Errors, rep.LLMCallsPerQ)
			}
		})
	}
}
