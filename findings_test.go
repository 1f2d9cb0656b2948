package docmind_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

// A refusal says which rules decided: the verdict's findings name rules
// `docmind rules` lists, and every candidate sentence the generator passed
// over is in the notes with the rules that passed it over (here the late
// fee is stated for no year, and the question asks about 2019).
func TestRefusalNamesItsRules(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	st, err := p.Run(context.Background(), "What was the late fee in 2019?")
	if err != nil {
		t.Fatal(err)
	}
	if st.Answered() {
		t.Fatalf("answered %q; want a refusal", st.Answer())
	}
	v := st.JudgeVerdict
	if v == nil || len(v.Findings) == 0 {
		t.Fatalf("verdict %+v has no findings", v)
	}
	for _, f := range v.Findings {
		if relevance.Lookup(f.Rule) == nil || f.Detail == "" {
			t.Errorf("finding %+v: not a registered rule with a detail", f)
		}
	}
	// the late fee's sentence, stated for no year, is the best the
	// generator ranks (every candidate fails period.unstated): the
	// verdict names the rule, and the candidates ranked below it are in
	// the notes with theirs
	if !slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == "period.unstated" }) {
		t.Errorf("findings %+v; want period.unstated", v.Findings)
	}
	note := st.Notes[schema.NodeGenerate+schema.PassedOverSuffix]
	if !strings.Contains(note, "[period.unstated") {
		t.Errorf("passed-over note %q; want candidates passed over by period.unstated", note)
	}
}

// Switching a rule off (relevance.Disable) takes it out of the decision:
// neither the generator nor the judge reports it.
func TestDisabledRuleDoesNotDecide(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	q := "What was the late fee in 2019?"
	restore, err := relevance.Disable("period.unstated")
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	st, err := p.Run(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	note := st.Notes[schema.NodeGenerate+schema.PassedOverSuffix]
	if strings.Contains(note, "period.unstated") || slices.ContainsFunc(st.JudgeVerdict.Findings, func(f schema.Finding) bool { return f.Rule == "period.unstated" }) {
		t.Errorf("a rule switched off still decides: notes %q, findings %+v", note, st.JudgeVerdict.Findings)
	}
}

// A question that names nothing to look for ("a b": two letters, which
// the contract's "(a)" and "(b)" enumerators state) is refused by
// question.empty, however well the drawn sentence is supported; a
// question with one real word is not refused by it.
func TestQuestionThatAsksNothingIsRefused(t *testing.T) {
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q     string
		fires bool
	}{
		{"a b", true},
		{"What is it?", true},
		{"What are the late payment penalties?", false},
	} {
		st, err := p.Run(context.Background(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		v := st.JudgeVerdict
		fired := v != nil && slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == "question.empty" })
		if fired != tc.fires {
			t.Errorf("%q: question.empty fired = %v, want %v (findings %+v)", tc.q, fired, tc.fires, v)
		}
		if tc.fires && st.Answered() {
			t.Errorf("%q: answered %q; want a refusal", tc.q, st.Answer())
		}
	}
}
