package judge

import (
	"context"
	"testing"

	"github.com/docmind/docmind/schema"
)

// A focus word of the question stated by a WordNet synonym in a common
// sense ("tier" for "level") is addressed, though the two words' vectors
// are not close (cosine 0.51): the claim addresses every focus word.
func TestFocusBySynonym(t *testing.T) {
	secs := []schema.Section{{ID: "defs", Title: "Definitions", Page: 2, Source: "msa.md",
		Content: `"Enterprise Client" means a Client that has selected the Enterprise tier in an Order Form, or whose committed annual Fees exceed four hundred thousand US dollars (US$400,000).`}}
	answer := `"Enterprise Client" means a Client that has selected the Enterprise tier in an Order Form, or whose committed annual Fees exceed four hundred thousand US dollars (US$400,000). (See Definitions, page 2)`
	checkFullFocus(t, secs, answer, []focusCase{
		{"What fee level makes a client an Enterprise Client?", true},
		// a word no synonym of which the claim states
		{"What fee ceiling makes a client an Enterprise Client?", false},
	})
}

// A focus word stated by a form WordNet derives it from ("departed" for
// "departure": stems "depart" and "departur", vectors 0.53 apart) is
// addressed.
func TestFocusByDerivedForm(t *testing.T) {
	secs := []schema.Section{{ID: "hist", Title: "History", Page: 3, Source: "voyages.md",
		Content: "The ships were refitted at Plymouth over the winter. The fleet departed from Plymouth harbour in April 1620."}}
	answer := "The fleet departed from Plymouth harbour in April 1620. (See History, page 3)"
	checkFullFocus(t, secs, answer, []focusCase{
		{"When was the fleet's departure from Plymouth harbour?", true},
		// no form of "arrival" is stated
		{"When was the fleet's arrival in Plymouth harbour?", false},
	})
}

// A text word addresses one focus word: "Confidential Information"
// states "confidential" and does not also stand for "secret", its
// thesaurus synonym, when the question asks for both. Two forms of one
// word in the question ("departing", "departure") may be stated by one word.
func TestFocusOneWordForOne(t *testing.T) {
	secs := []schema.Section{{ID: "ret", Title: "Return of Information", Page: 11, Source: "msa.md",
		Content: "Within thirty (30) days after termination, each Party shall return the other Party's Confidential Information."}}
	answer := "Within thirty (30) days after termination, each Party shall return the other Party's Confidential Information. (See Return of Information, page 11)"
	checkFullFocus(t, secs, answer, []focusCase{
		{"When must each Party return Confidential Information after termination?", true},
		// "secret" would be stated only by the word that states "confidential"
		{"When must each Party return the confidential and secret information after termination?", false},
		// without "confidential" in the question, "Confidential" states "secret"
		{"When must each Party return secret information after termination?", true},
	})
	voyage := []schema.Section{{ID: "hist", Title: "History", Page: 3, Source: "voyages.md",
		Content: "The fleet departed from Plymouth harbour in April 1620."}}
	checkFullFocus(t, voyage, "The fleet departed from Plymouth harbour in April 1620. (See History, page 3)", []focusCase{
		{"When did the departing fleet make its departure from Plymouth harbour?", true},
	})
}

// focusCase is a question and whether an answer addresses all its focus
// words.
type focusCase struct {
	q    string
	full bool
}

// checkFullFocus judges answer over secs for each case's question and
// checks whether the claim addresses every focus word (claim_focus 1).
func checkFullFocus(t *testing.T, secs []schema.Section, answer string, cases []focusCase) {
	t.Helper()
	for _, tt := range cases {
		v, err := NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: tt.q, Response: answer, Sections: secs})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Signals["claim_focus"] == 1; got != tt.full {
			t.Errorf("%q: claim_focus %v, want all focus words addressed %v (%s)", tt.q, v.Signals["claim_focus"], tt.full, v.Reasoning)
		}
	}
}
