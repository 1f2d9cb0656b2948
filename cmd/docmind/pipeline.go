package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/schema"
)

// pipelineFlags are the flags of every command that runs the pipeline
// (ask, chat, eval qa), named the same everywhere.
type pipelineFlags struct {
	docs string
	// followSymlinks reads links out of the --docs folder.
	followSymlinks bool
	index          string
	embedModel     string
	maxRetries     int
	minConf        float64
	provider       string
	model          string
	judgeModel     string
	baseURL        string
	timeout        time.Duration
	noStream       bool
}

func (pf *pipelineFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&pf.docs, "docs", "", "folder (or file) of documents to answer from (default: the index built by docmind ingest)")
	followFlag(cmd, &pf.followSymlinks)
	indexFlag(cmd, &pf.index)
	embedFlag(cmd, &pf.embedModel)
	f.IntVar(&pf.maxRetries, "max-retries", 2, "judged retries before giving up")
	f.Float64Var(&pf.minConf, "min-confidence", judge.DefaultMinConfidence, "least confidence (the offline judge's calibrated estimate that the answer is correct, 0-1) to return an answer rather than the fallback; higher answers fewer questions, more accurately")
	f.BoolVar(&pf.noStream, "no-stream", false, "do not stream the draft answer")
	pf.registerLLM(cmd)
}

// buildPipeline loads the documents, picks offline or LLM mode and builds
// the pipeline. It prints one line on stderr saying which mode runs.
func (a *app) buildPipeline(ctx context.Context, cmd *cobra.Command, pf *pipelineFlags, obs schema.Observer, extra ...docmind.Option) (*docmind.Pipeline, error) {
	if pf.maxRetries < 0 {
		return nil, usageError{cmd: cmd.Name(), err: fmt.Errorf("--max-retries must be 0 or more, got %d", pf.maxRetries)}
	}
	if pf.minConf < 0 || pf.minConf > 1 {
		return nil, usageError{cmd: cmd.Name(), err: fmt.Errorf("--min-confidence must be between 0 and 1, got %v", pf.minConf)}
	}
	sources, err := a.documentSource(ctx, pf)
	if err != nil {
		return nil, err
	}
	models, err := a.models(pf)
	if err != nil {
		return nil, err
	}

	opts := append(sources,
		docmind.WithMaxRetries(pf.maxRetries),
		docmind.WithMinConfidence(pf.minConf),
		docmind.WithLogger(a.logger()),
	)
	if obs != nil {
		opts = append(opts, docmind.WithObserver(obs))
	}
	if !models.Offline() {
		opts = append(opts, docmind.WithLLM(models.Main), docmind.WithJudgeLLM(models.Judge),
			docmind.WithModelNames(models.Name, models.JudgeName))
		if pf.noStream {
			opts = append(opts, docmind.WithoutStreaming())
		}
	}
	return docmind.New(append(opts, extra...)...)
}

// models picks the LLM (or none: offline) from the flags and environment,
// and says on stderr which mode runs.
func (a *app) models(pf *pipelineFlags) (providers.Models, error) {
	models, err := providers.FromEnv(a.getenv, providers.Config{
		Provider:   pf.provider,
		Model:      pf.model,
		JudgeModel: pf.judgeModel,
		BaseURL:    pf.baseURL,
		Timeout:    pf.timeout,
	})
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
	f.DurationVar(&pf.timeout, "timeout", 0, "timeout for each LLM call (default 2m)")
}

// documentSource returns where answers come from: the persistent index
// (--index or the default location), or the documents of --docs brought
// into a per-folder cached index by the same ingest — one walker, one
// parser, one BM25, so that a folder gets the same answers either way. The
// index is opened for this command and closed when it ends.
func (a *app) documentSource(ctx context.Context, pf *pipelineFlags) ([]docmind.Option, error) {
	if pf.docs == "" {
		emb, err := a.embedding(providers.Config{Provider: pf.provider, BaseURL: pf.baseURL, Timeout: pf.timeout, EmbedModel: pf.embedModel})
		if err != nil {
			return nil, err
		}
		ix, err := a.openIndexEmbedded(ctx, pf.index, false, emb, false)
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, func() { ix.Close() })
		// the judge weighs the question's terms by their rarity in the whole
		// index
		return []docmind.Option{docmind.WithRetriever(ix.Retriever()), docmind.WithCorpus(ix.Corpus())}, nil
	}
	if pf.embedModel != "" {
		fmt.Fprintln(a.stderr, "docmind: --embed-model applies to the index; --docs answers with BM25 only")
	}
	ix, err := a.docsIndex(ctx, pf.docs, pf.followSymlinks)
	if err != nil {
		return nil, err
	}
	root, err := filepath.Abs(pf.docs)
	if err != nil {
		return nil, err
	}
	ret := relativeSources{Retriever: ix.Retriever(), root: root, docs: filepath.Clean(pf.docs)}
	return []docmind.Option{docmind.WithRetriever(ret), docmind.WithCorpus(ix.Corpus())}, nil
}
