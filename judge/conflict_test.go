package judge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

// feeUpdate is a retrieved section of another document that states
// another late fee than the contract (contract[0]: 1.5% per month).
var feeUpdate = schema.Section{Title: "Fee Update", Page: 1, Source: "update.md",
	Content: "The late fee is 50% per month on overdue invoices."}

func checkConflict(t *testing.T, v *schema.Verdict, figure, other string) {
	t.Helper()
	if v.ShouldReturn {
		t.Errorf("an answer whose sources disagree was returned: %q", v.Reasoning)
	}
	if v.ConfidenceScore > 0.5 {
		t.Errorf("confidence %v", v.ConfidenceScore)
	}
	if len(v.Conflicts) != 1 {
		t.Fatalf("conflicts = %+v; reasoning %q", v.Conflicts, v.Reasoning)
	}
	c := v.Conflicts[0]
	if c.Figure != figure || c.OtherFigure != other || c.Acknowledged ||
		c.Source.Title == "" || c.OtherSource.Title == "" || c.Source.Source == c.OtherSource.Source || !strings.Contains(c.About, "late fee") {
		t.Errorf("conflict = %+v", c)
	}
	for _, want := range []string{"sources disagree", `"` + figure + `"`, `"` + other + `"`, "Fee Update, page 1", "Late Payment Penalties, page 8"} {
		if !strings.Contains(v.Reasoning, want) {
			t.Errorf("reasoning %q lacks %q", v.Reasoning, want)
		}
	}
}

func TestDeterministicReportsConflictingSources(t *testing.T) {
	secs := []schema.Section{contract[0], feeUpdate}
	for _, tc := range []struct{ answer, figure, other string }{
		{"The late fee is 50% per month on overdue invoices. (See Fee Update, page 1)", "50% per month", "1.5% per month"},
		{"A late fee of 1.5% per month applies to the outstanding balance. (See Late Payment Penalties, page 8)", "1.5% per month", "50% per month"},
	} {
		v, err := judge.NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: "What late fee applies?", Response: tc.answer, Sections: secs})
		if err != nil {
			t.Fatal(err)
		}
		checkConflict(t, v, tc.figure, tc.other)
	}
}

func TestConflictAcknowledgedByTheAnswer(t *testing.T) {
	secs := []schema.Section{contract[0], feeUpdate}
	answer := "A late fee of 1.5% per month applies to the outstanding balance. (See Late Payment Penalties, page 8)\n" +
		"The late fee is 50% per month on overdue invoices. (See Fee Update, page 1)"
	v, err := judge.NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: "What late fee applies?", Response: answer, Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Conflicts) == 0 || strings.Contains(v.Reasoning, "Not returned: the sources disagree") || !strings.Contains(v.Reasoning, "the answer states both figures") {
		t.Errorf("conflicts %+v reasoning %q", v.Conflicts, v.Reasoning)
	}
	for _, c := range v.Conflicts {
		if !c.Acknowledged {
			t.Errorf("not acknowledged: %+v", c)
		}
	}
}

// TestNoConflictBetweenDifferentThings: different figures about different
// things (a termination notice and an audit notice) are not a conflict.
func TestNoConflictBetweenDifferentThings(t *testing.T) {
	secs := []schema.Section{
		{Title: "Termination", Page: 10, Source: "msa.md", Content: "Either Party may terminate this Agreement for convenience on ninety (90) days' written notice."},
		{Title: "Audits", Page: 3, Source: "dpa.md", Content: "Client may audit Provider's compliance with this Addendum once in any twelve (12) month period, on at least thirty (30) days' prior written notice."},
	}
	v, err := judge.NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: "How much notice is needed to terminate for convenience?",
		Response: "Either Party may terminate this Agreement for convenience on ninety (90) days' written notice. (See Termination, page 10)", Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Conflicts) > 0 {
		t.Errorf("conflicts %+v", v.Conflicts)
	}
}

// TestLLMGuardsReportConflictingSources: the model cites a section saying
// 50% while the contract says 1.5%; the guards accepted it before.
func TestLLMGuardsReportConflictingSources(t *testing.T) {
	secs := []schema.Section{contract[0], feeUpdate}
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: verdictJSON(t, false, 0.95,
		claim("The late fee is 50% per month on overdue invoices", "S2", "The late fee is 50% per month on overdue invoices", true))})
	v, err := newJudge(t, srv).Judge(context.Background(), schema.JudgeRequest{Query: "What late fee applies?",
		Response: "The late fee is 50% per month on overdue invoices [S2].", Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	checkConflict(t, v, "50% per month", "1.5% per month")
}

// TestNoConflictBetweenDifferentSubjects: the budget caps of two projects
// differ without conflicting, whether the project is named in the
// sentence or only in its heading; two caps for the same project still
// conflict.
func TestNoConflictBetweenDifferentSubjects(t *testing.T) {
	const q = "What is the budget cap of the Trakakavor project?"
	for _, tc := range []struct {
		name     string
		secs     []schema.Section
		answer   string
		conflict bool
	}{
		{"named in the sentences", []schema.Section{
			{Title: "Trakakavor project", Source: "trak.md", Content: "The Trakakavor project has a budget cap of 5676 dollars."},
			{Title: "Kakakavor project", Source: "kak.md", Content: "The Kakakavor project has a budget cap of 1000 dollars."},
		}, "The Trakakavor project has a budget cap of 5676 dollars. (See Trakakavor project, page n/a)", false},
		{"named in the headings", []schema.Section{
			{Title: "Budget", Path: []string{"Trakakavor Project"}, Source: "trak.md", Content: "The project has a budget cap of 5676 dollars."},
			{Title: "Budget", Path: []string{"Kakakavor Project"}, Source: "kak.md", Content: "The project has a budget cap of 1000 dollars."},
		}, "The project has a budget cap of 5676 dollars. (See Budget, page n/a)", false},
		{"the same project", []schema.Section{
			{Title: "Trakakavor project", Source: "trak.md", Content: "The Trakakavor project has a budget cap of 5676 dollars."},
			{Title: "Trakakavor revision", Source: "rev.md", Content: "The Trakakavor project has a budget cap of 1000 dollars."},
		}, "The Trakakavor project has a budget cap of 5676 dollars. (See Trakakavor project, page n/a)", true},
	} {
		v, err := judge.NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: q, Response: tc.answer, Sections: tc.secs})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(v.Conflicts) > 0; got != tc.conflict {
			t.Errorf("%s: conflicts %+v, want conflict %v; reasoning %q", tc.name, v.Conflicts, tc.conflict, v.Reasoning)
		}
		if !tc.conflict && !v.ShouldReturn {
			t.Errorf("%s: the right answer is withheld: %q", tc.name, v.Reasoning)
		}
	}
}
