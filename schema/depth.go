package schema

import "context"

type retrieveDepthKey struct{}

// WithRetrieveDepth asks the retrievers run under ctx to return up to k
// sections instead of the number they are configured to hand on: how an
// evaluation reads deeper into the ranking a pipeline's own retrieval
// produces (docmind eval evidence reads 20) without building another
// retriever. k <= 0 leaves the retriever's own setting. A retriever that
// does not read the depth returns what it always does.
func WithRetrieveDepth(ctx context.Context, k int) context.Context {
	return context.WithValue(ctx, retrieveDepthKey{}, k)
}

// RetrieveDepth returns the depth set with WithRetrieveDepth, or 0.
func RetrieveDepth(ctx context.Context) int {
	k, _ := ctx.Value(retrieveDepthKey{}).(int)
	return max(k, 0)
}
