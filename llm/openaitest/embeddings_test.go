package openaitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/llm/openaitest"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func TestHashEmbeddingSimilarity(t *testing.T) {
	const dim = 256
	base := openaitest.HashEmbedding("Late payment penalties are 1.5% per month", dim)
	tests := []struct {
		name     string
		text     string
		min, max float64
	}{
		{"same text", "Late payment penalties are 1.5% per month", 0.999, 1.001},
		{"stemmed variant", "late payments: a penalty of 1.5% each month", 0.6, 1},
		{"unrelated", "The warranty covers hardware defects", -0.3, 0.3},
		{"no terms", "the of and", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := openaitest.HashEmbedding(tc.text, dim)
			if len(v) != dim {
				t.Fatalf("dimension %d, want %d", len(v), dim)
			}
			if c := cosine(base, v); c < tc.min || c > tc.max {
				t.Errorf("cosine %.3f, want in [%.2f, %.2f]", c, tc.min, tc.max)
			}
		})
	}
}

func TestEmbeddingsRoute(t *testing.T) {
	srv := openaitest.New(t)
	srv.SetEmbeddingDim(32)
	c := client(srv)
	ctx := context.Background()
	resp, err := c.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: []string{"payment terms", "notice period"}, Model: "test-embed"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 2 || resp.Data[1].Index != 1 || string(resp.Model) != "test-embed" {
		t.Fatalf("reply %+v", resp)
	}
	for i, in := range []string{"payment terms", "notice period"} {
		want := openaitest.HashEmbedding(in, 32)
		if got := resp.Data[i].Embedding; len(got) != 32 || cosine(got, want) < 0.999 {
			t.Errorf("vector %d: %v, want %v", i, got, want)
		}
	}
	if resp.Usage.PromptTokens != 4 {
		t.Errorf("usage %+v, want 4 prompt tokens", resp.Usage)
	}
	// The request's dimensions field wins; a single string input works.
	resp, err = c.CreateEmbeddings(ctx, openai.EmbeddingRequest{Input: "payment", Model: "test-embed", Dimensions: 8})
	if err != nil || len(resp.Data) != 1 || len(resp.Data[0].Embedding) != 8 {
		t.Fatalf("dimensions 8: %v %+v", err, resp)
	}
	// Errors are scripted like chat replies.
	srv.Script(openaitest.RouteEmbeddings, openaitest.Reply{Status: 429, Header: openaitest.RetryAfter("1")})
	_, err = c.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: []string{"x"}, Model: "test-embed"})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 {
		t.Fatalf("scripted 429: %v", err)
	}
	if n := srv.Calls(openaitest.RouteEmbeddings); n != 3 {
		t.Errorf("embeddings calls = %d, want 3", n)
	}
	last, ok := srv.Last(openaitest.RouteEmbeddings)
	if !ok || len(last.Inputs) != 1 || last.Inputs[0] != "x" || last.Body.Model != "test-embed" {
		t.Errorf("last request %+v", last)
	}
}

func TestEmbeddingsRouteWithoutV1AndBadInput(t *testing.T) {
	srv := openaitest.New(t)
	base := srv.URL[:len(srv.URL)-len("/v1")]
	post := func(path, body string) *http.Response {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := post("/embeddings", `{"model":"m","input":"hello world"}`)
	var out openai.EmbeddingResponse
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&out) != nil || len(out.Data) != 1 || len(out.Data[0].Embedding) != openaitest.DefaultEmbeddingDim {
		t.Fatalf("/embeddings: status %d, %+v", resp.StatusCode, out)
	}
	for _, body := range []string{`{"model":"m","input":[1,2,3]}`, `{"input":"x"}`, `not json`} {
		if resp := post("/v1/embeddings", body); resp.StatusCode != 400 {
			t.Errorf("%s: status %d, want 400", body, resp.StatusCode)
		}
	}
}
