// Package tables reads tables that text extraction flattened into running
// text ("In millions 2022 2021 Revenue $ 1,645 $ 1,582 Net income 812 790",
// as a PDF's text layer gives a financial statement) back into rows, each
// rendered with its column headers and unit: "Revenue: 2022 $1,645; 2021
// $1,582 (in millions)". The generator quotes such rows instead of the run
// of figures; the loader makes each a section of its own (a table row is a
// retrievable unit).
package tables

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

var (
	reCell = regexp.MustCompile(`^[-−]?\(?\$?\(?[\d,]*\d(?:\.\d+)?\)?%?\)?[*,;]?$|^[—–-]$`)
	// reYear is a column header: a year, or a date or quarter merged
	// into one token by mergeHeads ("September 24, 2022", "Q1 2023",
	// "Q1-22").
	reYear = regexp.MustCompile(`^(?:19|20)\d\d$|^\p{Lu}\p{Ll}{2,8}\.?\x{a0}\d{1,2},\x{a0}(?:19|20)\d\d$|^Q[1-4](?:\x{a0}|[-'’]|\x{a0}FY)?(?:(?:19|20)?\d\d)$`)
)

// Dates and quarters are column headers as years are ("September 24,
// 2022 September 25, 2021", "Q1 2023 Q1 2022"): mergeHeads joins the
// words of each into one token (with no-break spaces, turned back into
// spaces when rows are rendered), so that a run of them is a header.
var (
	reMonthWord = regexp.MustCompile(`^` + wordlists.AlternationOf(wordlists.Capitalised(wordlists.MonthWords())...) + `\.?$`)
	reDayComma  = regexp.MustCompile(`^\d{1,2},$`)
	reYearOrFY  = regexp.MustCompile(`^(?:FY)?(?:(?:19|20)\d\d|'?\d\d)$`)
)

// reOpenValue and reValueRest are the pieces of a negative amount that
// the PDF's glyph spacing split: "(10,18" "9" ")".
var (
	reOpenValue = regexp.MustCompile(`^\(\$?\d[\d,]*$`)
	reValueRest = regexp.MustCompile(`^\d{1,3}\)?$`)
)

// mergeHeads returns toks with the words of each date ("September", "24,",
// "2022") and quarter ("Q1", "2023") joined into one token, and the
// pieces of an amount split apart ("(10,18 9 )") joined again.
func mergeHeads(toks []string) []string {
	out := make([]string, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case i+1 < len(toks) && strings.HasPrefix(t, "(") && reOpenValue.MatchString(t) && reValueRest.MatchString(toks[i+1]) &&
			(strings.HasSuffix(toks[i+1], ")") || i+2 < len(toks) && strings.HasPrefix(toks[i+2], ")")):
			// "(10,18" "9" ")": one value, "(10,189)"
			t += toks[i+1]
			i++
			if !strings.HasSuffix(t, ")") {
				t += ")"
				toks[i+1] = strings.TrimPrefix(toks[i+1], ")")
				if toks[i+1] == "" {
					i++
				}
			}
			out = append(out, t)
		case i+2 < len(toks) && isMonthWord(t) && reDayComma.MatchString(toks[i+1]) && isYear(toks[i+2]):
			out = append(out, t+"\u00a0"+toks[i+1]+"\u00a0"+toks[i+2])
			i += 2
		case i+1 < len(toks) && isQuarter(t) && reYearOrFY.MatchString(toks[i+1]):
			out = append(out, t+"\u00a0"+strings.TrimPrefix(toks[i+1], "'"))
			i++
		default:
			out = append(out, t)
		}
	}
	return out
}

// reUnit is a table's unit as filings state it: "(in millions)",
// "(dollars in thousands, except per share data)", "In millions".
var reUnit = regexp.MustCompile(`(?i)\((?:[a-z$ ]*\s)?in (millions|billions|thousands)\b[^)]{0,60}\)|\bin (millions|billions|thousands)\b`)

// Unit is the unit a table's text states, as "in millions"; "" when
// it states none.
func Unit(text string) string {
	// every unit writes "illion" or "thou": a text with neither is
	// turned away before the expression runs
	if !textproc.ContainsFoldASCII(text, "illion") && !textproc.ContainsFoldASCII(text, "thou") {
		return ""
	}
	m := reUnit.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return "in " + strings.ToLower(m[1]+m[2])
}

// minCellShare is the least share of a table's tokens that are values.
const minCellShare = 0.2

// isCell reports whether a token is a table value: a number, possibly with
// a currency sign, a minus sign, parentheses (a negative amount) or a
// percent sign ("-2%": Oracle's percent-change columns), or a dash for
// nil.
func isCell(tok string) bool {
	if !hasDigit(tok) { // every value but a dash holds a digit: no regexp for words
		return tok == "—" || tok == "–" || tok == "-"
	}
	return reCell.MatchString(tok)
}

// hasDigit reports whether s holds an ASCII digit, which every match of
// reCell's values, reYear, reOpenValue and reDayComma does: a word is
// turned away before the regular expression runs.
func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			return true
		}
	}
	return false
}

// isYear is reYear.MatchString, quicker on words.
func isYear(t string) bool { return hasDigit(t) && reYear.MatchString(t) }

// isQuarter reports whether t is a quarter alone: "Q1" to "Q4".
func isQuarter(t string) bool { return len(t) == 2 && t[0] == 'Q' && '1' <= t[1] && t[1] <= '4' }

// isMonthWord is reMonthWord.MatchString, quicker on words that do not
// start with a capital.
func isMonthWord(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsUpper(r) && reMonthWord.MatchString(t)
}

// Rows splits text flattened from a table ("In millions 2022 2021
// Revenue $ 1,645 $ 1,582 Net income 812 790") into one line per row,
// each with its column headers when the row has one value per column:
// "Revenue: 2022 $ 1,645; 2021 $ 1,582". It returns nil when the text does
// not look like a table (fewer than two rows of values).
func Rows(text string) []string {
	rows, header := bestRows(text)
	return renderRows(rows, header, Unit(text))
}

// rowsUnder renders the rows of Rows(text) under above, the header
// of a line just before the text (headerLine) or of the table the text
// goes on from, when the text has no header of its own: the same rows,
// labelled by a header that stands apart ("2015 2014" on the line before
// "Land $ 4,806,021 $ 4,785,772 …"), in the text's unit or else in
// aboveUnit. It returns nil otherwise.
func rowsUnder(text string, above []string, aboveUnit string) []string {
	if len(above) == 0 {
		return nil
	}
	rows, header := bestRows(text)
	if header != nil {
		return nil
	}
	unit := Unit(text)
	if unit == "" {
		unit = aboveUnit
	}
	return renderRows(rows, above, unit)
}

// Reader follows the tables of a section's sentences in order: the
// header of a header line, for the table after it, or of a table, for the
// rows that go on from it in the next paragraphs (a table the PDF reader
// split at a page or column break), with its unit. Prose ends it.
type Reader struct {
	header []string
	unit   string
	// heads is true while the sentences read are column headers standing
	// one to a line ("September 25, 2021", "September 26, 2020"), which
	// build header up.
	heads bool
}

// Read returns the next sentence's rows (Rows; nil when it is not a
// table) and, when they have no header of their own, the same rows under
// the header they go on from (rowsUnder; else nil).
func (tc *Reader) Read(sent string) (rows, shown []string) {
	rows = Rows(sent)
	shown = rowsUnder(sent, tc.header, tc.unit)
	tc.advance(sent, rows != nil)
	return rows, shown
}

// advance moves tc past sent, whose rows (when isTable) were just read.
func (tc *Reader) advance(sent string, isTable bool) {
	if h := columnHead(sent); h != "" {
		// a column's header alone on its line: the columns of the table
		// below, one line each (a balance sheet's dates)
		if !tc.heads {
			tc.header = nil
		}
		tc.header, tc.heads = append(slices.Clip(tc.header), h), true
		return
	}
	tc.heads = false
	if !isTable && unitLine(sent) {
		// "(In millions, except per share amounts)" above the columns
		tc.header, tc.unit = nil, Unit(sent)
		return
	}
	switch h := headerLine(sent); {
	case h != nil:
		tc.header, tc.unit = h, Unit(sent)
	case !isTable:
		tc.header, tc.unit = nil, ""
	default:
		if _, own := bestRows(sent); own != nil {
			tc.header, tc.unit = own, Unit(sent)
		}
	}
}

// continued reads a sentence with too few values to be read as a table
// (bestRows) as rows that go on from the table before it, under its
// header: "Non-current assets: Marketable securities 127,877 100,887
// Property, plant and equipment, net 39,440 36,766" after a balance
// sheet's current assets. Every row must have one value per column and a
// label that is no sentence; nil otherwise.
func continued(sent string, header []string) []tableRow {
	if strings.HasSuffix(strings.TrimSpace(sent), ".") {
		return nil
	}
	toks := mergeHeads(strings.Fields(sent))
	if rs := runs(toks); len(rs) == 0 || !rs[len(rs)-1].cells {
		return nil
	}
	rows := splitRows(toks)
	for _, r := range rows {
		if len(r.values) != len(header) || strings.IndexFunc(r.label, unicode.IsLetter) < 0 || strings.Contains(r.label, ". ") {
			return nil
		}
	}
	return rows
}

// columnHead returns the column header a line is when it is nothing else:
// a year, a date or a quarter ("September 25, 2021"); "" otherwise.
func columnHead(sent string) string {
	toks := mergeHeads(strings.Fields(sent))
	if len(toks) == 1 && isYear(toks[0]) {
		return toks[0]
	}
	return ""
}

// maxUnitLine is the most words of a line that states a table's unit and
// nothing else.
const maxUnitLine = 16

// unitLine reports whether a line states a table's unit and nothing else:
// "(In millions, except number of shares which are reflected in thousands
// and par value)".
func unitLine(sent string) bool {
	t := strings.TrimSpace(sent)
	return strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") && len(strings.Fields(t)) <= maxUnitLine && Unit(t) != ""
}

// Row is one row of a table read from text, rendered as Rows renders it.
type Row struct {
	Text string
	// Headed is true when every value of the row stands under a column
	// header ("Total revenue: 2015 $2,490,821; 2014 $2,396,998"), the
	// header of its own table or of the one it goes on from.
	Headed bool
}

// ReadRows is Read for a reader that wants each row once: the next
// sentence's rows, under the header they go on from when they have none
// of their own, with whether each is headed.
func (tc *Reader) ReadRows(sent string) []Row {
	rows, header := bestRows(sent)
	unit := Unit(sent)
	if rows == nil && len(tc.header) > 0 && !tc.heads {
		rows = continued(sent, tc.header)
	}
	if rows != nil && header == nil && len(tc.header) > 0 {
		header = tc.header
		if unit == "" {
			unit = tc.unit
		}
	}
	tc.advance(sent, rows != nil)
	out := make([]Row, 0, len(rows))
	for _, r := range rows {
		out = append(out, newRow(r.label, r.values, header, unit))
	}
	return out
}

// newRow is a row rendered under header in unit (renderRow), headed when
// its label has a letter and, footnote marks aside, it has one value per
// column.
func newRow(label string, values, header []string, unit string) Row {
	l, vs := dropFootnoteMarks(label, values, header)
	return Row{
		Text:   renderRow(label, values, header, unit),
		Headed: len(header) > 0 && len(vs) == len(header) && strings.IndexFunc(l, unicode.IsLetter) >= 0,
	}
}

// renderRows renders rows under header (renderRow), the values in unit
// ("in millions", or ""); nil for no rows.
func renderRows(rows []tableRow, header []string, unit string) []string {
	if rows == nil {
		return nil
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = renderRow(r.label, r.values, header, unit)
	}
	return out
}

// bestRows reads text as a table: its rows and its header, nil rows when
// it does not look like one.
func bestRows(text string) ([]tableRow, []string) {
	if strings.Contains(text, "|") {
		return nil, nil // a table with cell separators keeps its rows
	}
	// whether the text is a table is read from its words as written (a
	// date's year counts as a value, as before mergeHeads), so that a
	// contents line listing dated statements reads as it did
	raw := strings.Fields(text)
	cells := 0
	for _, t := range raw {
		if isCell(t) {
			cells++
		}
	}
	toks := mergeHeads(raw)
	// a table flattened into text is mostly values; prose that states
	// many figures ("$8.3 billion and $8.8 billion ...") is mostly words
	if cells < 6 || float64(cells) < minCellShare*float64(len(raw)) {
		return nil, nil
	}
	// the header: the first run of two or more years ("2022 2021
	// 2020"), or the first run from a year to a year with column words
	// between ("2023 Actual Constant 2022": percent-change columns between
	// the years) when more rows have one value per column for it
	best, bestFit := []tableRow(nil), -1
	var bestHeader []string
	for _, h := range headerCandidates(toks) {
		rows := valueFirstRows(toks[h.start:])
		if rows == nil {
			rows = splitRows(toks[h.start:])
		}
		fit := 0
		for _, r := range rows {
			if len(r.values) == len(h.header) {
				fit++
			}
		}
		if fit > bestFit {
			best, bestFit, bestHeader = rows, fit, h.header
		}
	}
	if len(best) < 2 || prose(text, best) {
		return nil, nil
	}
	return best, bestHeader
}

// prose reports whether text, read as the rows of a table, is a sentence
// of prose that states several figures ("The Company made $1.8 billion,
// $1.4 billion and $1.5 billion of fixed cash payments … in 2022, 2021
// and 2020, respectively."; "It is approximately 220 miles (350 km)
// northwest of Los Angeles, 170 miles (270 km) south of …"): it ends
// with a full stop, and most of its rows after the first begin in lower
// case or with no label ("billion, $1.4", "miles (350"), where a
// flattened table's rows begin with their labels, capitalised. Prose is
// quoted whole: its "rows" are fragments. (Prose whose figures stand
// before capitalised words, "245,306 (49.6%) White, 40,960 (8.3%)
// African American", still reads as a table.)
func prose(text string, rows []tableRow) bool {
	t := strings.TrimRight(strings.TrimSpace(text), `"')]”’`)
	if !strings.HasSuffix(t, ".") {
		return false
	}
	lower := 0
	for _, r := range rows[1:] {
		lb := strings.TrimSpace(r.label)
		if c, _ := utf8.DecodeRuneInString(lb); lb == "" || !unicode.IsUpper(c) {
			lower++
		}
	}
	return 2*lower >= len(rows)-1
}

// tableRow is one row of a flattened table: its label and its values.
type tableRow struct {
	label  string
	values []string
}

type headerCandidate struct {
	header []string
	start  int // the index of the first token after it
}

// maxColumnWords is how many column words may stand between two years of
// a header.
const maxColumnWords = 3

// headerCandidates returns the ways toks may begin with a header: first
// the first run of two or more years, or none (the rows start at once)
// when there is no such run; then the first run from a year to a year
// with at most maxColumnWords column words (capitalised words, not
// values) between them, if any, and that run extended by more column
// words and years while the pattern goes on. bestRows takes a later
// candidate only when more rows fit it.
func headerCandidates(toks []string) []headerCandidate {
	out := headerCandidatesAsWritten(toks)
	for i := range out {
		out[i].header = yearsOnly(out[i].header)
	}
	return out
}

// yearsOnly returns a header that mixes a date with years ("December 31,
// 2022", "2021", "2020": the day stated once, for every year's column) as
// its years; another header unchanged.
func yearsOnly(h []string) []string {
	years := 0
	for _, t := range h {
		if len(t) == 4 && isYear(t) {
			years++
		}
	}
	if years == 0 || years == len(h) {
		return h
	}
	out := make([]string, len(h))
	for i, t := range h {
		out[i] = t
		if j := strings.LastIndex(t, "\u00a0"); j >= 0 && reDayComma.MatchString(strings.Fields(strings.ReplaceAll(t, "\u00a0", " "))[1]) {
			out[i] = t[j+len("\u00a0"):]
		}
	}
	return out
}

// headerCandidatesAsWritten is headerCandidates before yearsOnly.
func headerCandidatesAsWritten(toks []string) []headerCandidate {
	out := []headerCandidate{{nil, 0}}
	for i := 0; i < len(toks); i++ {
		j := i
		for j < len(toks) && isYear(toks[j]) {
			j++
		}
		if j-i >= 2 {
			out[0] = headerCandidate{toks[i:j], j}
			break
		}
	}
	// a header may go on, column words and a year at a time ("2022
	// Change 2021 Change 2020": a change column after each year's): each
	// longer header is a candidate too. The header's first year is the
	// first that such a run starts from (a year in the sentence before
	// the table, "for 2022, 2021 and 2020 (dollars in millions)", is not).
	for i := slices.IndexFunc(toks, isYear); i >= 0 && i < len(toks); i++ {
		if !isYear(toks[i]) {
			continue
		}
		n := len(out)
		for from := i; ; {
			next := -1
			for j := from + 1; j < len(toks) && j-from-1 <= maxColumnWords; j++ {
				if isYear(toks[j]) {
					if j > from+1 {
						next = j
					}
					break
				}
				if !columnWord(toks[j]) {
					break
				}
			}
			if next < 0 {
				break
			}
			out = append(out, headerCandidate{toks[i : next+1], next + 1})
			from = next
		}
		if len(out) > n {
			break
		}
	}
	return out
}

// headerLine returns the header a line ends with when the line is a
// table's header standing apart ("Year Ended May 31, Percent Change
// (Dollars in millions) 2023 Actual Constant 2022"), nil otherwise.
func headerLine(text string) []string {
	toks := mergeHeads(strings.Fields(text))
	cands := headerCandidates(toks)
	for i := len(cands) - 1; i >= 0; i-- {
		if h := cands[i]; len(h.header) > 0 && h.start == len(toks) {
			return h.header
		}
	}
	// years then the words of one last column, ending the line ("2023
	// 2022 Percent Change"): the words name one column
	end := len(toks)
	for end > 0 && len(toks)-end < maxColumnWords && columnWord(toks[end-1]) {
		end--
	}
	if end < len(toks) {
		if h := headerLine(strings.Join(toks[:end], " ")); len(h) >= 2 && !slices.ContainsFunc(h, columnWord) {
			return append(slices.Clip(h), strings.Join(toks[end:], " "))
		}
	}
	return nil
}

// columnWord reports whether a token may label a column: a capitalised
// word that is not a value.
func columnWord(t string) bool {
	return t != "" && t[0] >= 'A' && t[0] <= 'Z' && strings.IndexFunc(t, func(r rune) bool { return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z') }) < 0
}

// run is a stretch of a flattened table's tokens that are all values
// (cells, a "$" joined to the value after it) or all label words.
type run struct {
	cells bool
	toks  []string
}

// runs splits toks into runs of values and of label words, in order. A
// "$" joins the value after it and is otherwise dropped; a "%" joins the
// value before it.
func runs(toks []string) []run {
	var out []run
	dollar := false
	open := 0 // parentheses a label has opened and not closed
	for i, t := range toks {
		if open > 0 && t != "$" {
			// inside a label's parenthesis ("(4,137 issued and
			// outstanding as of December 31, 2022)") every word is
			// the label's
			open += strings.Count(t, "(") - strings.Count(t, ")")
			if len(out) == 0 || out[len(out)-1].cells {
				out = append(out, run{})
			}
			out[len(out)-1].toks = append(out[len(out)-1].toks, t)
			continue
		}
		if t == "$" {
			dollar = true
			continue
		}
		// a unit or closing parenthesis set apart ("8 %", "(3) %", "(4 )")
		// belongs to the value before it: read alone it would start a row
		// labelled "%" or ")"
		if reValueTail.MatchString(t) && len(out) > 0 && out[len(out)-1].cells {
			last := out[len(out)-1].toks
			last[len(last)-1] += t
			dollar = false
			continue
		}
		cell := isCell(t)
		// a parenthesis opened and not closed ("(4,137 issued and
		// outstanding as of …)") is part of a label, unless its close
		// follows, set apart ("(4 )")
		if cell && unclosed(t) && (i+1 >= len(toks) || !strings.HasPrefix(toks[i+1], ")")) {
			cell = false
		}
		if !cell {
			open = max(0, strings.Count(t, "(")-strings.Count(t, ")"))
		}
		// a small bare number before a word in lower case is part of a
		// label ("Due after 1 year through 5 years $ 83,755")
		if cell && !dollar && reSmallInt.MatchString(t) && i+1 < len(toks) && startsLower(toks[i+1]) {
			cell = false
		}
		if cell && dollar {
			t = "$" + t
		}
		dollar = false
		if len(out) == 0 || out[len(out)-1].cells != cell {
			out = append(out, run{cells: cell})
		}
		out[len(out)-1].toks = append(out[len(out)-1].toks, t)
	}
	return out
}

// splitRows reads toks, after any header, as rows: a label then values.
func splitRows(toks []string) []tableRow {
	var rows []tableRow
	rs := runs(toks)
	for i := 0; i+1 < len(rs); i++ {
		if !rs[i].cells {
			rows = append(rows, tableRow{strings.Join(rs[i].toks, " "), rs[i+1].toks})
		}
	}
	return rows
}

// valueFirstRows reads toks as rows whose values stand before their
// labels, as some PDFs lay a table out ("27,000 Cloud services and license
// support operations 39,000 Services 35,000 Sales and marketing 47,000
// Research and development 3,000 Hardware", Oracle's 2023 10-K, page 15):
// read label first, every label would take the next row's value. It does
// so only when toks begin with a value, end with a label, every row has
// the same number of values and no label is a sentence; it returns nil
// otherwise (and for fewer than two rows), and the rows are read label
// first (splitRows).
func valueFirstRows(toks []string) []tableRow {
	rs := runs(toks)
	if len(rs) < 4 || !rs[0].cells || rs[len(rs)-1].cells || toks[len(toks)-1] == "$" {
		return nil
	}
	rows := make([]tableRow, 0, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		label := strings.Join(rs[i+1].toks, " ")
		// a row's label is a name; a sentence after the last values
		// ("(1) Restructuring costs recorded … severance costs.") is a
		// footnote of a table read label first
		if len(rs[i].toks) != len(rs[0].toks) || strings.HasSuffix(label, ".") || strings.Contains(label, ". ") {
			return nil
		}
		rows = append(rows, tableRow{label, rs[i].toks})
	}
	return rows
}

var (
	// reValueTail is the end of a value set apart from it: "%", ")", ")%".
	reValueTail = regexp.MustCompile(`^\)?%?\)?$`)
	// reSmallInt is a bare one- or two-digit number.
	reSmallInt = regexp.MustCompile(`^\d{1,2}$`)
)

// unclosed reports whether a token opens more parentheses than it closes.
func unclosed(t string) bool { return strings.Count(t, "(") > strings.Count(t, ")") }

// startsLower reports whether a token starts with a lower-case letter.
func startsLower(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return unicode.IsLower(r)
}

// reFootnoteMark is a footnote reference: "(4)", "(1)(2)".
var reFootnoteMark = regexp.MustCompile(`^(?:\(\d{1,2}\))+$`)

// dropFootnoteMarks takes the footnote references off a row: at the end
// of its label ("Wearables, Home and Accessories (1)(2)"), and a "(4)"
// read as a first value when the row has one value more than its header
// ("Total net sales (4) $394,328 $365,817 $274,515" under "2022 2021
// 2020": "(4)" is the footnote, not a negative 4).
func dropFootnoteMarks(label string, values, header []string) (string, []string) {
	words := strings.Fields(label)
	for len(words) > 1 && reFootnoteMark.MatchString(words[len(words)-1]) {
		words = words[:len(words)-1]
	}
	if len(header) > 0 && len(values) == len(header)+1 && reFootnoteMark.MatchString(values[0]) {
		values = values[1:]
	}
	return strings.Join(words, " "), values
}

// renderRow writes a row as "Label: h1 v1; h2 v2 (in millions)" when it
// has one value per header, else "Label v1 v2 ..." (the unit, when the
// table states one and the row's label none, at the end). Footnote references are left out
// (dropFootnoteMarks).
func renderRow(label string, values, header []string, unit string) string {
	label, values = dropFootnoteMarks(label, values, header)
	label = strings.ReplaceAll(strings.TrimRight(strings.TrimSpace(label), ":"), "\u00a0", " ")
	tail := ""
	if unit != "" && Unit(label) == "" && hasAmount(values) { // a row may state its own ("Employees (in thousands)")
		tail = " (" + unit + ")"
	}
	if len(header) > 0 && len(values) == len(header) {
		parts := make([]string, len(values))
		for i, v := range values {
			parts[i] = strings.ReplaceAll(header[i], "\u00a0", " ") + " " + v
		}
		return label + ": " + strings.Join(parts, "; ") + tail
	}
	return label + " " + strings.Join(values, " ") + tail
}

// hasAmount reports whether a row's values include an amount the unit
// applies to: a value that is not a percentage.
func hasAmount(values []string) bool {
	return slices.ContainsFunc(values, func(v string) bool { return !strings.HasSuffix(v, "%") && !strings.HasSuffix(v, "%)") })
}

// PipeRows reads the tables whose cells the text keeps apart (one row a
// line, cells joined by " | ", as the HTML, DOCX, PowerPoint and Markdown
// readers write them) into rows rendered as Rows renders a flattened
// table's: "Total revenue: 2015 $2,490,821; 2014 $2,396,998 (in
// thousands)". A row is a label then values only (amounts, percentages,
// dashes; a "$", ")" or "%" cell joins the value beside it, and empty
// cells are dropped); a row of years, dates or column words with no
// amount is the header of the rows under it; a table's unit is stated in
// it or on the line above it. Rows of words (a table of terms) are not
// read: they are no figures.
func PipeRows(text string) []Row {
	var out []Row
	var header []string
	unit, above := "", ""
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "|") {
			if strings.TrimSpace(line) != "" {
				header, above, unit = nil, line, ""
			}
			continue
		}
		if unit == "" {
			if unit = Unit(line); unit == "" {
				unit = Unit(above)
			}
		}
		label, values, lead := pipeCells(line)
		switch {
		case len(values) == 0 && label == "":
			// a Markdown delimiter row ("|---|---|") or an empty one
		case len(values) > 0 && label != "" && !lead && !allYears(values):
			out = append(out, newRow(label, values, header, unit))
		default:
			if h := pipeHeader(line); len(h) > 0 {
				header = h
			}
		}
	}
	return out
}

// allYears reports whether every value is a year: the values of a header
// row ("In millions | 2022 | 2021"), not of a row of amounts.
func allYears(values []string) bool {
	for _, v := range values {
		if len(v) != 4 || !isYear(v) {
			return false
		}
	}
	return true
}

// pipeCells splits a row of a table with cell separators into its label
// (the first cell, when it is no value) and its values; lead is true when
// a cell of words stands after a value (the row is no label-then-values
// row).
func pipeCells(line string) (label string, values []string, lead bool) {
	dollar := false
	for i, c := range cellsOf(line) {
		switch {
		case c == "" || strings.Trim(c, "-: ") == "" && strings.Contains(c, "-"):
			continue
		case c == "$":
			dollar = true
			continue
		case reValueTail.MatchString(c) && len(values) > 0:
			values[len(values)-1] += c
			continue
		}
		v := strings.ReplaceAll(c, " ", "")
		if strings.HasPrefix(v, "$") {
			dollar, v = true, v[1:]
		}
		if isCell(v) {
			if dollar {
				v = "$" + v
			}
			values = append(values, v)
			dollar = false
			continue
		}
		dollar = false
		if i == 0 {
			label = c
			continue
		}
		lead = true
	}
	return label, values, lead
}

// pipeHeader returns the column headers of a header row of a table with
// cell separators: its cells after the first (the label column's head,
// often empty), each a year, a date or a few column words; nil when a
// cell is an amount or a sentence.
func pipeHeader(line string) []string {
	var out []string
	for i, c := range cellsOf(line) {
		toks := mergeHeads(strings.Fields(c))
		if c == "" || i == 0 && !(len(toks) == 1 && isYear(toks[0])) {
			continue
		}
		if len(toks) == 1 && isYear(toks[0]) {
			out = append(out, toks[0])
			continue
		}
		if isCell(strings.ReplaceAll(c, " ", "")) || len(toks) > 4 || strings.HasSuffix(c, ".") {
			return nil
		}
		out = append(out, c)
	}
	return out
}

// cellsOf splits a row of a table with cell separators into its cells,
// spaces collapsed, the first being the label column's (a Markdown row's
// outer bars, "| a | b |", enclose no cells).
func cellsOf(line string) []string {
	t := strings.TrimSpace(line)
	md := strings.HasPrefix(t, "|")
	parts := strings.Split(t, "|")
	if md {
		parts = parts[1:]
		if n := len(parts); n > 0 && strings.TrimSpace(parts[n-1]) == "" {
			parts = parts[:n-1]
		}
	}
	for i, p := range parts {
		parts[i] = strings.Join(strings.Fields(p), " ")
	}
	return parts
}
