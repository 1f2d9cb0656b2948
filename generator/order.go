package generator

import (
	"cmp"
	"slices"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/relevance"
)

// answerFirst puts first the picked sentence that states what the question
// asks for. The lead is the best-scored sentence, which may only share the
// question's words ("Additionally, the group had an all-time record
// revenue quarter in Q1" before "Net revenue $11,715 …"): when the
// question asks for a kind of value (kinds: money or a percentage for an
// amount, a date for a deadline) and the lead states none, the best picked
// sentence that does comes first. An answer whose lead has a continuation
// (withContinuation) keeps its order.
func answerFirst(picked []candidate, kinds map[facts.Kind]bool) []candidate {
	if len(picked) < 2 || len(kinds) == 0 || states(picked[0], kinds) || slices.ContainsFunc(picked, func(c candidate) bool { return c.follows }) {
		return picked
	}
	for i := 1; i < len(picked); i++ {
		if states(picked[i], kinds) {
			return toFront(picked, i)
		}
	}
	return picked
}

// wholeFirst puts first the picked row stating the whole figure asked for (a value of
// kinds, if any) when the lead's row is of a part the question does not name (PartRow).
func wholeFirst(picked []candidate, f relevance.Frame, kinds map[facts.Kind]bool) []candidate {
	if len(picked) < 2 || !f.AsksFigure() || !f.PartRow(picked[0].text) {
		return picked
	}
	for i := 1; i < len(picked); i++ {
		if c := picked[i]; !c.follows && (len(kinds) == 0 || states(c, kinds)) && !f.PartRow(c.text) {
			return toFront(picked, i)
		}
	}
	return picked
}

// toFront returns picked with its i-th candidate first.
func toFront(picked []candidate, i int) []candidate {
	return append(append([]candidate{picked[i]}, picked[:i]...), picked[i+1:]...)
}

// states reports whether a candidate states a value of one of kinds.
func states(c candidate, kinds map[facts.Kind]bool) bool {
	return slices.ContainsFunc(facts.Extract(cmp.Or(c.shown, c.text)), func(f facts.Fact) bool { return kinds[f.Kind] })
}
