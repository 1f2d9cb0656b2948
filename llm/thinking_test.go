package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
)

func TestSplitThinking(t *testing.T) {
	for _, c := range []struct{ in, thinking, answer string }{
		{"<think>The fee section says 1.5%.</think>\n\nThe late fee is 1.5% per month [S1].", "The fee section says 1.5%.", "The late fee is 1.5% per month [S1]."},
		{"\n<think>\nhmm\n</think>answer", "hmm", "answer"},
		// the chat template opened the block in the prompt
		{"Okay, the user asks about fees.\n</think>\n\nThe fee is 1.5%.", "Okay, the user asks about fees.", "The fee is 1.5%."},
		// cut off while thinking: no answer
		{"<think>Let me look at S1 and", "Let me look at S1 and", ""},
		{"The fee is 1.5%.", "", "The fee is 1.5%."},
		{"Wrap it in a <think> tag.", "", "Wrap it in a <think> tag."},
		{"", "", ""},
	} {
		th, ans := llm.SplitThinking(c.in)
		if th != c.thinking || ans != c.answer {
			t.Errorf("SplitThinking(%q) = %q, %q; want %q, %q", c.in, th, ans, c.thinking, c.answer)
		}
	}
}

func thinkingModel(t *testing.T, replies ...openaitest.Reply) (llms.Model, *openaitest.Server) {
	t.Helper()
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, replies...)
	srv.Script("docmind_test", replies...)
	m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithAPIKey("k"), openai.WithModel("deepseek-r1"))
	if err != nil {
		t.Fatal(err)
	}
	return llm.SeparateThinking(m), srv
}

// A reasoning model's thinking quotes the schema's fields; the JSON the
// stage gets is the answer's, not the first object in the thinking.
func TestThinkingIsNotParsedAsTheAnswer(t *testing.T) {
	reply := openaitest.Reply{Content: "<think>The schema wants {\"ok\": false} unless the section states it. S1 states it.</think>\n\n{\"ok\": true}"}
	m, _ := thinkingModel(t, reply)
	var got struct{ OK bool }
	call := llm.StructuredCall{
		Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "check")},
		Schema:   llm.JSONSchema{Name: "docmind_test", Schema: []byte(`{"type":"object"}`)},
	}
	if _, err := llm.GenerateStructured(context.Background(), m, call, func(s string) error { return json.Unmarshal([]byte(s), &got) }); err != nil || !got.OK {
		t.Errorf("ok = %v, %v: the thinking's JSON was taken", got.OK, err)
	}
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "check")})
	if err != nil {
		t.Fatal(err)
	}
	if c := resp.Choices[0]; c.Content != `{"ok": true}` || !strings.HasPrefix(c.ReasoningContent, "The schema wants") {
		t.Errorf("content %q, reasoning %q", c.Content, c.ReasoningContent)
	}
}

// A streamed reply's thinking never reaches the streaming function, even
// when its tags are split across chunks; it goes to the reasoning
// function.
func TestStreamedThinkingIsHeldBack(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		want   string
		think  string
	}{
		{"tags split across chunks", []string{"\n<thi", "nk>I should cite S1 ", "and quote it.</th", "ink>\n", "\nThe late fee ", "is 1.5% [S1]."}, "The late fee is 1.5% [S1].", "I should cite S1 and quote it."},
		{"no thinking", []string{"The late ", "fee is 1.5%."}, "The late fee is 1.5%.", ""},
		{"a reply shorter than the tag", []string{"<t"}, "<t", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			content := strings.Join(c.chunks, "")
			m, _ := thinkingModel(t, openaitest.Reply{Content: content, Chunks: c.chunks})
			var streamed, reasoning strings.Builder
			resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "fee?")},
				llms.WithStreamingFunc(func(_ context.Context, b []byte) error { streamed.Write(b); return nil }),
				llms.WithStreamingReasoningFunc(func(_ context.Context, r, _ []byte) error { reasoning.Write(r); return nil }))
			if err != nil {
				t.Fatal(err)
			}
			if streamed.String() != c.want || resp.Choices[0].Content != c.want {
				t.Errorf("streamed %q, content %q; want %q", streamed.String(), resp.Choices[0].Content, c.want)
			}
			if strings.TrimSpace(reasoning.String()) != c.think || resp.Choices[0].ReasoningContent != c.think {
				t.Errorf("reasoning streamed %q, kept %q; want %q", reasoning.String(), resp.Choices[0].ReasoningContent, c.think)
			}
		})
	}
}

func TestSeparateThinkingWrapsOnce(t *testing.T) {
	m, _ := thinkingModel(t)
	if llm.SeparateThinking(m) != m {
		t.Error("wrapped twice")
	}
	r := llm.WithRetry(m, llm.RetryPolicy{})
	if llm.SeparateThinking(r) != llms.Model(r) {
		t.Error("a Retry around a Thinking wrapped again")
	}
}
