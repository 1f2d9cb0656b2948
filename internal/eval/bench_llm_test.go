package eval

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

// llmBenchSections are the few sections the LLM-mode benchmarks retrieve;
// the scripted answers cite the first as [S1].
func llmBenchSections() []schema.Section {
	return []schema.Section{
		{ID: "lp", Title: "Late Payment Penalties", Source: "msa.md", Page: 8, RelevanceScore: 0.9,
			Content: "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount."},
		{ID: "sc", Title: "Service Credits", Source: "msa.md", Page: 6, RelevanceScore: 0.5,
			Content: "Service credits of 5% of the monthly fee apply for each hour of downtime beyond the SLA."},
		{ID: "tn", Title: "Termination for Convenience", Source: "msa.md", Page: 11, RelevanceScore: 0.3,
			Content: "Either party may terminate this Agreement for convenience on ninety (90) days' written notice."},
	}
}

// scriptLLMBench scripts srv with instant replies for the three LLM stages.
// With rejectFirst, every other generated answer states 5% instead of
// 1.5%, so the judge's guards reject it and each question takes two
// passes.
func scriptLLMBench(b *testing.B, srv *openaitest.Server, rejectFirst bool) {
	b.Helper()
	dec, err := json.Marshal(map[string]any{
		"intent": "amount", "sub_queries": []string{"What are the late payment penalties?"}, "entities": []string{},
		"constraints": []string{}, "temporals": []string{}, "key_terms": []string{"late payment", "penalties"},
	})
	if err != nil {
		b.Fatal(err)
	}
	verdict, err := json.Marshal(map[string]any{
		"claims": []map[string]any{{"claim": "Client shall be assessed a late fee of 1.5% per month", "section_id": "S1",
			"quote": "late fee of 1.5% per month", "supported": true, "contradiction": "", "reason": ""}},
		"is_hallucinated": false, "confidence_score": 0.95, "reasoning": "the answer restates S1", "irrelevant_sections": []string{"S3"},
	})
	if err != nil {
		b.Fatal(err)
	}
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: string(dec)})
	srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: string(verdict)})
	var n atomic.Int64 // the test's own: Calls must not be read inside Respond
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		rate := "1.5%"
		if rejectFirst && n.Add(1)%2 == 1 {
			rate = "5%"
		}
		return openaitest.Reply{Content: "If payment is not received within thirty (30) days, Client shall be assessed a late fee of " + rate + " per month [S1]."}
	})
}

func benchModel(b *testing.B, srv *openaitest.Server) llms.Model {
	b.Helper()
	m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithAPIKey("bench"), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkPipelineOverheadLLM is the pipeline overhead in LLM mode: the
// real LLM stages (decomposer.NewLLM, generator.NewLLM, judge.NewLLM with
// its deterministic guards) through the go-openai model of llm/openai,
// against the scripted server of llm/openaitest replying instantly, over
// three fixed sections (retrieval excluded). The figures include the
// loopback HTTP round trips and the JSON encoding and decoding on both the
// client and the in-process server side (the server's allocations count
// too); http-calls/op is the number of round trips per question, and the
// round-trip sub-benchmark is the cost of one of them alone, so the split
// can be read off without subtracting anything here.
func BenchmarkPipelineOverheadLLM(b *testing.B) {
	ctx := context.Background()
	b.Run("round-trip", func(b *testing.B) {
		srv := openaitest.New(b)
		srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "A late fee of 1.5% per month applies [S1]."})
		m := benchModel(b, srv)
		msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "What are the late payment penalties?")}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.GenerateContent(ctx, msgs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(srv.Calls(""))/float64(b.N), "http-calls/op")
	})
	for _, bc := range []struct {
		name        string
		rejectFirst bool
		nodes       int
	}{
		{"one-pass", false, 5},
		{"retry", true, 8},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := openaitest.New(b)
			scriptLLMBench(b, srv, bc.rejectFirst)
			m := benchModel(b, srv)
			run, err := chains.NewRunner(chains.Config{
				Decomposer: decomposer.NewLLM(m, decomposer.LLMOptions{}),
				Retriever:  fixedRetriever(llmBenchSections()),
				Generator:  generator.NewLLM(m, generator.LLMOptions{}),
				Judge:      judge.NewLLM(m, judge.LLMOptions{}),
				MaxRetries: chains.DefaultMaxRetries,
				Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				st, err := run.Run(ctx, schema.NewState("What are the late payment penalties?"))
				if err != nil || len(st.NodeHistory) != bc.nodes || !st.Answered() || !strings.Contains(st.Answer(), "1.5% per month") {
					b.Fatalf("run: %v, path %s, answer %q", err, st.Path(), st.Answer())
				}
			}
			b.ReportMetric(float64(srv.Calls(""))/float64(b.N), "http-calls/op")
		})
	}
}
