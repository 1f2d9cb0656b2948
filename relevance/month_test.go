package relevance

import (
	"slices"
	"strings"
	"testing"
)

func TestStatedMonths(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []int
	}{
		{"in July and August, there are only three or four days", []int{7, 8}},
		{"As of May 31, 2023, we had 164,000 employees", []int{5}},
		{"Three Months Ended Apr 1, 2023", []int{4}},
		{"The Provider may terminate the Agreement", nil}, // a modal, not a month
		{"a march through the city", nil},                 // lower case: not a month
	} {
		if got := statedMonths(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("statedMonths(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestAnotherMonth(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		row      bool
		fail     bool
	}{
		// months, none of them the asked one: another time of year, in a
		// sentence or in a row read as one
		{"How many days does the high not reach 90 in December?", "In July and August, there are only three or four days where the high does not reach 90 °F.", false, true},
		{"How many days does the high not reach 90 in December?", "July is the warmest month, averaging 83.0 °F (28.3 °C); in July and August, there are only three or four days where the high does not reach 90 °F (32.2 °C).", true, true},
		{"What were the revenues for the three months ended October 31, 2022?", "For the three months ended July 31, 2022, revenues were $7.7 billion.", false, true},
		// the month, a span holding it, a reporting period ending a few
		// days into the next month, a month as a bound, no month at all
		{"How many employees did Oracle have as of May 31, 2022?", "As of May 31, 2022, we employed approximately 143,000 full-time employees.", false, false},
		{"What rain falls in April?", "Rain falls from March to June, mostly in the afternoon.", false, false},
		{"What were the cash and cash equivalents for the quarter ended March 31, 2023?", "Cash and cash equivalents were $11.1 billion as of April 1, 2023.", false, false},
		{"What changed after March 2020?", "In June 2020 the company closed its offices.", false, false},
		{"How many days does the high not reach 90 in December?", "There are only three or four days where the high does not reach 90 °F.", false, false},
	} {
		f := Analyze(tt.q)
		res := f.Check(Context{Claim: tt.claim, Passage: tt.claim, Row: tt.row}, checks, nil, nil)
		// the finding of a stated month; the passage is the claim, so a
		// month the passage never states is a finding of its own
		got := slices.ContainsFunc(res.Findings, func(x Finding) bool {
			return x.Check == "period" && strings.HasPrefix(x.Detail, "the answer states")
		})
		if got != tt.fail {
			t.Errorf("%q / %q (row %v): period finding %v, want %v (%v)", tt.q, tt.claim, tt.row, got, tt.fail, res.Findings)
		}
	}
}

func TestYearQuestionNeedsYear(t *testing.T) {
	checks := float64(0)
	for _, tt := range []struct {
		q, claim string
		fail     bool
	}{
		// a count or a day is not a year
		{"The Huguenot District was named in Cork in what year?", "Examples include the Huguenot District in Cork City, named after one of the founders of the Bank of Ireland.", true},
		{"In what year was Andrew Lortie born?", "Andrew Lortie was born on 12 March in Saintonge.", true},
		{"In what year was Fort Coligny destroyed?", "Fort Coligny was destroyed by the Portuguese in 1560.", false},
		{"Which year saw the most building in the 1960s?", "Building peaked in the late 1960s.", false},
		// "when" asks for a time, of which a day is one
		{"When was Andrew Lortie born?", "Andrew Lortie was born on 12 March in Saintonge.", false},
	} {
		if got, findings := findsCheck(checks, tt.q, tt.claim, "type"); got != tt.fail {
			t.Errorf("%q / %q: type finding %v, want %v (%v)", tt.q, tt.claim, got, tt.fail, findings)
		}
	}
}
