package schema

import (
	"slices"
	"testing"
)

// CitedSections lists the sections an answer rests on: the judge's
// evidence first, then the citations the answer writes; a section of
// another document that shares a cited title is never one of them.
func TestCitedSections(t *testing.T) {
	secs := []Section{
		{ID: "a1", Title: "Total Revenues", Source: "acme-2023.pdf", Page: 45, PageLabel: "43"},
		{ID: "other", Title: "Total Revenues", Source: "acme-2022.pdf", Page: 40, PageLabel: "38"},
		{ID: "a2", Title: "Total Revenues", Source: "acme-2023.pdf", Page: 45, PageLabel: "43"},
		{ID: "h", Title: "Hardware Business", Source: "acme-2023.pdf", Page: 49},
	}
	answer := "Total revenues 49,954 (See Total Revenues, page 43)"
	ids := func(ss []Section) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ID)
		}
		return out
	}
	st := &State{RetrievedSections: secs, FinalOutput: &answer}
	if got := ids(st.CitedSections()); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("by citation: %v, want the two parts of the 2023 section cited", got)
	}
	st.JudgeVerdict = &Verdict{Claims: []ClaimCheck{
		{Claim: "Total revenues 49,954", Supported: true, Evidence: &Evidence{Quote: "Total revenues 49,954", SectionID: "a2"}},
		{Claim: "unsupported", Supported: false, Evidence: &Evidence{SectionID: "h"}},
	}}
	if got := ids(st.CitedSections()); !slices.Equal(got, []string{"a2"}) {
		t.Errorf("by evidence: %v, want the part holding the accepted claim's evidence", got)
	}
	// A page the answer cites is among its sources even when the judge's
	// evidence for the claim lies on another page.
	both := "Total revenues 49,954 (See Total Revenues, page 43)\nHardware revenues fell. (See Hardware Business, page 49)"
	st.FinalOutput = &both
	if got := ids(st.CitedSections()); !slices.Equal(got, []string{"a2", "h"}) {
		t.Errorf("evidence and a cited page: %v, want a2 and h", got)
	}
	titled := "Total revenues 49,954 (See Total Revenues)"
	st = &State{RetrievedSections: secs, FinalOutput: &titled}
	if got := ids(st.CitedSections()); !slices.Equal(got, []string{"a1", "other", "a2"}) {
		t.Errorf("by title: %v", got)
	}
	none := "Total revenues 49,954."
	st.FinalOutput = &none
	if got := ids(st.CitedSections()); len(got) != len(secs) {
		t.Errorf("no reference: %v, want every retrieved section", got)
	}
}
