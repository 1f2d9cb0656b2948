// Package threads runs DocMind questions inside conversations (threads)
// with a checkpoint after every pipeline node.
//
// A Manager wraps the pipeline (any chains.Runner, or a chains.Config it
// builds one from) and a checkpoint.Store; it saves each run's checkpoints
// through a hook it passes to that run (chains.AfterEachStep). Ask rewrites a follow-up into a
// standalone question from the thread's earlier questions, records a run,
// and saves the state after every node. Because every completed node is on
// disk, Resume finishes an interrupted run from its last completed node
// without calling the completed stages (and their LLMs) again; Fork replays
// a run from any step, optionally with a different judge; and with review
// enabled a run whose verdict is not confidently grounded pauses before the
// output node until Approve or Reject.
package threads

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"time"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/schema"
)

// DefaultMinConfidence is the confidence below which a grounded verdict
// still goes to human review when review is on.
const DefaultMinConfidence = 0.7

// DefaultHistoryTurns is how many earlier questions the rewriter sees.
const DefaultHistoryTurns = 5

// ErrAwaitingReview is returned by Resume for a run paused for review;
// finish it with Approve or Reject.
var ErrAwaitingReview = errors.New("the run is waiting for review; approve or reject it")

// ErrNoPipeline is returned by Ask, Resume and Fork of a Manager built
// without stages (one that only reads the ledger and finishes reviews).
var ErrNoPipeline = errors.New("no pipeline configured (documents and stages are needed to run questions)")

// ErrRunBusy is returned when another process (or goroutine) advanced the
// same run while this one was running it: two resumes, or two reviewers,
// of one run. The other saved the step this one was about to save, so
// this one stops and records nothing over the other's work.
var ErrRunBusy = errors.New("another process is running it and saved the next step first; this one stopped")

// ErrInterrupted, as the cause of a run's cancelled context
// (context.WithCancelCause), stops the run without recording an outcome:
// the ledger keeps it as running, reported interrupted once its process
// ends or its store is closed, and Resume finishes it from its last
// completed node. A server cutting off the runs still in flight at
// shutdown uses it; any other cancellation records the run as failed.
var ErrInterrupted = errors.New("the run was interrupted; resume it to finish")

// busyError is ErrRunBusy with the step that was taken.
type busyError struct {
	step int
	node string
}

func (e *busyError) Error() string {
	return fmt.Sprintf("%s (step %d, %s)", ErrRunBusy, e.step, e.node)
}

func (e *busyError) Is(target error) bool { return target == ErrRunBusy }

// errPause stops the runner after the judge checkpoint of a run that needs
// review.
var errPause = errors.New("paused for review")

// Config configures a Manager.
type Config struct {
	// Store keeps runs and checkpoints (required).
	Store checkpoint.Store
	// Runner runs the pipeline. The Manager saves each run's checkpoints
	// through a per-run step hook (chains.AfterEachStep), so any Runner
	// works; its own AfterStep, if any, is called after each checkpoint is
	// saved.
	Runner *chains.Runner
	// Pipeline, used when Runner is nil, holds the stages and retry limit
	// the Manager builds its runner from. Its AfterStep, when set, is
	// called after each checkpoint is saved. With neither Runner nor
	// stages the Manager can read the ledger, approve, reject and collect
	// garbage, but not run questions (ErrNoPipeline).
	Pipeline chains.Config
	// Rewriter rewrites follow-up questions; Offline{} when nil.
	Rewriter FollowUpRewriter
	// Review pauses runs whose verdict is not confidently grounded before
	// output, for every Ask (a single Ask can override it with
	// WithReview).
	Review bool
	// MinConfidence is the confidence under which a verdict needs review;
	// DefaultMinConfidence when 0.
	MinConfidence float64
	// Retention is applied after every finished run (the zero value keeps
	// the last checkpoint.DefaultKeepRuns runs in full).
	Retention checkpoint.Retention
	// HistoryTurns is how many earlier questions of the thread the
	// rewriter sees; DefaultHistoryTurns when 0.
	HistoryTurns int
	// Logger receives retention failures; slog.Default() when nil.
	Logger *slog.Logger
}

// Manager asks questions in threads and keeps their checkpoints. It is
// safe for concurrent use when its stages and store are.
type Manager struct {
	cfg        Config
	noPipeline bool
}

// New returns a Manager.
func New(cfg Config) (*Manager, error) {
	if cfg.Store == nil {
		return nil, errors.New("threads: no checkpoint store configured")
	}
	noPipeline := false
	if p := &cfg.Pipeline; cfg.Runner == nil && p.Decomposer == nil && p.Retriever == nil && p.Generator == nil && p.Judge == nil {
		// The output node, all that a review runs, needs no stage.
		noPipeline = true
		p.Decomposer, p.Retriever, p.Generator, p.Judge = unavailable{}, unavailable{}, unavailable{}, unavailable{}
	}
	if cfg.Runner == nil {
		r, err := runnerFor(cfg.Pipeline)
		if err != nil {
			return nil, fmt.Errorf("threads: %w", err)
		}
		cfg.Runner = r
	}
	if cfg.Rewriter == nil {
		cfg.Rewriter = Offline{}
	}
	if cfg.MinConfidence == 0 {
		cfg.MinConfidence = DefaultMinConfidence
	}
	if cfg.HistoryTurns <= 0 {
		cfg.HistoryTurns = DefaultHistoryTurns
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Manager{cfg: cfg, noPipeline: noPipeline}, nil
}

// unavailable stands in for the stages of a Manager without a pipeline.
type unavailable struct{}

func (unavailable) Decompose(context.Context, string) (*schema.Decomposition, error) {
	return nil, ErrNoPipeline
}

func (unavailable) Retrieve(context.Context, schema.RetrieveRequest) ([]schema.Section, error) {
	return nil, ErrNoPipeline
}

func (unavailable) Generate(context.Context, schema.GenerateRequest) (string, error) {
	return "", ErrNoPipeline
}

func (unavailable) Judge(context.Context, schema.JudgeRequest) (*schema.Verdict, error) {
	return nil, ErrNoPipeline
}

// Store returns the manager's store.
func (m *Manager) Store() checkpoint.Store { return m.cfg.Store }

// Result is a run and the state it reached.
type Result struct {
	Run   checkpoint.Run
	State *schema.State
}

// Answer returns the final output, or "" when the run has not finished.
func (r *Result) Answer() string {
	if r == nil {
		return ""
	}
	return r.State.Answer()
}

// AskOption adjusts one Ask.
type AskOption func(*askConfig)

type askConfig struct {
	review  *bool
	history []Turn
	// historySet is true when WithHistory was given (even empty).
	historySet bool
}

// WithReview turns human review on or off for one Ask.
func WithReview(on bool) AskOption {
	return func(c *askConfig) { c.review = &on }
}

// WithHistory gives the earlier questions of the conversation (oldest
// first) instead of the thread's runs in the ledger: for a client that
// keeps the conversation itself, such as an OpenAI-style chat request,
// whose earlier messages are not runs. The follow-up is rewritten from
// the last DefaultHistoryTurns (Config.HistoryTurns) of them.
func WithHistory(turns []Turn) AskOption {
	return func(c *askConfig) { c.history, c.historySet = turns, true }
}

// NewRunID returns a fresh random run id (12 hex digits).
func NewRunID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms; fall back to
		// the clock rather than panic.
		return strconv.FormatInt(time.Now().UnixNano(), 16)
	}
	return hex.EncodeToString(b[:])
}

// Ask asks question in thread: it rewrites a follow-up into a standalone
// question, then runs the pipeline with a checkpoint after every node.
// A run that pauses for review returns with status awaiting_review and no
// error. When the pipeline fails, the result holds the failed run and the
// last completed state, and the error says why.
func (m *Manager) Ask(ctx context.Context, thread, question string, opts ...AskOption) (*Result, error) {
	if thread == "" {
		return nil, errors.New("ask: empty thread id")
	}
	if m.noPipeline {
		return nil, fmt.Errorf("ask in thread %s: %w", thread, ErrNoPipeline)
	}
	ac := askConfig{}
	for _, o := range opts {
		o(&ac)
	}
	review := m.cfg.Review
	if ac.review != nil {
		review = *ac.review
	}
	turns, err := m.history(ctx, thread, ac)
	if err != nil {
		return nil, fmt.Errorf("ask in thread %s: %w", thread, err)
	}
	meter := &schema.Meter{}
	query, err := m.cfg.Rewriter.Rewrite(schema.ContextWithMeter(ctx, meter), turns, question)
	if err != nil {
		return nil, fmt.Errorf("ask in thread %s: %w", thread, err)
	}
	if query == "" {
		return nil, fmt.Errorf("ask in thread %s: empty question", thread)
	}
	st := schema.NewState(query)
	if u := meter.Usage(); u.Calls > 0 || u.TotalTokens > 0 {
		st.Usage = &schema.RunUsage{Total: u, ByNode: map[string]schema.Usage{StageRewrite: u}}
	}
	if pv := meter.PromptVersions(); len(pv) > 0 {
		st.PromptVersions = pv
	}
	if note := meter.Notes(); note != "" {
		st.Notes = map[string]string{StageRewrite: note}
	}
	now := time.Now().UTC()
	run := checkpoint.Run{
		ID: NewRunID(), Thread: thread, Created: now, Updated: now,
		Question: question, Query: query, Status: checkpoint.StatusRunning, Review: review,
	}
	if st.Usage != nil {
		run.Tokens = st.Usage.Total.TotalTokens
	}
	start := checkpoint.Checkpoint{RunID: run.ID, Step: 0, Next: schema.NodeDecompose, State: st, Created: now}
	if err := m.cfg.Store.StartRun(ctx, run, start); err != nil {
		return nil, fmt.Errorf("ask in thread %s: %w", thread, err)
	}
	return m.execute(ctx, run, start, m.cfg.Runner)
}

// history returns the earlier questions the rewriter sees: those given
// with WithHistory, else the thread's latest runs.
func (m *Manager) history(ctx context.Context, thread string, ac askConfig) ([]Turn, error) {
	if ac.historySet {
		turns := ac.history
		if n := m.cfg.HistoryTurns; len(turns) > n {
			turns = turns[len(turns)-n:]
		}
		return turns, nil
	}
	prior, err := m.cfg.Store.Runs(ctx, checkpoint.RunFilter{Thread: thread, Limit: m.cfg.HistoryTurns})
	if err != nil {
		return nil, err
	}
	turns := make([]Turn, 0, len(prior))
	for _, r := range prior {
		turns = append(turns, Turn{Question: r.Question, Query: r.Query})
	}
	return turns, nil
}

// runnerFor builds the runner of a Manager given stages.
func runnerFor(cfg chains.Config) (*chains.Runner, error) { return chains.NewRunner(cfg) }

// recorder saves the checkpoints of one managed run.
type recorder struct {
	m      *Manager
	run    checkpoint.Run
	offset int
}

// afterStep saves the checkpoint of a completed node. When review is on
// and the judge's verdict is not confidently grounded, it saves the judge
// checkpoint and stops the run before output.
func (rec *recorder) afterStep(ctx context.Context, step chains.Step) error {
	cp := checkpoint.Checkpoint{
		RunID: rec.run.ID, Thread: rec.run.Thread, Step: rec.offset + step.Index, Node: step.Node, Next: step.Next,
		State: step.State, Duration: step.Duration, Usage: step.Usage,
	}
	if err := rec.m.cfg.Store.Put(ctx, cp); err != nil {
		if errors.Is(err, checkpoint.ErrExists) {
			return &busyError{step: cp.Step, node: cp.Node}
		}
		return err
	}
	if rec.run.Review && rec.m.needsReview(step) {
		return errPause
	}
	return nil
}

// execute runs the pipeline from checkpoint from (its state, at its Next
// node), saving a checkpoint after every node, and records the outcome.
func (m *Manager) execute(ctx context.Context, run checkpoint.Run, from checkpoint.Checkpoint, runner *chains.Runner) (*Result, error) {
	rec := &recorder{m: m, run: run, offset: from.Step}
	st, runErr := runner.RunFrom(ctx, from.State, from.Next, chains.AfterEachStep(rec.afterStep))
	return m.finish(ctx, run, st, runErr)
}

// needsReview reports whether the step is a judge step about to go to
// output with a verdict that is not confidently grounded.
func (m *Manager) needsReview(step chains.Step) bool {
	if step.Node != schema.NodeJudge || step.Next != schema.NodeOutput {
		return false
	}
	v := step.State.JudgeVerdict
	return v == nil || v.IsHallucinated || v.Unverified || !v.ShouldReturn || v.ConfidenceScore < m.cfg.MinConfidence
}

// finish records how a run ended.
func (m *Manager) finish(ctx context.Context, run checkpoint.Run, st *schema.State, runErr error) (*Result, error) {
	if errors.Is(runErr, ErrRunBusy) {
		// The run belongs to whoever saved the step first; its outcome is
		// theirs to record.
		var busy error = runErr
		if be := (*busyError)(nil); errors.As(runErr, &be) {
			busy = be // without the runner's "pipeline: after node" wrapping
		}
		if saved, err := m.cfg.Store.Run(context.WithoutCancel(ctx), run.ID); err == nil {
			run = saved
		}
		return &Result{Run: run, State: st}, fmt.Errorf("run %s: %w", run.ID, busy)
	}
	if runErr != nil && errors.Is(context.Cause(ctx), ErrInterrupted) {
		// Left as running, with the checkpoints of its completed nodes.
		run.Status = checkpoint.StatusInterrupted
		return &Result{Run: run, State: st}, fmt.Errorf("run %s: %w", run.ID, ErrInterrupted)
	}
	// Record the outcome even when ctx was cancelled.
	sctx := context.WithoutCancel(ctx)
	run.Updated = time.Now().UTC()
	if st != nil {
		run.Retries = st.RetryCount
		if st.Usage != nil {
			run.Tokens = st.Usage.Total.TotalTokens
		}
	}
	switch {
	case errors.Is(runErr, errPause):
		run.Status, run.Outcome, run.Error = checkpoint.StatusAwaitingReview, "", ""
		runErr = nil
	case runErr != nil:
		run.Status, run.Outcome, run.Error = checkpoint.StatusFailed, checkpoint.OutcomeError, runErr.Error()
	default:
		run.Status, run.Error, run.Answer = checkpoint.StatusDone, "", st.Answer()
		run.Outcome = checkpoint.OutcomeFallback
		if st.Answered() {
			run.Outcome = checkpoint.OutcomeAnswered
		}
	}
	if err := m.cfg.Store.SaveRun(sctx, run); err != nil {
		return &Result{Run: run, State: st}, errors.Join(runErr, fmt.Errorf("record run %s: %w", run.ID, err))
	}
	// Read back the fields the store maintains (steps).
	if saved, err := m.cfg.Store.Run(sctx, run.ID); err == nil {
		run = saved
	}
	if run.Status == checkpoint.StatusDone {
		if _, err := m.cfg.Store.GC(sctx, m.cfg.Retention); err != nil {
			m.cfg.Logger.WarnContext(ctx, "retention failed", "err", err)
		}
	}
	if runErr != nil {
		return &Result{Run: run, State: st}, fmt.Errorf("run %s: %w", run.ID, runErr)
	}
	return &Result{Run: run, State: st}, nil
}

// Latest returns the latest run of a thread and its latest state.
func (m *Manager) Latest(ctx context.Context, thread string) (*Result, error) {
	rs, err := m.cfg.Store.Runs(ctx, checkpoint.RunFilter{Thread: thread, Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("latest state of thread %s: %w", thread, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("thread %s: %w", thread, checkpoint.ErrNotFound)
	}
	cp, err := m.cfg.Store.Get(ctx, rs[0].ID, -1)
	if err != nil {
		return nil, fmt.Errorf("latest state of thread %s: %w", thread, err)
	}
	return &Result{Run: rs[0], State: cp.State}, nil
}

// Runs returns a thread's runs, oldest first ("" lists every thread).
func (m *Manager) Runs(ctx context.Context, thread string) ([]checkpoint.Run, error) {
	return m.cfg.Store.Runs(ctx, checkpoint.RunFilter{Thread: thread})
}

// History returns the checkpoints of a run (id or unique prefix) in step
// order: the initial state, then the state after every node.
func (m *Manager) History(ctx context.Context, runID string) (checkpoint.Run, []checkpoint.Checkpoint, error) {
	run, err := m.cfg.Store.Run(ctx, runID)
	if err != nil {
		return checkpoint.Run{}, nil, err
	}
	cps, err := m.cfg.Store.List(ctx, run.ID)
	return run, cps, err
}

// Resume finishes an interrupted or failed run from its last completed
// node; completed nodes are not run again. A finished run is returned as
// it is; a run awaiting review returns ErrAwaitingReview.
func (m *Manager) Resume(ctx context.Context, runID string) (*Result, error) {
	run, cp, err := m.latest(ctx, runID)
	if err != nil {
		return nil, err
	}
	switch run.Status {
	case checkpoint.StatusDone:
		return &Result{Run: run, State: cp.State}, nil
	case checkpoint.StatusAwaitingReview:
		return &Result{Run: run, State: cp.State}, fmt.Errorf("resume run %s: %w", run.ID, ErrAwaitingReview)
	}
	if m.noPipeline {
		return nil, fmt.Errorf("resume run %s: %w", run.ID, ErrNoPipeline)
	}
	// The process may have died between the judge checkpoint and the
	// pause being recorded.
	if run.Review && m.needsReview(chains.Step{Node: cp.Node, Next: cp.Next, State: cp.State}) {
		return m.finish(ctx, run, cp.State, errPause)
	}
	run.Status, run.Error, run.Outcome = checkpoint.StatusRunning, "", ""
	run.Updated = time.Now().UTC()
	if err := m.cfg.Store.SaveRun(ctx, run); err != nil {
		return nil, fmt.Errorf("resume run %s: %w", run.ID, err)
	}
	return m.execute(ctx, run, cp, m.cfg.Runner)
}

func (m *Manager) latest(ctx context.Context, runID string) (checkpoint.Run, checkpoint.Checkpoint, error) {
	run, err := m.cfg.Store.Run(ctx, runID)
	if err != nil {
		return run, checkpoint.Checkpoint{}, err
	}
	cp, err := m.cfg.Store.Get(ctx, run.ID, -1)
	if err != nil {
		return run, cp, fmt.Errorf("run %s has no checkpoint: %w", run.ID, err)
	}
	return run, cp, nil
}

// Approve finishes a run awaiting review with its generated answer; the
// note is recorded on the run and in the verdict's reasoning.
func (m *Manager) Approve(ctx context.Context, runID, note string) (*Result, error) {
	return m.review(ctx, runID, true, note)
}

// Reject finishes a run awaiting review with schema.FallbackMessage.
func (m *Manager) Reject(ctx context.Context, runID, note string) (*Result, error) {
	return m.review(ctx, runID, false, note)
}

func (m *Manager) review(ctx context.Context, runID string, approve bool, note string) (*Result, error) {
	run, cp, err := m.latest(ctx, runID)
	if err != nil {
		return nil, err
	}
	decision, verb := checkpoint.ReviewRejected, "reject"
	if approve {
		decision, verb = checkpoint.ReviewApproved, "approve"
	}
	if run.Status != checkpoint.StatusAwaitingReview {
		return nil, fmt.Errorf("%s run %s: it is %s, not awaiting review", verb, run.ID, run.Status)
	}
	if cp.Node != schema.NodeJudge || cp.Next != schema.NodeOutput || cp.State.JudgeVerdict == nil {
		return nil, fmt.Errorf("%s run %s: its last checkpoint (step %d, %s) is not a judged answer", verb, run.ID, cp.Step, cp.Node)
	}
	// The reviewer's decision replaces the judge's; the saved judge
	// checkpoint is left as it was.
	st := cp.State.Clone()
	v := st.JudgeVerdict
	v.ShouldReturn = approve
	if approve {
		v.Unverified = false
	}
	v.Reasoning += " [" + decision + " by reviewer"
	if note != "" {
		v.Reasoning += ": " + note
	}
	v.Reasoning += "]"
	run.Status, run.ReviewDecision, run.ReviewNote = checkpoint.StatusRunning, decision, note
	run.Updated = time.Now().UTC()
	if err := m.cfg.Store.SaveRun(ctx, run); err != nil {
		return nil, fmt.Errorf("%s run %s: %w", verb, run.ID, err)
	}
	from := cp
	from.State = st
	return m.execute(ctx, run, from, m.cfg.Runner)
}

// ForkOptions adjusts a Fork.
type ForkOptions struct {
	// Runner, when set, runs the new run (for example a pipeline built
	// with another judge model); any runner, as for Config.Runner.
	Runner *chains.Runner
	// Judge, Generator and Retriever, when set and Runner is not, replace
	// the stages of Config.Pipeline in the new run (a Manager built from a
	// Runner cannot swap stages; give Runner instead).
	Judge     schema.Judge
	Generator schema.Generator
	Retriever schema.Retriever
	// Review overrides the source run's review setting.
	Review *bool
}

// Fork replays run runID from a node: from is a node name (its first
// occurrence, for example "judge"), or a step number. The new run, in the
// same thread, starts with copies of the checkpoints before that node and
// runs from there with the given stages; the source run is unchanged.
func (m *Manager) Fork(ctx context.Context, runID, from string, opts ForkOptions) (*Result, error) {
	src, cps, err := m.History(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("fork run %s: %w", runID, err)
	}
	step := -1
	if n, err := strconv.Atoi(from); err == nil {
		step = n
	} else {
		for _, cp := range cps {
			if cp.Node == from {
				step = cp.Step
				break
			}
		}
	}
	last := 0
	for _, cp := range cps {
		last = max(last, cp.Step)
	}
	if step < 1 || step > last {
		return nil, fmt.Errorf("fork run %s from %q: no such node or step in the run (nodes: %s)", src.ID, from, nodeList(cps))
	}
	var prefix []checkpoint.Checkpoint
	for _, cp := range cps {
		if cp.Step < step {
			prefix = append(prefix, cp)
		}
	}
	if len(prefix) != step {
		return nil, fmt.Errorf("fork run %s from step %d: the steps before it were removed by retention", src.ID, step)
	}
	review := src.Review
	if opts.Review != nil {
		review = *opts.Review
	}
	runner, err := m.forkRunner(opts)
	if err != nil {
		return nil, fmt.Errorf("fork run %s: %w", src.ID, err)
	}
	now := time.Now().UTC()
	run := checkpoint.Run{
		ID: NewRunID(), Thread: src.Thread, Created: now, Updated: now, Question: src.Question, Query: src.Query,
		Status: checkpoint.StatusRunning, Parent: src.ID, ForkStep: step, Review: review,
	}
	for i := range prefix {
		prefix[i].RunID, prefix[i].Thread = run.ID, run.Thread
	}
	if err := m.cfg.Store.StartRun(ctx, run, prefix...); err != nil {
		return nil, fmt.Errorf("fork run %s: %w", src.ID, err)
	}
	return m.execute(ctx, run, prefix[len(prefix)-1], runner)
}

// forkRunner returns the runner a fork uses.
func (m *Manager) forkRunner(opts ForkOptions) (*chains.Runner, error) {
	if opts.Runner != nil {
		return opts.Runner, nil
	}
	if m.noPipeline {
		return nil, ErrNoPipeline
	}
	if opts.Judge == nil && opts.Generator == nil && opts.Retriever == nil {
		return m.cfg.Runner, nil
	}
	if m.cfg.Pipeline.Judge == nil {
		return nil, errors.New("this manager was built from a runner; pass ForkOptions.Runner to replay with other stages")
	}
	pipeline := m.cfg.Pipeline
	if opts.Judge != nil {
		pipeline.Judge = opts.Judge
	}
	if opts.Generator != nil {
		pipeline.Generator = opts.Generator
	}
	if opts.Retriever != nil {
		pipeline.Retriever = opts.Retriever
	}
	return runnerFor(pipeline)
}

func nodeList(cps []checkpoint.Checkpoint) string {
	s := ""
	for _, cp := range cps {
		if cp.Node == "" {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += strconv.Itoa(cp.Step) + " " + cp.Node
	}
	return s
}

// GC applies the manager's retention policy now.
func (m *Manager) GC(ctx context.Context) (checkpoint.GCStats, error) {
	return m.cfg.Store.GC(ctx, m.cfg.Retention)
}

// idPattern is what run and thread ids (and the server's section ids) may
// look like: safe in a URL path, a file name and a log line.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// ValidID reports whether id may name a run or a thread: a letter or digit,
// then letters, digits, '.', '_', ':' and '-', at most 128 in all.
func ValidID(id string) bool { return idPattern.MatchString(id) }
