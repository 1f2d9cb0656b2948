package relevance

import (
	"slices"
	"testing"
)

func TestNamesInAnotherForm(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		// initials and what they stand for, either way
		{"If there is a conflict between EU law and national law, which law takes precedence?", "European Union law takes precedence over national law.", false},
		{"What is the United States at risk for?", "The U.S. is at risk for another recession.", false},
		{"What is the United States at risk for?", "The US is at risk for another recession.", false},
		// a word derived from the name
		{"What schools do preparatory schools prepare British children to attend?", "Preparatory schools in Britain prepare pupils to enter public schools.", false},
		{"When did the Chinese famine begin?", "The famine in China began in 1959.", false},
		{"Whose work corrected Aristotle's physics?", "Galileo's experiments overturned Aristotelian physics.", false},
		// another name, however alike
		{"When did the Japanese famine begin?", "The famine in China began in 1959.", true},
		{"What is the capital of Austria?", "Canberra is the capital of Australia.", true},
		{"What did the French army capture?", "The German army captured the city.", true},
		{"What is the United States at risk for?", "The United Kingdom is at risk for another recession.", true},
		{"What is the United States at risk for?", "Let us consider the risk of another recession.", true}, // "us" is not "US"
		{"If there is a conflict between EU law and national law, which law takes precedence?", "European Commission rules take precedence over national law.", true},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "entity"); got != tt.fail {
			t.Errorf("%q / %q: entity finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}

func TestNameRunsEndAtPunctuation(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want []string
	}{
		{"In addition to Watt, Boulton and Smeaton, whose engine was an atmosphere design?", []string{"Watt", "Boulton", "Smeaton"}},
		{"The Sand Bernardino - Riverside area maintains what kind of district?", []string{"Sand Bernardino", "Riverside"}},
	} {
		if got := Analyze(tt.q).Entities; !slices.Equal(got, tt.want) {
			t.Errorf("Analyze(%q).Entities = %q, want %q", tt.q, got, tt.want)
		}
	}
}

// A question in another language names no entity by its capitals (German
// writes every noun with one; "Wie" and "Quel" open a question) and its
// focus leaves out that language's function words; an English question
// keeps both.
func TestFrameOfAQuestionInAnotherLanguage(t *testing.T) {
	for q, want := range map[string][]string{
		"Wie hoch ist die monatliche Vergütung?": {"hoch", "monatlich", "vergutung"},
		"Quel est le préavis de résiliation ?":   {"preavi", "resili"},
	} {
		f := Analyze(q)
		if f.Lang.IsEnglish() || len(f.Entities) != 0 || !slices.Equal(f.Focus, want) {
			t.Errorf("Analyze(%q): lang %v entities %q focus %q, want no entity and focus %q", q, f.Lang, f.Entities, f.Focus, want)
		}
	}
	f := Analyze("What is the monthly fee of Muster GmbH?")
	if !f.Lang.IsEnglish() || !slices.Equal(f.Entities, []string{"Muster GmbH"}) {
		t.Errorf("English question: lang %v entities %q", f.Lang, f.Entities)
	}
}

// A question that opens with a contraction of a question word or an
// auxiliary ("What're", "Isn't", "Won't") names nothing by its capital.
func TestContractedOpenerIsNoName(t *testing.T) {
	for q, want := range map[string][]string{
		"What're the late payment penalties?": nil,
		"Isn't there a late fee?":             nil,
		"Won't Acme pay a late fee?":          {"Acme"},
		"Can’t the Provider subcontract?":     {"Provider"},
	} {
		if got := Analyze(q).Entities; !slices.Equal(got, want) {
			t.Errorf("Analyze(%q).Entities = %q, want %q", q, got, want)
		}
	}
}
