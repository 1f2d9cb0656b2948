package retriever_test

import (
	"context"
	"testing"

	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
)

// recorder is a retriever that records the queries it is asked.
type recorder struct{ queries []string }

func (r *recorder) Retrieve(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	r.queries = append(r.queries, req.Query)
	return nil, nil
}

func TestRewritingRetriever(t *testing.T) {
	fb := &schema.Feedback{
		UnsupportedClaims: []string{"A late fee of 5% per month applies (See Service Credits, page 6)."},
		Reasoning:         `answer says "5% per month", source says "1.5% per month"`,
	}
	tests := []struct {
		name    string
		replies []openaitest.Reply
		want    string
	}{
		{"LLM rewrite", []openaitest.Reply{{Content: "Query: \"late payment fee interest overdue invoice\"\n"}}, "late payment fee interest overdue invoice"},
		{"LLM fails, keyword fallback", []openaitest.Reply{{Status: 400, Message: "bad"}}, "What are the penalties? late fee per month applies"},
		{"LLM says nothing usable, keyword fallback", []openaitest.Reply{{Content: "```\n```"}}, "What are the penalties? late fee per month applies"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.RouteGenerate, tc.replies...)
			m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			r := retriever.WithRewriter(rec, retriever.NewLLMRewriter(m, retriever.LLMRewriterOptions{}))
			ctx := context.Background()
			if _, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "What are the penalties?"}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "What are the penalties?", Attempt: 1, Feedback: fb}); err != nil {
				t.Fatal(err)
			}
			if len(rec.queries) != 2 || rec.queries[0] != "What are the penalties?" || rec.queries[1] != tc.want {
				t.Errorf("queries = %q, want second %q", rec.queries, tc.want)
			}
			if srv.Calls("") != 1 {
				t.Errorf("model calls = %d, want 1 (first pass must not rewrite)", srv.Calls(""))
			}
		})
	}
}
