package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/store/weaviate"
)

// storeFlag is the --store flag of ingest and of the commands that answer.
func storeFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "store", "", "document store instead of the SQLite index: weaviate://HOST:PORT/COLLECTION[?replication=N&shards=N] (default: $DOCMIND_STORE)")
}

// hideStoreFlag leaves --store out of the help of a command that serves
// the SQLite index only (serve, mcp). The flag stays registered, so that
// passing it gets openPipeline's one-line refusal, as $DOCMIND_STORE does.
func hideStoreFlag(cmd *cobra.Command) {
	if err := cmd.Flags().MarkHidden("store"); err != nil {
		panic(err) // registered by pipelineFlags.register
	}
}

// storeURL is --store, else $DOCMIND_STORE ("" for the SQLite index).
func (a *app) storeURL(flag string) string {
	if flag != "" {
		return flag
	}
	return strings.TrimSpace(a.getenv("DOCMIND_STORE"))
}

// openDocStore opens the Weaviate store at url with the embedder configured,
// checked against the model the store's vectors were made with, as
// openIndexEmbedded does for the index.
func (a *app) openDocStore(ctx context.Context, url string, emb providers.Embedding, write bool) (*weaviate.Store, error) {
	if !strings.HasPrefix(url, weaviate.Scheme+"://") {
		return nil, fmt.Errorf("--store %q: unsupported store (use weaviate://HOST:PORT/COLLECTION)", url)
	}
	var opts []weaviate.Option
	if emb.Enabled() {
		opts = append(opts, weaviate.WithEmbedder(emb.Embedder, emb.Model))
	}
	st, err := weaviate.OpenURL(ctx, url, opts...)
	if err != nil {
		return nil, err
	}
	if w := st.Warning(); w != "" {
		fmt.Fprintf(a.stderr, "docmind: warning: %s\n", w)
	}
	have, _, err := st.EmbeddingModel(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case have != "" && emb.Model != have && (emb.Enabled() || write):
		return nil, fmt.Errorf("the store %s holds embeddings from %s; pass --embed-model %s or use a new collection", st.Name(), have, have)
	case have != "" && !emb.Enabled():
		fmt.Fprintf(a.stderr, "docmind: the store has embeddings from %s; searching with BM25 only (pass --embed-model %s to use them)\n", have, have)
	case have == "" && emb.Enabled() && !write:
		fmt.Fprintf(a.stderr, "docmind: the store has no embeddings; searching with BM25 only\n")
		return weaviate.OpenURL(ctx, url)
	}
	if emb.Enabled() {
		fmt.Fprintf(a.stderr, "docmind: %s\n", emb.Describe())
	}
	return st, nil
}

// storeSource is documentSource for a --store.
func (a *app) storeSource(ctx context.Context, pf *pipelineFlags, url string) (docSource, error) {
	if pf.docs != "" {
		return docSource{}, errors.New("--docs and --store (or $DOCMIND_STORE) both name the documents: pass one")
	}
	if pf.index != "" {
		return docSource{}, errors.New("--index and --store (or $DOCMIND_STORE) both name the index: pass one")
	}
	emb, err := a.embedding(pf.embed.config(providers.Config{Provider: pf.provider, BaseURL: pf.baseURL}))
	if err != nil {
		return docSource{}, err
	}
	st, err := a.openDocStore(ctx, url, emb, false)
	if err != nil {
		return docSource{}, err
	}
	a.closers = append(a.closers, func() { st.Close() })
	src, n, err := storedSource(ctx, st, st.Retriever(), st.Corpus())
	if err == nil && n == 0 {
		return docSource{}, fmt.Errorf("the store %s holds no documents: run docmind ingest --store %s PATH first", st.Name(), url)
	}
	return src, err
}
