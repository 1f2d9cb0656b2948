package docmind

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/spell"
)

// llmConfig is the LLM part of the configuration.
type llmConfig struct {
	model, judgeModel llms.Model
	name, judgeName   string
	noStream          bool
	limits            TokenLimits
	// rerank is WithRerank's number of candidates (0: no reranking).
	rerank int
}

// DefaultJudgeMaxTokens bounds the LLM judge's verdict (a JSON object with
// a claim, quote and reason per sentence of the answer).
const DefaultJudgeMaxTokens = 2048

// TokenLimits bound the reply of each LLM stage: sent as max_tokens (or
// max_completion_tokens on OpenAI's API) on every call. A zero field keeps
// the stage's default (DefaultTokenLimits).
type TokenLimits struct {
	Decompose, Generate, Judge, Rewrite, Rerank int
}

// DefaultTokenLimits returns the limits used when none are set: 512 for the
// decomposition, 1024 for the answer, 2048 for the judge's verdict, 100
// for a rewritten query and 256 for a ranking of passages (WithRerank).
func DefaultTokenLimits() TokenLimits {
	return TokenLimits{
		Decompose: decomposer.DefaultMaxTokens,
		Generate:  generator.DefaultMaxTokens,
		Judge:     DefaultJudgeMaxTokens,
		Rewrite:   retriever.DefaultRewriteMaxTokens,
		Rerank:    retriever.DefaultRerankMaxTokens,
	}
}

// or returns l with its zero fields taken from def.
func (l TokenLimits) or(def TokenLimits) TokenLimits {
	pick := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	return TokenLimits{pick(l.Decompose, def.Decompose), pick(l.Generate, def.Generate), pick(l.Judge, def.Judge), pick(l.Rewrite, def.Rewrite), pick(l.Rerank, def.Rerank)}
}

// WithTokenLimits sets the max_tokens bound of each LLM stage; zero fields
// keep the defaults (DefaultTokenLimits). Negative values are an error.
func WithTokenLimits(l TokenLimits) Option {
	return func(c *config) error {
		if l.Decompose < 0 || l.Generate < 0 || l.Judge < 0 || l.Rewrite < 0 || l.Rerank < 0 {
			return fmt.Errorf("WithTokenLimits: token limits must be 0 (default) or more, got %+v", l)
		}
		c.llm.limits = l
		return nil
	}
}

// JudgeSettings returns the settings of the LLM judge: temperature 0 (sent
// explicitly on every provider, so verdicts are repeatable) and max_tokens
// maxTokens (DefaultJudgeMaxTokens when 0).
func JudgeSettings(modelName string, maxTokens int) llm.Settings {
	if maxTokens <= 0 {
		maxTokens = DefaultJudgeMaxTokens
	}
	return llm.Settings{ModelName: modelName, Temperature: llm.Temperature(0), MaxTokens: maxTokens}
}

// WithLLM makes decompose, generate and judge LLM calls through model —
// any langchaingo llms.Model (OpenAI, Anthropic, Ollama, ... or the
// go-openai adapter in package llm/openai). The judge's deterministic
// guards still run on every verdict. Stages set explicitly with
// WithDecomposer, WithGenerator or WithJudge are kept. A reasoning model's
// thinking written into its replies (<think>…</think>) is set apart from
// the answer (llm.SeparateThinking).
func WithLLM(model llms.Model) Option {
	return func(c *config) error {
		if model == nil {
			return errors.New("WithLLM: model is nil")
		}
		c.llm.model = llm.SeparateThinking(model)
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
		c.llm.judgeModel = llm.SeparateThinking(model)
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

// WithRerank has the model read the n passages retrieval ranks best for
// each pass (at least the LLMSections it hands on) and put the ones that
// answer first (retriever.Reranking, prompt "rerank"): it finds a passage
// that states the answer in other words than the question's, which
// ranking by words misses ("we may disclose your data to our affiliates"
// for "do you share my information?"). It costs one more model call per
// pass, with about 200 words of each passage. 0 turns it off (the
// default); at most retriever.MaxRerankCandidates; it applies only when a
// model writes the answer (WithLLM).
func WithRerank(n int) Option {
	return func(c *config) error {
		if n < 0 || n > retriever.MaxRerankCandidates {
			return fmt.Errorf("WithRerank: the number of passages must be 0 (off) to %d, got %d", retriever.MaxRerankCandidates, n)
		}
		c.llm.rerank = n
		return nil
	}
}

// LLMSections is how many sections retrieval hands a model that writes the
// answer, where the offline generator gets index.DefaultTopK (5): a model
// reads ten sections as easily as five, and on documents nobody tuned for
// the passage that answers is often 6th to 10th. First-pass evidence
// recall at 5 and 10, dev splits (docs/retrieval.md): policyqa 0.598 and
// 0.734, cuad 0.846 and 0.942, SQuAD 0.953 and 0.970; filings 0.974 and
// the contract set 1.000 at both.
const LLMSections = 10

// deeper asks its retriever for k sections (schema.WithRetrieveDepth)
// unless the caller set a depth (an evaluation reading deeper).
type deeper struct {
	schema.Retriever
	k int
}

func (d deeper) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	if schema.RetrieveDepth(ctx) == 0 {
		ctx = schema.WithRetrieveDepth(ctx, d.k)
	}
	return d.Retriever.Retrieve(ctx, req)
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
	limits := c.llm.limits.or(DefaultTokenLimits())
	root := c.sourceRoot
	if root == "" {
		root = sectionsRoot(c.sections)
	}
	named := func(maxTokens int) llm.Settings { return llm.Settings{ModelName: c.llm.name, MaxTokens: maxTokens} }
	if main != nil {
		c.retriever = retriever.WithRewriter(c.retriever, retriever.NewLLMRewriter(main, retriever.LLMRewriterOptions{Settings: named(limits.Rewrite)}))
		if c.decomposer == nil {
			c.decomposer = decomposer.NewLLM(main, decomposer.LLMOptions{Settings: named(limits.Decompose), Fallback: decomposer.NewOffline()})
		}
		if c.generator == nil {
			c.generator = relGenerator{generator.NewLLM(main, generator.LLMOptions{Settings: named(limits.Generate), NoStream: c.llm.noStream}), root}
			if c.llm.rerank > 0 {
				c.retriever = &retriever.Reranking{Retriever: c.retriever, K: LLMSections, Candidates: c.llm.rerank,
					Reranker: retriever.NewLLMReranker(main, retriever.LLMRerankerOptions{Settings: named(limits.Rerank)})}
			} else {
				c.retriever = deeper{c.retriever, LLMSections}
			}
		}
	}
	if c.judge == nil && judgeModel != nil {
		c.judge = relJudge{judge.NewLLM(judgeModel, judge.LLMOptions{Settings: JudgeSettings(judgeName, limits.Judge)}), root}
	}
	if c.decomposer == nil {
		c.decomposer = decomposer.NewOffline()
	}
	if c.generator == nil {
		c.generator = generator.NewOffline()
	}
	corpus := c.corpus
	if corpus == nil && len(c.sections) > 0 && (c.judge == nil || c.speller == nil && !c.noSpeller) {
		corpus = judge.NewMemCorpus(c.sections)
	}
	if vocab, ok := corpus.(spell.Vocabulary); ok && c.speller == nil && !c.noSpeller {
		c.speller = spell.New(vocab)
	}
	if c.judge == nil {
		// the whole corpus lets the judge weight the question's terms by
		// their rarity in it (a term no document mentions cannot be addressed)
		var opts []judge.Option
		if corpus != nil {
			opts = append(opts, judge.WithCorpusStats(corpus))
		}
		if c.minConfidence != nil {
			opts = append(opts, judge.WithMinConfidence(*c.minConfidence))
		}
		c.judge = judge.NewOffline(opts...)
	}
	return nil
}

// mode is ModeLLM when any stage calls a model, else ModeOffline.
func (c *config) mode() Mode {
	if c.llm.model != nil || c.llm.judgeModel != nil {
		return ModeLLM
	}
	return ModeOffline
}
