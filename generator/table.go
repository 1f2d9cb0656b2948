package generator

import (
	"regexp"
	"strings"
)

var (
	reCell = regexp.MustCompile(`^\(?\$?\(?[\d,]*\d(?:\.\d+)?\)?%?\)?[*,;]?$|^[—–-]$`)
	reYear = regexp.MustCompile(`^(?:19|20)\d\d$`)
)

// minCellShare is the least share of a table's tokens that are values.
const minCellShare = 0.2

// isCell reports whether a token is a table value: a number, possibly with
// a currency sign, parentheses (a negative amount) or a percent sign, or a
// dash for nil.
func isCell(tok string) bool { return reCell.MatchString(tok) }

// tableRows splits text flattened from a table ("In millions 2022 2021
// Revenue $ 1,645 $ 1,582 Net income 812 790") into one line per row,
// each with its column headers when the row has one value per column:
// "Revenue: 2022 $ 1,645; 2021 $ 1,582". It returns nil when the text does
// not look like a table (fewer than two rows of values).
func tableRows(text string) []string {
	if strings.Contains(text, "|") {
		return nil // a table with cell separators keeps its rows
	}
	toks := strings.Fields(text)
	cells := 0
	for _, t := range toks {
		if isCell(t) {
			cells++
		}
	}
	// a table flattened into text is mostly values; prose that states
	// many figures ("$8.3 billion and $8.8 billion ...") is mostly words
	if cells < 6 || float64(cells) < minCellShare*float64(len(toks)) {
		return nil
	}
	// the header: the first run of two or more years
	var header []string
	start := 0
	for i := 0; i < len(toks); i++ {
		j := i
		for j < len(toks) && reYear.MatchString(toks[j]) {
			j++
		}
		if j-i >= 2 {
			header = toks[i:j]
			start = j
			break
		}
	}
	var rows []string
	var label, values []string
	flush := func() {
		if len(label) > 0 && len(values) > 0 {
			rows = append(rows, renderRow(strings.Join(label, " "), values, header))
		}
		label, values = nil, nil
	}
	dollar := false
	for _, t := range toks[start:] {
		switch {
		case t == "$":
			dollar = true
			continue
		case isCell(t):
			if dollar {
				t = "$" + t
			}
			values = append(values, t)
		default:
			if len(values) > 0 {
				flush()
			}
			label = append(label, t)
		}
		dollar = false
	}
	flush()
	if len(rows) < 2 {
		return nil
	}
	return rows
}

// renderRow writes a row as "Label: h1 v1; h2 v2" when it has one value
// per header, else "Label v1 v2 ...".
func renderRow(label string, values, header []string) string {
	label = strings.TrimRight(strings.TrimSpace(label), ":")
	if len(header) > 0 && len(values) == len(header) {
		parts := make([]string, len(values))
		for i, v := range values {
			parts[i] = header[i] + " " + v
		}
		return label + ": " + strings.Join(parts, "; ")
	}
	return label + " " + strings.Join(values, " ")
}
