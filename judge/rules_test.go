package judge

import (
	"slices"
	"testing"

	"github.com/docmind/docmind/internal/samplecontract"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

// The verdict's findings name the rules that decided, by ID: each case
// is an answer to a question over the sample contract and the rules its
// verdict must name (none for an answer accepted).
func TestVerdictFindingsNameTheirRules(t *testing.T) {
	for _, tc := range []struct {
		query, answer string
		want          []string
	}{
		{"What are the late payment penalties?", lateSentence + " (See Late Payment Penalties, page 8)", nil},
		{"What are the penalties?", "Late fee is 5% per month. (See Late Payment Penalties, page 8)", []string{RuleNumberMismatch}},
		{"", lateSentence + " (See Late Payment Penalties, page 3)", []string{RuleCitation}},
		{"", `The agreement says late fees "accrue from the invoice date until paid". (See Late Payment Penalties, page 8)`, []string{RuleQuote}},
		{"", "The Client must keep all invoices in a fireproof cabinet located in Geneva.", []string{RuleSupport}},
		{"What is the fee?", "", []string{RuleEmpty}},
		{"What is the warranty period?", "The provided documents do not address this question.", []string{RuleAbstention, RuleUnaddressed}},
		{"What was the late fee in 2019?", lateSentence + " (See Late Payment Penalties, page 8)", []string{RuleUnanswered, "period.unstated"}},
	} {
		v := judgeOf(t, tc.query, tc.answer, samplecontract.Sections())
		var got []string
		for _, f := range v.Findings {
			if relevance.Lookup(f.Rule) == nil || f.Detail == "" {
				t.Errorf("%q: finding %+v: no such rule, or no detail", tc.answer, f)
			}
			got = append(got, f.Rule)
		}
		if len(tc.want) == 0 && (len(got) > 0 || !v.ShouldReturn) {
			t.Errorf("%q: findings %v (returned %v); want it accepted with none", tc.answer, got, v.ShouldReturn)
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q for %q: findings %v; want %s", tc.answer, tc.query, got, w)
			}
		}
	}
}

// A rule switched off does not decide: the wrong rate is no longer a
// contradiction, and the verdict does not name the rule.
func TestDisabledJudgeRule(t *testing.T) {
	restore, err := relevance.Disable(RuleNumberMismatch)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	v := judgeOf(t, "What are the penalties?", "Late fee is 5% per month. (See Late Payment Penalties, page 8)", samplecontract.Sections())
	if slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == RuleNumberMismatch }) {
		t.Errorf("a rule switched off decides: %+v", v.Findings)
	}
}

// One decision: only a veto refuses an answer by itself. A rule that is
// a signal of the model (another year than the question names) lowers
// the probability and names itself, but at threshold 0 the answer is
// returned; a figure contradicting its source refuses it whatever the
// threshold, at confidence 0.
func TestOnlyVetoesRefuseByThemselves(t *testing.T) {
	secs := samplecontract.Sections()
	answer := lateSentence + " (See Late Payment Penalties, page 8)"
	plain := judgeOf(t, "What are the late payment penalties?", answer, secs, WithMinConfidence(0))
	other := judgeOf(t, "What was the late fee in 2019?", answer, secs, WithMinConfidence(0))
	named := slices.ContainsFunc(other.Findings, func(f schema.Finding) bool { return f.Rule == relevance.PeriodUnstated.Name })
	if !other.ShouldReturn || !named || other.ConfidenceScore >= plain.ConfidenceScore {
		t.Errorf("signal rule: returned %v, findings %+v, confidence %.3f (plain answer %.3f)", other.ShouldReturn, other.Findings, other.ConfidenceScore, plain.ConfidenceScore)
	}
	if RuleWeight(relevance.PeriodUnstated.Name) >= 0 {
		t.Errorf("period.unstated weighs %.4f in the model, want < 0", RuleWeight(relevance.PeriodUnstated.Name))
	}
	veto := judgeOf(t, "What are the penalties?", "Late fee is 5% per month. (See Late Payment Penalties, page 8)", secs, WithMinConfidence(0))
	if veto.ShouldReturn || veto.ConfidenceScore != 0 {
		t.Errorf("a contradicted figure returned (%v) at confidence %.3f", veto.ShouldReturn, veto.ConfidenceScore)
	}
}
