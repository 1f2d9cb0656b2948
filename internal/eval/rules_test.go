package eval

import (
	"context"
	"path/filepath"
	"testing"
)

// RunRules on the sample contract's held-out questions: the run with
// every rule on gives the figures eval qa gives, and a rule that fires and
// changes outcomes is measured by asking those questions again without it.
func TestRunRulesOnTheHeldOutContractSet(t *testing.T) {
	rows, err := LoadQA(filepath.Join("testdata", "qa", "contract_heldout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ask := offlineAsk(t, filepath.Join("..", "..", "examples", "contract"))
	want, err := RunQA(context.Background(), ask, rows, QAOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules := []string{"type.missing", "terms.unaddressed", "confidence.low", "kind.preamble"}
	rep, err := RunRules(context.Background(), []RuleSet{{Name: "heldout", Rows: rows, Ask: ask}}, RulesOptions{Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Sets[0]; got.Answered != want.Answered || got.WrongAnswers != want.WrongAnswers || got.AnswerableCorrect != want.AnswerableCorrect {
		t.Errorf("figures with every rule on %+v, eval qa's %d answered, %d wrong, %.3f answerable right", got, want.Answered, want.WrongAnswers, want.AnswerableCorrect)
	}
	if len(rep.Rules) != len(rules) {
		t.Fatalf("%d rules measured, want %d", len(rep.Rules), len(rules))
	}
	changed := 0
	for _, r := range rep.Rules {
		s := r.Sets[0]
		changed += s.Changed
		if s.Changed > s.Fires || s.AnswersChanged > s.Fires || s.PreventedWrong+s.CostRight > s.Changed {
			t.Errorf("%s: counts do not add up: %+v", r.Rule, s)
		}
		if r.Rule == "kind.preamble" && (s.Fires != 0 || s.Verdict != "idle") {
			t.Errorf("kind.preamble fired on sections without kinds: %+v", s)
		}
		if s.Changed == 0 && s.Delta.WrongAnswers != 0 {
			t.Errorf("%s changed nothing yet moved the figures: %+v", r.Rule, s)
		}
	}
	if changed == 0 {
		t.Error("no rule changed an outcome when switched off")
	}
	if _, err := RunRules(context.Background(), nil, RulesOptions{Rules: []string{"no.such-rule"}}); err == nil {
		t.Error("an unknown rule was accepted")
	}
}
