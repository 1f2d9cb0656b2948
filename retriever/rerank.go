package retriever

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

// Reranker orders a question's candidate passages by how well they answer
// it. Rerank returns indices into secs, the best first; it may leave out
// passages it judges of no use (the caller keeps them, after the ranked
// ones) and must not repeat one.
type Reranker interface {
	Rerank(ctx context.Context, query string, secs []schema.Section) ([]int, error)
}

// DefaultRerankCandidates is how many passages Reranking reads when
// Candidates is 0.
const DefaultRerankCandidates = 20

// MaxRerankCandidates bounds the passages one ranking reads (and so its
// prompt, about 200 words a passage): more is cut to it.
const MaxRerankCandidates = 100

// DefaultRerankMaxTokens bounds the reranker's reply (a list of passage
// ids) when LLMRerankerOptions.MaxTokens is 0.
const DefaultRerankMaxTokens = 256

// DefaultRerankWords is how many words of each passage the model reads
// when LLMRerankerOptions.Words is 0: enough for a clause or a table row's
// context, few enough that 20 passages stay a short prompt.
const DefaultRerankWords = 200

// LLMRerankerOptions tunes NewLLMReranker. The zero value is usable.
type LLMRerankerOptions struct {
	// Settings; MaxTokens 0 means DefaultRerankMaxTokens, and the
	// temperature is 0 unless set (a ranking should not vary from run to
	// run).
	llm.Settings
	// Words is how many words of each passage the prompt shows (0:
	// DefaultRerankWords).
	Words int
}

// LLMReranker asks a model which passages answer the question, in order
// (prompt "rerank", reply schema docmind_ranking). It reads the passages'
// meaning, which ranking by their words cannot: "we may disclose your
// data to our affiliates" answers "do you share my information with other
// companies?" though the two share no content word.
type LLMReranker struct {
	model llms.Model
	opts  LLMRerankerOptions
}

// NewLLMReranker returns a reranker over model.
func NewLLMReranker(model llms.Model, opts LLMRerankerOptions) *LLMReranker {
	opts.Settings = opts.Settings.Or(llm.Settings{MaxTokens: DefaultRerankMaxTokens, Temperature: llm.Temperature(0)})
	if opts.Words <= 0 {
		opts.Words = DefaultRerankWords
	}
	return &LLMReranker{model: model, opts: opts}
}

var _ Reranker = (*LLMReranker)(nil)

// Rerank implements Reranker. Model failures and replies that stay
// unusable after a repair attempt are errors; ids that name no passage are
// left out.
func (r *LLMReranker) Rerank(ctx context.Context, query string, secs []schema.Section) ([]int, error) {
	shown := make([]schema.Section, len(secs))
	for i, s := range secs {
		s.Content = firstWords(s.Content, r.opts.Words)
		shown[i] = s
	}
	msgs, err := prompts.MustGet(prompts.NameRerank).Messages(ctx, prompts.RerankData{Query: query, Documents: prompts.Documents(shown)})
	if err != nil {
		return nil, err
	}
	var order []int
	_, err = llm.GenerateStructured(ctx, r.model, llm.StructuredCall{
		Messages:  msgs,
		Schema:    llm.JSONSchema{Name: prompts.SchemaRanking, Schema: prompts.RankingSchema(), Strict: true},
		Options:   r.opts.CallOptions(),
		ModelName: r.opts.ModelName,
		Repair:    prompts.RepairInstruction(prompts.SchemaRanking),
	}, func(js string) error {
		var err error
		order, err = parseRanking(js, len(secs))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rerank passages: %w", err)
	}
	return order, nil
}

// parseRanking reads a docmind_ranking reply: the indices of the ids that
// name one of n passages, in the reply's order, each once.
func parseRanking(js string, n int) ([]int, error) {
	var raw struct {
		Relevant *[]any `json:"relevant"`
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		return nil, fmt.Errorf("ranking JSON: %w", err)
	}
	if raw.Relevant == nil {
		return nil, errors.New(`ranking has no "relevant" list`)
	}
	seen := map[int]bool{}
	order := []int{}
	for _, v := range *raw.Relevant {
		id, ok := v.(string)
		if !ok {
			continue
		}
		if i, ok := prompts.SectionIndex(id, n); ok && !seen[i] {
			seen[i] = true
			order = append(order, i)
		}
	}
	return order, nil
}

// firstWords returns s cut to its first n words (with "…" when cut).
func firstWords(s string, n int) string {
	words := strings.Fields(s)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ") + " …"
}

// Reranking is a schema.Retriever that reads more candidates from
// Retriever than it hands on and lets Reranker order them: the passages
// the reranker lists come first, in its order, then the others in
// retrieval order. It hands on as many sections as the run asks for
// (schema.WithRetrieveDepth), else K. When the reranker fails, or lists
// no passage, the retrieval order stands and the run's notes say so
// (schema.RecordNote): a failed call never stops the run; a cancelled
// context does.
type Reranking struct {
	Retriever schema.Retriever
	Reranker  Reranker
	// Candidates is how many passages the reranker reads (0:
	// DefaultRerankCandidates; at most MaxRerankCandidates, and never
	// fewer than are handed on).
	Candidates int
	// K is how many sections are handed on when the run sets no depth.
	K int
}

var _ schema.Retriever = (*Reranking)(nil)

// Retrieve implements schema.Retriever.
func (w *Reranking) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	k := schema.RetrieveDepth(ctx)
	if k <= 0 {
		k = w.K
	}
	n := w.Candidates
	if n <= 0 {
		n = DefaultRerankCandidates
	}
	n = min(n, MaxRerankCandidates)
	if k > 0 {
		n = max(n, k)
	}
	secs, err := w.Retriever.Retrieve(schema.WithRetrieveDepth(ctx, n), req)
	if err != nil || len(secs) < 2 || w.Reranker == nil {
		return cut(secs, k), err
	}
	order, err := w.Reranker.Rerank(ctx, req.Query, secs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		schema.RecordNote(ctx, fmt.Sprintf("the model's ranking of %d passages failed (%s); retrieval's order kept", len(secs), oneLine(err.Error())))
		return cut(secs, k), nil
	}
	if len(order) == 0 {
		schema.RecordNote(ctx, fmt.Sprintf("the model's ranking named none of the %d passages as answering; retrieval's order kept", len(secs)))
	}
	out := make([]schema.Section, 0, len(secs))
	taken := make([]bool, len(secs))
	for _, i := range order {
		if i >= 0 && i < len(secs) && !taken[i] {
			taken[i] = true
			out = append(out, secs[i])
		}
	}
	for i, s := range secs {
		if !taken[i] {
			out = append(out, s)
		}
	}
	return cut(out, k), nil
}

// cut returns the first k sections of secs (all when k <= 0).
func cut(secs []schema.Section, k int) []schema.Section {
	if k > 0 && len(secs) > k {
		return secs[:k]
	}
	return secs
}
