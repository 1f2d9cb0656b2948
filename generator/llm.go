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
// (generate-v2) tells the model to answer only about the entity and period
// the question asks, from sections whose document is about them, and to
// reply exactly NoAnswer otherwise (an abstention, see judge.IsAbstention).
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
// answer, already with citations rendered as references.
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
	opts := g.opts.CallOptions()
	var cs *citeStream
	if req.OnToken != nil && !g.opts.NoStream {
		cs = &citeStream{sections: req.Sections, emit: req.OnToken}
		opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error {
			cs.write(string(chunk))
			return nil
		}))
	}
	resp, err := g.model.GenerateContent(ctx, msgs, opts...)
	if err != nil {
		return "", err // the pipeline names the stage
	}
	llm.RecordUsage(ctx, resp, g.opts.ModelName)
	if len(resp.Choices) == 0 {
		return "", errors.New("generate: the model returned no answer")
	}
	answer, _ := prompts.RenderCitations(strings.TrimSpace(resp.Choices[0].Content), req.Sections)
	switch {
	case cs != nil:
		cs.flush()
	case req.OnToken != nil:
		req.OnToken(answer)
	}
	return answer, nil
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
