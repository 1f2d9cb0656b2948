package decomposer

import (
	"regexp"
	"strings"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/textproc"
)

var (
	reQuoted = regexp.MustCompile(`"([^"]{1,120})"|“([^”]{1,120})”|(?:^|[\s(])'([^']{2,120})'(?:[\s).,?;:!]|$)`)
	reWord   = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’&.-]*`)
)

// Entities returns the names, defined terms (capitalised words that do not
// merely start the sentence, acronyms), quoted phrases, numbers, money and
// percentages in q, in order of appearance and without duplicates.
func Entities(q string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.Trim(strings.TrimSpace(s), ".,;:")
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			return
		}
		seen[k] = true
		out = append(out, s)
	}
	quoted := reQuoted.FindAllStringSubmatchIndex(q, -1)
	inQuote := func(i int) bool {
		for _, m := range quoted {
			if i >= m[0] && i < m[1] {
				return true
			}
		}
		return false
	}
	for _, m := range quoted {
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 {
				add(q[m[g]:m[g+1]])
			}
		}
	}
	for _, name := range capitalisedNames(q, inQuote) {
		add(name)
	}
	for _, f := range facts.Extract(q) {
		if f.Kind == facts.Number || f.Kind == facts.Money || f.Kind == facts.Percent {
			if !isYear(f) {
				add(f.Text)
			}
		}
	}
	return out
}

func isYear(f facts.Fact) bool {
	return f.Kind == facts.Number && f.Value >= 1900 && f.Value <= 2100 && f.Value == float64(int(f.Value)) && !strings.ContainsAny(f.Text, ".,")
}

// capitalisedNames returns runs of capitalised words ("Service Level
// Agreement", "Acme Corp", "SLA"), joined by "of" or "&", leaving out
// question words, auxiliaries and a lone capital that only starts a
// sentence.
func capitalisedNames(q string, skip func(int) bool) []string {
	var out []string
	locs := reWord.FindAllStringIndex(q, -1)
	sentenceStart := func(i int) bool {
		j := strings.LastIndexAny(q[:i], "?;.!")
		return strings.TrimSpace(q[j+1:i]) == ""
	}
	isCap := func(w string) bool {
		r := []rune(w)
		return len(r) > 0 && r[0] >= 'A' && r[0] <= 'Z'
	}
	for i := 0; i < len(locs); {
		w := q[locs[i][0]:locs[i][1]]
		if !isCap(w) || skip(locs[i][0]) {
			i++
			continue
		}
		j := i + 1
		for j < len(locs) {
			nw := q[locs[j][0]:locs[j][1]]
			if isCap(nw) && !skip(locs[j][0]) {
				j++
				continue
			}
			if (nw == "of" || nw == "&") && j+1 < len(locs) && isCap(q[locs[j+1][0]:locs[j+1][1]]) {
				j += 2
				continue
			}
			break
		}
		// drop leading question words, auxiliaries and stop words
		k := i
		for k < j {
			lw := strings.ToLower(q[locs[k][0]:locs[k][1]])
			if clauseStarters[lw] || textproc.IsStopWord(lw) {
				k++
				continue
			}
			break
		}
		if k < j {
			name := q[locs[k][0]:locs[j-1][1]]
			lone := j-k == 1
			acronym := strings.ToUpper(name) == name && len(name) > 1
			if !(lone && sentenceStart(locs[k][0]) && !acronym) {
				out = append(out, strings.TrimRight(name, ".-'’"))
			}
		}
		i = j
	}
	return out
}

var reConstraint = regexp.MustCompile(`(?i)\b(for|after|before|during|upon|following|prior to|under|within|unless|if|when|in case of|in the event of|in the event that|provided that|except|excluding|only for|only if)\s+([^,;?.!]+)`)

var constraintStops = regexp.MustCompile(`(?i)\s+(?:and|or|but)\s+(?:what|which|who|when|where|why|how|is|are|does|do|can|will|must)\b|\s+\b(?:for|after|before|during|upon|following|under|within|unless|if|when)\b\s`)

// Constraints returns the conditions that narrow the answer ("for
// enterprise clients", "after termination", "if payment is late").
func Constraints(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range reConstraint.FindAllStringSubmatchIndex(q, -1) {
		if strings.TrimSpace(q[:m[0]]) == "" || endsSentence(q[:m[0]]) {
			continue // a leading "When ..." is the question word
		}
		phrase := q[m[0]:m[1]]
		body := q[m[4]:m[5]]
		if loc := constraintStops.FindStringIndex(body); loc != nil {
			phrase = q[m[0] : m[4]+loc[0]]
		}
		phrase = strings.TrimSpace(phrase)
		if len(textproc.ContentWords(phrase)) == 0 {
			continue
		}
		if k := strings.ToLower(phrase); !seen[k] {
			seen[k] = true
			out = append(out, phrase)
		}
	}
	return out
}

func endsSentence(prefix string) bool {
	p := strings.TrimSpace(prefix)
	return p != "" && strings.ContainsAny(p[len(p)-1:], "?;.!")
}

var reRelativeTime = regexp.MustCompile(`(?i)\b(?:today|tomorrow|yesterday|(?:this|next|last|previous|current|following|same)\s+(?:day|week|month|quarter|year|fiscal year)|annually|monthly|quarterly|weekly|daily|per\s+(?:day|week|month|year|annum)|fiscal\s+year\s+\d{4}|FY\s?\d{2,4}|Q[1-4](?:\s+\d{4})?)\b`)

// Temporals returns the dates, durations and relative time expressions in
// q ("30 days", "thirty (30) days", "January 15, 2024", "next year",
// "per month", "in 2024").
func Temporals(q string) []string {
	type span struct {
		s, e int
		text string
	}
	var spans []span
	for _, f := range facts.Extract(q) {
		if f.Kind == facts.Duration || f.Kind == facts.Date || isYear(f) {
			spans = append(spans, span{f.Start, f.End, f.Text})
		}
	}
	for _, m := range reRelativeTime.FindAllStringIndex(q, -1) {
		overlap := false
		for _, s := range spans {
			if m[0] < s.e && m[1] > s.s {
				overlap = true
			}
		}
		if !overlap {
			spans = append(spans, span{m[0], m[1], q[m[0]:m[1]]})
		}
	}
	// order of appearance
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].s < spans[j-1].s; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range spans {
		if k := strings.ToLower(s.text); !seen[k] {
			seen[k] = true
			out = append(out, s.text)
		}
	}
	return out
}
