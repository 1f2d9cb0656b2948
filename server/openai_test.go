package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/schema"
)

// openaiClient is the go-openai client pointed at the test server's /v1.
func openaiClient(ts *httptest.Server, token string) *openai.Client {
	cfg := openai.DefaultConfig(token)
	cfg.BaseURL = ts.URL + "/v1"
	cfg.HTTPClient = ts.Client()
	return openai.NewClientWithConfig(cfg)
}

func userAsks(q string) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{Model: ModelName, Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: q}}}
}

func TestChatCompletionsWithTheOpenAIClient(t *testing.T) {
	ts, _ := newServer(t, func(c *Config) { c.Token = "tok" })
	client := openaiClient(ts, "tok")
	ctx := context.Background()

	resp, err := client.CreateChatCompletion(ctx, userAsks(lateFee))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) != 1 || resp.Object != "chat.completion" || resp.Model != ModelName {
		t.Fatalf("response %+v", resp)
	}
	got := resp.Choices[0].Message.Content
	if !strings.Contains(got, "1.5%") || !strings.Contains(got, "Late Payment Penalties, page 8") || resp.Choices[0].FinishReason != openai.FinishReasonStop {
		t.Fatalf("reply %q (%s), want the judged, cited 1.5%% late fee", got, resp.Choices[0].FinishReason)
	}

	resp, err = client.CreateChatCompletion(ctx, userAsks(warranty))
	if err != nil {
		t.Fatal(err)
	}
	// a refusal: the fallback message, then where to look, not verified
	if got := resp.Choices[0].Message.Content; !strings.HasPrefix(got, schema.FallbackMessage) || !strings.Contains(got, "Closest passages found (not verified)") || !strings.Contains(got, "\n  \"") {
		t.Fatalf("reply %q, want the fallback message and the closest passages, each with its excerpt", got)
	}

	// A wrong token is an error the client reports with its status.
	_, err = openaiClient(ts, "nope").CreateChatCompletion(ctx, userAsks(lateFee))
	var re *openai.RequestError
	if !errors.As(err, &re) || re.HTTPStatusCode != 401 {
		t.Fatalf("with a wrong token: %v, want a 401", err)
	}
}

func TestChatCompletionsStreamWithTheOpenAIClient(t *testing.T) {
	ts, _ := newServer(t, nil)
	client := openaiClient(ts, "")
	for _, tc := range []struct {
		question string
		check    func(string) bool
	}{
		{lateFee, func(s string) bool {
			return strings.Contains(s, "1.5%") && strings.Contains(s, "(See Late Payment Penalties, page 8)")
		}},
		{warranty, func(s string) bool { return strings.HasPrefix(s, schema.FallbackMessage) }},
	} {
		req := userAsks(tc.question)
		req.Stream = true
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
		stream, err := client.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		chunks, role, finish := 0, "", openai.FinishReason("")
		for {
			chunk, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			chunks++
			if chunk.Object != "chat.completion.chunk" || len(chunk.Choices) != 1 {
				t.Fatalf("chunk %+v", chunk)
			}
			d := chunk.Choices[0]
			text.WriteString(d.Delta.Content)
			if d.Delta.Role != "" {
				role = d.Delta.Role
			}
			if d.FinishReason != "" {
				finish = d.FinishReason
			}
		}
		stream.Close()
		if !tc.check(text.String()) || role != openai.ChatMessageRoleAssistant || finish != openai.FinishReasonStop || chunks < 3 {
			t.Fatalf("%s: streamed %q in %d chunks (role %q, finish %q)", tc.question, text.String(), chunks, role, finish)
		}
	}
}

// TestChatCompletionExtension reads the raw response: the run, verdict
// and citations in "docmind", and a follow-up rewritten from the earlier
// user message.
func TestChatCompletionExtension(t *testing.T) {
	ts, _ := newServer(t, nil)
	body := `{"model": "docmind", "messages": [
		{"role": "system", "content": "Be brief."},
		{"role": "user", "content": "What are the late payment penalties?"},
		{"role": "assistant", "content": "A late fee of 1.5% per month."},
		{"role": "user", "content": "and what if it is still unpaid after 60 days?"}]}`
	status, _, b := call(t, ts, "POST", "/v1/chat/completions", body)
	if status != 200 {
		t.Fatalf("%d %s", status, b)
	}
	var cc ChatCompletion
	if err := json.Unmarshal(b, &cc); err != nil || cc.Docmind == nil {
		t.Fatalf("no docmind extension: %v %s", err, b)
	}
	ext := cc.Docmind
	if ext.Query != "What happens if payment is still unpaid after 60 days?" {
		t.Errorf("standalone question %q: the follow-up was not rewritten from the conversation", ext.Query)
	}
	if ext.RunID == "" || ext.Verdict == nil || ext.Answered == strings.HasPrefix(cc.Choices[0].Message.Content, schema.FallbackMessage) {
		t.Errorf("extension %+v", ext)
	}
	// The run is in the ledger.
	if status, _, b := call(t, ts, "GET", "/api/v1/runs/"+ext.RunID, ""); status != 200 {
		t.Errorf("run %s of the completion: %d %s", ext.RunID, status, b)
	}

	status, _, b = call(t, ts, "POST", "/v1/chat/completions", `{"messages": [{"role": "user", "content": "`+lateFee+`"}]}`)
	if err := json.Unmarshal(b, &cc); err != nil || status != 200 || !cc.Docmind.Answered || len(cc.Docmind.Citations) == 0 ||
		cc.Docmind.Citations[0].Title != "Late Payment Penalties" || cc.Docmind.Verdict == nil || !cc.Docmind.Verdict.ShouldReturn {
		t.Fatalf("late fee extension: %d %s", status, b)
	}
}

func TestChatCompletionsBadRequests(t *testing.T) {
	ts, _ := newServer(t, nil)
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"model": "docmind", "messages": [`, 400, "malformed JSON"},
		{`{"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]}`, 404, `no model "gpt-4o"`},
		{`{"model": "docmind", "messages": []}`, 400, `"messages" is required`},
		{`{"model": "docmind", "messages": [{"role": "assistant", "content": "x"}]}`, 400, "must be the user's question"},
		{`{"model": "docmind", "messages": [{"role": "user", "content": "   "}]}`, 400, "has no text"},
		// as /api/v1/ask answers a question over MaxQuestionBytes
		{`{"model": "docmind", "messages": [{"role": "user", "content": "` + strings.Repeat("a", MaxQuestionBytes+1) + `"}]}`, 413, "question too long"},
	} {
		status, _, b := call(t, ts, "POST", "/v1/chat/completions", tc.body)
		wantError(t, status, b, tc.status, tc.want)
	}
}

func TestModelsWithTheOpenAIClient(t *testing.T) {
	ts, _ := newServer(t, nil)
	client := openaiClient(ts, "")
	list, err := client.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].ID != ModelName {
		t.Fatalf("models %+v", list.Models)
	}
	m, err := client.GetModel(context.Background(), ModelName)
	if err != nil || m.ID != ModelName {
		t.Fatalf("model %+v: %v", m, err)
	}
	status, _, b := call(t, ts, "GET", "/v1/models/gpt-4o", "")
	wantError(t, status, b, http.StatusNotFound, `no model "gpt-4o"`)
}
