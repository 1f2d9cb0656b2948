package llm

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/embeddings"
)

// RetryEmbedder wraps any langchaingo embeddings client (llm/openai's
// Model, langchaingo's Ollama client, a user's own) with RetryPolicy, as
// Retry does for chat models: transient failures are retried, every failure
// comes back as an *Error with one clear line, and a reply with the wrong
// number of vectors is an error rather than a later index-out-of-range.
type RetryEmbedder struct {
	Client embeddings.EmbedderClient
	Policy RetryPolicy
}

// WithEmbeddingRetry returns c wrapped with policy p.
func WithEmbeddingRetry(c embeddings.EmbedderClient, p RetryPolicy) *RetryEmbedder {
	return &RetryEmbedder{Client: c, Policy: p}
}

var _ embeddings.EmbedderClient = (*RetryEmbedder)(nil)

// CreateEmbedding implements embeddings.EmbedderClient with retries.
func (r *RetryEmbedder) CreateEmbedding(ctx context.Context, texts []string) ([][]float32, error) {
	p := r.Policy.withDefaults()
	n := 0
	return retryLoop(ctx, p, nil, func() (vecs [][]float32, err error) {
		n++
		actx, cancel := attemptContext(ctx, p, n)
		defer cancel()
		defer recoverPanic(p, &err)
		vecs, err = r.Client.CreateEmbedding(actx, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("embeddings reply has %d vectors for %d texts", len(vecs), len(texts))
		}
		return vecs, markTimeout(ctx, actx, err)
	})
}
