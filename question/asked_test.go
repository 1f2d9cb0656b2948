package question_test

import (
	"strings"
	"testing"

	"github.com/docmind/docmind/question"
)

func TestAsked(t *testing.T) {
	for in, want := range map[string]string{
		// courtesies around the question
		"Hello! What are the late payment penalties?":       "What are the late payment penalties?",
		"Thanks. What is the late fee?":                     "What is the late fee?",
		"Hi, what is the late fee?":                         "what is the late fee?",
		"Quick question: what is the late fee?":             "what is the late fee?",
		"OK so what is the late fee?":                       "what is the late fee?",
		"Good morning team, is there a late fee?":           "is there a late fee?",
		"What is the late fee? Thanks":                      "What is the late fee?",
		"What is the late fee? Thank you in advance.":       "What is the late fee?",
		"Late payment penalties, please":                    "Late payment penalties",
		"What is the late fee, please?":                     "What is the late fee?",
		"Please, what are the late payment penalties?":      "what are the late payment penalties?",
		"Hi! Quick question: can you tell me the late fee?": "the late fee?",
		// a request before what it asks for
		"Summarise the termination clause.":             "the termination clause.",
		"Find the liability cap":                        "the liability cap",
		"Can you tell me the late fee?":                 "the late fee?",
		"Could you please summarize the renewal terms?": "the renewal terms?",
		"Tell me about the late fee":                    "the late fee",
		"I'd like to know about the notice period.":     "the notice period.",
		"I want to know how much notice is needed":      "how much notice is needed",
		"Help me understand the indemnity":              "the indemnity",
		"Please explain the late payment penalties":     "the late payment penalties",
		"Check whether the provider may subcontract":    "whether the provider may subcontract",
		// whose question it is
		"Our CFO wants to know: what is the late fee?":          "what is the late fee?",
		"My boss asked me: are late fees capped?":               "are late fees capped?",
		"Question from Legal: what is the late fee?":            "what is the late fee?",
		"Legal asks: who pays taxes?":                           "who pays taxes?",
		"The client asks: the late fee":                         "The client asks: the late fee",
		"Regarding the Enterprise tier: what late fee applies?": "Regarding the Enterprise tier: what late fee applies?",
		// left as asked: no courtesy, a lead that names something, a
		// request that names nothing, list and compare
		"What is the late fee?":                             "What is the late fee?",
		"Under the agreement, who pays taxes?":              "Under the agreement, who pays taxes?",
		"In 2019, what was revenue?":                        "In 2019, what was revenue?",
		"Next year, what is the fee?":                       "Next year, what is the fee?",
		"Right of first refusal?":                           "Right of first refusal?",
		"Thanks!":                                           "Thanks!",
		"Tell me":                                           "Tell me",
		"List the fees":                                     "List the fees",
		"Compare the fees for 2023 and 2024":                "Compare the fees for 2023 and 2024",
		"What did the auditor find?":                        "What did the auditor find?",
		"How does the company check quality, and who pays?": "How does the company check quality, and who pays?",
		"Is the fee, as stated, payable monthly?":           "Is the fee, as stated, payable monthly?",
		"Do they share my data? If yes, then who?":          "Do they share my data? If yes, then who?",
		"It is still dominant; however, more what?":         "It is still dominant; however, more what?",
		// a few leads at most: a long text of them costs linear time
		"Hi, hi, hi, hi, hi, what is the fee?":  "hi, what is the fee?",
		"Are good faith negotiations required?": "Are good faith negotiations required?",
	} {
		if got := question.Asked(in); got != want {
			t.Errorf("Asked(%q) = %q, want %q", in, got, want)
		}
	}
}

// Asked never fails, never loses a question to nothing and never adds to
// it.
func FuzzAsked(f *testing.F) {
	for _, s := range []string{"Hi, what is the late fee?", "Thanks!", "Can you tell me", "What is it? Thanks, please.", "OK so, please; what?", ", ,", "Quick question: tell me about the fee, thanks"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := question.Asked(s)
		if strings.TrimSpace(s) != "" && strings.TrimSpace(got) == "" {
			t.Fatalf("Asked(%q) = %q", s, got)
		}
		if len(got) > len(s) {
			t.Fatalf("Asked(%q) = %q, longer", s, got)
		}
	})
}
