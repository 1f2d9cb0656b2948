// Package evaltest holds the fixtures the tests of package eval and of the
// eval commands share: a judge with scripted verdicts and finished states
// as the pipeline returns them.
package evaltest

import (
	"context"
	"errors"

	"github.com/docmind/docmind/schema"
)

// ScriptedJudge returns a fixed verdict per response text; an unscripted
// response, or a request without a query or sections, is an error.
type ScriptedJudge map[string]*schema.Verdict

// Judge implements schema.Judge.
func (s ScriptedJudge) Judge(_ context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	if len(req.Sections) == 0 || req.Query == "" {
		return nil, errors.New("request without query or sections")
	}
	v, ok := s[req.Response]
	if !ok {
		return nil, errors.New("unscripted response")
	}
	return v, nil
}

// TinyJudge scripts the verdicts for the responses of
// internal/eval/testdata/ragtruth_tiny.jsonl: right on every one.
func TinyJudge() ScriptedJudge {
	return ScriptedJudge{
		"The late fee is 1.5% per month.": {Claims: []schema.ClaimCheck{{Claim: "The late fee is 1.5% per month.", Supported: true, Score: 0.9}}},
		"The late fee is 5% per month. Invoices are due in 30 days.": {IsHallucinated: true, Claims: []schema.ClaimCheck{
			{Claim: "The late fee is 5% per month.", Contradiction: `answer says "5%", source says "1.5%"`},
			{Claim: "Invoices are due in 30 days.", Supported: true, Score: 0.8},
		}},
		"The council approved a park. Construction starts in May.": {Claims: []schema.ClaimCheck{{Claim: "Construction starts in May.", Supported: true, Score: 1}}},
		"Café Uno serves coffee and has outdoor seating.": {IsHallucinated: true, Claims: []schema.ClaimCheck{
			{Claim: "serves coffee and has outdoor seating", Score: 0.2},
			{Claim: "The owner is famous worldwide", Score: 0}, // not in the response: unlocated
		}},
	}
}

// The node paths of a run that passed the judge at once and of one that
// retried retrieval once.
var (
	OnePass = []string{"decompose", "retrieve", "generate", "judge", "output"}
	TwoPass = []string{"decompose", "retrieve", "generate", "judge", "retrieve", "generate", "judge", "output"}
)

// State returns a finished state for question "q" with the given answer,
// verdict, node path and retrieved sections.
func State(answer string, hallucinated bool, history []string, secs ...schema.Section) *schema.State {
	st := schema.NewState("q")
	st.FinalOutput = &answer
	st.JudgeVerdict = &schema.Verdict{IsHallucinated: hallucinated}
	st.NodeHistory = history
	st.RetrievedSections = secs
	return st
}
