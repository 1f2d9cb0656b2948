package relevance

import "testing"

func TestSynonymous(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"level", "tier", true},
		{"tiers", "level", true},  // an inflection
		{"stopped", "halt", true}, // an inflection of a verb
		{"stop", "period", false}, // "period point stop": not a common sense of "stop"
		{"level", "level", false}, // the same word is no synonym
		{"horizontal", "vertical", false},
	} {
		if got := Synonymous(tt.a, tt.b); got != tt.want {
			t.Errorf("Synonymous(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestParaphrasesOf(t *testing.T) {
	for _, tt := range []struct {
		w, t string
		want bool
	}{
		{"hourly", "hour", true}, // a derived form (WordNet "+")
		{"died", "death", true},  // of an inflection
		{"renewing", "renewal", true},
		{"automatically", "automatic", true}, // an adverb's adjective ("\")
		{"level", "tier", true},              // a synonym
		{"hour", "minute", false},
		{"hourly", "hourly", false}, // the word itself
	} {
		if got := ParaphrasesOf(tt.w).Has(tt.t); got != tt.want {
			t.Errorf("ParaphrasesOf(%q).Has(%q) = %v, want %v", tt.w, tt.t, got, tt.want)
		}
	}
	// derivations are not synonyms
	if Synonymous("hourly", "hour") {
		t.Error(`Synonymous("hourly", "hour"): a derived form counted as a synonym`)
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
