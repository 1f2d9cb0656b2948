package tables

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The quick checks before the regular expressions (isCell, isYear,
// isMonthWord), and isQuarter in place of one, decide as the expressions
// alone do, on tokens of every
// shape the tables hold and on random ones.
func TestPrefiltersMatchTheExpressions(t *testing.T) {
	toks := []string{"", "-", "—", "–", "−", "−5", "(10,18", "9)", "1,234.5", "$(12)", "12%", "(3.4)%", "2022", "1999", "FY2023",
		"Q1", "Q5", "Q1\u00a02023", "Q2-22", "Q3’21", "September\u00a024,\u00a02022", "Sept.", "Jan", "January", "january", "Ünter", "Élan",
		"revenue", "Total", "n/a", "*", "12*", "7;", "x1", "2O22", "٣", "１２"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("0123456789,.$()%-−—–*;QFYJSanuryeptmb '’\u00a0ÉüΩ")
	for range 20000 {
		n := 1 + r.IntN(12)
		b := make([]rune, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		toks = append(toks, string(b))
	}
	reQuarter := regexp.MustCompile(`^Q[1-4]$`)
	for _, tok := range toks {
		if got, want := isQuarter(tok), reQuarter.MatchString(tok); got != want {
			t.Errorf("isQuarter(%q) = %v, ^Q[1-4]$ says %v", tok, got, want)
		}
		if got, want := isCell(tok), reCell.MatchString(tok); got != want {
			t.Errorf("isCell(%q) = %v, reCell says %v", tok, got, want)
		}
		if got, want := isYear(tok), reYear.MatchString(tok); got != want {
			t.Errorf("isYear(%q) = %v, reYear says %v", tok, got, want)
		}
		if got, want := isMonthWord(tok), reMonthWord.MatchString(tok); got != want {
			t.Errorf("isMonthWord(%q) = %v, reMonthWord says %v", tok, got, want)
		}
	}
}

// Unit's quick check turns away only texts reUnit finds no unit in.
func TestUnitPrefilter(t *testing.T) {
	for _, text := range []string{
		"(in millions, except per share data)", "(In Millions)", "in thousands of dollars", "(Dollars in billions)",
		"IN THOUSANDS", "Revenue grew 5%.", "thousand", "(in millions", "a million reasons", "", "(in ₤ millions)",
	} {
		want := ""
		if m := reUnit.FindStringSubmatch(text); m != nil {
			want = "in " + strings.ToLower(m[1]+m[2])
		}
		if got := Unit(text); got != want {
			t.Errorf("Unit(%q) = %q, want %q", text, got, want)
		}
	}
}
