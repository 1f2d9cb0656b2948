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
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
)

// offlineAsk builds the offline pipeline (rule-based decomposer, BM25,
// extractive generator, deterministic judge, default retries) over dir.
func offlineAsk(tb testing.TB, dir string) AskFunc {
	tb.Helper()
	secs, _, err := loader.New().LoadDir(context.Background(), dir)
	if err != nil {
		tb.Fatal(err)
	}
	run, err := chains.NewRunner(chains.Config{
		Decomposer: decomposer.NewRules(), Retriever: retriever.NewBM25(secs),
		Generator: generator.NewExtractive(), Judge: judge.NewDeterministic(judge.WithCorpus(secs)),
		MaxRetries: chains.DefaultMaxRetries, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return func(ctx context.Context, q string) (*schema.State, error) { return run.Run(ctx, schema.NewState(q)) }
}

// TestContractQAOffline runs the shipped question set through the offline
// pipeline over examples/contract and holds the measured figures.
func TestContractQAOffline(t *testing.T) {
	ask := offlineAsk(t, filepath.Join(repoRoot(t), "examples", "contract"))
	rows, err := LoadQA(filepath.Join("testdata", "qa", "contract.jsonl"))
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
		if why := failure(r); why != "" {
			t.Logf("%s %q: %s\n    answer: %.300s", r.ID, r.Question, why, r.Answer)
		}
	}
	// Floors just under the figures measured on 2026-11-23 (0.905, 0.818,
	// 0.692): the offline engine must not get worse. Abstention precision
	// and recall are below the 0.90 targets; see BENCH_NOTES_eval.md.
	if rep.AnsweredCorrectly < 0.88 || rep.AbstentionPrecision < 0.80 || rep.AbstentionRecall < 0.68 {
		t.Errorf("offline QA regressed: correct %.3f, abstention precision %.3f, recall %.3f", rep.AnsweredCorrectly, rep.AbstentionPrecision, rep.AbstentionRecall)
	}
	if rep.Errors != 0 || rep.LLMCallsPerQ != 0 {
		t.Errorf("offline run: %d errors, %.1f LLM calls per question", rep.Errors, rep.LLMCallsPerQ)
	}
}
