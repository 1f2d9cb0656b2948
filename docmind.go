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
//	p, err := docmind.FromDocuments(ctx, "examples/contract")
//	defer p.Close()
//	ans, err := p.Ask(ctx, "What are the late payment penalties?")
//	fmt.Println(ans.Text, ans.Citations, ans.Confidence, ans.Refused)
//
// Open answers from an index that docmind ingest built; Stream yields the
// run's events and the answer's tokens as they come. PDF files are read
// when the program imports the PDF package (the docmind command does):
//
//	import _ "github.com/docmind/docmind/formats/pdf"
//
// The stages' interfaces and the run's full record (schema.State, which
// Answer.State holds) are in package schema; the run loop is in package
// chains.
package docmind

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// FallbackMessage is the exact text returned instead of an ungrounded answer.
const FallbackMessage = schema.FallbackMessage

// Node names, as recorded in the state's NodeHistory and in the Node of
// a streamed Event.
const (
	NodeDecompose = schema.NodeDecompose
	NodeRetrieve  = schema.NodeRetrieve
	NodeGenerate  = schema.NodeGenerate
	NodeJudge     = schema.NodeJudge
	NodeOutput    = schema.NodeOutput
)

// ErrEmptyQuery is returned (wrapped) for a question with no words in it,
// by Ask and by the decomposers: one value, so errors.Is finds it wherever
// the run stopped.
var ErrEmptyQuery = schema.ErrEmptyQuery

// Mode says whether a Pipeline calls a language model.
type Mode string

// The modes.
const (
	// ModeOffline: every stage is deterministic and local.
	ModeOffline Mode = "offline"
	// ModeLLM: at least one stage (decompose, generate, judge) calls a model.
	ModeLLM Mode = "llm"
)

// Pipeline answers questions. It is safe for concurrent use when its stages
// are (the offline stages are).
type Pipeline struct {
	runner *chains.Runner
	// streamer is runner with an observer that also sends each event to
	// the Stream call whose context carries it (see Stream).
	streamer *chains.Runner
	mode     Mode
	judge    schema.Judge
	// closers release what Open or FromDocuments opened (Close).
	closers []func() error
}

// New builds a Pipeline. It needs a source of sections: WithRetriever or
// WithSections (FromDocuments and Open build a Pipeline over a folder or
// an index). Stages not given are the offline ones, or the LLM ones when
// WithLLM is given.
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
	cc := chains.Config{
		Decomposer: cfg.decomposer,
		Retriever:  cfg.retriever,
		Generator:  cfg.generator,
		Judge:      cfg.judge,
		Speller:    cfg.speller,
		MaxRetries: cfg.maxRetries,
		Observer:   cfg.observer,
		Logger:     cfg.logger,
		AfterStep:  cfg.afterStep,
	}
	r, err := chains.NewRunner(cc)
	if err != nil {
		return nil, err
	}
	cc.Observer = streamObserver{cfg.observer}
	sr, err := chains.NewRunner(cc)
	if err != nil {
		return nil, err
	}
	return &Pipeline{runner: r, streamer: sr, mode: cfg.mode(), judge: cfg.judge}, nil
}

// Ask answers a question. The Answer's Text is the cited response when the
// judge accepted it, FallbackMessage otherwise (Refused). An error means
// the run could not complete (a stage failed, or ctx was cancelled, in
// which case it is ctx.Err()); the Answer returned with it, when not nil,
// holds the state of what had completed.
func (p *Pipeline) Ask(ctx context.Context, query string) (*Answer, error) {
	id := threads.NewRunID()
	st, err := p.Run(ctx, query)
	return newAnswer(id, st), err
}

// Run answers a question as Ask does and returns the run's whole record
// rather than an Answer: what a caller that prints or stores the state
// (the docmind command's --json) needs.
func (p *Pipeline) Run(ctx context.Context, query string) (*schema.State, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, ErrEmptyQuery
	}
	return p.runner.Run(ctx, schema.NewState(query))
}

// Runner returns the underlying loop, for resuming or forking runs and
// for a threads.Manager.
func (p *Pipeline) Runner() *chains.Runner { return p.runner }

// Judge returns the judge the pipeline runs: the one given with WithJudge,
// or the default its options built (the offline judge over WithCorpus's
// statistics, or the LLM judge of WithJudgeLLM). It judges answers
// written elsewhere as the pipeline judges its own (docmind eval
// relevance uses it).
func (p *Pipeline) Judge() schema.Judge { return p.judge }

// Mode returns ModeOffline or ModeLLM.
func (p *Pipeline) Mode() Mode { return p.mode }

// Close releases what Open or FromDocuments opened (the index). It is a
// no-op for a Pipeline built with New.
func (p *Pipeline) Close() error {
	var errs []error
	for _, c := range p.closers {
		errs = append(errs, c())
	}
	p.closers = nil
	return errors.Join(errs...)
}

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
	afterStep     func(context.Context, chains.Step) error
	llm           llmConfig
	// sourceRoot is WithSourceRoot's folder.
	sourceRoot string
}

// WithSpeller sets what corrects a question's misspelt words before the
// pipeline reads it (see package spell); nil turns correction off. By
// default questions are corrected against the corpus of WithCorpus or
// WithSections when it can count stems (the index, Weaviate and in-memory
// corpora can), and are read as asked otherwise.
func WithSpeller(s schema.Speller) Option {
	return func(c *config) error { c.speller, c.noSpeller = s, s == nil; return nil }
}

// WithRetriever sets the retriever (an index, a langchaingo vector store
// adapter, or your own).
func WithRetriever(r schema.Retriever) Option {
	return func(c *config) error { c.retriever = r; return nil }
}

// WithSections retrieves from these sections with in-memory BM25.
func WithSections(secs []schema.Section) Option {
	return func(c *config) error {
		if len(secs) == 0 {
			return errors.New("no sections to search: the documents had no text")
		}
		c.sections = secs
		return nil
	}
}

// WithCorpus gives the offline judge the statistics of the whole corpus
// that a retriever set with WithRetriever searches, so it weights the
// question's terms by their rarity in all the documents and recognises a
// topic none of them mentions (WithSections does this by itself). A
// persistent index provides them: WithCorpus(ix.Corpus()).
func WithCorpus(c judge.Corpus) Option {
	return func(cfg *config) error { cfg.corpus = c; return nil }
}

// WithDecomposer sets the decomposer.
func WithDecomposer(d schema.Decomposer) Option {
	return func(c *config) error { c.decomposer = d; return nil }
}

// WithGenerator sets the generator.
func WithGenerator(g schema.Generator) Option {
	return func(c *config) error { c.generator = g; return nil }
}

// WithJudge sets the judge.
func WithJudge(j schema.Judge) Option {
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
func WithObserver(o schema.Observer) Option {
	return func(c *config) error { c.observer = o; return nil }
}

// WithLogger sets the logger for retry and error lines (slog.Default()
// otherwise).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error { c.logger = l; return nil }
}

// WithAfterStep calls f after every completed node with the state after it
// (for checkpoints); an error from f stops the run.
func WithAfterStep(f func(context.Context, chains.Step) error) Option {
	return func(c *config) error { c.afterStep = f; return nil }
}
