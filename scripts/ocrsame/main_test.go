package main

import "testing"

// What a person reads: the same words (case and punctuation aside)
// citing the same pages read the same; another page, another word or a
// refusal against an answer do not.
func TestReading(t *testing.T) {
	base := result{Answered: true, Answer: "Net sales were $394,328 million. (See Net Sales, page 3)"}
	for _, tc := range []struct {
		name string
		r    result
		same bool
	}{
		{"case, punctuation and titles aside", result{Answered: true, Answer: "net sales were 394,328 million (See Securities registered pursuant to Section 12(g) of the Act, page 3)"}, true},
		{"a page range", result{Answered: true, Answer: "Net sales were $394,328 million. (See Net Sales, pages 2–3)"}, false},
		{"another number", result{Answered: true, Answer: "Net sales were $394,328 billion. (See Net Sales, page 3)"}, false},
		{"a refusal", result{Answer: "Unable to provide a confident response. Please rephrase your query."}, false},
	} {
		if got := reading(tc.r) == reading(base); got != tc.same {
			t.Errorf("%s: same = %v (%q against %q)", tc.name, got, reading(tc.r), reading(base))
		}
	}
	if reading(result{}) != reading(result{Answer: "anything"}) {
		t.Error("two refusals read differently")
	}
}
