package llm

import (
	"context"
	"strings"
	"unicode"

	"github.com/tmc/langchaingo/llms"
)

// Reasoning models served without a reasoning parser (DeepSeek-R1 and its
// distillations, Qwen3, QwQ on vLLM, llama.cpp or an older Ollama) write
// their thinking into the reply itself, inside <think>…</think> before the
// answer; with a chat template that opens the block in the prompt, the
// reply holds only the closing tag. Left there, the thinking would be
// shown as the answer, judged as its claims, and searched for the JSON a
// stage asked for (it often quotes the schema's fields).

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// SplitThinking separates a reply's leading thinking from its answer: a
// reply that opens with <think> (after white space) thinks up to
// </think>, or to its end when the block is never closed (a reply cut
// off while thinking has no answer); a reply with a </think> and no
// <think> before it thinks up to that tag. Any other reply is all answer.
func SplitThinking(reply string) (thinking, answer string) {
	t := strings.TrimLeftFunc(reply, unicode.IsSpace)
	if rest, ok := strings.CutPrefix(t, thinkOpen); ok {
		th, ans, closed := strings.Cut(rest, thinkClose)
		if !closed {
			return strings.TrimSpace(rest), ""
		}
		return strings.TrimSpace(th), strings.TrimLeftFunc(ans, unicode.IsSpace)
	}
	if th, ans, ok := strings.Cut(reply, thinkClose); ok && !strings.Contains(th, thinkOpen) {
		return strings.TrimSpace(th), strings.TrimLeftFunc(ans, unicode.IsSpace)
	}
	return "", reply
}

// Thinking is an llms.Model whose replies have their inline thinking
// moved to the choice's ReasoningContent (SplitThinking); a streamed
// reply's thinking goes to the streaming reasoning function, if any,
// instead of the streaming function.
type Thinking struct {
	llms.Model
}

// SeparateThinking wraps m in a Thinking, unless it is one already (or a
// Retry around one).
func SeparateThinking(m llms.Model) llms.Model {
	switch w := m.(type) {
	case *Thinking:
		return m
	case *Retry:
		if _, ok := w.Model.(*Thinking); ok {
			return m
		}
	}
	return &Thinking{Model: m}
}

// Call implements llms.Model.
func (t *Thinking) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, t, prompt, options...)
}

// GenerateContent implements llms.Model.
func (t *Thinking) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var probe llms.CallOptions
	for _, o := range options {
		o(&probe)
	}
	var f *thinkFilter
	if probe.StreamingFunc != nil {
		f = &thinkFilter{out: probe.StreamingFunc, reasoning: probe.StreamingReasoningFunc}
		options = append(append([]llms.CallOption(nil), options...), llms.WithStreamingFunc(f.write))
	}
	resp, err := t.Model.GenerateContent(ctx, messages, options...)
	if f != nil && err == nil {
		err = f.flush(ctx)
	}
	if err != nil || resp == nil {
		return resp, err
	}
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		th, ans := SplitThinking(c.Content)
		if th == "" && ans == c.Content {
			continue
		}
		c.Content = ans
		if c.ReasoningContent == "" {
			c.ReasoningContent = th
		}
	}
	return resp, nil
}

// thinkFilter passes a streamed reply on without a leading <think> block.
type thinkFilter struct {
	out       func(context.Context, []byte) error
	reasoning func(context.Context, []byte, []byte) error
	state     int             // filterUndecided, filterThinking, filterAnswer
	buf       strings.Builder // undecided: the reply so far; thinking: the block so far
	sent      int             // thinking: bytes of buf given to reasoning
	trim      bool            // answer: white space after </think> still to drop
}

const (
	filterUndecided = iota
	filterThinking
	filterAnswer
)

func (f *thinkFilter) write(ctx context.Context, chunk []byte) error {
	switch f.state {
	case filterAnswer:
		return f.answer(ctx, string(chunk))
	case filterUndecided:
		f.buf.Write(chunk)
		t := strings.TrimLeftFunc(f.buf.String(), unicode.IsSpace)
		switch {
		case t == "" || (len(t) < len(thinkOpen) && strings.HasPrefix(thinkOpen, t)):
			return nil // too early to tell
		case strings.HasPrefix(t, thinkOpen):
			f.state = filterThinking
			f.buf.Reset()
			return f.think(ctx, t[len(thinkOpen):])
		}
		f.state = filterAnswer
		s := f.buf.String()
		f.buf.Reset()
		return f.answer(ctx, s)
	default:
		return f.think(ctx, string(chunk))
	}
}

// think takes more of the thinking block; what follows </think> is the
// answer.
func (f *thinkFilter) think(ctx context.Context, s string) error {
	f.buf.WriteString(s)
	all := f.buf.String()
	th, ans, closed := strings.Cut(all, thinkClose)
	// hold back what could be the start of a closing tag split across
	// chunks
	ready := len(th)
	if !closed {
		ready = max(f.sent, len(all)-len(thinkClose)+1)
	}
	if f.reasoning != nil && ready > f.sent {
		if err := f.reasoning(ctx, []byte(all[f.sent:ready]), nil); err != nil {
			return err
		}
	}
	f.sent = max(f.sent, ready)
	if !closed {
		return nil
	}
	f.state, f.trim = filterAnswer, true
	f.buf.Reset()
	return f.answer(ctx, ans)
}

func (f *thinkFilter) answer(ctx context.Context, s string) error {
	if f.trim {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return nil
		}
		f.trim = false
	}
	return f.out(ctx, []byte(s))
}

// flush sends a reply too short to decide on (all white space, or a
// prefix of <think>) once the reply has ended.
func (f *thinkFilter) flush(ctx context.Context) error {
	if f.state != filterUndecided || f.buf.Len() == 0 {
		return nil
	}
	s := f.buf.String()
	f.buf.Reset()
	f.state = filterAnswer
	return f.out(ctx, []byte(s))
}
