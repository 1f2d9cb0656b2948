package generator

import (
	"context"
	"errors"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

// NoAnswer is the LLM generator's reply when no section was retrieved; the
// judge does not accept it, so the run ends with the fallback message.
const NoAnswer = "The documents do not say."

// DefaultMaxTokens bounds the answer when LLMOptions.MaxTokens is 0.
const DefaultMaxTokens = 1024

// LLMOptions tunes the LLM generator. The zero value is usable; it sends
// max_tokens DefaultMaxTokens unless Settings.MaxTokens says otherwise.
type LLMOptions struct {
	llm.Settings
	// NoStream turns streaming off even when the request has OnToken
	// (the whole answer is then passed to OnToken once).
	NoStream bool
}

// LLM is a schema.Generator that asks a model to answer from the retrieved
// sections only. The model sees the sections as [S1]..[Sk], each headed by
// its document's title, file, entity and period when known, and cites those
// ids; code maps them to "(See <title>, <page>)" and marks ids outside the
// set as "[unknown source Sk]", which the judge rejects. The prompt
// (generate-v3) tells the model to answer only about the entity and period
// the question asks, from sections whose document is about them, in the
// question's language, and to reply exactly NoAnswer otherwise, in English
// whatever the question's language (an abstention, see judge.IsAbstention).
type LLM struct {
	model llms.Model
	opts  LLMOptions
}

// NewLLM returns a generator over model.
func NewLLM(model llms.Model, opts LLMOptions) *LLM {
	opts.Settings = opts.Settings.Or(llm.Settings{MaxTokens: DefaultMaxTokens})
	return &LLM{model: model, opts: opts}
}

var _ schema.Generator = (*LLM)(nil)

// Generate implements schema.Generator. With req.OnToken set it streams the
// answer, already with citations rendered as references. A reply cut off
// at its token limit (finish_reason "length") is asked again once with
// twice the max_tokens, its draft streamed on from where the first one
// stopped; a reply cut off again is kept as it stands and the run is told
// with a note ("the model's reply was cut off at 2048 tokens …", see
// schema.RecordNote), which the pipeline keeps in State.Notes["generate"].
func (g *LLM) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	if len(req.Sections) == 0 {
		if req.OnToken != nil {
			req.OnToken(NoAnswer)
		}
		return NoAnswer, nil
	}
	var constraints []string
	if req.Decomposition != nil {
		constraints = req.Decomposition.Constraints
	}
	msgs, err := prompts.MustGet(prompts.NameGenerate).Messages(ctx, prompts.GenerateData{
		Query:       req.Query,
		Documents:   prompts.Documents(req.Sections),
		Constraints: constraints,
	})
	if err != nil {
		return "", err
	}
	maxTokens := g.opts.MaxTokens
	opts := g.opts.CallOptions()
	var cs *citeStream
	var rd *redraft
	var shown strings.Builder
	if req.OnToken != nil && !g.opts.NoStream {
		cs = &citeStream{sections: req.Sections, emit: func(s string) { shown.WriteString(s); req.OnToken(s) }}
		opts = append(opts, streamTo(cs))
	}
	resp, err := g.call(ctx, msgs, opts)
	if err != nil {
		return "", err // the pipeline names the stage
	}
	cut := llm.CutOff(resp, maxTokens)
	widened := ""
	if cut != nil && maxTokens > 0 {
		// Cut off: the same request again with twice the room, its
		// draft streamed on from where the first one stopped.
		maxTokens *= 2
		opts = append(g.opts.CallOptions(), llms.WithMaxTokens(maxTokens))
		if cs != nil {
			rd = &redraft{shown: shown.String(), emit: req.OnToken}
			cs = &citeStream{sections: req.Sections, emit: rd.write}
			opts = append(opts, streamTo(cs))
		}
		if resp, err = g.call(ctx, msgs, opts); err != nil {
			return "", err
		}
		cut, widened = llm.CutOff(resp, maxTokens), " (sent again with twice the room and cut off again)"
	}
	if cut != nil {
		schema.RecordNote(ctx, cut.Error()+widened+", so the answer is incomplete")
	}
	answer, _ := prompts.RenderCitations(strings.TrimSpace(resp.Choices[0].Content), req.Sections)
	switch {
	case cs != nil:
		cs.flush()
		if rd != nil {
			rd.end()
		}
	case req.OnToken != nil:
		req.OnToken(answer)
	}
	return answer, nil
}

// call sends one request and records its usage.
func (g *LLM) call(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := g.model.GenerateContent(ctx, msgs, opts...)
	if err != nil {
		return nil, err
	}
	llm.RecordUsage(ctx, resp, g.opts.ModelName)
	if len(resp.Choices) == 0 {
		return nil, errors.New("generate: the model returned no answer")
	}
	return resp, nil
}

// streamTo streams a reply's chunks into cs.
func streamTo(cs *citeStream) llms.CallOption {
	return llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
		cs.write(string(chunk))
		return nil
	})
}

// redraft passes on the draft of a reply asked again after the first was
// cut off, whose draft was already shown: while the new reply repeats the
// shown text nothing is passed on, and once it goes past it only the rest
// is. A reply that differs from the shown text is passed on whole, from
// its start, on a line of its own.
type redraft struct {
	shown    string
	held     strings.Builder
	diverged bool
	emit     func(string)
}

func (r *redraft) write(s string) {
	if r.diverged {
		r.emit(s)
		return
	}
	r.held.WriteString(s)
	h := r.held.String()
	switch {
	case strings.HasPrefix(r.shown, h):
		// still repeating the shown draft
	case strings.HasPrefix(h, r.shown):
		r.diverged = true
		r.emit(h[len(r.shown):])
	default:
		r.diverged = true
		r.emit("\n" + h)
	}
}

// end passes on a reply that stopped within the shown draft (shorter than
// it), so that the draft ends as the answer does.
func (r *redraft) end() {
	if !r.diverged && r.held.Len() < len(r.shown) {
		r.diverged = true
		r.emit("\n" + r.held.String())
	}
}

// citeStream renders [Sk] markers in streamed text as references: text from
// a '[' is held back until its ']' arrives (or it clearly is not a
// marker), so the draft the user sees matches the final answer.
type citeStream struct {
	sections []schema.Section
	emit     func(string)
	pending  strings.Builder
}

const maxMarker = 40

func (c *citeStream) write(chunk string) {
	for chunk != "" {
		if c.pending.Len() == 0 {
			i := strings.IndexByte(chunk, '[')
			if i < 0 {
				c.emit(chunk)
				return
			}
			if i > 0 {
				c.emit(chunk[:i])
			}
			chunk = chunk[i:]
		}
		j := strings.IndexByte(chunk, ']')
		if j < 0 {
			c.pending.WriteString(chunk)
			if c.pending.Len() > maxMarker {
				c.flush()
			}
			return
		}
		c.pending.WriteString(chunk[:j+1])
		chunk = chunk[j+1:]
		c.flush()
	}
}

func (c *citeStream) flush() {
	if c.pending.Len() == 0 {
		return
	}
	out, _ := prompts.RenderCitations(c.pending.String(), c.sections)
	c.pending.Reset()
	c.emit(out)
}
