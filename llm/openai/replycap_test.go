package openai_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
)

// TestReplyCappedAtTheTokenLimit: a server that ignores max_tokens and
// sends a 1 MB reply is read only to a multiple of the limit, whole or
// streamed: the call fails with ErrReplyTooLarge, and a stream delivers
// no more than the cap to the receiver (it printed the whole draft).
func TestReplyCappedAtTheTokenLimit(t *testing.T) {
	huge := strings.Repeat("draft ", 1<<20/6)
	const maxTokens = 100
	textCap := maxTokens*openai.ReplyBytesPerToken + 64<<10
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "fee?")}
	for _, streaming := range []bool{false, true} {
		srv := openaitest.New(t)
		srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: huge})
		m := newModel(t, srv)
		delivered := 0
		opts := []llms.CallOption{llms.WithMaxTokens(maxTokens)}
		if streaming {
			opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, c []byte) error { delivered += len(c); return nil }))
		}
		_, err := m.GenerateContent(context.Background(), msgs, opts...)
		if !errors.Is(err, openai.ErrReplyTooLarge) {
			t.Errorf("streaming %v: err = %v, want ErrReplyTooLarge", streaming, err)
		}
		if delivered > textCap {
			t.Errorf("streaming: %d bytes delivered to the receiver, above the cap of %d", delivered, textCap)
		}
	}
	// within the limit, a reply is read whole
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "late fee of 1.5% per month"})
	resp, err := newModel(t, srv).GenerateContent(context.Background(), msgs, llms.WithMaxTokens(maxTokens))
	if err != nil || resp.Choices[0].Content != "late fee of 1.5% per month" {
		t.Fatalf("a reply within the limit: %v", err)
	}
}
