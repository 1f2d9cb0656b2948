package facts

import (
	"math"
	"strings"
)

// Mismatch is a fact of a claim that its evidence does not state.
type Mismatch struct {
	// Claim is the claim's fact.
	Claim Fact
	// Evidence holds the evidence's facts of the same kind (for bare
	// numbers: counting the same thing). When it is not empty the claim
	// contradicts the evidence ("5%" where the source says "1.5%");
	// when it is empty the fact is merely unsupported.
	Evidence []Fact
}

// Contradiction reports whether the evidence states a different fact of
// the same kind.
func (m Mismatch) Contradiction() bool { return len(m.Evidence) > 0 }

// String explains the mismatch for a reader:
// `answer says "5% per month", source says "1.5% per month"` or
// `answer says "$15,000", which the source does not state`.
func (m Mismatch) String() string {
	if len(m.Evidence) == 0 {
		return `answer says "` + m.Claim.Text + `", which the source does not state`
	}
	seen := map[string]bool{}
	var quoted []string
	for _, e := range m.Evidence {
		t := strings.Join(strings.Fields(e.Text), " ")
		if !seen[t] {
			seen[t] = true
			quoted = append(quoted, `"`+t+`"`)
		}
		if len(quoted) == 3 {
			break
		}
	}
	return `answer says "` + strings.Join(strings.Fields(m.Claim.Text), " ") + `", source says ` + strings.Join(quoted, " or ")
}

// Matches reports whether evidence fact e states claim fact f. A fact
// matches when the kinds agree and the values are equal (durations after
// unit normalisation, so "one year" states "12 months"; money with a
// compatible currency; rates with a compatible period). A bare number in
// the claim is stated by any evidence fact of equal value ("30" by
// "thirty (30) days"), and money by a bare number of equal value. Dates
// match when no known part differs ("March 2024" and "March 15, 2024").
func (f Fact) Matches(e Fact) bool {
	switch f.Kind {
	case Date:
		return e.Kind == Date && datesCompatible(f.Date, e.Date)
	case Number:
		if e.Kind == Date {
			return equal(f.Value, float64(e.Date.Year)) || equal(f.Value, float64(e.Date.Day))
		}
		return equal(f.Value, e.Value) || equal(f.Value, e.Quantity)
	case Money:
		if e.Kind == Number {
			return equal(f.Value, e.Value)
		}
		return e.Kind == Money && equal(f.Value, e.Value) && compatible(f.Unit, e.Unit) && compatible(f.Per, e.Per)
	case Percent:
		return e.Kind == Percent && equal(f.Value, e.Value) && compatible(f.Per, e.Per)
	case Duration:
		return e.Kind == Duration && equal(f.Value, e.Value) && f.Unit == e.Unit
	}
	return false
}

// sameKind reports whether e is a fact of the kind f states, so that e
// differing from f is a contradiction rather than a gap.
func (f Fact) sameKind(e Fact) bool {
	if f.Kind == Number {
		return e.Kind == Number && f.Unit != "" && f.Unit == e.Unit
	}
	return f.Kind == e.Kind
}

// Compare returns the facts of claim that evidence does not state, each
// with the evidence's facts of the same kind. A fact stated anywhere in
// evidence is fine, wherever it sits.
func Compare(claim, evidence []Fact) []Mismatch {
	var out []Mismatch
	for _, f := range claim {
		found := false
		var same []Fact
		for _, e := range evidence {
			if f.Matches(e) {
				found = true
				break
			}
			if f.sameKind(e) {
				same = append(same, e)
			}
		}
		if !found {
			out = append(out, Mismatch{Claim: f, Evidence: same})
		}
	}
	return out
}

// Check extracts the facts of claim and evidence and compares them; see
// Compare.
func Check(claim, evidence string) []Mismatch {
	cf := Extract(claim)
	if len(cf) == 0 {
		return nil
	}
	return Compare(cf, Extract(evidence))
}

func equal(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a))
}

func compatible(a, b string) bool { return a == "" || b == "" || a == b }

func datesCompatible(a, b CalendarDate) bool {
	if a.Year != 0 && b.Year != 0 && a.Year != b.Year {
		return false
	}
	md := func(m1, d1, m2, d2 int) bool {
		return (m1 == 0 || m2 == 0 || m1 == m2) && (d1 == 0 || d2 == 0 || d1 == d2)
	}
	if md(a.Month, a.Day, b.Month, b.Day) {
		return true
	}
	if a.Ambiguous && md(a.Day, a.Month, b.Month, b.Day) {
		return true
	}
	return b.Ambiguous && md(a.Month, a.Day, b.Day, b.Month)
}
