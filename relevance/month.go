package relevance

import (
	"regexp"
	"slices"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
)

// Months are periods too, as years and centuries are: a statement that
// dates what it says by months, none of them one the question asks about,
// is about another time of year ("How many days does the high not reach
// 90 in December?" is not answered by "in July and August, there are only
// three or four days where the high does not reach 90 °F"), whatever its
// passage says of the asked month in another sentence. A statement that
// names no month says nothing here.

// monthList names the months in order; monthOrder numbers them 1-12;
// months holds those that are a month whenever they are a word ("may"
// is not), monthAbbreviations their own abbreviations, abbreviatedMonth
// the month of every abbreviation ("sept" of september), and reMonthDay
// matches an abbreviation before a day ("Apr 1", "Sept. 30"; not "may
// 1", nor lower case "mar"). The list is internal/wordlists/months.txt.
var (
	monthTable         = readMonths()
	monthList          = monthTable.list
	monthOrder         = monthTable.order
	months             = monthTable.months
	monthAbbreviations = monthTable.abbreviations
	abbreviatedMonth   = monthTable.abbreviated
	reMonthDay         = monthTable.reDay
)

type monthsTable struct {
	list                       []string
	order                      map[string]int
	months                     map[string]bool
	abbreviations, abbreviated map[string]string
	reDay                      *regexp.Regexp
}

func readMonths() monthsTable {
	t := monthsTable{order: map[string]int{}, months: map[string]bool{}, abbreviations: map[string]string{}, abbreviated: map[string]string{}}
	var alts []string
	for i, m := range wordlists.Months() {
		t.list = append(t.list, m.Name)
		t.order[m.Name] = i + 1
		if len(m.Abbreviations) == 0 {
			continue
		}
		t.months[m.Name] = true
		t.abbreviations[m.Name] = m.Abbreviations[0]
		for _, a := range m.Abbreviations {
			t.abbreviated[a] = m.Name
			alts = append(alts, strings.ToUpper(a[:1])+a[1:], strings.ToUpper(a))
		}
	}
	t.reDay = regexp.MustCompile(`\b(` + wordlists.AlternationOf(alts...) + `)\.?\s+\d{1,2}\b`)
	return t
}

// monthWords is an expression for a month's name or abbreviation in any
// case ("Sept", "APRIL"); monthStems for its first three letters, which
// an expression reads a month by when any ending may follow.
var (
	monthWords = wordlists.AlternationOf(wordlists.MonthWords()...)
	monthStems = wordlists.AlternationOf(wordlists.MonthStems()...)
)

// reRelativeMonth matches a month the question names as a bound ("after
// March", "since early June", "between May and July"): a statement about
// another month may answer it.
var reRelativeMonth = regexp.MustCompile(`(?i)\b(?:after|before|since|until|till|by|from|prior\s+to|following|between|through|up\s+to|beyond)\s+(?:the\s+(?:end|beginning|start|middle)\s+of\s+)?(?:(?:early|mid|late)[\s-]+)?` + wordlists.AlternationOf(wordlists.MonthNames()...) + `\b`)

// reFiscalEnd matches a question about a reporting period, whose end a
// company may date a few days into the next month ("the quarter ended
// March 31, 2023" of a quarter that ended April 1).
var reFiscalEnd = regexp.MustCompile(`(?i)\b(?:fiscal|quarter|ended|ending|financial\s+year|fy)\b`)

// statedMonths returns the months claim names, in its order, by number:
// a month's capitalised name ("May" only before a day or a year), or its
// abbreviation before a day ("Apr 1").
func statedMonths(claim string) []int {
	var out []int
	words := reWord.FindAllString(claim, -1)
	for i, w := range words {
		lw := strings.ToLower(w)
		switch {
		case months[lw] && isUpper(w):
			out = append(out, monthOrder[lw])
		case w == "May" && i+1 < len(words) && hasDigit(words[i+1]):
			out = append(out, 5)
		}
	}
	for _, m := range reMonthDay.FindAllStringSubmatch(claim, -1) {
		if name := abbreviatedMonth[strings.ToLower(m[1])]; name != "" {
			out = append(out, monthOrder[name])
		}
	}
	return out
}

// otherMonths checks the months a statement names against the months the
// question names: a statement that names months, none of them one asked
// about nor a span holding one ("from March to June"), is about another
// time of year. It returns the months the statement names and false then.
func (f Frame) otherMonths(claim string) ([]string, bool) {
	var asked []int
	for _, p := range f.Periods {
		if n := monthOrder[p]; n > 0 {
			asked = append(asked, n)
		}
	}
	if len(asked) == 0 || reRelativeMonth.MatchString(f.Question) {
		return nil, true
	}
	stated := statedMonths(claim)
	if len(stated) == 0 {
		return nil, true
	}
	lo, hi := slices.Min(stated), slices.Max(stated)
	fiscal := reFiscalEnd.MatchString(f.Question)
	for _, a := range asked {
		if slices.Contains(stated, a) || len(stated) > 1 && a > lo && a < hi {
			return nil, true
		}
		// a reporting period dated a few days into the next month
		if fiscal && slices.ContainsFunc(stated, func(s int) bool { return s == a%12+1 }) {
			return nil, true
		}
	}
	var names []string
	for _, n := range stated {
		if name := periodName(monthList[n-1]); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, false
}

// monthNames returns the months the question names, capitalised.
func (f Frame) monthNames() []string {
	var out []string
	for _, p := range f.Periods {
		if monthOrder[p] > 0 {
			out = append(out, periodName(p))
		}
	}
	return out
}
