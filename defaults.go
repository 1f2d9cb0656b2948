package docmind

import (
	"errors"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/retriever"
)

// llmConfig is the LLM part of the configuration.
type llmConfig struct {
	model, judgeModel llms.Model
	name, judgeName   string
	noStream          bool
}

// WithLLM makes decompose, generate and judge LLM calls through model —
// any langchaingo llms.Model (OpenAI, Anthropic, Ollama, ... or the
// go-openai adapter in package llm/openai). The judge's deterministic
// guards still run on every verdict. Stages set explicitly with
// WithDecomposer, WithGenerator or WithJudge are kept.
func WithLLM(model llms.Model) Option {
	return func(c *config) error {
		if model == nil {
			return errors.New("WithLLM: model is nil")
		}
		c.llm.model = model
		return nil
	}
}

// WithJudgeLLM makes the judge use a different model from the other stages
// (a stronger or a cheaper one). It implies LLM mode for the judge.
func WithJudgeLLM(model llms.Model) Option {
	return func(c *config) error {
		if model == nil {
			return errors.New("WithJudgeLLM: model is nil")
		}
		c.llm.judgeModel = model
		return nil
	}
}

// WithModelNames names the models passed to WithLLM and WithJudgeLLM, for
// the requests and for cost estimates ("gpt-4o-mini", ...).
func WithModelNames(main, judge string) Option {
	return func(c *config) error { c.llm.name, c.llm.judgeName = main, judge; return nil }
}

// WithoutStreaming asks the LLM generator not to stream its draft.
func WithoutStreaming() Option {
	return func(c *config) error { c.llm.noStream = true; return nil }
}

// fillDefaults picks the stages not set explicitly: LLM ones when a model
// is configured, offline ones otherwise.
func (c *config) fillDefaults() error {
	if c.retriever == nil {
		if len(c.sections) == 0 {
			return errors.New("no documents to search: use WithSections, WithRetriever or load a folder with LoadDocuments")
		}
		c.retriever = retriever.NewBM25(c.sections)
	}
	main, judgeModel := c.llm.model, c.llm.judgeModel
	if judgeModel == nil {
		judgeModel = main
	}
	judgeName := c.llm.judgeName
	if judgeName == "" && c.llm.judgeModel == nil {
		judgeName = c.llm.name
	}
	settings := llm.Settings{ModelName: c.llm.name}
	if main != nil {
		c.retriever = retriever.WithRewriter(c.retriever, retriever.NewLLMRewriter(main, retriever.LLMRewriterOptions{Settings: settings}))
		if c.decomposer == nil {
			c.decomposer = decomposer.NewLLM(main, decomposer.LLMOptions{Settings: settings, Fallback: decomposer.NewRules()})
		}
		if c.generator == nil {
			c.generator = generator.NewLLM(main, generator.LLMOptions{Settings: settings, NoStream: c.llm.noStream})
		}
	}
	if c.judge == nil && judgeModel != nil {
		c.judge = judge.NewLLM(judgeModel, judge.LLMOptions{Settings: llm.Settings{ModelName: judgeName}})
	}
	if c.decomposer == nil {
		c.decomposer = decomposer.NewRules()
	}
	if c.generator == nil {
		c.generator = generator.NewExtractive()
	}
	if c.judge == nil {
		// the whole corpus lets the judge weight the question's terms by
		// their rarity in it (a term no document mentions cannot be addressed)
		var opts []judge.Option
		switch {
		case c.corpus != nil:
			opts = append(opts, judge.WithCorpusStats(c.corpus))
		case len(c.sections) > 0:
			opts = append(opts, judge.WithCorpus(c.sections))
		}
		if c.minConfidence != nil {
			opts = append(opts, judge.WithMinConfidence(*c.minConfidence))
		}
		c.judge = judge.NewDeterministic(opts...)
	}
	return nil
}

// mode is "llm" when any stage calls a model, else "offline".
func (c *config) mode() string {
	if c.llm.model != nil || c.llm.judgeModel != nil {
		return "llm"
	}
	return "offline"
}
