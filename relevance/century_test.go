package relevance

import (
	"slices"
	"testing"
)

func TestNamedCenturies(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []int
	}{
		{"in the 11th century", []int{11}},
		{"in the eleventh century", []int{11}},
		{"in the twenty-first century", []int{21}},
		{"in the 10th and 11th centuries", []int{10, 11}},
		{"in the 11–13th century AD", []int{11, 12, 13}},
		{"in the 1100s", []int{12}},
		{"the 5th century BC", nil},
		{"for 12 centuries", nil}, // a count of centuries
		{"in 1191", nil},          // a year, not a named century
		{"in the 1900s", nil},     // a year from 1500 on (reYear)
	} {
		if got := namedCenturies(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("namedCenturies(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestAnotherCentury(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		{"Who left Messina in the 11th century?", "In April 1191 Richard the Lion-hearted left Messina with a large fleet.", true},
		{"Who invaded Scotland in the 10th century?", "William invaded Scotland in 1072, riding as far as Abernethy.", true},
		{"What was a centre of ivorywork in the 1100s?", "Lombard Salerno was a centre of ivorywork in the 11th century.", true},
		{"What did Roy say shifted in the 21st century?", "Roy argues that pan-Islamism underwent a shift in the second half of the 20th century.", true},
		// the century, or a year in it, or a range holding it
		{"Who left Messina in the 12th century?", "In April 1191 Richard the Lion-hearted left Messina with a large fleet.", false},
		{"Who attacked Dyrrachium in the 11th century?", "In 1081 a Norman army attacked Dyrrachium.", false},
		{"Who attacked Dyrrachium in the 11th century?", "The Normans attacked Dyrrachium in 1100.", false},
		{"What was built in the 12th century?", "The dikes were built in the 11–13th century AD.", false},
		{"What did the Normans do in the 10th century?", "In the 10th and 11th centuries the Normans gave their name to Normandy.", false},
		// a statement that states no period says nothing here
		{"Who left Messina in the 11th century?", "Richard the Lion-hearted left Messina with a large fleet.", false},
		// a century named as a bound, a figure that is not a year, an era
		// before Christ
		{"What was suggested before the 19th century?", "Many theories were suggested from 1950 on.", false},
		{"How many people lived there in the 11th century?", "About 1,500 people lived there.", false},
		{"How much did the abbey cost in the 11th century?", "The abbey cost £1200 to build.", false},
		{"What was built in the 5th century?", "The wall was built in the 3rd century BC.", false},
		{"What ruled for 12 centuries?", "The dynasty ruled until 1850.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "period"); got != tt.fail {
			t.Errorf("%q / %q: period finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}
