package relevance

import "testing"

func TestImplicitNegativeInClaim(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		// a verb that negates without "not" denies what a positive
		// question asks
		{"What cells do plants and animals both have?", "Unlike animals, plants lack phagocytic cells, but many plant immune responses involve chemical signals.", true},
		{"What did the committee adopt?", "The committee rejected the proposed amendment to the treaty.", false}, // "adopt" is not in reach of the rejection
		// a condition is not a denial, nor a bound
		{"After how many consecutive months of missed availability may the Client terminate?", "If Provider fails to meet the availability target in three (3) consecutive calendar months, Client may terminate this Agreement.", false},
		{"How many textbooks describe ctenophores?", "At least two textbooks base their descriptions of ctenophores on the cydippid Pleurobrachia.", false},
		// a question about the negative is the positive check's business
		{"What do the cells lack?", "The cells lack a nucleus.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "polarity"); got != tt.fail {
			t.Errorf("%q / %q: polarity finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}

func TestSpatialRelation(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		{"What places younger units above older units?", "This typically results in younger units being placed below older units.", true},
		{"What places younger units below older units?", "This typically results in younger units being placed below older units.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "polarity"); got != tt.fail {
			t.Errorf("%q / %q: polarity finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}
