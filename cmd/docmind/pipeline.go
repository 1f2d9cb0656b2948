package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/retriever"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// pipelineFlags are the flags of every command that runs the pipeline
// (ask, chat, eval qa), named the same everywhere.
type pipelineFlags struct {
	docs string
	// followSymlinks reads links out of the --docs folder.
	followSymlinks bool
	// question is the one question a one-shot ask runs: --docs may then
	// answer it from the documents read so far (docsIndex).
	question string
	index    string
	// createIndex creates the index when there is none (serve, whose
	// documents can be uploaded) instead of failing. With --docs it also
	// keeps the folder's index in the served cache
	// (index.ServedCacheDirForIn), which holds the uploads too.
	createIndex bool
	store       string
	embed       embedFlags
	maxRetries  int
	minConf     float64
	provider    string
	model       string
	judgeModel  string
	baseURL     string
	timeout     time.Duration
	callTimeout time.Duration
	noStream    bool
	maxTokens   map[string]int
	rerank      int
}

func (pf *pipelineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&pf.docs, "docs", "", "folder (or file) of documents to answer from (default: the index built by docmind ingest)")
	followFlag(cmd, &pf.followSymlinks)
	indexFlag(cmd, &pf.index)
	storeFlag(cmd, &pf.store)
	pf.embed.register(cmd)
	f.IntVar(&pf.maxRetries, "max-retries", 2, "judged retries before giving up")
	f.Float64Var(&pf.minConf, "min-confidence", judge.DefaultMinConfidence, "least confidence (the offline judge's calibrated estimate that the answer is correct, 0-1) to return an answer rather than the fallback; higher answers fewer questions, more accurately")
	f.BoolVar(&pf.noStream, "no-stream", false, "do not stream the draft answer")
	f.IntVar(&pf.rerank, "rerank", 0, fmt.Sprintf("LLM mode: the model reads the N passages retrieval ranks best (e.g. %d) and puts those that answer first, which finds answers worded unlike the question; one more call per pass (0: off)", retriever.DefaultRerankCandidates))
	pf.registerLLM(cmd)
}

// buildPipeline loads the documents, picks offline or LLM mode and builds
// the pipeline. It prints one line on stderr saying which mode runs.
func (a *app) buildPipeline(ctx context.Context, cmd *cobra.Command, pf *pipelineFlags, obs schema.Observer, extra ...docmind.Option) (*docmind.Pipeline, error) {
	p, _, err := a.openPipeline(ctx, cmd, pf, obs, extra...)
	return p, err
}

// openPipeline is buildPipeline that also returns the document source the
// pipeline answers from (for commands that search it too, like mcp).
func (a *app) openPipeline(ctx context.Context, cmd *cobra.Command, pf *pipelineFlags, obs schema.Observer, extra ...docmind.Option) (*docmind.Pipeline, docSource, error) {
	if pf.maxRetries < 0 {
		return nil, docSource{}, usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--max-retries must be 0 or more, got %d", pf.maxRetries)}
	}
	if pf.rerank < 0 || pf.rerank > retriever.MaxRerankCandidates {
		return nil, docSource{}, usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--rerank must be 0 (off) or a number of passages up to %d, got %d", retriever.MaxRerankCandidates, pf.rerank)}
	}
	if pf.minConf < 0 || pf.minConf > 1 {
		return nil, docSource{}, usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--min-confidence must be between 0 and 1, got %v", pf.minConf)}
	}
	limits, err := pf.tokenLimits(cmd)
	if err != nil {
		return nil, docSource{}, err
	}
	if url := a.storeURL(pf.store); url != "" && (cmd.Name() == "serve" || cmd.Name() == "mcp") {
		return nil, docSource{}, usageError{cmd: cmdPath(cmd), err: fmt.Errorf("%s serves the SQLite index only; --store (or $DOCMIND_STORE=%s) applies to ingest, ask, chat and eval qa", cmd.Name(), url)}
	}
	src, err := a.documentSource(ctx, pf)
	if err != nil {
		return nil, docSource{}, err
	}
	models, err := a.models(pf)
	if err != nil {
		return nil, docSource{}, err
	}

	opts := append(src.opts,
		docmind.WithMaxRetries(pf.maxRetries),
		docmind.WithMinConfidence(pf.minConf),
		docmind.WithLogger(a.logger()),
	)
	opts = append(opts, docmind.WithObserver(fallbackNotice{w: a.stderr, next: obs}))
	if !models.Offline() {
		opts = append(opts, docmind.WithLLM(models.Main), docmind.WithJudgeLLM(models.Judge),
			docmind.WithModelNames(models.Name, models.JudgeName), docmind.WithTokenLimits(limits))
		if pf.noStream {
			opts = append(opts, docmind.WithoutStreaming())
		}
		opts = append(opts, docmind.WithRerank(pf.rerank))
	} else if pf.rerank > 0 {
		return nil, docSource{}, usageError{cmd: cmdPath(cmd), err: errors.New("--rerank needs a model to read the passages (LLM mode: set --provider, or OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST); offline, retrieval ranks them")}
	}
	p, err := docmind.New(append(opts, extra...)...)
	return p, src, err
}

// models picks the LLM (or none: offline) from the flags and environment,
// and says on stderr which mode runs.
func (a *app) models(pf *pipelineFlags) (providers.Models, error) {
	models, err := providers.FromEnv(a.getenv, pf.llmConfig())
	if err != nil {
		return providers.Models{}, err
	}
	fmt.Fprintf(a.stderr, "docmind: %s\n", models.Describe())
	return models, nil
}

// registerLLM registers the LLM flags only (for commands that run one
// stage, like eval judge).
func (pf *pipelineFlags) registerLLM(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&pf.provider, "provider", "", `LLM provider: openai, anthropic, ollama or offline (default: from the environment)`)
	f.StringVar(&pf.model, "model", "", "LLM model (default: $DOCMIND_MODEL, then the provider's default)")
	f.StringVar(&pf.judgeModel, "judge-model", "", "model for the judge (default: $DOCMIND_JUDGE_MODEL, then --model)")
	f.StringVar(&pf.baseURL, "base-url", "", "OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
	f.DurationVar(&pf.timeout, "timeout", 0, fmt.Sprintf("deadline for the whole run of a question, every LLM call and retry included (default and 0: %s); each call gets at most %s and its share of the time left",
		defaultRunTimeout, providers.DefaultTimeout))
	f.DurationVar(&pf.callTimeout, "call-timeout", 0, fmt.Sprintf("most one LLM call may take before it is tried again (default and 0: %s); a slow local model may need more, e.g. 10m",
		providers.DefaultTimeout))
	d := docmind.DefaultTokenLimits()
	f.StringToIntVar(&pf.maxTokens, "max-tokens", nil, fmt.Sprintf("max_tokens per LLM stage, e.g. judge=4096,generate=2048 (defaults: decompose=%d, generate=%d, judge=%d, rewrite=%d, rerank=%d)",
		d.Decompose, d.Generate, d.Judge, d.Rewrite, d.Rerank))
}

// llmConfig is the providers.Config of the LLM flags.
func (pf *pipelineFlags) llmConfig() providers.Config {
	return providers.Config{Provider: pf.provider, Model: pf.model, JudgeModel: pf.judgeModel, BaseURL: pf.baseURL, Timeout: pf.callTimeout}
}

// defaultRunTimeout bounds the run of one question when --timeout is not
// given.
const defaultRunTimeout = 10 * time.Minute

// runContext bounds the run of one question by --timeout.
func (pf *pipelineFlags) runContext(ctx context.Context) (context.Context, context.CancelFunc) {
	d := pf.timeout
	if d <= 0 {
		d = defaultRunTimeout
	}
	return context.WithTimeoutCause(ctx, d, &deadlineError{d})
}

// deadlineError is why a run stopped at its --timeout.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("the run did not finish within --timeout %s", e.d)
}

// runError words the error of a run whose context came from runContext:
// a passed deadline says which --timeout it was.
func runError(ctx context.Context, err error) error {
	var de *deadlineError
	if err != nil && ctx.Err() != nil && errors.As(context.Cause(ctx), &de) {
		return de
	}
	return err
}

// tokenLimits reads --max-tokens.
// checkLLM checks the LLM flags that need no model to be checked
// (registerLLM), before any work.
func (pf *pipelineFlags) checkLLM(cmd *cobra.Command) error {
	if !providers.Known(pf.provider) {
		return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--provider %q: unknown LLM provider (use openai, anthropic, ollama or offline)", pf.provider)}
	}
	if pf.timeout < 0 {
		return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--timeout must be a positive duration (0: the default %s), got %s", defaultRunTimeout, pf.timeout)}
	}
	if pf.callTimeout < 0 {
		return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--call-timeout must be a positive duration (0: the default %s), got %s", providers.DefaultTimeout, pf.callTimeout)}
	}
	return nil
}

// tokenLimits checks the LLM flags (checkLLM) and returns the --max-tokens
// limits.
func (pf *pipelineFlags) tokenLimits(cmd *cobra.Command) (docmind.TokenLimits, error) {
	var l docmind.TokenLimits
	if err := pf.checkLLM(cmd); err != nil {
		return l, err
	}
	for stage, n := range pf.maxTokens {
		if n <= 0 {
			return l, usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--max-tokens %s=%d: the limit must be a positive number of tokens", stage, n)}
		}
		switch stage {
		case "decompose":
			l.Decompose = n
		case "generate":
			l.Generate = n
		case "judge":
			l.Judge = n
		case "rewrite":
			l.Rewrite = n
		case "rerank":
			l.Rerank = n
		default:
			return l, usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--max-tokens: unknown stage %q (use decompose, generate, judge, rewrite or rerank)", stage)}
		}
	}
	return l, nil
}

// docSource is where answers come from: the pipeline's options, the open
// index and how a document path stored in it is shown to the user.
type docSource struct {
	opts    []docmind.Option
	index   *index.Index
	display func(path string) string
}

// documentSource returns where answers come from: the persistent index
// (--index or the default location), or the documents of --docs brought
// into a per-folder cached index by the same ingest — one walker, one
// parser, one BM25, so that a folder gets the same answers either way. The
// index is opened for this command and closed when it ends.
func (a *app) documentSource(ctx context.Context, pf *pipelineFlags) (docSource, error) {
	if url := a.storeURL(pf.store); url != "" {
		return a.storeSource(ctx, pf, url)
	}
	if pf.docs == "" {
		emb, err := a.embedding(pf.embed.config(providers.Config{Provider: pf.provider, BaseURL: pf.baseURL}))
		if err != nil {
			return docSource{}, err
		}
		ix, err := a.openIndexEmbedded(ctx, pf.index, pf.createIndex, emb, false)
		if err != nil {
			return docSource{}, err
		}
		a.closers = append(a.closers, func() { ix.Close() })
		src, n, err := storedSource(ctx, ix, ix.Retriever(), ix.Corpus())
		if err != nil {
			return docSource{}, err
		}
		switch {
		case n == 0 && pf.createIndex:
			fmt.Fprintf(a.stderr, "docmind: the index at %s has no documents yet: upload them on the page (or POST /api/v1/documents), or run docmind ingest PATH\n", ix.Path())
		case n == 0:
			// every answer would be a refusal that blames the question
			return docSource{}, fmt.Errorf("the index at %s holds no documents: run docmind ingest PATH first, or pass --docs DIR", ix.Path())
		}
		src.index = ix
		return src, nil
	}
	if pf.embed.model != "" {
		fmt.Fprintln(a.stderr, "docmind: --embed-model applies to the index; --docs answers with BM25 only")
	}
	ix, err := a.docsIndex(ctx, pf.docs, pf.followSymlinks, pf.question, pf.createIndex)
	if err != nil {
		return docSource{}, err
	}
	root, err := filepath.Abs(pf.docs)
	if err != nil {
		return docSource{}, err
	}
	// sources show as paths under the folder typed; prompts show them
	// relative to it
	ret := relativeSources{Retriever: ix.Retriever(), root: root, docs: filepath.Clean(pf.docs)}
	promptRoot := filepath.Clean(pf.docs)
	if fi, err := os.Stat(promptRoot); err == nil && !fi.IsDir() {
		promptRoot = filepath.Dir(promptRoot)
	}
	opts := []docmind.Option{docmind.WithRetriever(ret), docmind.WithCorpus(ix.Corpus()), docmind.WithSourceRoot(promptRoot)}
	return docSource{opts: opts, index: ix, display: ret.display}, nil
}

// storedSource is the source of a persistent store (the index, or a
// --store): the judge weighs the question's terms by their rarity in the
// whole store, as it does over the sections of --docs; prompts show the
// documents' paths relative to the folder they were ingested from. It
// also returns the number of documents.
func storedSource(ctx context.Context, st interface {
	Documents(context.Context) ([]index.Document, error)
}, ret schema.Retriever, corpus judge.Corpus) (docSource, int, error) {
	docs, err := st.Documents(ctx)
	if err != nil {
		return docSource{}, 0, err
	}
	paths := make([]string, len(docs))
	for i, d := range docs {
		paths[i] = d.Path
	}
	opts := []docmind.Option{docmind.WithRetriever(ret), docmind.WithCorpus(corpus),
		docmind.WithSourceRoot(docmind.SourceRoot(paths...))}
	return docSource{opts: opts, display: func(p string) string { return p }}, len(docs), nil
}

// fallbackNotice says on stderr when a stage fell back from the model's
// reply (the decomposition's Fallback, a follow-up's rewrite) or kept one
// cut off at its token limit (the state's notes), then passes events on
// to next.
type fallbackNotice struct {
	w    io.Writer
	next schema.Observer
}

// OnEvent implements schema.Observer.
func (f fallbackNotice) OnEvent(ctx context.Context, ev schema.Event) {
	switch {
	case ev.State == nil:
	case ev.Type == schema.EventNodeStart && ev.Node == schema.NodeDecompose:
		// The rewrite ran before the pipeline.
		f.note(threads.StageRewrite, ev.State.Notes[threads.StageRewrite])
	case ev.Type != schema.EventNodeEnd:
	case ev.Node == schema.NodeDecompose && ev.State.Decomposition != nil && ev.State.Decomposition.Fallback != "":
		fmt.Fprintf(f.w, "docmind: %s\n", oneLineText(ev.State.Decomposition.Fallback))
	default:
		f.note(ev.Node, ev.State.Notes[ev.Node])
	}
	if f.next != nil {
		f.next.OnEvent(ctx, ev)
	}
}

// note says a stage's note, if any.
func (f fallbackNotice) note(stage, note string) {
	if note != "" {
		fmt.Fprintf(f.w, "docmind: %s: %s\n", stage, oneLineText(note))
	}
}
