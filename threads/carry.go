package threads

import (
	"regexp"
	"strings"
	"unicode"

	dmdecomp "github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

// subject is what a question is about beyond its measure: the names it
// asks about (a company, a party, a plan) and the period it asks for
// ("as of May 31, 2023", "in fiscal 2022").
type subject struct {
	names []string
	// period is the period phrase with its preposition; start and end
	// locate it in the question (start < 0 when there is none).
	period     string
	start, end int
}

var (
	// rePeriodTemporal marks a temporal that names a period (a year, a
	// fiscal quarter or year), not a duration ("30 days").
	rePeriodTemporal = regexp.MustCompile(`(?i)\b(?:19|20)\d{2}\b|\bFY\s?\d{2,4}\b|\bQ[1-4]\b`)
	// rePeriodLead is the phrase before a period's date that belongs to it
	// ("as of", "in fiscal year", "for the quarter ended").
	rePeriodLead = regexp.MustCompile(`(?i)(?:\b(?:as of|as at|in|for|during|at|on|by|through|from)\s+)?(?:the\s+)?(?:(?:fiscal|financial|calendar)\s+)?(?:(?:year|quarter|period|month)s?\s+)?(?:(?:ended|ending)\s+)?$`)
	// reYearOnly is a period that names only a year ("fiscal 2022").
	reYearOnly = regexp.MustCompile(`(?i)^(?:the\s+)?(?:(?:fiscal|financial|calendar)\s+(?:year\s+)?|FY\s?)?((?:19|20)\d{2})\s*[?.!]*$`)
	// reDated is a date with a day, month and year ("May 31, 2023").
	reDated = regexp.MustCompile(`(?i)\b` + wordlists.AlternationOf(wordlists.MonthStems()...) + `[a-z]*\.?\s+\d{1,2},?\s+((?:19|20)\d{2})\b|\b\d{1,2}\s+` + wordlists.AlternationOf(wordlists.MonthStems()...) + `[a-z]*\.?,?\s+((?:19|20)\d{2})\b`)
	// rePlaceLead marks a name that is a place constraint ("in the U.S."),
	// not a new subject.
	rePlaceLead = regexp.MustCompile(`(?i)\b(?:in|outside|across|within|throughout|inside)(?:\s+of)?(?:\s+the)?\s+$`)
)

// subjectOf finds q's names and period.
func subjectOf(q string) subject {
	s := subject{start: -1}
	for _, t := range dmdecomp.Temporals(q) {
		if !rePeriodTemporal.MatchString(t) {
			continue
		}
		i := strings.Index(q, t)
		if i < 0 {
			continue
		}
		if s.start < 0 {
			lead := rePeriodLead.FindStringIndex(q[:i])
			s.start = i
			if lead != nil {
				s.start = lead[0]
			}
		}
		if e := i + len(t); e > s.end {
			s.end = e
		}
	}
	if s.start >= 0 {
		s.period = strings.TrimSpace(q[s.start:s.end])
	}
	from := 0
	for _, n := range dmdecomp.Entities(q) {
		i := strings.Index(q[from:], n)
		if i < 0 {
			continue
		}
		i += from
		from = i + len(n)
		r := []rune(n)
		if !unicode.IsUpper(r[0]) || (s.start >= 0 && i < s.end && i+len(n) > s.start) || rePlaceLead.MatchString(q[:i]) {
			continue
		}
		s.names = append(s.names, strings.TrimSuffix(strings.TrimSuffix(n, "'s"), "’s"))
	}
	return s
}

// carry completes a rewritten follow-up with the subject of the previous
// question: its names unless the follow-up names its own, its period
// unless the follow-up gives one. A period or name the follow-up replaces
// is taken out. It returns the question and what was carried over ("" when
// nothing was).
func carry(prev, q, out string, topic []string) (string, string) {
	ps, fs := subjectOf(prev), subjectOf(q)
	var said []string
	// A new period replaces the old one.
	if fs.period != "" && ps.period != "" && !strings.EqualFold(fs.period, ps.period) {
		if i, j := textproc.IndexFold(out, ps.period); i >= 0 {
			if k, _ := textproc.IndexFold(out, fs.period); k >= 0 {
				out = tidy(out[:i] + out[j:])
			}
		}
	}
	b := body(out)
	if len(fs.names) == 0 {
		var missing []string
		for _, n := range ps.names {
			if i, _ := textproc.IndexFold(b, n); i < 0 {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			who := strings.Join(missing, " and ")
			the := "the " + strings.Join(topic, " ")
			if i, j := textproc.IndexFold(b, the); len(topic) > 0 && i >= 0 {
				b = b[:i] + who + "'s " + b[i+len("the "):j] + b[j:]
			} else {
				b += " for " + who
			}
			said = append(said, "the subject "+who)
		}
	}
	if fs.period == "" && ps.period != "" {
		if i, _ := textproc.IndexFold(b, ps.period); i < 0 {
			b += " " + ps.period
			said = append(said, "the period \""+ps.period+"\"")
		}
	}
	for _, n := range ps.names {
		if i, _ := textproc.IndexFold(b, n); i >= 0 && !strings.Contains(strings.Join(said, " "), n) {
			if k, _ := textproc.IndexFold(q, n); k < 0 {
				said = append(said, "the subject "+n)
			}
		}
	}
	if len(topic) > 0 {
		t := strings.Join(topic, " ")
		i, _ := textproc.IndexFold(b, t)
		k, _ := textproc.IndexFold(q, t)
		if i >= 0 && k < 0 {
			said = append([]string{"the measure \"" + t + "\""}, said...)
		}
	}
	if nq := subjectOf(b); fs.period != "" && nq.period != "" && !strings.EqualFold(nq.period, fs.period) {
		said = append(said, "the period read as \""+nq.period+"\"")
	}
	out = finish(b)
	if len(said) == 0 {
		return out, ""
	}
	return out, "carried over from the previous question: " + strings.Join(said, ", ")
}

// swapSubject answers a follow-up that only names a new subject or period
// ("what about Oracle?", "and for fiscal 2021?"): the previous question
// with its names or its period replaced. ok is false when rest is neither
// or the previous question has no such part to replace.
func swapSubject(prevBody string, rest []string) (string, bool) {
	words := rest
	if len(words) > 1 && prepositions[bare(words[0])] {
		words = words[1:]
	}
	x := strings.Join(words, " ")
	xs, ps := subjectOf(x), subjectOf(prevBody)
	// A lone capitalised word is a name here, not a sentence's start.
	xs.names = subjectOf("about " + x).names
	if xs.period != "" && ps.period != "" && len(xs.names) == 0 && xs.start == 0 && xs.end == len(strings.TrimRight(x, " ?.!")) {
		period := strings.Join(rest, " ")
		if len(words) == len(rest) {
			period = "in " + period
		}
		if p, ok := sameDate(ps.period, x); ok {
			period = p
		}
		return prevBody[:ps.start] + period + prevBody[ps.end:], true
	}
	if len(xs.names) == 1 && xs.period == "" && len(ps.names) > 0 && strings.EqualFold(strings.Join(strings.Fields(x), " "), xs.names[0]) {
		out := prevBody
		for i, n := range ps.names {
			rep := xs.names[0]
			if i > 0 {
				rep = ""
			}
			if k, j := textproc.IndexFold(out, n); k >= 0 {
				out = tidy(out[:k] + rep + out[j:])
			}
		}
		return out, true
	}
	return "", false
}

// sameDate reads a follow-up that names only a year after a question asked
// at a date ("as of May 31, 2023", then "and in fiscal 2022?") as the same
// date in that year: "as of May 31, 2022". A balance-sheet figure or a
// headcount is stated at a date, and a filing states the earlier year's
// figure at the same date of that year.
func sameDate(prevPeriod, x string) (string, bool) {
	y := reYearOnly.FindStringSubmatch(strings.TrimSpace(x))
	m := reDated.FindStringSubmatchIndex(prevPeriod)
	if y == nil || m == nil {
		return "", false
	}
	g := 2
	if m[g] < 0 {
		g = 4
	}
	return prevPeriod[:m[g]] + y[1] + prevPeriod[m[g+1]:], true
}

// tidy collapses the spaces and stray commas a deletion leaves.
func tidy(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, " ,", ",")
	s = strings.ReplaceAll(s, ",,", ",")
	s = strings.ReplaceAll(s, " ?", "?")
	s = strings.ReplaceAll(s, "'s's", "'s")
	return strings.TrimSpace(s)
}
