package retriever_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
)

// policySections are a privacy policy's passages: the one that answers
// "Do you share my information with other companies?" says "disclose …
// to our affiliates", and the others repeat the question's words about
// other things, so ranking by words puts it under the first three.
func policySections() []schema.Section {
	var secs []schema.Section
	for i, text := range []string{
		"Share buttons on our pages let you share articles with other readers. Information about share counts is public.",
		"Information you give us when you sign up includes your name and email address. You can share your profile with other members.",
		"Other companies' websites linked from our pages have their own privacy policies; we do not control what information other companies collect.",
		"Share prices and company information shown on our finance pages come from other providers.",
		"We keep information about your account for as long as your account is open, and share it with you on request.",
		"Our newsletter shares information about other events and offers from our companies.",
		"We may disclose personal information about you to other parties: our affiliates and the advertisers who help us run the service.",
		"Cookies store information on your device so that you stay signed in.",
	} {
		secs = append(secs, schema.Section{ID: fmt.Sprintf("p%d", i+1), Title: fmt.Sprintf("Segment %d", i+1), Content: text, Source: "policy.md", Page: i + 1})
	}
	return secs
}

// policyRetriever ranks the policy's passages by words, every one a
// candidate (as inside a document the question names).
func policyRetriever() schema.Retriever {
	return retriever.NewBM25(policySections(), retriever.WithFloor(0))
}

const shareQuestion = "Do you share my information with other companies?"

var documentRE = regexp.MustCompile(`<document id="(S\d+)"[^>]*>\n([^<]*)\n</document>`)

// rankByWord answers a rerank request as a model that reads meaning
// would: the passages that state word, in the order shown.
func rankByWord(t *testing.T, word string) openaitest.Responder {
	return func(req openaitest.Request) openaitest.Reply {
		var ids []string
		for _, m := range documentRE.FindAllStringSubmatch(req.Text(), -1) {
			if strings.Contains(m[2], word) {
				ids = append(ids, m[1])
			}
		}
		b, err := json.Marshal(map[string]any{"relevant": ids})
		if err != nil {
			t.Error(err)
		}
		return openaitest.Reply{Content: string(b)}
	}
}

func ids(secs []schema.Section) []string {
	out := make([]string, len(secs))
	for i, s := range secs {
		out[i] = s.ID
	}
	return out
}

func newReranking(t *testing.T, srv *openaitest.Server, inner schema.Retriever) *retriever.Reranking {
	t.Helper()
	m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	return &retriever.Reranking{Retriever: inner, Reranker: retriever.NewLLMReranker(m, retriever.LLMRerankerOptions{}), K: 3}
}

func TestRerankingHandsOnThePassageThatAnswers(t *testing.T) {
	inner := policyRetriever()
	ctx := context.Background()
	plain, err := inner.Retrieve(schema.WithRetrieveDepth(ctx, 3), schema.RetrieveRequest{Query: shareQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 3 || strings.Contains(strings.Join(ids(plain), " "), "p7") {
		t.Fatalf("ranking by words hands on %v: the case needs the answer (p7) under the first 3", ids(plain))
	}
	srv := openaitest.New(t)
	srv.Respond(rankByWord(t, "disclose"))
	got, err := newReranking(t, srv, inner).Retrieve(ctx, schema.RetrieveRequest{Query: shareQuestion})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != "p7" {
		t.Fatalf("reranked %v, want p7 first of 3", ids(got))
	}
	// the others keep their order by words
	if want := ids(plain)[:2]; got[1].ID != want[0] || got[2].ID != want[1] {
		t.Errorf("reranked %v, want p7 then %v", ids(got), want)
	}
	req, ok := srv.Last(openaitest.RouteRanking)
	if !ok || srv.Calls("") != 1 {
		t.Fatalf("calls %d, want one ranking request", srv.Calls(""))
	}
	text := req.Text()
	if !strings.Contains(text, shareQuestion) || strings.Count(text, "<document id=") != len(policySections()) {
		t.Errorf("the prompt should hold the question and every candidate passage:\n%s", text)
	}
	if !req.HasKey("temperature") || req.Body.Temperature > 1e-3 || req.Body.MaxTokens != retriever.DefaultRerankMaxTokens {
		t.Errorf("temperature %v (sent %v), max_tokens %d; want 0 and %d", req.Body.Temperature, req.HasKey("temperature"), req.Body.MaxTokens, retriever.DefaultRerankMaxTokens)
	}

	// the run's depth wins over K: an evaluation reads 5
	got, err = newReranking(t, srv, inner).Retrieve(schema.WithRetrieveDepth(ctx, 5), schema.RetrieveRequest{Query: shareQuestion})
	if err != nil || len(got) != 5 || got[0].ID != "p7" {
		t.Errorf("at depth 5: %v, %v; want 5 sections, p7 first", ids(got), err)
	}
}

func TestRerankingKeepsRetrievalOrderWhenTheModelFails(t *testing.T) {
	inner := policyRetriever()
	ctx := context.Background()
	plain, err := inner.Retrieve(schema.WithRetrieveDepth(ctx, 3), schema.RetrieveRequest{Query: shareQuestion})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		replies []openaitest.Reply
		want    []string
		note    string
	}{
		{"model error", []openaitest.Reply{{Status: 400, Message: "bad request"}}, ids(plain), "the model's ranking of 8 passages failed"},
		{"no usable JSON, twice", []openaitest.Reply{{Content: "I think S7."}, {Content: "S7"}}, ids(plain), "the model's ranking of 8 passages failed"},
		{"ids of no passage", []openaitest.Reply{{Content: `{"relevant":["S99","x","S0"]}`}}, ids(plain), "named none of the 8 passages"},
		{"no passage answers", []openaitest.Reply{{Content: `{"relevant":[]}`}}, ids(plain), "named none of the 8 passages"},
		{"repeated ids count once", []openaitest.Reply{{Content: `{"relevant":["S3","s3","[S3]","S2"]}`}}, []string{ids(plain)[2], ids(plain)[1], ids(plain)[0]}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.RouteRanking, tc.replies...)
			meter := &schema.Meter{}
			got, err := newReranking(t, srv, inner).Retrieve(schema.ContextWithMeter(ctx, meter), schema.RetrieveRequest{Query: shareQuestion})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(ids(got), " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %v, want %v", ids(got), tc.want)
			}
			if note := meter.Notes(); tc.note == "" && note != "" || !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want one saying %q", note, tc.note)
			}
		})
	}
}

func TestRerankingStopsWhenTheRunIsCancelled(t *testing.T) {
	srv := openaitest.New(t)
	srv.Respond(rankByWord(t, "disclose"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newReranking(t, srv, policyRetriever()).Retrieve(ctx, schema.RetrieveRequest{Query: shareQuestion})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// depthRecorder records the depth each retrieval was asked for.
type depthRecorder struct{ depths []int }

func (d *depthRecorder) Retrieve(ctx context.Context, _ schema.RetrieveRequest) ([]schema.Section, error) {
	d.depths = append(d.depths, schema.RetrieveDepth(ctx))
	return nil, nil
}

// However many candidates are asked for, one ranking reads at most
// MaxRerankCandidates, and never fewer than the run hands on.
func TestRerankingBoundsItsCandidates(t *testing.T) {
	rec := &depthRecorder{}
	w := &retriever.Reranking{Retriever: rec, Candidates: 1_000_000, K: 10}
	ctx := context.Background()
	if _, err := w.Retrieve(ctx, schema.RetrieveRequest{Query: shareQuestion}); err != nil {
		t.Fatal(err)
	}
	w.Candidates = 5
	if _, err := w.Retrieve(ctx, schema.RetrieveRequest{Query: shareQuestion}); err != nil {
		t.Fatal(err)
	}
	if want := []int{retriever.MaxRerankCandidates, 10}; fmt.Sprint(rec.depths) != fmt.Sprint(want) {
		t.Errorf("depths asked %v, want %v", rec.depths, want)
	}
}
