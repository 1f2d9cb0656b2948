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
