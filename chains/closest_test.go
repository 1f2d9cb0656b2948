package chains

import (
	"context"
	"reflect"
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

// A refusal after retries points first at the first pass's best: a retry
// leaves out the sections the judge rejected, so the last pass's best are
// the next best. Later passes fill the rest, and a section is named once.
func TestRefusalPointsAtTheFirstPassFirst(t *testing.T) {
	passes := 0
	ret := retrieveFunc(func(_ context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
		passes++
		if req.Attempt == 0 {
			return []schema.Section{
				{ID: "a", Title: "Term", Source: "msa.pdf", Page: 3, RelevanceScore: 0.9},
				{ID: "b", Title: "Renewal", Source: "msa.pdf", Page: 4, RelevanceScore: 0.7},
			}, nil
		}
		// a later pass: other sections, scored against another query
		return []schema.Section{
			{ID: "c", Title: "Survival", Source: "msa.pdf", Page: 9, RelevanceScore: 0.95},
			{ID: "b", Title: "Renewal", Source: "msa.pdf", Page: 4, RelevanceScore: 0.8},
			{ID: "d", Title: "Notices", Source: "msa.pdf", Page: 12, RelevanceScore: 0.6},
		}, nil
	})
	r := newRunner(t, constJudge(true), DefaultMaxRetries, func(c *Config) { c.Retriever = ret })
	st, err := r.Run(context.Background(), schema.NewState("How long is the initial term?"))
	if err != nil {
		t.Fatal(err)
	}
	if passes < 2 || st.Answer() != schema.FallbackMessage {
		t.Fatalf("%d passes, final_output %q: want a refusal after a retry", passes, st.Answer())
	}
	var got []string
	for _, p := range st.ClosestPassages {
		got = append(got, p.SectionID)
	}
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("closest passages %v, want %v", got, want)
	}
}
