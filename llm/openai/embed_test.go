package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/embeddings"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

func TestCreateEmbeddingThroughLangchaingoEmbedder(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetEmbeddingDim(48)
	m := newModel(t, srv, openai.WithEmbeddingModel("test-embed"))
	if m.EmbeddingModelName() != "test-embed" {
		t.Fatalf("EmbeddingModelName = %q", m.EmbeddingModelName())
	}
	e, err := embeddings.NewEmbedder(m)
	if err != nil {
		t.Fatal(err)
	}
	meter := &schema.Meter{}
	ctx := schema.ContextWithMeter(context.Background(), meter)
	texts := []string{"late payment penalties", "termination notice", "governing law"}
	vecs, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		want := openaitest.HashEmbedding(texts[i], 48)
		if len(v) != 48 || v[0] != want[0] || v[47] != want[47] {
			t.Errorf("vector %d differs from the server's embedding of %q", i, texts[i])
		}
	}
	q, err := e.EmbedQuery(ctx, "payment penalty")
	if err != nil || len(q) != 48 {
		t.Fatalf("EmbedQuery: %v (len %d)", err, len(q))
	}
	if n := srv.Calls(openaitest.RouteEmbeddings); n != 2 {
		t.Errorf("embeddings calls = %d, want 2 (one batch, one query)", n)
	}
	last, _ := srv.Last(openaitest.RouteEmbeddings)
	if last.Body.Model != "test-embed" || last.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request model %q, auth %q", last.Body.Model, last.Header.Get("Authorization"))
	}
	if u := meter.Usage(); u.Calls != 2 || u.PromptTokens != 9 {
		t.Errorf("usage %+v, want 2 calls and 9 prompt tokens (words sent)", u)
	}
}

func TestCreateEmbeddingErrors(t *testing.T) {
	srv := openaitest.New(t)
	ctx := context.Background()

	if _, err := newModel(t, srv).CreateEmbedding(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "--embed-model") {
		t.Errorf("no embedding model: %v", err)
	}

	m := newModel(t, srv, openai.WithEmbeddingModel("test-embed"))
	srv.Script(openaitest.RouteEmbeddings, openaitest.Reply{Status: 401, Message: "bad key"})
	_, err := m.CreateEmbedding(ctx, []string{"x"})
	var se *llm.StatusError
	var apiErr *sdk.APIError
	if !errors.As(err, &se) || se.StatusCode != 401 || !errors.As(err, &apiErr) {
		t.Errorf("401: %v", err)
	}

	srv.Script(openaitest.RouteEmbeddings, openaitest.Reply{Body: `{"object":"list","data":[],"model":"test-embed"}`})
	if _, err := m.CreateEmbedding(ctx, []string{"x", "y"}); err == nil || !strings.Contains(err.Error(), "0 embeddings for 2 texts") {
		t.Errorf("short reply: %v", err)
	}
}

func TestEmbeddingRetry(t *testing.T) {
	srv := openaitest.New(t)
	m := newModel(t, srv, openai.WithEmbeddingModel("test-embed"))
	rec := &openaitest.SleepRecorder{}
	r := llm.WithEmbeddingRetry(m, llm.RetryPolicy{Sleep: rec.Sleep, Endpoint: m.Endpoint()})
	ctx := context.Background()

	srv.Script(openaitest.RouteEmbeddings,
		openaitest.Reply{Status: 429, Header: openaitest.RetryAfter("2")},
		openaitest.Reply{Status: 503})
	vecs, err := r.CreateEmbedding(ctx, []string{"payment"})
	if err != nil || len(vecs) != 1 {
		t.Fatalf("after two transient failures: %v", err)
	}
	if w := rec.Slept(); len(w) != 2 || w[0] != 2*time.Second {
		t.Errorf("waits %v, want 2s then a backoff", w)
	}

	srv.Script(openaitest.RouteEmbeddings, openaitest.Reply{Status: 401})
	_, err = r.CreateEmbedding(ctx, []string{"payment"})
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindAuth || le.Attempts != 1 {
		t.Fatalf("401 is not retried: %v", err)
	}
	if !strings.Contains(err.Error(), "rejected the API key") {
		t.Errorf("message %q", err)
	}
	if n := srv.Calls(openaitest.RouteEmbeddings); n != 4 {
		t.Errorf("calls %d, want 4", n)
	}
}
