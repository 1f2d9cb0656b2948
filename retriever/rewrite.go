package retriever

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// QueryRewriter turns a question and the judge's feedback on a rejected
// answer into a new search query for the retry.
type QueryRewriter interface {
	Rewrite(ctx context.Context, query string, fb *schema.Feedback) (string, error)
}

// KeywordRewriter is the offline rewriter: the question plus up to
// MaxTerms content words of the unsupported claims that the question does
// not already contain (numbers left out, since a wrong number is what
// usually got the answer rejected).
type KeywordRewriter struct {
	// MaxTerms bounds the words added; 0 means 6.
	MaxTerms int
}

// Rewrite implements QueryRewriter; it never fails.
func (k KeywordRewriter) Rewrite(_ context.Context, query string, fb *schema.Feedback) (string, error) {
	if fb == nil {
		return query, nil
	}
	limit := k.MaxTerms
	if limit <= 0 {
		limit = 6
	}
	have := map[string]bool{}
	for _, t := range textproc.Terms(query) {
		have[t] = true
	}
	var add []string
	for _, c := range fb.UnsupportedClaims {
		for _, w := range textproc.ContentWords(stripReferences(c)) {
			t := textproc.Stem(w)
			if have[t] || strings.ContainsAny(w, "0123456789") || len(add) >= limit {
				continue
			}
			have[t] = true
			add = append(add, w)
		}
	}
	if len(add) == 0 {
		return query, nil
	}
	return query + " " + strings.Join(add, " "), nil
}

// stripReferences drops "(See title, page n)" references from a claim.
func stripReferences(s string) string {
	for {
		i := strings.Index(s, "(See ")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+1:]
	}
}

// DefaultRewriteMaxTokens bounds the rewritten query when
// LLMRewriterOptions.MaxTokens is 0.
const DefaultRewriteMaxTokens = 100

// LLMRewriterOptions tunes NewLLMRewriter. The zero value is usable.
type LLMRewriterOptions struct {
	// Settings; MaxTokens 0 means DefaultRewriteMaxTokens.
	llm.Settings
}

// LLMRewriter asks a model for the new query (prompt "rewrite").
type LLMRewriter struct {
	model llms.Model
	opts  LLMRewriterOptions
}

// NewLLMRewriter returns a rewriter over model.
func NewLLMRewriter(model llms.Model, opts LLMRewriterOptions) *LLMRewriter {
	return &LLMRewriter{model: model, opts: opts}
}

// Rewrite implements QueryRewriter. It returns the question unchanged when there
// is no feedback, and an error when the model fails or replies with nothing
// usable.
func (r *LLMRewriter) Rewrite(ctx context.Context, query string, fb *schema.Feedback) (string, error) {
	if fb == nil || (len(fb.UnsupportedClaims) == 0 && strings.TrimSpace(fb.Reasoning) == "") {
		return query, nil
	}
	msgs, err := prompts.MustGet(prompts.NameRewrite).Messages(ctx, prompts.RewriteData{
		Query: query, Unsupported: fb.UnsupportedClaims, Reasoning: fb.Reasoning,
	})
	if err != nil {
		return "", err
	}
	opts := r.opts.Or(llm.Settings{MaxTokens: DefaultRewriteMaxTokens})
	resp, err := r.model.GenerateContent(ctx, msgs, opts.CallOptions()...)
	if err != nil {
		return "", fmt.Errorf("rewrite query: %w", err)
	}
	llm.RecordUsage(ctx, resp, r.opts.ModelName)
	q := cleanQuery(resp.Choices[0].Content)
	if q == "" {
		return "", fmt.Errorf("rewrite query: the model replied %q, not a query", oneLine(resp.Choices[0].Content))
	}
	return q, nil
}

func cleanQuery(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		if i, j := textproc.IndexFold(line, "query:"); i >= 0 && i < 25 {
			line = strings.TrimSpace(line[j:])
		}
		line = strings.Trim(line, "\"'`“”* ")
		if line != "" {
			return oneLine(line)
		}
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300])
	}
	return s
}

// Rewriting is a schema.Retriever that, on a retry with feedback, rewrites
// the query with Rewriter before asking Retriever (the feedback, including
// the excluded sections, is passed on unchanged). When Rewriter fails,
// Fallback (default KeywordRewriter) is used, so a failed rewrite never
// stops the run; a cancelled context does.
type Rewriting struct {
	Retriever schema.Retriever
	Rewriter  QueryRewriter
	Fallback  QueryRewriter
}

// WithRewriter wraps r so that retries use rw's query.
func WithRewriter(r schema.Retriever, rw QueryRewriter) *Rewriting {
	return &Rewriting{Retriever: r, Rewriter: rw}
}

var _ schema.Retriever = (*Rewriting)(nil)

// Retrieve implements schema.Retriever.
func (w *Rewriting) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	if req.Attempt > 0 && req.Feedback != nil && w.Rewriter != nil {
		q, err := w.Rewriter.Rewrite(ctx, req.Query, req.Feedback)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			fb := w.Fallback
			if fb == nil {
				fb = KeywordRewriter{}
			}
			q, err = fb.Rewrite(ctx, req.Query, req.Feedback)
			if err != nil {
				q = req.Query
			}
		}
		if strings.TrimSpace(q) != "" {
			req.Query = q
		}
	}
	return w.Retriever.Retrieve(ctx, req)
}
