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
	for _, tt := range []struct {
		q    string
		full bool
	}{
		{"What fee level makes a client an Enterprise Client?", true},
		// a word no synonym of which the claim states
		{"What fee ceiling makes a client an Enterprise Client?", false},
	} {
		v, err := NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: tt.q, Response: answer, Sections: secs})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Signals["claim_focus"] == 1; got != tt.full {
			t.Errorf("%q: claim_focus %v, want all focus words addressed %v (%s)", tt.q, v.Signals["claim_focus"], tt.full, v.Reasoning)
		}
	}
}
