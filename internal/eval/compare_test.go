package eval

import (
	"strings"
	"testing"
)

func TestOutcomeAndChange(t *testing.T) {
	right := QAResult{Answerable: true, Answered: true, Correct: true, Grounded: true}
	wrong := QAResult{Answerable: true, Answered: true, Grounded: true}
	refused := QAResult{Answerable: true, Abstained: true}
	failed := QAResult{Answerable: true, Err: "timeout"}
	for r, want := range map[*QAResult]Outcome{&right: OutcomeRight, &wrong: OutcomeWrong, &refused: OutcomeRefused, &failed: OutcomeError} {
		if got := OutcomeOf(*r); got != want {
			t.Errorf("OutcomeOf(%+v) = %s, want %s", *r, got, want)
		}
	}
	cases := []struct {
		b, a       Outcome
		answerable bool
		want       string
	}{
		{OutcomeRefused, OutcomeRight, true, "better"},
		{OutcomeWrong, OutcomeRefused, true, "better"},
		{OutcomeWrong, OutcomeRight, true, "better"},
		{OutcomeRight, OutcomeRefused, true, "worse"},
		{OutcomeRefused, OutcomeWrong, true, "worse"},
		{OutcomeWrong, OutcomeRefused, false, "better"},
		{OutcomeRefused, OutcomeWrong, false, "worse"},
		{OutcomeError, OutcomeRight, true, "other"},
		{OutcomeRefused, OutcomeError, false, "other"},
	}
	for _, c := range cases {
		if got := changeOf(c.b, c.a, c.answerable); got != c.want {
			t.Errorf("changeOf(%s, %s, answerable %v) = %s, want %s", c.b, c.a, c.answerable, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	res := func(id string, answerable, answered, correct bool, conf float64) QAResult {
		return QAResult{ID: id, Question: id + "?", Answerable: answerable, Answered: answered, Abstained: !answered, Correct: correct, Grounded: answered, Confidence: conf}
	}
	before := &QAReport{Match: MatchLead, Results: []QAResult{
		res("a", true, true, true, 0.9),    // right, then refused: worse
		res("b", true, false, false, 0.5),  // refused, then right: better
		res("c", false, true, false, 0.85), // unanswerable answered (wrong at >= 0.8), then refused: better
		res("d", true, true, true, 0.7),    // right at another confidence: moved
		res("e", true, true, true, 0.8),    // unchanged
		res("f", true, false, false, 0.2),  // moved a little
	}}
	after := &QAReport{Results: []QAResult{ // no match recorded: lead
		res("f", true, false, false, 0.25),
		res("e", true, true, true, 0.8),
		res("d", true, true, true, 0.95),
		res("c", false, false, false, 0.3),
		res("b", true, true, true, 0.65),
		res("a", true, false, false, 0.55),
	}}
	c, err := Compare("before.json", before, "after.json", after)
	if err != nil {
		t.Fatal(err)
	}
	if c.Better != 2 || c.Worse != 1 || len(c.Changed) != 3 || c.Changed[0].ID != "a" || c.Changed[0].Change != "worse" {
		t.Errorf("changed = %+v (better %d, worse %d)", c.Changed, c.Better, c.Worse)
	}
	if len(c.Moved) != 2 || c.Moved[0].ID != "d" || c.Moved[1].ID != "f" {
		t.Errorf("moved = %+v, want d (0.25) then f (0.05)", c.Moved)
	}
	b, a := c.Before, c.After
	if b.Right != 3 || b.Wrong != 1 || b.WrongHigh != 1 || b.RefusedAnswerable != 2 || b.RefusedUnanswerable != 0 || b.Unanswerable != 1 {
		t.Errorf("before = %+v", b)
	}
	if a.Right != 3 || a.Wrong != 0 || a.WrongHigh != 0 || a.RefusedAnswerable != 2 || a.RefusedUnanswerable != 1 || a.AnsweredAccuracy != 1 || a.AnswerableCorrect != 0.6 {
		t.Errorf("after = %+v", a)
	}

	// what cannot be compared
	short := &QAReport{Results: before.Results[:5]}
	if _, err := Compare("before.json", before, "short.json", short); err == nil || !strings.Contains(err.Error(), `"f" is in before.json but not in short.json`) {
		t.Errorf("a question missing from one report: %v", err)
	}
	if _, err := Compare("short.json", short, "before.json", before); err == nil || !strings.Contains(err.Error(), `"f" is in before.json but not in short.json`) {
		t.Errorf("a question missing from the other report: %v", err)
	}
	dup := &QAReport{Results: append(append([]QAResult(nil), before.Results...), before.Results[0])}
	if _, err := Compare("dup.json", dup, "before.json", before); err == nil || !strings.Contains(err.Error(), `question "a" appears twice`) {
		t.Errorf("a question twice: %v", err)
	}
	jac := &QAReport{Match: MatchJaccard, Results: before.Results}
	if _, err := Compare("before.json", before, "jac.json", jac); err == nil || !strings.Contains(err.Error(), "scored by the lead rule and jac.json by jaccard") {
		t.Errorf("two match rules: %v", err)
	}
}
