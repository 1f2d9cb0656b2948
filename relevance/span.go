package relevance

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
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
	at := rowAt(content, claim)
	if at < 0 {
		return ""
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

// ReadTable sets what c needs to know when its claim is a row of a table
// in content, the claim's section: Scope and Row (RowScope) and, for a
// row, Span (TableSpan) and Header (TableHeader).
func (c *Context) ReadTable(content string) {
	c.Scope, c.Row = RowScope(content, c.Claim)
	if c.Row {
		c.Span = TableSpan(content, c.Claim)
		c.Header = TableHeader(content, c.Claim)
	}
}

// rowAt returns where the row claim is in content: the claim itself, or
// its label followed by a value; -1 when neither is there.
func rowAt(content, claim string) int {
	if at := strings.Index(content, claim); at >= 0 {
		return at
	}
	label := rowLabel(claim)
	if label == "" {
		return -1
	}
	return rowIndex(content, label)
}

// maxHeaderBytes bounds the header TableHeader returns: a table's header
// is a line or two ("For the year ended December 31, 2013 (in
// thousands)"), not a page.
const maxHeaderBytes = 400

// reSentenceEnd ends a sentence of prose: what comes before it is not a
// table's header.
var reSentenceEnd = regexp.MustCompile(`[.!?]["')\]]?(?:\s|$)`)

// TableHeader returns the header of the table the row claim sits in: the
// text between the last end of a sentence of prose before the row and the
// row, at most its last maxHeaderBytes. A header may run over several
// lines and paragraphs, as a PDF's column headings do ("Three Months
// Ended March 31, 2023\n\nDecember 31, 2022\n\n… (In millions)"), and
// rows before the row may be part of it. It returns "" when the row is not
// found or a sentence ends right before it.
func TableHeader(content, claim string) string {
	at := rowAt(content, claim)
	if at < 0 {
		return ""
	}
	header := content[min(runeStart(content, max(0, at-4*maxHeaderBytes)), at):at]
	if ends := reSentenceEnd.FindAllStringIndex(header, -1); len(ends) > 0 {
		header = header[ends[len(ends)-1][1]:]
	}
	if len(header) > maxHeaderBytes {
		header = header[runeStart(header, len(header)-maxHeaderBytes):]
	}
	return strings.TrimSpace(header)
}

// runeStart returns i, or the start of the next rune of s when i falls
// inside one.
func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// reShortPeriods matches a heading of figures for periods shorter than a
// year: "Selected Interim Financial Information", "Quarterly Financial
// Data".
var reShortPeriods = regexp.MustCompile(`(?i)\b(interim|quarterly)\b`)

// headingSpan returns the span that a section's heading gives the rows of
// its tables when no period header comes before them in the section (a
// table continued from the page before): SpanQuarter under "Quarterly
// Financial Data", SpanPartYear under "Selected Interim Financial
// Information", "" under a heading that also names a longer period
// ("Annual and Quarterly Results") or none.
func headingSpan(heading string) string {
	m := reShortPeriods.FindStringSubmatch(heading)
	if m == nil || reLongerStated.MatchString(heading) {
		return ""
	}
	if strings.EqualFold(m[1], "quarterly") {
		return SpanQuarter
	}
	return SpanPartYear
}

// statedSpan returns SpanQuarter when a statement names a quarter and no
// longer period, "" otherwise.
func statedSpan(claim string) string {
	if reQuarterStated.MatchString(claim) && !reLongerStated.MatchString(claim) {
		return SpanQuarter
	}
	return ""
}

// reShorterAsked matches a question that asks about a span shorter than
// a year ("in each quarter of 2015", "monthly sales in 2022").
var reShorterAsked = regexp.MustCompile(`(?i)\b(?:quarters?|quarterly|months?|monthly|half|interim|weeks?|weekly|semi-?annual)\b`)

// asksFullYear reports whether the question asks for a whole year ("for
// full-year 2022", "annual revenue") and names no quarter or month. A
// question for a figure that names only years ("total revenue for 2015",
// "net income in fiscal 2022") and no shorter span asks for the year's
// figure too: a quarter's figure of that year does not answer it.
func (f Frame) asksFullYear() bool {
	if !reFullYearQ.MatchString(f.Question) && (!figureType(f.Type) || len(f.Periods) == 0 || reShorterAsked.MatchString(f.Question)) {
		return false
	}
	return !slices.ContainsFunc(f.Periods, func(p string) bool { return !reYear.MatchString(p) || len(p) != 4 })
}
