// Package docmind answers questions over your own documents with answers
// that cite section titles and page numbers, checks every answer for
// hallucinations with a judge, retries retrieval when the judge rejects it,
// and returns FallbackMessage rather than guess.
//
// A Pipeline runs five nodes — decompose, retrieve, generate, judge, output —
// in a plain Go loop with the judge's conditional retry edge (see
// package chains). With no LLM configured every stage is offline and
// deterministic: a rule-based decomposer, BM25 retrieval, an extractive
// generator and a deterministic judge. WithLLM switches decomposer, generator
// and judge to any langchaingo llms.Model; the judge's deterministic guards
// (numbers, percentages, money, durations, dates, quotes, citations) run in
// both modes.
//
//	sections, _, err := docmind.LoadDocuments(ctx, "examples/contract")
//	p, err := docmind.New(docmind.WithSections(sections))
//	st, err := p.Ask(ctx, "What are the late payment penalties?")
//	fmt.Println(st.Answer())
package docmind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
)

// The domain vocabulary, re-exported from package schema so that library
// users — including authors of their own stages — need only this package.
// Every exported name of package schema has its alias here
// (TestRootReexportsSchema checks it).
type (
	// State is the record a run produces; see schema.State.
	State = schema.State
	// Section is a retrievable piece of a document.
	Section = schema.Section
	// Decomposition is the structured reading of a question.
	Decomposition = schema.Decomposition
	// Verdict is the judge's assessment of an answer.
	Verdict = schema.Verdict
	// ClaimCheck is the judge's finding for one claim.
	ClaimCheck = schema.ClaimCheck
	// Evidence is a quote from a section that supports a claim.
	Evidence = schema.Evidence
	// Conflict is a figure that two retrieved sections state differently.
	Conflict = schema.Conflict
	// Finding is one rule's finding on an answer (Verdict.Findings).
	Finding = schema.Finding
	// Event is what an Observer receives as a run progresses.
	Event = schema.Event
	// EventType says what an Event reports.
	EventType = schema.EventType
	// Observer receives events.
	Observer = schema.Observer
	// ObserverFunc adapts a function to Observer.
	ObserverFunc = schema.ObserverFunc
	// Decomposer reads a question into a Decomposition.
	Decomposer = schema.Decomposer
	// Speller corrects a question's misspelt words (package spell).
	Speller = schema.Speller
	// SpellingFix is one word a Speller corrected.
	SpellingFix = schema.SpellingFix
	// Retriever finds sections for a question.
	Retriever = schema.Retriever
	// RetrieveRequest is what a Retriever is asked.
	RetrieveRequest = schema.RetrieveRequest
	// Feedback is the judge's reason for a retry, given to the retriever.
	Feedback = schema.Feedback
	// Generator writes an answer from sections.
	Generator = schema.Generator
	// GenerateRequest is what a Generator is asked.
	GenerateRequest = schema.GenerateRequest
	// Judge checks an answer against its sections.
	Judge = schema.Judge
	// JudgeRequest is what a Judge is asked.
	JudgeRequest = schema.JudgeRequest
	// Usage counts one model call's tokens.
	Usage = schema.Usage
	// RunUsage is a run's token usage, per node and in total.
	RunUsage = schema.RunUsage
	// Meter collects the usage of the model calls made under a context.
	Meter = schema.Meter
)

// FallbackMessage is the exact text returned instead of an ungrounded answer.
const FallbackMessage = schema.FallbackMessage

// Node names, as recorded in State.NodeHistory, and event types (see
// schema.EventType).
const (
	NodeDecompose = schema.NodeDecompose
	NodeRetrieve  = schema.NodeRetrieve
	NodeGenerate  = schema.NodeGenerate
	NodeJudge     = schema.NodeJudge
	NodeOutput    = schema.NodeOutput

	EventNodeStart = schema.EventNodeStart
	EventNodeEnd   = schema.EventNodeEnd
	EventNodeError = schema.EventNodeError
	EventToken     = schema.EventToken
	EventRetry     = schema.EventRetry
)

// ErrEmptyQuery is returned (wrapped) for a question with no words in it,
// by Ask and by the decomposers: one value, so errors.Is finds it wherever
// the run stopped.
var ErrEmptyQuery = schema.ErrEmptyQuery

// NewState starts the state of a run for query.
func NewState(query string) *State { return schema.NewState(query) }

// ContextWithMeter returns ctx with m attached: model calls made under it
// add their usage to m.
func ContextWithMeter(ctx context.Context, m *Meter) context.Context {
	return schema.ContextWithMeter(ctx, m)
}

// RecordUsage reports a model call's usage to the Meter in ctx, if any:
// what a stage that calls a model does so that the run counts its tokens.
func RecordUsage(ctx context.Context, u Usage) { schema.RecordUsage(ctx, u) }

// RecordPromptVersion reports that the running stage used prompt name at
// version; the run stores it in State.PromptVersions.
func RecordPromptVersion(ctx context.Context, name, version string) {
	schema.RecordPromptVersion(ctx, name, version)
}

// RecordNote reports what the reader of a run should know about the
// running stage's output that its fields do not show (such as an answer
// cut off at its token limit); the run stores it in State.Notes under the
// stage's node.
func RecordNote(ctx context.Context, note string) { schema.RecordNote(ctx, note) }

// RecordPassedOver reports a candidate answer the running stage passed
// over, with the IDs of the rules that passed it over; the run stores it
// in State.Notes under the stage's node and PassedOverSuffix.
func RecordPassedOver(ctx context.Context, note string) { schema.RecordPassedOver(ctx, note) }

// PassedOverSuffix ends the key of State.Notes that lists a stage's
// passed-over candidates ("generate.passed_over").
const PassedOverSuffix = schema.PassedOverSuffix

// Mode says whether a Pipeline calls a language model.
type Mode string

// The modes.
const (
	// ModeOffline: every stage is deterministic and local.
	ModeOffline Mode = "offline"
	// ModeLLM: at least one stage (decompose, generate, judge) calls a model.
	ModeLLM Mode = "llm"
)

// The run loop's vocabulary, re-exported from package chains so that a
// checkpoint author (WithAfterStep) or a caller resuming runs
// (Pipeline.Runner) needs only this package. Every chains type that an
// exported name here uses has its alias
// (TestRootReexportsModuleTypesItUses checks it, as for every package
// of this module).
type (
	// Step is what the run loop reports after each completed node, to a
	// WithAfterStep hook or an AfterEachStep hook: the node, the next
	// one, the state after the node, its duration and usage.
	Step = chains.Step
	// Runner is the run loop: the five nodes and the judge's retry edge.
	// Pipeline.Runner returns it, for resuming (RunFrom) or forking runs.
	Runner = chains.Runner
	// RunOption configures one run of a Runner.
	RunOption = chains.RunOption
)

// AfterEachStep calls f after every completed node of one run of a Runner,
// before the hook set with WithAfterStep; an error from f stops the run.
func AfterEachStep(f func(ctx context.Context, step Step) error) RunOption {
	return chains.AfterEachStep(f)
}

// Pipeline answers questions. It is safe for concurrent use when its stages
// are (the offline stages are).
type Pipeline struct {
	runner *Runner
	mode   Mode
	judge  Judge
}

// New builds a Pipeline. It needs a source of sections: WithRetriever,
// WithSections or WithDocuments. Stages not given are the offline ones, or
// the LLM ones when WithLLM is given.
func New(opts ...Option) (*Pipeline, error) {
	cfg := config{maxRetries: chains.DefaultMaxRetries}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if err := cfg.fillDefaults(); err != nil {
		return nil, err
	}
	r, err := chains.NewRunner(chains.Config{
		Decomposer: cfg.decomposer,
		Retriever:  cfg.retriever,
		Generator:  cfg.generator,
		Judge:      cfg.judge,
		Speller:    cfg.speller,
		MaxRetries: cfg.maxRetries,
		Observer:   cfg.observer,
		Logger:     cfg.logger,
		AfterStep:  cfg.afterStep,
	})
	if err != nil {
		return nil, err
	}
	return &Pipeline{runner: r, mode: cfg.mode(), judge: cfg.judge}, nil
}

// Ask runs the pipeline on a question and returns the final state. The
// answer is State.Answer(): the cited response when the judge accepted it,
// FallbackMessage otherwise. An error means the run could not complete
// (a stage failed or ctx was cancelled, in which case it is ctx.Err()); the
// state returned with it holds what had completed.
func (p *Pipeline) Ask(ctx context.Context, query string) (*State, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, ErrEmptyQuery
	}
	return p.runner.Run(ctx, schema.NewState(query))
}

// Runner returns the underlying loop, for resuming or forking runs.
func (p *Pipeline) Runner() *Runner { return p.runner }

// Judge returns the judge the pipeline runs: the one given with WithJudge,
// or the default its options built (the offline judge over WithCorpus's
// statistics, or the LLM judge of WithJudgeLLM). It judges answers
// written elsewhere as the pipeline judges its own (docmind eval
// relevance uses it).
func (p *Pipeline) Judge() Judge { return p.judge }

// Mode returns ModeOffline or ModeLLM.
func (p *Pipeline) Mode() Mode { return p.mode }

// Option configures a Pipeline.
type Option func(*config) error

type config struct {
	decomposer schema.Decomposer
	retriever  schema.Retriever
	generator  schema.Generator
	judge      schema.Judge
	sections   []schema.Section
	corpus     judge.Corpus
	speller    schema.Speller
	noSpeller  bool
	maxRetries int
	// minConfidence is WithMinConfidence's threshold; nil = the judge's
	minConfidence *float64
	observer      schema.Observer
	logger        *slog.Logger
	afterStep     func(context.Context, Step) error
	llm           llmConfig
	// sourceRoot is WithSourceRoot's folder.
	sourceRoot string
}

// WithSpeller sets what corrects a question's misspelt words before the
// pipeline reads it (see package spell); nil turns correction off. By
// default questions are corrected against the corpus of WithCorpus or
// WithSections when it can count stems (the index, Weaviate and in-memory
// corpora can), and are read as asked otherwise.
func WithSpeller(s Speller) Option {
	return func(c *config) error { c.speller, c.noSpeller = s, s == nil; return nil }
}

// WithRetriever sets the retriever (an index, a langchaingo vector store
// adapter, or your own).
func WithRetriever(r Retriever) Option {
	return func(c *config) error { c.retriever = r; return nil }
}

// WithSections retrieves from these sections with in-memory BM25.
func WithSections(secs []Section) Option {
	return func(c *config) error {
		if len(secs) == 0 {
			return errors.New("no sections to search: the documents had no text")
		}
		c.sections = secs
		return nil
	}
}

// The corpus statistics the offline judge weights a question's terms by
// (WithCorpus), re-exported from packages judge and lexicon so that an
// author of their own Corpus needs only this package.
type (
	// Corpus is what the judge needs to know of the whole corpus the
	// retriever searches: its size and how many of its sections mention a
	// term (exactly, or through a synonym in a Thesaurus).
	Corpus = judge.Corpus
	// Thesaurus maps stemmed terms to their synonym groups.
	Thesaurus = lexicon.Thesaurus
	// LexiconEntry is one member of a Thesaurus's synonym group.
	LexiconEntry = lexicon.Entry
	// LexiconText is a stemmed view of a passage, for Thesaurus.Find.
	LexiconText = lexicon.Text
	// LexiconMatch says how a LexiconText mentions a stemmed term.
	LexiconMatch = lexicon.Match
)

// WithCorpus gives the offline judge the statistics of the whole corpus
// that a retriever set with WithRetriever searches, so it weights the
// question's terms by their rarity in all the documents and recognises a
// topic none of them mentions (WithSections does this by itself). A
// persistent index provides them: WithCorpus(ix.Corpus()).
func WithCorpus(c Corpus) Option {
	return func(cfg *config) error { cfg.corpus = c; return nil }
}

// WithDecomposer sets the decomposer.
func WithDecomposer(d Decomposer) Option {
	return func(c *config) error { c.decomposer = d; return nil }
}

// WithGenerator sets the generator.
func WithGenerator(g Generator) Option {
	return func(c *config) error { c.generator = g; return nil }
}

// WithJudge sets the judge.
func WithJudge(j Judge) Option {
	return func(c *config) error { c.judge = j; return nil }
}

// WithMinConfidence sets the least confidence (the offline judge's
// calibrated estimate that the answer is correct, in [0,1]) for an answer
// to be returned rather than the fallback message. Higher answers fewer
// questions more accurately; the default is judge.DefaultMinConfidence.
// It applies to the offline judge built by New, not to one given with
// WithJudge.
func WithMinConfidence(v float64) Option {
	return func(c *config) error {
		if v < 0 || v > 1 {
			return fmt.Errorf("WithMinConfidence: %v is outside [0,1]", v)
		}
		c.minConfidence = &v
		return nil
	}
}

// WithMaxRetries sets how many judged retries a run may make (default 2).
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("max retries must be 0 or more, got %d", n)
		}
		c.maxRetries = n
		return nil
	}
}

// WithObserver receives an event when each node starts and ends, for every
// streamed token of the draft answer, and on every retry.
func WithObserver(o Observer) Option {
	return func(c *config) error { c.observer = o; return nil }
}

// WithLogger sets the logger for retry and error lines (slog.Default()
// otherwise).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithAfterStep calls f after every completed node with the state after it
// (for checkpoints); an error from f stops the run.
func WithAfterStep(f func(context.Context, Step) error) Option {
	return func(c *config) error { c.afterStep = f; return nil }
}
