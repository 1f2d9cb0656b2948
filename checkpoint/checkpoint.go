// Package checkpoint stores DocMind's run ledger and the state after every
// pipeline node, keyed by thread id, run id and step, in the manner of
// LangGraph's checkpointers but with bounded storage.
//
// A Store keeps Runs (one per question: thread, question, status, outcome,
// retries, tokens) and Checkpoints (the state after each completed node,
// with the node's duration, token use and the next node to run). Saved
// checkpoints are immutable: Put refuses to overwrite a step, and every
// state is copied on the way in and on the way out.
//
// Two implementations share the same behaviour: NewMemory (for tests and
// short-lived programs) and OpenSQLite (one durable SQLite file in WAL mode,
// safe for several processes at once). In SQLite the retrieved sections of
// a checkpoint are stored once, content-addressed, and referenced from each
// step, so a run's five to eight checkpoints do not copy the same section
// text again and again.
//
// Retention keeps every step of the most recent runs and only the final
// state of older ones; GC applies it.
package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/docmind/docmind/schema"
)

// Errors returned by stores; test them with errors.Is.
var (
	// ErrNotFound means the run or checkpoint does not exist (or was
	// removed by retention).
	ErrNotFound = errors.New("not found")
	// ErrExists means a checkpoint for that run and step was already saved;
	// saved checkpoints are immutable.
	ErrExists = errors.New("already saved")
)

// Status is where a run stands.
type Status string

// Run statuses.
const (
	// StatusRunning: a process is executing the run.
	StatusRunning Status = "running"
	// StatusInterrupted: the run was running when its process ended
	// (killed, crashed, the machine went down); Resume finishes it. It is
	// stored as running: stores report a running run whose process is
	// gone as interrupted.
	StatusInterrupted Status = "interrupted"
	// StatusAwaitingReview: the run paused before output for a human
	// decision (approve or reject).
	StatusAwaitingReview Status = "awaiting_review"
	// StatusDone: the output node ran.
	StatusDone Status = "done"
	// StatusFailed: a stage returned an error; Resume retries from the
	// last completed node.
	StatusFailed Status = "failed"
)

// Outcome is how a finished run ended.
type Outcome string

// Run outcomes ("" while a run is not finished).
const (
	OutcomeAnswered Outcome = "answered"
	OutcomeFallback Outcome = "fallback"
	OutcomeError    Outcome = "error"
)

// Review decisions recorded on a run.
const (
	ReviewApproved = "approved"
	ReviewRejected = "rejected"
)

// Run is one question asked in a thread: a row of the run ledger.
type Run struct {
	ID     string `json:"id"`
	Thread string `json:"thread"`
	// Created and Updated are wall-clock times (UTC).
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Question is the text as asked; Query is the standalone question the
	// pipeline ran (equal to Question unless a follow-up was rewritten).
	Question string  `json:"question"`
	Query    string  `json:"query"`
	Status   Status  `json:"status"`
	Outcome  Outcome `json:"outcome,omitempty"`
	// Answer is the final output once the run is done.
	Answer  string `json:"answer,omitempty"`
	Retries int    `json:"retries"`
	Tokens  int    `json:"tokens"`
	// Error is the failure message of a failed run.
	Error string `json:"error,omitempty"`
	// Parent and ForkStep are set on a run forked (replayed) from step
	// ForkStep of run Parent.
	Parent   string `json:"parent,omitempty"`
	ForkStep int    `json:"fork_step,omitempty"`
	// Review is true when the run pauses for human review of ungrounded
	// or low-confidence verdicts; ReviewDecision and ReviewNote record the
	// human's answer.
	Review         bool   `json:"review,omitempty"`
	ReviewDecision string `json:"review_decision,omitempty"`
	ReviewNote     string `json:"review_note,omitempty"`
	// Steps is the number of the last saved checkpoint (0 = only the
	// initial state).
	Steps int `json:"steps"`
	// Pruned is true when retention removed all but the final checkpoint.
	Pruned bool `json:"pruned,omitempty"`
}

// Finished reports whether the run reached a terminal status.
func (r Run) Finished() bool { return r.Status == StatusDone }

// Checkpoint is the state of a run after one node. Step 0 holds the
// initial state (Node "", Next "decompose").
type Checkpoint struct {
	RunID  string `json:"run_id"`
	Thread string `json:"thread"`
	Step   int    `json:"step"`
	// Node is the node that completed; Next the node that runs next (""
	// after output).
	Node  string        `json:"node"`
	Next  string        `json:"next"`
	State *schema.State `json:"state"`
	// Duration is how long Node took (in JSON "duration_ms", in
	// milliseconds); Usage its LLM token use.
	Duration time.Duration `json:"-"`
	Usage    schema.Usage  `json:"usage"`
	Created  time.Time     `json:"created"`
}

// checkpointJSON is a Checkpoint as JSON: its duration in milliseconds.
type checkpointJSON struct {
	plainCheckpoint
	DurationMS float64 `json:"duration_ms"`
}

type plainCheckpoint Checkpoint

// MarshalJSON writes the checkpoint with its duration in milliseconds
// ("duration_ms"), as every duration DocMind prints.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	return json.Marshal(checkpointJSON{plainCheckpoint(c), float64(c.Duration) / float64(time.Millisecond)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *Checkpoint) UnmarshalJSON(b []byte) error {
	var v checkpointJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Checkpoint(v.plainCheckpoint)
	c.Duration = time.Duration(v.DurationMS * float64(time.Millisecond))
	return nil
}

// clone returns a deep copy, so that stored checkpoints never share
// memory with callers.
func (c Checkpoint) clone() Checkpoint {
	c.State = c.State.Clone()
	return c
}

// RunFilter selects runs for Runs. The zero value lists every run.
type RunFilter struct {
	// Thread, when set, keeps only that thread's runs.
	Thread string
	// Status, when set, keeps only runs with that status.
	Status Status
	// Limit, when > 0, keeps the newest Limit runs.
	Limit int
}

// Checkpointer saves and reads the state after every node.
type Checkpointer interface {
	// Put saves a checkpoint; saving the same run and step twice fails
	// with ErrExists.
	Put(ctx context.Context, cp Checkpoint) error
	// Get returns one step of a run; step < 0 means the latest.
	Get(ctx context.Context, runID string, step int) (Checkpoint, error)
	// List returns a run's checkpoints in step order.
	List(ctx context.Context, runID string) ([]Checkpoint, error)
}

// Ledger records runs.
type Ledger interface {
	// SaveRun inserts or updates a run (its Steps and Pruned fields are
	// maintained by the store and ignored).
	SaveRun(ctx context.Context, r Run) error
	// StartRun saves a new run together with its first checkpoints (their
	// RunID set to the run's), all or nothing: every run listed has a
	// checkpoint to resume from.
	StartRun(ctx context.Context, r Run, cps ...Checkpoint) error
	// Run returns a run by id, or by a unique prefix of its id.
	Run(ctx context.Context, id string) (Run, error)
	// Runs lists runs, oldest first.
	Runs(ctx context.Context, f RunFilter) ([]Run, error)
}

// Store is a Checkpointer and Ledger with retention.
type Store interface {
	Checkpointer
	Ledger
	// GC applies the retention policy.
	GC(ctx context.Context, r Retention) (GCStats, error)
	// Close releases the store.
	Close() error
}

// DefaultKeepRuns is how many of the most recent runs keep every step.
const DefaultKeepRuns = 200

// Retention says how much history a store keeps.
type Retention struct {
	// KeepRuns is the number of most recent runs whose every checkpoint
	// is kept; older finished runs keep only their final checkpoint.
	// 0 means DefaultKeepRuns; negative keeps everything.
	KeepRuns int
	// MaxRuns, when > 0, deletes finished runs (ledger row included)
	// beyond the most recent MaxRuns.
	MaxRuns int
}

func (r Retention) keepRuns() int {
	if r.KeepRuns == 0 {
		return DefaultKeepRuns
	}
	return r.KeepRuns
}

// Statuses lists every run status, in the order a run goes through them.
var Statuses = []Status{StatusRunning, StatusInterrupted, StatusAwaitingReview, StatusDone, StatusFailed}

// ParseStatus returns the status named s, or an error naming the valid
// ones.
func ParseStatus(s string) (Status, error) {
	for _, st := range Statuses {
		if string(st) == s {
			return st, nil
		}
	}
	names := make([]string, len(Statuses))
	for i, st := range Statuses {
		names[i] = string(st)
	}
	return "", fmt.Errorf("no run status %q: use one of %s", s, strings.Join(names, ", "))
}

// GCStats reports what GC removed.
type GCStats struct {
	PrunedRuns         int `json:"pruned_runs"`
	DeletedRuns        int `json:"deleted_runs"`
	DeletedCheckpoints int `json:"deleted_checkpoints"`
	DeletedSections    int `json:"deleted_sections"`
}

// prunable reports whether retention may drop a run's intermediate steps:
// runs that may still be resumed or reviewed keep their history.
func prunable(r Run) bool {
	return r.Status == StatusDone || r.Status == StatusFailed
}
