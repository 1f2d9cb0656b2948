package relevance

import "testing"

func TestAnotherModifier(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		// the same word narrowed by another adjective of its kind
		{"An object suspended on a horizontal spring scale experiences the force of what?", "An object suspended on a vertical spring scale experiences the force of gravity.", true},
		{"All the forces in what are based on three fundamental interactions?", "All of the forces in the universe are based on four fundamental interactions.", true},
		{"Which party did the liberal members join?", "The conservative members joined the Unionists.", true},
		{"Which graph was featured in the second assessment report?", "The third assessment report featured the graph.", true},
		// a WordNet synonym, another form of the word, the question's
		// own adjective beside another, or the question asking for the
		// number
		{"When did France begin to rebuild its global empire?", "France began to rebuild its worldwide empire after 1850.", false},
		{"What rates of health problems are in countries with high inequality?", "Researchers found more health problems in countries with higher inequality.", false},
		{"When did the origins of magnetic and electric fields occur?", "The origin of electric and magnetic fields was explained in 1864.", false},
		{"How many fundamental interactions are there?", "All of the forces are based on four fundamental interactions.", false},
		{"What are the three main sources of European Union law?", "The three sources of European Union law are primary law, secondary law and supplementary law.", false},
		// another word before the noun that is not an adjective of its
		// kind
		{"What did BSkyB name its music service?", "BSkyB's digital service was launched under the name Sky Digital.", false},
		// adjectives that may describe one thing in other words
		{"What was the steam engine an important component of?", "The stationary steam engine was a key component of the Industrial Revolution.", false},
		{"How did Turabi build a strong economic base?", "Turabi built a powerful economic base with money from Islamist banks.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "polarity"); got != tt.fail {
			t.Errorf("%q / %q: polarity finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}

func TestModifierWords(t *testing.T) {
	for w, want := range map[string]bool{"horizontal": true, "three": true, "second": true, "1": true,
		"spring": false, "early": false, "the": false} {
		if got := modifierWord(w); got != want {
			t.Errorf("modifierWord(%q) = %v, want %v", w, got, want)
		}
	}
	if !synonymAdjectives("global", "worldwide") || synonymAdjectives("horizontal", "vertical") {
		t.Error("synonymAdjectives: want global/worldwide, not horizontal/vertical")
	}
}
