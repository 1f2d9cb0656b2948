package generator

import (
	"testing"

	"github.com/docmind/docmind/question"
)

// The answer comes first: for a question asking for an amount, the picked
// sentence stating one leads, not the best-scored sentence that only
// shares the question's words; a lead with a continuation keeps its place.
func TestAnswerComesFirst(t *testing.T) {
	lead := candidate{text: "Additionally, the group had an all-time record revenue quarter in Q1.", score: 3}
	other := candidate{text: "The group launched a new product line.", score: 2}
	figure := candidate{text: "Net revenue $11,715 $18,353", score: 1}
	kinds := intentKinds(question.IntentAmount)
	got := answerFirst([]candidate{lead, other, figure}, kinds)
	if got[0] != figure || got[1] != lead || got[2] != other {
		t.Errorf("order %q, want the figure first, then the others in their order", []string{got[0].text, got[1].text, got[2].text})
	}
	if got := answerFirst([]candidate{figure, lead}, kinds); got[0] != figure {
		t.Errorf("a lead stating the figure moved")
	}
	goesOn := candidate{text: "It grew.", follows: true}
	if got := answerFirst([]candidate{lead, goesOn, figure}, kinds); got[0] != lead {
		t.Errorf("a lead with its continuation was moved")
	}
}
