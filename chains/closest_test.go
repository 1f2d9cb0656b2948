package chains

import (
	"context"
	"testing"

	"github.com/docmind/docmind/schema"
)

// A refusal keeps what retrieval found: final_output is the fallback
// message, and closest_passages names the best-ranked sections (one per
// title and page), not verified. An answer carries none.
func TestOutputRefusalKeepsClosestPassages(t *testing.T) {
	draft := "The fee is 5% per month. (See Fees, page 2)"
	st := schema.NewState("What is the fee?")
	st.GeneratedResponse = &draft
	st.RetrievedSections = []schema.Section{
		{ID: "a", Title: "Fees", Source: "msa.pdf", Page: 4, PageLabel: "2", RelevanceScore: 0.4, Content: "Fees are due monthly."},
		{ID: "b", Title: "Late Payment", Source: "msa.pdf", Page: 10, RelevanceScore: 0.9, Content: "A late fee of 1.5% applies."},
		{ID: "c", Title: "Late Payment", Source: "msa.pdf", Page: 10, RelevanceScore: 0.8, Content: "more of the same section"},
	}
	st.JudgeVerdict = &schema.Verdict{IsHallucinated: true}
	out, err := NewOutput().Call(context.Background(), map[string]any{StateKey: st})
	if err != nil {
		t.Fatal(err)
	}
	got := out[StateKey].(*schema.State)
	if got.Answer() != schema.FallbackMessage || *got.GeneratedResponse != draft {
		t.Fatalf("final_output %q, draft %v: want the fallback and the draft kept", got.Answer(), got.GeneratedResponse)
	}
	if len(got.ClosestPassages) != 2 || got.ClosestPassages[0].SectionID != "b" || got.ClosestPassages[1].PageRef != "page 2 (PDF page 4)" {
		t.Errorf("closest passages %+v", got.ClosestPassages)
	}
	st.JudgeVerdict = &schema.Verdict{ShouldReturn: true}
	out, _ = NewOutput().Call(context.Background(), map[string]any{StateKey: st})
	if got := out[StateKey].(*schema.State); len(got.ClosestPassages) != 0 {
		t.Errorf("an answer carries closest passages: %+v", got.ClosestPassages)
	}
}
