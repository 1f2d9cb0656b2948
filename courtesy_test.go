package docmind_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind"
)

// What people write around a question does not change its answer: each
// question of the sample contract's sets (internal/eval/testdata/qa),
// asked with a greeting, thanks, a "quick question:" or whose question it
// is ("Our CFO wants to know:") around it, gets the answer (or the
// refusal) it gets asked plainly. Before question.Asked, "Hi," or
// "Thanks." made the offline judge read a name no document states, and
// 292 of the 450 were answered otherwise.
func TestCourtesiesChangeNoAnswer(t *testing.T) {
	var questions []string
	for _, f := range []string{"internal/eval/testdata/qa/contract.jsonl", "internal/eval/testdata/qa/contract_heldout.jsonl"} {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var row struct {
				Question string `json:"question"`
			}
			if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
				t.Fatal(err)
			}
			questions = append(questions, row.Question)
		}
		fh.Close()
	}
	if len(questions) < 70 {
		t.Fatalf("%d questions read", len(questions))
	}
	lower := func(q string) string {
		r, n := utf8.DecodeRuneInString(q)
		// a name keeps its capital ("Client may …"): only a question
		// word is lowered
		if w, _, _ := strings.Cut(q, " "); strings.Contains(" what how who when which where why is are does do can must may will ", " "+strings.ToLower(w)+" ") {
			return string(unicode.ToLower(r)) + q[n:]
		}
		return q
	}
	forms := []func(string) string{
		func(q string) string { return "Hi, " + lower(q) },
		func(q string) string { return "Hello! " + q },
		func(q string) string { return "Thanks. " + q },
		func(q string) string { return "Quick question: " + lower(q) },
		func(q string) string { return q + " Thank you in advance." },
		func(q string) string { return "Our CFO wants to know: " + lower(q) },
	}
	p, err := docmind.New(docmind.WithSections(contract(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	differ := 0
	for _, q := range questions {
		plain, err := p.Run(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range forms {
			asked := form(q)
			st, err := p.Run(ctx, asked)
			if err != nil {
				t.Fatal(err)
			}
			if st.Answer() != plain.Answer() {
				differ++
				if differ <= 5 {
					t.Errorf("%q: %q\nasked plainly: %q", asked, st.Answer(), plain.Answer())
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d answers differ from the plain question's", differ, len(questions)*len(forms))
	}
}

// With an LLM too: the deterministic guards on top of the model's verdict
// read the question asked, so a greeting's capital ("Hello") is not a
// name the answer's passage must state. Through the real client to a
// scripted server.
func TestCourtesiesLLMMode(t *testing.T) {
	const answer = "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount"
	p := answeringPipeline(t, contract(t), "What are the late payment penalties?", "Late Payment Penalties", answer, "late fee of 1.5% per month")
	for _, q := range []string{"Hello! What are the late payment penalties?", "Summarise the late payment penalties. Thanks!"} {
		st, err := p.Run(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.Answer(), answer) || st.RetryCount != 0 {
			t.Errorf("%q: answer %q after %d retries; verdict: %s", q, st.Answer(), st.RetryCount, st.JudgeVerdict.Reasoning)
		}
	}
}
