package docmind

import (
	"fmt"

	"github.com/docmind/docmind/schema"
)

// Answer is what Ask returns: the answer's text, what it rests on, and the
// judge's view of it.
type Answer struct {
	// Text is the cited answer, or FallbackMessage when the run refused.
	Text string
	// Refused is true when no answer was accepted and Text is
	// FallbackMessage (the docmind command then exits with code 3).
	Refused bool
	// Citations are the passages the answer rests on, in retrieval order
	// (none when Refused).
	Citations []Citation
	// Grounded is the judge's verdict on the last answer it saw: every
	// claim supported by the retrieved sections.
	Grounded bool
	// Confidence is the judge's confidence in that answer, in [0,1] (for
	// the offline judge, a calibrated estimate that it is correct).
	Confidence float64
	// Reason is the judge's reasoning, in one or a few sentences.
	Reason string
	// Retries is how many times the judge sent the run back to retrieval.
	Retries int
	// RunID names the run: a fresh random id for each question, as in
	// the docmind command's run ledger.
	RunID string
	// State is the run's whole record: the decomposition, every retrieved
	// section, the draft, the verdict with each claim's evidence, the
	// node history and the token usage.
	State *schema.State
}

// Citation is a passage an answer rests on.
type Citation struct {
	// Title is the section's title; Source the document's path.
	Title, Source string
	// Page is the section's first page (1-based; 0 when the document has
	// no pages); PageEnd its last when it spans several.
	Page, PageEnd int
	// PageLabel is the page as printed on it ("iv", "A-3"), when it
	// differs from Page.
	PageLabel string
	// Quote is the judge's evidence from this section, when it quoted one.
	Quote string
}

// String renders the citation as the docmind command lists its sources:
// "Late Payment Penalties — contract.md, page 8".
func (c Citation) String() string {
	s := schema.Section{Title: c.Title, Page: c.Page, PageEnd: c.PageEnd, PageLabel: c.PageLabel}
	return fmt.Sprintf("%s — %s, %s", c.Title, c.Source, s.PageRef())
}

// newAnswer reads the Answer of run id out of its final state (nil
// when st is nil).
func newAnswer(id string, st *schema.State) *Answer {
	if st == nil {
		return nil
	}
	a := &Answer{Text: st.Answer(), Refused: !st.Answered(), Retries: st.RetryCount, RunID: id, State: st}
	v := st.JudgeVerdict
	if v != nil {
		a.Grounded = !v.IsHallucinated && v.ShouldReturn
		a.Confidence = v.ConfidenceScore
		a.Reason = v.Reasoning
	}
	if a.Refused {
		return a
	}
	quotes := map[string]string{}
	if v != nil {
		for _, c := range v.Claims {
			if c.Supported && c.Evidence != nil && c.Evidence.SectionID != "" && quotes[c.Evidence.SectionID] == "" {
				quotes[c.Evidence.SectionID] = c.Evidence.Quote
			}
		}
	}
	seen := map[Citation]bool{}
	for _, s := range st.CitedSections() {
		c := Citation{Title: s.Title, Source: s.Source, Page: s.Page, PageEnd: s.PageEnd, PageLabel: s.PageLabel}
		if s.ID != "" {
			c.Quote = quotes[s.ID]
		}
		// parts of one section on one page are one citation
		if !seen[c] {
			seen[c] = true
			a.Citations = append(a.Citations, c)
		}
	}
	return a
}
