package chains

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	lcchains "github.com/tmc/langchaingo/chains"

	"github.com/docmind/docmind/schema"
)

// DefaultMaxRetries is the number of judged retries allowed by default.
const DefaultMaxRetries = 2

// Edge values returned by ShouldRetry, as named in the seed graph.
const (
	EdgeRetry  = "retry"
	EdgeOutput = "output"
)

// ShouldRetry is the judge's conditional edge: "retry" when the verdict is
// hallucinated and retry_count < maxRetries, otherwise "output". The judge
// has already incremented retry_count when this is called, so with the
// default of 2 a question that is never grounded is judged twice.
func ShouldRetry(st *schema.State, maxRetries int) string {
	if st.JudgeVerdict != nil && st.JudgeVerdict.IsHallucinated && st.RetryCount < maxRetries {
		return EdgeRetry
	}
	return EdgeOutput
}

// Step is what a Runner reports after each completed node.
type Step struct {
	// Index counts completed nodes in this run, from 1.
	Index int
	// Node is the node that completed; Next is the node that runs next, ""
	// after output.
	Node, Next string
	// State is the state after Node; it must not be modified.
	State    *schema.State
	Duration time.Duration
	Usage    schema.Usage
}

// Config holds the stages and settings of a Runner.
type Config struct {
	Decomposer schema.Decomposer
	Retriever  schema.Retriever
	Generator  schema.Generator
	Judge      schema.Judge
	// Speller, when set, corrects the question's misspelt words before
	// the decompose node reads it.
	Speller schema.Speller
	// MaxRetries bounds the judged retries; negative means 0. Use
	// DefaultMaxRetries for the seed behaviour.
	MaxRetries int
	// Observer, when set, receives node start/end/error, token and retry
	// events.
	Observer schema.Observer
	// Logger receives the "retry attempt N/M" line and node errors;
	// slog.Default() when nil.
	Logger *slog.Logger
	// AfterStep, when set, is called after every completed node with a
	// state it may keep (for checkpoints). An error stops the run.
	AfterStep func(ctx context.Context, step Step) error
}

// Runner runs the five node chains in the order of the seed graph:
//
//	decompose -> retrieve -> generate -> judge --retry--> retrieve
//	                                           \--output--> output -> end
//
// A Runner is safe for concurrent use when its stages are.
type Runner struct {
	nodes      map[string]lcchains.Chain
	maxRetries int
	observer   schema.Observer
	logger     *slog.Logger
	afterStep  func(ctx context.Context, step Step) error
}

// NewRunner builds a Runner. All four stages are required.
func NewRunner(cfg Config) (*Runner, error) {
	switch {
	case cfg.Decomposer == nil:
		return nil, errors.New("pipeline: no decomposer configured")
	case cfg.Retriever == nil:
		return nil, errors.New("pipeline: no retriever configured")
	case cfg.Generator == nil:
		return nil, errors.New("pipeline: no generator configured")
	case cfg.Judge == nil:
		return nil, errors.New("pipeline: no judge configured")
	}
	r := &Runner{
		maxRetries: max(cfg.MaxRetries, 0),
		observer:   cfg.Observer,
		logger:     cfg.Logger,
		afterStep:  cfg.AfterStep,
	}
	if r.logger == nil {
		r.logger = slog.Default()
	}
	var onToken func(ctx context.Context, chunk string)
	if r.observer != nil {
		onToken = func(ctx context.Context, chunk string) {
			r.observer.OnEvent(ctx, schema.Event{Type: schema.EventToken, Node: schema.NodeGenerate, Token: chunk, Attempt: attemptFrom(ctx)})
		}
	}
	r.nodes = map[string]lcchains.Chain{
		schema.NodeDecompose: NewDecompose(cfg.Decomposer, cfg.Speller),
		schema.NodeRetrieve:  NewRetrieve(cfg.Retriever),
		schema.NodeGenerate:  NewGenerate(cfg.Generator, onToken),
		schema.NodeJudge:     NewJudge(cfg.Judge),
		schema.NodeOutput:    NewOutput(),
	}
	return r, nil
}

// MaxRetries returns the retry limit.
func (r *Runner) MaxRetries() int { return r.maxRetries }

// Node returns the chain of the named node, or nil.
func (r *Runner) Node(name string) lcchains.Chain { return r.nodes[name] }

// RunOption configures one run of a Runner.
type RunOption func(*runOptions)

type runOptions struct {
	afterStep []func(ctx context.Context, step Step) error
}

// AfterEachStep calls f after every completed node of this run, before the
// Runner's own Config.AfterStep: how a caller that keeps checkpoints (a
// threads.Manager) records the run it started, with no setting on the
// Runner and nothing in the context. An error stops the run.
func AfterEachStep(f func(ctx context.Context, step Step) error) RunOption {
	return func(o *runOptions) { o.afterStep = append(o.afterStep, f) }
}

// Run runs a fresh state from decompose to output and returns the final
// state. On error it returns the last completed state and the error; when
// ctx is cancelled the error is ctx.Err().
func (r *Runner) Run(ctx context.Context, st *schema.State, opts ...RunOption) (*schema.State, error) {
	return r.RunFrom(ctx, st, schema.NodeDecompose, opts...)
}

// RunFrom continues a run at node next with state st (the state after the
// node before next). It is how interrupted or forked runs resume.
func (r *Runner) RunFrom(ctx context.Context, st *schema.State, next string, opts ...RunOption) (*schema.State, error) {
	if st == nil {
		return nil, errors.New("pipeline: nil state")
	}
	var ro runOptions
	for _, o := range opts {
		o(&ro)
	}
	hooks := ro.afterStep
	if r.afterStep != nil {
		hooks = append(hooks, r.afterStep)
	}
	step := 0
	for next != "" {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		chain, ok := r.nodes[next]
		if !ok {
			return st, fmt.Errorf("pipeline: unknown node %q", next)
		}
		node := next
		attempt := st.RetryCount
		r.emit(ctx, schema.Event{Type: schema.EventNodeStart, Node: node, Attempt: attempt, State: st})

		meter := &schema.Meter{}
		nctx := schema.ContextWithMeter(withAttempt(ctx, attempt), meter)
		start := time.Now()
		out, err := lcchains.Call(nctx, chain, map[string]any{StateKey: st})
		took := time.Since(start)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				err = cerr
			}
			r.emit(ctx, schema.Event{Type: schema.EventNodeError, Node: node, Attempt: attempt, State: st, Err: err, Duration: took})
			return st, err
		}
		next2, _ := out[StateKey].(*schema.State)
		if next2 == nil {
			return st, fmt.Errorf("pipeline: node %s returned no state", node)
		}
		st = next2
		usage := meter.Usage()
		recordUsage(st, node, usage, meter.PromptVersions())
		recordNote(st, node, meter.Notes())
		recordNote(st, node+schema.PassedOverSuffix, meter.PassedOver())
		recordNote(st, node+schema.DocumentsSuffix, meter.Documents())
		if node == schema.NodeJudge {
			noteInVerdict(st)
		}
		r.emit(ctx, schema.Event{Type: schema.EventNodeEnd, Node: node, Attempt: attempt, State: st, Duration: took})

		next = r.edge(ctx, node, st)
		step++
		for _, h := range hooks {
			if err := h(ctx, Step{Index: step, Node: node, Next: next, State: st, Duration: took, Usage: usage}); err != nil {
				return st, fmt.Errorf("pipeline: after %s: %w", node, err)
			}
		}
	}
	return st, nil
}

// edge returns the node after node, "" after output.
func (r *Runner) edge(ctx context.Context, node string, st *schema.State) string {
	switch node {
	case schema.NodeDecompose:
		return schema.NodeRetrieve
	case schema.NodeRetrieve:
		return schema.NodeGenerate
	case schema.NodeGenerate:
		return schema.NodeJudge
	case schema.NodeJudge:
		if ShouldRetry(st, r.maxRetries) == EdgeRetry {
			r.logger.InfoContext(ctx, fmt.Sprintf("retry attempt %d/%d", st.RetryCount, r.maxRetries),
				"reason", st.JudgeVerdict.Reasoning)
			r.emit(ctx, schema.Event{Type: schema.EventRetry, Node: schema.NodeJudge, Attempt: st.RetryCount, MaxRetries: r.maxRetries, State: st})
			return schema.NodeRetrieve
		}
		return schema.NodeOutput
	default:
		return ""
	}
}

func (r *Runner) emit(ctx context.Context, ev schema.Event) {
	if r.observer != nil {
		r.observer.OnEvent(ctx, ev)
	}
}

// recordUsage adds a node's LLM usage and prompt versions to the state.
func recordUsage(st *schema.State, node string, u schema.Usage, prompts map[string]string) {
	if u.Calls > 0 || u.TotalTokens > 0 {
		if st.Usage == nil {
			st.Usage = &schema.RunUsage{ByNode: map[string]schema.Usage{}}
		}
		st.Usage.ByNode[node] = st.Usage.ByNode[node].Add(u)
		st.Usage.Total = st.Usage.Total.Add(u)
	}
	if len(prompts) > 0 {
		if st.PromptVersions == nil {
			st.PromptVersions = map[string]string{}
		}
		for k, v := range prompts {
			st.PromptVersions[k] = v
		}
	}
}

// noteInVerdict adds to the verdict's reasoning what the generate stage
// noted about the answer it judged (an answer cut off at its token
// limit), so that the verdict says the answer is incomplete.
func noteInVerdict(st *schema.State) {
	note := st.Notes[schema.NodeGenerate]
	if note == "" || st.JudgeVerdict == nil {
		return
	}
	v := *st.JudgeVerdict
	v.Reasoning = strings.TrimSpace(v.Reasoning + " Note: " + note + ".")
	st.JudgeVerdict = &v
}

// recordNote stores the notes a node recorded as its entry in State.Notes,
// replacing the one of its previous pass (a pass with none removes it).
func recordNote(st *schema.State, node, note string) {
	switch {
	case note != "":
		if st.Notes == nil {
			st.Notes = map[string]string{}
		}
		st.Notes[node] = note
	case st.Notes[node] != "":
		delete(st.Notes, node)
		if len(st.Notes) == 0 {
			st.Notes = nil
		}
	}
}

type attemptKey struct{}

func withAttempt(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, attemptKey{}, n)
}

func attemptFrom(ctx context.Context) int {
	n, _ := ctx.Value(attemptKey{}).(int)
	return n
}
