package threads

import (
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/schema"
)

// Outcome is the one JSON shape of a question's outcome, shared by the
// CLI (ask --json, chat --json lines, resume --json) and the HTTP API
// (package server): the state's fields at the top level (query,
// decomposition, retrieved_sections, generated_response, judge_verdict,
// final_output, retry_count, node_history, ...), "run" beside them when
// the run is in the ledger (id, thread, status, steps, ...), and "error"
// when the run failed (the state is then the one it reached).
type Outcome struct {
	*schema.State
	Run   *checkpoint.Run `json:"run,omitempty"`
	Error string          `json:"error,omitempty"`
}

// OutcomeOf is the Outcome of a run in the ledger (res, nil when the run
// did not start) with errText, the one-line reason it failed, if any.
func OutcomeOf(res *Result, errText string) Outcome {
	out := Outcome{Error: errText}
	if res != nil {
		run := res.Run
		out.Run, out.State = &run, res.State
	}
	return out
}
