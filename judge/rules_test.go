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
