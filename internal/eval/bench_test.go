package eval

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"

	"github.com/docmind/docmind/internal/testenv"
)

// Stage doubles that cost nothing, so a benchmark measures the pipeline
// itself: node chains, state copies, events and the retry edge.
type (
	instantDecomposer struct{}
	fixedRetriever    []schema.Section
	instantGenerator  struct{}
	// flipJudge rejects the first pass of a question when reject is set.
	flipJudge struct{ reject bool }
)

func (instantDecomposer) Decompose(_ context.Context, q string) (*schema.Decomposition, error) {
	return &schema.Decomposition{Intent: "amount", SubQueries: []string{q}, KeyTerms: []string{"late", "fee"}}, nil
}

func (r fixedRetriever) Retrieve(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	return r, nil
}

func (instantGenerator) Generate(_ context.Context, req schema.GenerateRequest) (string, error) {
	if req.OnToken != nil {
		req.OnToken("A late fee of 1.5% per month applies (Late Payment Penalties, page 8).")
	}
	return "A late fee of 1.5% per month applies (Late Payment Penalties, page 8).", nil
}

func (j flipJudge) Judge(_ context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	bad := j.reject && req.Sections[0].Chunk == 0
	return &schema.Verdict{IsHallucinated: bad, ShouldReturn: !bad, ConfidenceScore: 0.9, Claims: []schema.ClaimCheck{{Claim: req.Response, Supported: !bad, Score: 0.9}}}, nil
}

// alternatingRetriever hands out different sections on a retry.
type alternatingRetriever []schema.Section

func (r alternatingRetriever) Retrieve(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	if req.Attempt == 0 {
		return r[:3], nil
	}
	return r[3:], nil
}

func benchSections() []schema.Section {
	var out []schema.Section
	for i := range 6 {
		out = append(out, schema.Section{ID: "s" + itoa(i), Title: "Late Payment Penalties", Source: "msa.md", Page: 8, Chunk: i,
			Content: "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount.", RelevanceScore: 0.8})
	}
	return out
}

func benchRunner(b *testing.B, r schema.Retriever, j schema.Judge, observer schema.Observer) *chains.Runner {
	b.Helper()
	run, err := chains.NewRunner(chains.Config{
		Decomposer: instantDecomposer{}, Retriever: r, Generator: instantGenerator{}, Judge: j,
		MaxRetries: chains.DefaultMaxRetries, Observer: observer,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	return run
}

// BenchmarkPipelineOverhead is the time and allocations the pipeline adds
// per question with stages that cost nothing (retrieval excluded: the
// retriever hands back fixed sections).
func BenchmarkPipelineOverhead(b *testing.B) {
	secs := benchSections()
	events := schema.ObserverFunc(func(context.Context, schema.Event) {})
	for _, bc := range []struct {
		name string
		r    schema.Retriever
		j    schema.Judge
		obs  schema.Observer
		want int // nodes
	}{
		{"one-pass", fixedRetriever(secs[:3]), flipJudge{}, nil, 5},
		{"one-pass+observer", fixedRetriever(secs[:3]), flipJudge{}, events, 5},
		{"retry", alternatingRetriever(secs), flipJudge{reject: true}, nil, 8},
	} {
		b.Run(bc.name, func(b *testing.B) {
			run := benchRunner(b, bc.r, bc.j, bc.obs)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				st, err := run.Run(ctx, schema.NewState("What are the late payment penalties?"))
				if err != nil || len(st.NodeHistory) != bc.want {
					b.Fatalf("run: %v, %v", err, st.Path())
				}
			}
		})
	}
}

// BenchmarkPipelineSmallIndex is the same with a real BM25 index over the
// sample contract, so retrieval is included.
func BenchmarkPipelineSmallIndex(b *testing.B) {
	secs, _, err := loader.New().LoadDir(context.Background(), filepath.Join(testenv.RepoRoot(b), "examples", "contract"))
	if err != nil {
		b.Fatal(err)
	}
	run := benchRunner(b, retriever.NewBM25(secs), flipJudge{}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run.Run(ctx, schema.NewState("What are the late payment penalties?")); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskContractOffline is end-to-end ask over the sample contract
// with the offline engine (rule-based decomposer, BM25, extractive
// generator, deterministic judge), on a one-pass question and on one that
// ends in the fallback after two judged passes.
func BenchmarkAskContractOffline(b *testing.B) {
	ask := offlineAsk(b, filepath.Join(testenv.RepoRoot(b), "examples", "contract"))
	for _, q := range []string{"What are the late payment penalties?", "What is the warranty period?"} {
		b.Run(q, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ask(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
