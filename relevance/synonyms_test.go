package relevance

import "testing"

func TestParaphrasesOf(t *testing.T) {
	for _, tt := range []struct {
		w, t string
		want bool
	}{
		{"hourly", "hour", true}, // a derived form (WordNet "+")
		{"died", "death", true},  // of an inflection
		{"renewing", "renewal", true},
		{"automatically", "automatic", true}, // an adverb's adjective ("\")
		{"level", "tier", true},              // a synonym (WordNet, in a common sense of each)
		{"tiers", "level", true},             // of an inflection
		{"stopped", "halt", true},            // of a verb's inflection
		{"stop", "period", false},            // "period point stop": not a common sense of "stop"
		{"horizontal", "vertical", false},
		{"hour", "minute", false},
		{"hourly", "hourly", false}, // the word itself
	} {
		if got := ParaphrasesOf(tt.w).Has(tt.t); got != tt.want {
			t.Errorf("ParaphrasesOf(%q).Has(%q) = %v, want %v", tt.w, tt.t, got, tt.want)
		}
	}
}

func TestSameWord(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"hours", "hour", true},
		{"hourly", "hours", true},
		{"departure", "departing", true},
		{"renewal", "renewing", true},
		{"secret", "confidential", false},
		{"level", "tier", false},
		{"", "", false},
	} {
		if got := FormsOfOneWord(tt.a, tt.b); got != tt.want {
			t.Errorf("FormsOfOneWord(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
