package docmind_test

import (
	"context"
	"strings"
	"testing"

	"github.com/docmind/docmind"
)

// partyQuestions name the contract's parties, as people ask: the clauses
// that answer say "Client" and "Provider", and only the preamble names
// Brightline and Harborview. Both documents of the sample folder name
// them, so neither is chosen by them. Before, the name checks (offline,
// and the guards on a model's verdict) found the names in neither the
// passage nor its document and refused every answer.
var partyQuestions = []struct{ question, title, answer, quote string }{
	{"What late fee does Brightline charge Harborview?", "Late Payment Penalties",
		"If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount", "a late fee of 1.5% per month"},
	{"How much notice must Harborview give Brightline to terminate for convenience?", "Termination for Convenience",
		"Client may terminate this Agreement, or any Statement of Work, for convenience by giving Provider at least ninety (90) days' prior written notice", "at least ninety (90) days' prior written notice"},
}

func TestQuestionsNamingTheParties(t *testing.T) {
	secs := contract(t)
	offline, err := docmind.New(docmind.WithSections(secs))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range partyQuestions {
		st, err := offline.Run(context.Background(), c.question)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.Answer(), c.answer) {
			t.Errorf("offline, %q: %q; verdict: %s", c.question, st.Answer(), st.JudgeVerdict.Reasoning)
		}
		llm := answeringPipeline(t, secs, c.question, c.title, c.answer, c.quote)
		st, err = llm.Run(context.Background(), c.question)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.Answer(), c.answer) || st.RetryCount != 0 {
			t.Errorf("LLM mode, %q: %q after %d retries; verdict: %s", c.question, st.Answer(), st.RetryCount, st.JudgeVerdict.Reasoning)
		}
	}
}
