package openaitest_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/llm/openaitest"
)

func client(srv *openaitest.Server) *openai.Client {
	cfg := openai.DefaultConfig("test-key")
	cfg.BaseURL = srv.URL
	return openai.NewClientWithConfig(cfg)
}

func TestRoutesQueuesAndCapture(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: `{"ok":true}`})
	srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "always"})
	c := client(srv)
	ctx := context.Background()

	resp, err := c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model:    "m",
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "judge this"}},
		ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: openaitest.RouteVerdict, Schema: jsonRaw(`{"type":"object"}`), Strict: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != `{"ok":true}` {
		t.Errorf("verdict content = %q", got)
	}
	if resp.Usage.PromptTokens != 2 || resp.Usage.CompletionTokens != 1 {
		t.Errorf("usage = %+v, want 2 prompt / 1 completion", resp.Usage)
	}
	for i := 0; i < 2; i++ {
		resp, err = c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Choices[0].Message.Content != "always" {
			t.Errorf("generate content = %q", resp.Choices[0].Message.Content)
		}
	}
	if srv.Calls(openaitest.RouteVerdict) != 1 || srv.Calls(openaitest.RouteGenerate) != 2 || srv.Calls("") != 3 {
		t.Errorf("calls: verdict %d generate %d all %d", srv.Calls(openaitest.RouteVerdict), srv.Calls(openaitest.RouteGenerate), srv.Calls(""))
	}
	last, ok := srv.Last(openaitest.RouteVerdict)
	if !ok || !strings.Contains(last.Text(), "user: judge this") || last.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("captured verdict request wrong: %+v", last)
	}
	if last.HasKey("temperature") {
		t.Errorf("go-openai sent temperature although unset")
	}
}

func TestErrorStatusAndHeaders(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Status: 429, Header: openaitest.RetryAfter("7"), Message: "slow down"})
	_, err := client(srv).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}},
	})
	var apiErr *openai.APIError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 429 || apiErr.Message != "slow down" {
		t.Fatalf("err = %v, want APIError 429 slow down", err)
	}
}

func TestStreamingWithUsage(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "one two three"})
	stream, err := client(srv).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "count"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var text strings.Builder
	var deltas int
	var usage *openai.Usage
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if ch.Delta.Content != "" {
				deltas++
				text.WriteString(ch.Delta.Content)
			}
		}
	}
	if text.String() != "one two three" || deltas != 3 {
		t.Errorf("streamed %q in %d deltas", text.String(), deltas)
	}
	if usage == nil || usage.CompletionTokens != 3 || usage.PromptTokens != 1 {
		t.Errorf("usage in last chunk = %+v", usage)
	}
}

// BreakAfter streams that many chunks, then the connection ends without
// [DONE]: the client gets the chunks and then an error, not io.EOF.
func TestStreamingBreakAfter(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "one two three four", BreakAfter: 2})
	stream, err := client(srv).CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Stream: true, Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "count"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var text strings.Builder
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			t.Fatalf("stream ended cleanly after %q, want a broken connection", text.String())
		}
		if err != nil {
			break
		}
		for _, ch := range chunk.Choices {
			text.WriteString(ch.Delta.Content)
		}
	}
	if text.String() != "one two " {
		t.Errorf("streamed %q before the break, want %q", text.String(), "one two ")
	}
}

func TestSplitWords(t *testing.T) {
	for _, s := range []string{"", "a", "a b", "a  b ", " lead"} {
		if got := strings.Join(openaitest.SplitWords(s), ""); got != s {
			t.Errorf("SplitWords(%q) rejoined = %q", s, got)
		}
	}
}

type jsonRaw string

func (j jsonRaw) MarshalJSON() ([]byte, error) { return []byte(j), nil }
