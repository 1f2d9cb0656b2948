package main

import (
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

func TestPrintAnswerShowsConflicts(t *testing.T) {
	resp, out := "The late fee is 50% per month.", schema.FallbackMessage
	st := &schema.State{GeneratedResponse: &resp, FinalOutput: &out, JudgeVerdict: &schema.Verdict{
		Reasoning: "Not returned: the sources disagree.",
		Conflicts: []schema.Conflict{{Claim: resp, About: "late fee", Figure: "50% per month", OtherFigure: "1.5% per month",
			Source:      schema.Evidence{Title: "Fee Update", Page: 1, Source: "update.md"},
			OtherSource: schema.Evidence{Title: "Late Payment Penalties", Page: 8, Source: "contract.md"}}},
	}}
	var b strings.Builder
	printAnswer(&b, st, false)
	want := `Conflict: on "late fee", Fee Update, page 1 (update.md) says "50% per month" but Late Payment Penalties, page 8 (contract.md) says "1.5% per month"`
	if !strings.Contains(b.String(), want+"\n") {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}
