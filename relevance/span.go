package relevance

import (
	"regexp"
	"strings"
)

// The length of the period a figure covers: a table's columns are headed
// "Three Months Ended", "Nine Months Ended" or "Years Ended"; a statement
// names "the first quarter" or "fiscal year 2022".
const (
	SpanQuarter  = "quarter"
	SpanPartYear = "part-year"
	SpanYear     = "year"
)

var spanName = map[string]string{SpanQuarter: "a quarter", SpanPartYear: "part of a year", SpanYear: "a year"}

var (
	// reSpanHeader matches a table's period header
	reSpanHeader = regexp.MustCompile(`(?i)\b(?:(three|six|nine|twelve|3|6|9|12)[\s-]+months?|quarters?|(?:fiscal\s+)?years?|(?:13|26|39|52|53)[\s-]+weeks?)\s+ended\b`)
	// reFullYearQ matches a question that asks for a whole year
	reFullYearQ = regexp.MustCompile(`(?i)\b(?:full[\s-]+year|full[\s-]+fiscal[\s-]+year|whole\s+year|entire\s+year|annual|twelve\s+months|12\s+months)\b`)
	// reQuarterStated and reLongerStated: a statement's own period, a
	// quarter or one longer (six or nine months, a year)
	reQuarterStated = regexp.MustCompile(`(?i)\b(?:q[1-4]|[1-4]q\d{0,2}|(?:first|second|third|fourth)[\s-]+quarter|quarter(?:ly)?|three\s+months)\b`)
	reLongerStated  = regexp.MustCompile(`(?i)\b(?:full[\s-]+year|fiscal\s+year|years?\s+ended|twelve\s+months|12\s+months|annual(?:ly)?|for\s+the\s+year|year[\s-]+over[\s-]+year|nine\s+months|six\s+months)\b`)
)

// TableSpan returns the length of the period that the columns of the
// table claim (one row of content) sits in cover: the last period header
// of content before the row ("Three Months Ended (In Millions) Apr 1,
// 2023 Apr 2, 2022 … Total net revenue $11,715 $18,353" covers a
// quarter). It returns "" when no header comes before the row.
func TableSpan(content, claim string) string {
	at := strings.Index(content, claim)
	if at < 0 {
		label := rowLabel(claim)
		if label == "" {
			return ""
		}
		if at = rowIndex(content, label); at < 0 {
			return ""
		}
	}
	ms := reSpanHeader.FindAllStringSubmatch(content[:at], -1)
	if len(ms) == 0 {
		return ""
	}
	m := ms[len(ms)-1]
	switch strings.ToLower(m[1]) {
	case "three", "3":
		return SpanQuarter
	case "six", "nine", "6", "9":
		return SpanPartYear
	case "twelve", "12":
		return SpanYear
	}
	h := strings.ToLower(m[0])
	switch {
	case strings.HasPrefix(h, "quarter"), strings.HasPrefix(h, "13"):
		return SpanQuarter
	case strings.HasPrefix(h, "26"), strings.HasPrefix(h, "39"):
		return SpanPartYear
	}
	return SpanYear
}

// statedSpan returns SpanQuarter when a statement names a quarter and no
// longer period, "" otherwise.
func statedSpan(claim string) string {
	if reQuarterStated.MatchString(claim) && !reLongerStated.MatchString(claim) {
		return SpanQuarter
	}
	return ""
}

// asksFullYear reports whether the question asks for a whole year ("for
// full-year 2022", "annual revenue") and names no quarter or month.
func (f Frame) asksFullYear() bool {
	if !reFullYearQ.MatchString(f.Question) {
		return false
	}
	for _, p := range f.Periods {
		if !reYear.MatchString(p) || len(p) != 4 {
			return false
		}
	}
	return true
}
