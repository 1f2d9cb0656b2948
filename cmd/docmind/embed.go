package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/llm/providers"
)

// embedFlags are the embedding flags (ingest, ask, chat, eval qa).
type embedFlags struct {
	model, baseURL string
}

// register adds --embed-model and --embed-base-url.
func (ef *embedFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&ef.model, "embed-model", "",
		"embedding model for hybrid BM25 + dense retrieval from the index, e.g. text-embedding-3-small (default: $DOCMIND_EMBED_MODEL; none: BM25 only). Uses --embed-base-url, else OPENAI_BASE_URL/OPENAI_API_KEY or OLLAMA_HOST")
	cmd.Flags().StringVar(&ef.baseURL, "embed-base-url", "",
		"separate OpenAI-compatible endpoint for embeddings, with the key in $DOCMIND_EMBED_API_KEY (default: $DOCMIND_EMBED_BASE_URL, then the chat endpoint)")
}

// config is the embeddings part of a providers.Config.
func (ef *embedFlags) config(cfg providers.Config) providers.Config {
	cfg.EmbedModel, cfg.EmbedBaseURL = ef.model, ef.baseURL
	return cfg
}

// modelMismatchError is index.ErrModelMismatch worded for the person at
// the command line.
type modelMismatchError struct {
	path, have, want string
}

func (e modelMismatchError) Error() string {
	if e.want == "" {
		return fmt.Sprintf("the index %s was built with embeddings from %s; pass --embed-model %s or re-ingest into a new --index", e.path, e.have, e.have)
	}
	return fmt.Sprintf("the index %s was built with embeddings from %s, not %s; pass --embed-model %s or re-ingest into a new --index", e.path, e.have, e.want, e.have)
}

func (e modelMismatchError) Unwrap() error { return index.ErrModelMismatch }

// embedding builds the embedder that the flag and the environment
// configure (none: BM25 only).
func (a *app) embedding(cfg providers.Config) (providers.Embedding, error) {
	return providers.EmbedderFromEnv(a.getenv, cfg)
}

// indexOptions checks emb against the model the index was built with and
// returns the options to reopen it with. Writing (ingest) without the
// index's model is refused, since new sections would lack vectors;
// reading without it searches BM25 only, with a note. Reading an index
// without vectors skips the embedder (nothing to compare the query with).
func (a *app) indexOptions(ctx context.Context, ix *index.Index, emb providers.Embedding, write bool) ([]index.Option, error) {
	have, _, err := ix.EmbeddingModel(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case have != "" && emb.Model != have && (emb.Enabled() || write):
		return nil, modelMismatchError{path: ix.Path(), have: have, want: emb.Model}
	case have != "" && !emb.Enabled():
		fmt.Fprintf(a.stderr, "docmind: the index has embeddings from %s; searching with BM25 only (pass --embed-model %s to use them)\n", have, have)
	case have == "" && emb.Enabled() && !write:
		fmt.Fprintf(a.stderr, "docmind: the index has no embeddings; searching with BM25 only (ingest into a new --index with --embed-model %s to add them)\n", emb.Model)
		return nil, nil
	}
	if !emb.Enabled() {
		return nil, nil
	}
	return []index.Option{index.WithEmbedder(emb.Embedder, emb.Model)}, nil
}

// openIndexEmbedded is openIndex with the embedder checked against the
// index and configured when it applies; it then says on stderr which
// embeddings are used.
func (a *app) openIndexEmbedded(ctx context.Context, dir string, create bool, emb providers.Embedding, write bool) (*index.Index, error) {
	ix, err := a.openIndex(ctx, dir, create)
	if err != nil {
		return nil, err
	}
	opts, err := a.indexOptions(ctx, ix, emb, write)
	if err != nil || len(opts) == 0 {
		if err != nil {
			ix.Close()
		}
		return ix, err
	}
	ix.Close()
	if ix, err = a.openIndex(ctx, dir, create, opts...); err != nil {
		return nil, err
	}
	fmt.Fprintf(a.stderr, "docmind: %s\n", emb.Describe())
	return ix, nil
}

// warnUnembedded says when some sections of the index have no vectors:
// files indexed before an embedding model was used that this ingest did not
// cover (the files it covered get their vectors).
func (a *app) warnUnembedded(ctx context.Context, ix *index.Index, emb providers.Embedding) {
	if !emb.Enabled() {
		return
	}
	st, err := ix.Stats(ctx)
	if err != nil || st.Vectors >= st.Sections {
		return
	}
	fmt.Fprintf(a.stderr, "docmind: %d of %d sections have no vectors (their files were indexed without --embed-model); dense search covers only the rest. Ingest those files again with --embed-model to embed them.\n",
		st.Sections-st.Vectors, st.Sections)
}
