package relevance

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Centuries are periods too: a statement dated in another century does
// not answer a question about one ("Who left Messina in the 11th
// century?" is not answered by "In April 1191 Richard left Messina").
// A question names a century as an ordinal ("the 11th century", "the
// eleventh century") or by its hundreds ("the 1100s", the 12th century;
// from 1500 on, "the 1900s" is read as a year by reYear). A statement
// states the centuries it names, and those of the years it states (a
// year Y is in the Nth century when 100(N-1) <= Y <= 100N, so that 1100
// is in both the 11th and the 12th).

// reCentury matches "century" or "centuries" and the ordinals before it,
// joined by "and", "or", "to", commas and dashes ("the 10th and 11th
// centuries", "11–13th century", "twenty-first century"), and whether the
// era is before Christ (not compared: such a century is skipped).
var reCentury = regexp.MustCompile(`(?i)\b((?:(?:\d{1,2}(?:st|nd|rd|th)?|` + spelledOrdinalAlt + `)(?:\s*(?:,|–|-|and|or|to)\s*(?:the\s+)?)?)+)\s*centur(?:y|ies)\b(\s*(?:BC|BCE|B\.C\.)\b)?`)

// reHundreds matches a century named by its hundreds before 1500 ("the
// 1100s"); reCenturyYear a year of a statement from 1000 to 2099 ("1191",
// "1940s").
var (
	reHundreds    = regexp.MustCompile(`\b(1[0-4]|[1-9])00s\b`)
	reCenturyYear = regexp.MustCompile(`\b(1\d\d\d|20\d\d)s?\b`)
)

// reRelativeCentury matches a century named as a bound ("before the 19th
// century", "until the early 20th century"): a statement about another
// century may answer it.
var reRelativeCentury = regexp.MustCompile(`(?i)\b(?:after|before|since|until|till|by|from|prior\s+to|following|between|through|up\s+to|beyond|turn\s+of)\s+(?:the\s+)?(?:(?:early|mid|middle|late|first|second|last)(?:\s+half|\s+part)?(?:\s+of\s+the)?[\s-]+)?(?:\d{1,2}(?:st|nd|rd|th)|` + spelledOrdinalAlt + `|(?:1[0-4]|[1-9])00s)`)

var spelledOrdinals = []string{"", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
	"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"}

const spelledOrdinalAlt = `twenty[\s-]first|twenty[\s-]second|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth`

var (
	reOrdinalPart = regexp.MustCompile(`(?i)\d{1,2}|` + spelledOrdinalAlt)
	reRangeWord   = regexp.MustCompile(`[–-]|\bto\b`)
	// reFigureAfter matches what makes a number before it a figure, not a
	// year: a percent sign, or more digits after a separator ("1191,000")
	reFigureAfter = regexp.MustCompile(`^(?:%|[.,]\d)`)
)

// ordinalEnd reports whether the ordinals before "century" end with an
// ordinal ("11th", "11–13th", "eleventh"), not a bare number: "12
// centuries" counts centuries, it does not name one.
func ordinalEnd(ordinals string) bool {
	o := strings.TrimRight(ordinals, " \t,–-")
	return o != "" && (o[len(o)-1] < '0' || o[len(o)-1] > '9')
}

// ordinalValue returns the number of an ordinal of reOrdinalPart.
func ordinalValue(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	s = strings.ToLower(s)
	if strings.HasPrefix(s, "twenty") && len(s) > len("twenty") {
		return 20 + ordinalValue(strings.TrimLeft(s[len("twenty"):], " \t-"))
	}
	return slices.Index(spelledOrdinals, s)
}

// namedCenturies returns the centuries text names as ordinals, a range
// ("11–13th") giving each century in it, and by hundreds before 1500.
func namedCenturies(text string) []int {
	var out []int
	add := func(n int) {
		if n >= 1 && n <= 21 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, m := range reCentury.FindAllStringSubmatch(text, -1) {
		if m[2] != "" || !ordinalEnd(m[1]) {
			continue // before Christ, or a count ("12 centuries")
		}
		var ns []int
		for _, p := range reOrdinalPart.FindAllString(m[1], -1) {
			ns = append(ns, ordinalValue(p))
		}
		for i, n := range ns {
			add(n)
			// a range: "11–13th", "11th to 13th"
			if i > 0 && ns[i-1] < n && n-ns[i-1] <= 5 && reRangeWord.MatchString(m[1]) {
				for k := ns[i-1] + 1; k < n; k++ {
					add(k)
				}
			}
		}
	}
	for _, m := range reHundreds.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		add(n + 1)
	}
	slices.Sort(out)
	return out
}

// otherCenturies checks the centuries and years a statement states
// against the centuries the question names, as otherYears checks years:
// a statement that states some, none in a century asked about, is about
// another period. It returns what the statement states and false then.
func (f Frame) otherCenturies(claim string) ([]string, bool) {
	if len(f.centuries) == 0 || reRelativeCentury.MatchString(f.Question) {
		return nil, true
	}
	var stated []string
	for _, m := range reCentury.FindAllStringSubmatchIndex(claim, -1) {
		if m[4] >= 0 {
			return nil, true // an era before Christ: not compared
		}
		if ordinalEnd(claim[m[2]:m[3]]) {
			stated = append(stated, claim[m[0]:m[1]])
		}
	}
	for _, n := range namedCenturies(claim) {
		if slices.Contains(f.centuries, n) {
			return nil, true
		}
	}
	for _, m := range reHundreds.FindAllStringIndex(claim, -1) {
		stated = append(stated, claim[m[0]:m[1]])
	}
	for _, m := range reCenturyYear.FindAllStringSubmatchIndex(claim, -1) {
		// a year inside a larger number ("1,2005") or a figure
		// ("$1,191", "1191%") is not a year
		if before, _ := utf8.DecodeLastRuneInString(claim[:m[0]]); strings.ContainsRune(",.$£€", before) || reFigureAfter.MatchString(claim[m[1]:]) {
			continue
		}
		y, _ := strconv.Atoi(claim[m[2]:m[3]])
		for _, n := range f.centuries {
			if y >= 100*(n-1) && y <= 100*n {
				return nil, true
			}
		}
		stated = append(stated, claim[m[0]:m[1]])
	}
	if len(stated) == 0 {
		return nil, true
	}
	return stated, false
}

// centuryName is how a finding names century n ("the 11th century").
func centuryName(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("the %d%s century", n, suffix)
}
