package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// Every OpenAI client sees the citations: the assistant message ends with
// a short "Sources:" list (document and page), in a stream too, unless
// the server is told to leave it out.
func TestChatCompletionContentListsSources(t *testing.T) {
	ctx := context.Background()
	const want = "\n\nSources:\n- Late Payment Penalties — master-services-agreement.md, page 8"
	ts, _ := newServer(t, nil)
	client := openaiClient(ts, "")
	resp, err := client.CreateChatCompletion(ctx, userAsks(lateFee))
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Choices[0].Message.Content
	if !strings.Contains(got, "1.5%") || !strings.HasSuffix(got, want) {
		t.Errorf("content %q\nshould end with %q", got, want)
	}
	req := userAsks(lateFee)
	req.Stream = true
	stream, err := client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(chunk.Choices) > 0 {
			text.WriteString(chunk.Choices[0].Delta.Content)
		}
	}
	stream.Close()
	if !strings.HasSuffix(text.String(), want) {
		t.Errorf("streamed content %q\nshould end with %q", text.String(), want)
	}

	off, _ := newServer(t, func(c *Config) { c.NoSourcesInContent = true })
	resp, err = openaiClient(off, "").CreateChatCompletion(ctx, userAsks(lateFee))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; strings.Contains(got, "Sources:") || !strings.Contains(got, "1.5%") {
		t.Errorf("with NoSourcesInContent: %q", got)
	}
}
