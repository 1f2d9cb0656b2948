package threads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// contract is a small services contract, one section per clause.
var contract = []schema.Section{
	{ID: "msa#late", Title: "Late Payment Penalties", Source: "contract.md", Page: 8,
		Content: "Payment is due within thirty (30) days of the invoice date. A late fee of 1.5% per month applies when payment is not received within thirty (30) days."},
	{ID: "msa#suspension", Title: "Suspension of Services", Source: "contract.md", Page: 9,
		Content: "If payment remains unpaid more than sixty (60) days after the due date, the Provider may suspend the Services upon ten (10) days written notice."},
	{ID: "msa#enterprise", Title: "Enterprise Clients", Source: "contract.md", Page: 10,
		Content: "For enterprise clients the late fee is capped at 1% per month, and payment still unpaid after ninety (90) days allows suspension."},
	{ID: "msa#termination", Title: "Termination", Source: "contract.md", Page: 11,
		Content: "Either party may terminate this Agreement with thirty (30) days written notice."},
	{ID: "msa#confidentiality", Title: "Confidentiality", Source: "contract.md", Page: 12,
		Content: "Each party shall keep the other party's confidential information secret for five (5) years."},
}

// counts counts stage calls.
type counts struct {
	decompose, retrieve, generate, judge atomic.Int32
}

func (c *counts) String() string {
	return fmt.Sprintf("decompose=%d retrieve=%d generate=%d judge=%d", c.decompose.Load(), c.retrieve.Load(), c.generate.Load(), c.judge.Load())
}

type decomposer struct{ n *counts }

func (d decomposer) Decompose(_ context.Context, q string) (*schema.Decomposition, error) {
	d.n.decompose.Add(1)
	return &schema.Decomposition{Intent: "general", SubQueries: []string{q}, KeyTerms: textproc.ContentWords(q)}, nil
}

// retriever ranks sections by shared stemmed terms.
type retriever struct {
	n        *counts
	sections []schema.Section
}

func (r retriever) Retrieve(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	r.n.retrieve.Add(1)
	excluded := map[string]bool{}
	if req.Feedback != nil {
		for _, k := range req.Feedback.Excluded {
			excluded[k] = true
		}
	}
	q := map[string]bool{}
	for _, t := range textproc.Terms(req.Query) {
		q[t] = true
	}
	var out []schema.Section
	for _, s := range r.sections {
		if excluded[s.Key()] {
			continue
		}
		seen, hits := map[string]bool{}, 0
		for _, t := range textproc.Terms(s.Title + " " + s.Content) {
			if q[t] && !seen[t] {
				seen[t] = true
				hits++
			}
		}
		if hits > 0 {
			s.RelevanceScore = float64(hits) / float64(len(q))
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].RelevanceScore > out[j].RelevanceScore })
	if len(out) > 2 {
		out = out[:2]
	}
	return out, nil
}

// generator answers with the best section's text and its citation. When
// fail is set it fails (once per value) before answering; when block is
// set it waits for ctx.
type generator struct {
	n     *counts
	fail  *atomic.Int32
	block chan struct{}
}

func (g generator) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	g.n.generate.Add(1)
	if g.fail != nil && g.fail.Add(-1) >= 0 {
		return "", errors.New("model overloaded")
	}
	if g.block != nil {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-g.block:
		}
	}
	if len(req.Sections) == 0 {
		return "", nil
	}
	s := req.Sections[0]
	return fmt.Sprintf("%s (%s).", strings.TrimSuffix(s.Content, "."), s.Citation()), nil
}

// judge returns verdicts from a function of the request.
type judge struct {
	n  *counts
	fn func(req schema.JudgeRequest) *schema.Verdict
}

func (j judge) Judge(_ context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	j.n.judge.Add(1)
	return j.fn(req), nil
}

func grounded(conf float64) func(schema.JudgeRequest) *schema.Verdict {
	return func(req schema.JudgeRequest) *schema.Verdict {
		if req.Response == "" {
			return &schema.Verdict{IsHallucinated: true, Reasoning: "no answer", ConfidenceScore: 0}
		}
		return &schema.Verdict{ShouldReturn: true, ConfidenceScore: conf, Reasoning: "every claim is in the sections",
			Claims: []schema.ClaimCheck{{Claim: req.Response, Supported: true, Score: conf}}}
	}
}

// hallucinated rejects every answer and every section it was given.
func hallucinated(req schema.JudgeRequest) *schema.Verdict {
	v := &schema.Verdict{IsHallucinated: true, ConfidenceScore: 0.2, Reasoning: "the answer's figures are not in the sections"}
	for _, s := range req.Sections {
		v.RejectedSections = append(v.RejectedSections, s.Key())
	}
	return v
}

// pipeline returns the test pipeline and its call counts.
func pipeline(verdict func(schema.JudgeRequest) *schema.Verdict) (chains.Config, *counts) {
	n := &counts{}
	return chains.Config{
		Decomposer: decomposer{n},
		Retriever:  retriever{n, contract},
		Generator:  generator{n: n},
		Judge:      judge{n, verdict},
		MaxRetries: chains.DefaultMaxRetries,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, n
}

func newManager(t testing.TB, store checkpoint.Store, cfg chains.Config, mod ...func(*Config)) *Manager {
	t.Helper()
	c := Config{Store: store, Pipeline: cfg}
	for _, f := range mod {
		f(&c)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// llmStages are stages that call a language model for decomposition,
// generation and judging (retrieval stays local), for tests against the
// scripted OpenAI-compatible server. The system prompt names the stage.
type llmStages struct{ model llms.Model }

func newLLMModel(baseURL string) (llms.Model, error) {
	return openai.New(openai.WithBaseURL(baseURL), openai.WithToken("test-key"), openai.WithModel("scripted"))
}

func (s llmStages) call(ctx context.Context, role, user string) (string, error) {
	resp, err := s.model.GenerateContent(ctx, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "stage: "+role),
		llms.TextParts(llms.ChatMessageTypeHuman, user),
	})
	if err != nil {
		return "", fmt.Errorf("%s model call: %w", role, err)
	}
	llm.RecordUsage(ctx, resp, "scripted")
	schema.RecordPromptVersion(ctx, role, role+"/test")
	return resp.Choices[0].Content, nil
}

func (s llmStages) Decompose(ctx context.Context, q string) (*schema.Decomposition, error) {
	intent, err := s.call(ctx, "decompose", q)
	if err != nil {
		return nil, err
	}
	return &schema.Decomposition{Intent: strings.TrimSpace(intent), SubQueries: []string{q}}, nil
}

func (s llmStages) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	var b strings.Builder
	for _, sec := range req.Sections {
		fmt.Fprintf(&b, "[%s]\n%s\n", sec.Citation(), sec.Content)
	}
	fmt.Fprintf(&b, "Question: %s", req.Query)
	return s.call(ctx, "generate", b.String())
}

func (s llmStages) Judge(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	out, err := s.call(ctx, "judge", req.Response)
	if err != nil {
		return nil, err
	}
	var conf float64
	if _, err := fmt.Sscanf(out, "grounded %g", &conf); err != nil {
		return &schema.Verdict{IsHallucinated: true, Reasoning: out}, nil
	}
	return &schema.Verdict{ShouldReturn: true, ConfidenceScore: conf, Reasoning: out}, nil
}

func llmPipeline(model llms.Model) chains.Config {
	s := llmStages{model}
	return chains.Config{
		Decomposer: s, Retriever: retriever{&counts{}, contract}, Generator: s, Judge: s,
		MaxRetries: chains.DefaultMaxRetries, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// roleCounter counts scripted-server requests per stage.
type roleCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *roleCounter) add(role string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[role]++
	return c.n[role]
}

func (c *roleCounter) get(role string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[role]
}
