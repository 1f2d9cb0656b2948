// Package facts extracts checkable facts from text — numbers, percentages,
// money with its currency, durations with their units and dates — and
// compares the facts of a claim with those of its evidence.
//
// It is shared by the rule-based decomposer (entities and temporals), the
// extractive generator (which prefers sentences carrying the kind of fact a
// question asks for) and the judge's deterministic guards, which catch an
// answer saying "5% per month" where the source says "1.5% per month".
//
// Everything here is deterministic and safe on any input: malformed text
// yields fewer facts, never a panic.
package facts

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

// Kind is the kind of a Fact.
type Kind string

// Fact kinds.
const (
	// Number is a bare number written in digits ("12", "10,000", "2.5").
	Number Kind = "number"
	// Percent is a percentage ("1.5%", "1.5 percent", "fifteen per cent").
	Percent Kind = "percent"
	// Money is an amount of money ("$10,000", "USD 2.5 million",
	// "5,000 euros").
	Money Kind = "money"
	// Duration is a length of time ("30 days", "thirty (30) days",
	// "two years", "12-month").
	Duration Kind = "duration"
	// Date is a calendar date ("2024-01-15", "January 15, 2024",
	// "15 March 2024", "March 2024", "01/15/2024").
	Date Kind = "date"
)

// CalendarDate is a date whose unknown parts are zero.
type CalendarDate struct {
	Year, Month, Day int
	// Ambiguous is true for numeric dates such as "03/04/2024" whose day
	// and month may be swapped; both readings are accepted when comparing.
	Ambiguous bool
}

// String renders the date as YYYY-MM-DD, with "??" for unknown parts.
func (d CalendarDate) String() string {
	part := func(v, w int) string {
		if v == 0 {
			return strings.Repeat("?", w)
		}
		return fmt.Sprintf("%0*d", w, v)
	}
	return part(d.Year, 4) + "-" + part(d.Month, 2) + "-" + part(d.Day, 2)
}

// Fact is one fact found in a text.
type Fact struct {
	Kind Kind
	// Text is the fact as written, e.g. "thirty (30) days".
	Text string
	// Value is the normalised amount: the number, the percentage, the
	// money amount (multipliers such as "million" applied) or the duration
	// in Unit. It is 0 for dates.
	Value float64
	// Quantity is the number as written, before multipliers and unit
	// normalisation (2 in "two years", whose Value is 24 months).
	Quantity float64
	// Unit is the currency code of money ("USD", "EUR", ... or "" when not
	// stated), the unit of a duration ("day", "month", "hour", "minute";
	// weeks are counted in days, years and quarters in months), or for a
	// bare number the stem of the word that follows it ("employe" in
	// "5 employees"), "" when none.
	Unit string
	// Qualifier is a duration's qualifier ("business", "calendar",
	// "working", "consecutive"); it is reported but not compared.
	Qualifier string
	// Per is the period of a rate ("month" in "1.5% per month",
	// "year" in "$500 annually"), "" when none.
	Per string
	// Date is set for dates.
	Date CalendarDate
	// Start and End are byte offsets of Text in the input.
	Start, End int
}

// String renders the fact as written.
func (f Fact) String() string { return f.Text }

// units, teens and tens are expressions for the number words of
// internal/wordlists/number_words.txt by size; wordValues holds their
// values.
var units, teens, tens, wordValues = readNumberWords()

// currCode is an expression for the currency codes of
// internal/wordlists/currency_codes.txt (read in any case).
var currCode = wordlists.Alternation("currency_codes")

var (
	wordNum = `(?:(?:` + tens + `)(?:[- ](?:` + units + `))?|` + teens + `|` + units + `|a|an)(?:\s+(?:hundred|thousand|million|billion))?`
	// qty is a quantity in digits, in words, or both ("thirty (30)").
	qty = `(?:\b(?:` + wordNum + `)\s*\(\s*(?:` + digitNum + `)\s*\)|(?:` + digitNum + `)\s*\(\s*(?:` + wordNum + `)\s*\)|(?:` + digitNum + `)|\b(?:` + wordNum + `)\b)`
)

func readNumberWords() (units, teens, tens string, values map[string]float64) {
	values = map[string]float64{"a": 1, "an": 1}
	var bySize [3][]string
	for _, l := range wordlists.Lines("number_words") {
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			panic("wordlists: number_words: " + l)
		}
		values[f[0]] = v
		size := 2
		if v < 10 {
			size = 0
		} else if v < 20 {
			size = 1
		}
		bySize[size] = append(bySize[size], f[0])
	}
	return wordlists.AlternationOf(bySize[0]...), wordlists.AlternationOf(bySize[1]...), wordlists.AlternationOf(bySize[2]...), values
}

const (
	digitNum = `\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+`
	mult     = `(?:\s*(?:million|billion|thousand|mn|bn|m|k)\b)?`
)

// monthName is a month's capitalised name or abbreviation (months.txt).
var monthName = wordlists.AlternationOf(wordlists.Capitalised(wordlists.MonthWords())...)

var (
	reDateISO     = regexp.MustCompile(`^\b(\d{4})-(\d{1,2})-(\d{1,2})\b`)
	reDateMDY     = regexp.MustCompile(`^\b(` + monthName + `)\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`)
	reDateDMY     = regexp.MustCompile(`^\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(` + monthName + `)\.?,?\s+(\d{4})\b`)
	reDateMY      = regexp.MustCompile(`^\b(` + monthName + `),?\s+(\d{4})\b`)
	reDateNumeric = regexp.MustCompile(`^\b(\d{1,2})([/.])(\d{1,2})[/.](\d{4}|\d{2})\b`)

	reMoneyPre  = regexp.MustCompile(`(?i)^(US\$|\$|€|£|¥|\b(?:` + currCode + `)\b)\s?(` + digitNum + `)(` + mult + `)`)
	reMoneyPost = regexp.MustCompile(`(?i)^(` + qty + `)(\s*(?:million|billion|thousand)\b)?\s*(\b(?:` + currCode + `)\b|(?:US\s+)?dollars?\b|euros?\b)`)
	rePercent   = regexp.MustCompile(`(?i)^(` + qty + `)\s*(?:%|\bpercent\b|\bper\s+cent\b|\bpercentage\s+points?\b)`)
	reDuration  = regexp.MustCompile(`(?i)^(` + qty + `)(?:-|\s+)(?:(business|calendar|working|consecutive)[- ])?(days?|weeks?|months?|years?|hours?|minutes?|quarters?)\b`)
	reNumber    = regexp.MustCompile(`^\b(?:` + digitNum + `)\b`)
	reParenNum  = regexp.MustCompile(`\(\s*(` + digitNum + `)\s*\)`)
	rePer       = regexp.MustCompile(`(?i)^\s*(?:` + wordlists.Alternation("rate_words") + `\s+(?:calendar\s+)?(day|week|month|year|annum|hour|quarter)\b|(` + wordlists.Alternation("rate_adverbs") + `)\b)`)
	reRefBefore = regexp.MustCompile(`(?i)(?:\b` + wordlists.Alternation("number_labels") + `\.?|§|#)\s*$`)
)

var multipliers = map[string]float64{
	"hundred": 100, "thousand": 1e3, "k": 1e3, "million": 1e6, "mn": 1e6, "m": 1e6,
	"billion": 1e9, "bn": 1e9,
}

// monthNumbers numbers the months by their first three letters.
var monthNumbers = func() map[string]int {
	m := map[string]int{}
	for i, s := range wordlists.MonthStems() {
		m[s] = i + 1
	}
	return m
}()

// Extract returns the facts in text, ordered by position. Where facts
// overlap, the more specific one wins: a date over its numbers, money and
// percentages over their numbers, "thirty (30) days" as one duration.
// Bare numbers written only in words ("three options") are not reported;
// references such as "Section 7.1" or "page 8" are not facts.
//
// Extraction scans once for the places where a fact can start (digits,
// currency signs and codes, number words, month names) and tries anchored
// patterns there, so its cost grows with the number of candidates, not
// with the size of the patterns times the length of the text.
func Extract(text string) []Fact {
	var out []Fact
	for i := 0; i < len(text); {
		if !canStart(text, i) {
			i++
			continue
		}
		f, ok := matchAt(text, i)
		if !ok {
			i++
			continue
		}
		f.Text = text[f.Start:f.End]
		out = append(out, f)
		i = f.End
	}
	return out
}

// canStart reports whether a fact may start at text[i].
func canStart(text string, i int) bool {
	c := text[i]
	prevAlnum := i > 0 && isAlnumByte(text[i-1])
	switch {
	case c >= '0' && c <= '9':
		if prevAlnum {
			return false
		}
		// not inside "1.5" or "10,000"
		return !(i >= 2 && (text[i-1] == '.' || text[i-1] == ',') && text[i-2] >= '0' && text[i-2] <= '9')
	case c == '$':
		return true
	case isLetterByte(c):
		if prevAlnum {
			return false
		}
		j := i
		for j < len(text) && isLetterByte(text[j]) && j-i < 12 {
			j++
		}
		w := text[i:j]
		if c >= 'A' && c <= 'Z' && monthNumbers[strings.ToLower(firstN(w, 3))] > 0 {
			return true
		}
		return startWords[strings.ToLower(w)] && unitFollows(text[j:])

	case c >= 0x80:
		return strings.HasPrefix(text[i:], "€") || strings.HasPrefix(text[i:], "£") || strings.HasPrefix(text[i:], "¥")
	}
	return false
}

// unitWords are the words that make a number word a fact ("two years",
// "ten percent", "five thousand dollars").
var unitWords = wordlists.Named("fact_units", "currency_codes")

// unitFollows reports whether, within the next few words of after, there
// is a unit word, a digit in parentheses or a '%' — the only way a fact
// starting with a number word (or a currency code) can continue.
func unitFollows(after string) bool {
	after = firstN(after, 48)
	if strings.ContainsAny(after, "%0123456789") {
		return true
	}
	n := 0
	for _, w := range strings.FieldsFunc(after, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) {
		if unitWords[strings.ToLower(w)] {
			return true
		}
		if n++; n == 4 {
			break
		}
	}
	return false
}

// startWords are the lower-case words a fact can start with.
var startWords = func() map[string]bool {
	m := map[string]bool{"us": true}
	for w := range wordValues {
		m[w] = true
	}
	for _, w := range wordlists.Words("currency_codes") {
		m[w] = true
	}
	return m
}()

// matchAt tries the fact patterns anchored at text[i], most specific first.
func matchAt(text string, i int) (Fact, bool) {
	// Facts are short: match within a bounded window (ending at a word
	// boundary), which keeps each attempt cheap.
	end := i + 120
	if end >= len(text) {
		end = len(text)
	} else {
		for end < len(text) && isAlnumByte(text[end]) {
			end++
		}
	}
	rest := text[i:end]
	at := func(re *regexp.Regexp) []int {
		m := re.FindStringSubmatchIndex(rest)
		if m == nil {
			return nil
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += i
			}
		}
		return m
	}
	if f, ok := matchDate(text, at); ok {
		return f, true
	}
	if m := at(reMoneyPre); m != nil {
		if v, ok := parseDigits(text[m[4]:m[5]]); ok {
			q := v
			if mw := strings.ToLower(strings.TrimSpace(text[m[6]:m[7]])); mw != "" {
				v *= multipliers[mw]
			}
			p, n := per(text[m[1]:])
			return Fact{Kind: Money, Value: v, Quantity: q, Unit: currency(text[m[2]:m[3]]), Per: p, Start: m[0], End: m[1] + n}, true
		}
	}
	if m := at(reMoneyPost); m != nil {
		if v, ok := parseQty(text[m[2]:m[3]]); ok {
			q := v
			if m[4] >= 0 {
				v *= multipliers[strings.ToLower(strings.TrimSpace(text[m[4]:m[5]]))]
			}
			p, n := per(text[m[1]:])
			return Fact{Kind: Money, Value: v, Quantity: q, Unit: currency(text[m[6]:m[7]]), Per: p, Start: m[0], End: m[1] + n}, true
		}
	}
	if m := at(rePercent); m != nil {
		if v, ok := parseQty(text[m[2]:m[3]]); ok {
			p, n := per(text[m[1]:])
			return Fact{Kind: Percent, Value: v, Quantity: v, Per: p, Start: m[0], End: m[1] + n}, true
		}
	}
	if m := at(reDuration); m != nil {
		if v, ok := parseQty(text[m[2]:m[3]]); ok {
			unit, factor := durationUnit(text[m[6]:m[7]])
			f := Fact{Kind: Duration, Value: v * factor, Quantity: v, Unit: unit, Start: m[0], End: m[1]}
			if m[4] >= 0 {
				f.Qualifier = strings.ToLower(text[m[4]:m[5]])
			}
			return f, true
		}
	}
	if m := at(reNumber); m != nil {
		s, e := m[0], m[1]
		if reRefBefore.MatchString(lastN(text[:s], 16)) || isCodeLike(text, s, e) {
			return Fact{}, false
		}
		if v, ok := parseDigits(text[s:e]); ok {
			return Fact{Kind: Number, Value: v, Quantity: v, Unit: nextWordStem(text[e:]), Start: s, End: e}, true
		}
	}
	return Fact{}, false
}

func matchDate(text string, at func(*regexp.Regexp) []int) (Fact, bool) {
	date := func(m []int, d CalendarDate) (Fact, bool) {
		return Fact{Kind: Date, Date: d, Start: m[0], End: m[1]}, true
	}
	if m := at(reDateISO); m != nil {
		y, mo, d := atoi(text[m[2]:m[3]]), atoi(text[m[4]:m[5]]), atoi(text[m[6]:m[7]])
		if validDate(y, mo, d) {
			return date(m, CalendarDate{Year: y, Month: mo, Day: d})
		}
	}
	if m := at(reDateDMY); m != nil {
		d, mo, y := atoi(text[m[2]:m[3]]), month(text[m[4]:m[5]]), atoi(text[m[6]:m[7]])
		if validDate(y, mo, d) {
			return date(m, CalendarDate{Year: y, Month: mo, Day: d})
		}
	}
	if m := at(reDateMDY); m != nil {
		mo, d := month(text[m[2]:m[3]]), atoi(text[m[4]:m[5]])
		y := 0
		if m[6] >= 0 {
			y = atoi(text[m[6]:m[7]])
		}
		// "May 5" without a year is too often the verb.
		if (y != 0 || !strings.EqualFold(text[m[2]:m[3]], "may")) && (y == 0 || validDate(y, mo, d)) && mo > 0 && d >= 1 && d <= 31 {
			return date(m, CalendarDate{Year: y, Month: mo, Day: d})
		}
	}
	if m := at(reDateMY); m != nil {
		mo, y := month(text[m[2]:m[3]]), atoi(text[m[4]:m[5]])
		if validDate(y, mo, 0) {
			return date(m, CalendarDate{Year: y, Month: mo})
		}
	}
	if m := at(reDateNumeric); m != nil {
		a, b, y := atoi(text[m[2]:m[3]]), atoi(text[m[6]:m[7]]), atoi(text[m[8]:m[9]])
		if m[9]-m[8] == 2 {
			y += 2000
		}
		sep := text[m[4]:m[5]]
		switch {
		case sep == "/" && validDate(y, a, b) && validDate(y, b, a) && a != b:
			return date(m, CalendarDate{Year: y, Month: a, Day: b, Ambiguous: true})
		case sep == "/" && validDate(y, a, b):
			return date(m, CalendarDate{Year: y, Month: a, Day: b})
		case validDate(y, b, a): // day first: "15/01/2024", "15.01.2024"
			return date(m, CalendarDate{Year: y, Month: b, Day: a})
		}
	}
	return Fact{}, false
}

func validDate(y, m, d int) bool {
	return y >= 1000 && y <= 2999 && m >= 1 && m <= 12 && d >= 0 && d <= 31
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

func month(s string) int {
	s = strings.ToLower(s)
	if len(s) < 3 {
		return 0
	}
	return monthNumbers[s[:3]]
}

// parseDigits parses "10,000.50".
func parseDigits(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// parseQty parses a quantity in digits, words, or "thirty (30)".
func parseQty(s string) (float64, bool) {
	if m := reParenNum.FindStringSubmatch(s); m != nil {
		return parseDigits(m[1])
	}
	if v, ok := parseDigits(s); ok {
		return v, true
	}
	if i := strings.IndexByte(s, '('); i >= 0 { // "30 (thirty)"
		return parseDigits(s[:i])
	}
	return parseWords(s)
}

// parseWords parses "twenty-five", "two hundred", "ten thousand".
func parseWords(s string) (float64, bool) {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '-' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return 0, false
	}
	var total float64
	for _, w := range fields {
		if v, ok := wordValues[w]; ok {
			total += v
			continue
		}
		m, ok := multipliers[w]
		if !ok {
			return 0, false
		}
		if total == 0 {
			total = 1
		}
		total *= m
	}
	return total, true
}

func currency(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	switch {
	case s == "$" || s == "US$" || strings.Contains(s, "DOLLAR"):
		return "USD"
	case s == "€" || strings.HasPrefix(s, "EURO"):
		return "EUR"
	case s == "£":
		return "GBP"
	case s == "¥":
		return "JPY"
	}
	return s
}

func durationUnit(s string) (string, float64) {
	s = strings.TrimSuffix(strings.ToLower(s), "s")
	switch s {
	case "week":
		return "day", 7
	case "year":
		return "month", 12
	case "quarter":
		return "month", 3
	}
	return s, 1
}

// per reads a rate period ("per month", "annually") at the start of after
// and returns it with the number of bytes it spans.
func per(after string) (string, int) {
	m := rePer.FindStringSubmatchIndex(after)
	if m == nil {
		return "", 0
	}
	var w string
	if m[2] >= 0 {
		w = after[m[2]:m[3]]
	} else {
		w = after[m[4]:m[5]]
	}
	w = strings.ToLower(w)
	switch w {
	case "annum", "annually", "yearly":
		w = "year"
	case "daily":
		w = "day"
	case "weekly":
		w = "week"
	case "monthly":
		w = "month"
	case "quarterly":
		w = "quarter"
	}
	return w, m[1]
}

// isCodeLike reports whether the number at text[s:e] is glued to letters
// or other digits by '-', '/' or ':' (an identifier, a time, a phone
// number), which is not a quantity to compare.
func isCodeLike(text string, s, e int) bool {
	glue := func(b byte) bool { return b == '-' || b == '/' || b == ':' || b == '_' }
	alnum := func(b byte) bool {
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	if s >= 2 && glue(text[s-1]) && alnum(text[s-2]) {
		return true
	}
	return e+1 < len(text) && glue(text[e]) && alnum(text[e+1])
}

func nextWordStem(after string) string {
	toks := textproc.Tokens(firstN(after, 40))
	for _, t := range toks {
		if textproc.IsStopWord(t) {
			return ""
		}
		return textproc.Stem(t)
	}
	return ""
}

func lastN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func firstN(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isAlnumByte(c byte) bool { return isLetterByte(c) || c >= '0' && c <= '9' || c == '_' }
