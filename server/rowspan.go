package server

import (
	"regexp"
	"strings"
	"unicode"
)

// maxCellGap is how far apart (in bytes of the section's text) two cells
// of one table row may lie.
const maxCellGap = 120

// rowSpan finds in a section's text the table row a quote renders: the
// generator states a row with its column headers ("Total revenues: 2023
// 49,954; Actual 18%; 2022 42,440") or its values after its label ("Net
// revenue $11,715 $18,353"), which the text holds as "Total revenues
// 49,954 18% … 42,440". It returns the span from the row's label to its
// last value, so that the viewer highlights the row's cells; ok is false
// when the text holds no such row.
func rowSpan(content, quote string) (start, end int, ok bool) {
	label, values := rowParts(quote)
	if label == "" || len(values) == 0 {
		return 0, 0, false
	}
	lower := strings.ToLower(content)
	for from := 0; ; {
		i := strings.Index(lower[from:], strings.ToLower(label))
		if i < 0 {
			return 0, 0, false
		}
		i += from
		at, found := i+len(label), true
		for k, v := range values {
			j := strings.Index(content[at:min(len(content), at+maxCellGap)], v)
			// the first cell stands right after the label
			if j < 0 || k == 0 && strings.Trim(content[at:at+j], " $(") != "" {
				found = false
				break
			}
			at += j + len(v)
		}
		if found {
			// a closing parenthesis or percent sign ends the last cell
			if strings.HasPrefix(content[at:], " )") {
				at += 2
			}
			for at < len(content) && (content[at] == ')' || content[at] == '%') {
				at++
			}
			return i, at, true
		}
		from = i + 1
	}
}

// reRowValue is one value of a table row as the generator renders it.
var reRowValue = regexp.MustCompile(`^\(?\$?\(?[\d,]*\d(?:\.\d+)?\)?%?\)?$|^[—–-]$`)

// rowParts reads a rendered row: its label and the cores of its values
// (digits and separators, no currency or percent signs or parentheses).
func rowParts(quote string) (string, []string) {
	q := strings.TrimSpace(quote)
	var cells []string
	label := ""
	if k := strings.Index(q, ": "); k > 0 && strings.Contains(q[k:], ";") {
		label = q[:k]
		for _, part := range strings.Split(q[k+2:], ";") {
			f := strings.Fields(part)
			if len(f) > 0 {
				cells = append(cells, f[len(f)-1])
			}
		}
	} else {
		f := strings.Fields(q)
		n := 0
		for n < len(f) && !strings.ContainsFunc(f[n], unicode.IsDigit) {
			n++
		}
		label, cells = strings.Join(f[:n], " "), f[n:]
		// a row is its label then values only; a sentence goes on in words
		for _, c := range cells {
			if !reRowValue.MatchString(c) {
				return "", nil
			}
		}
	}
	var values []string
	for _, c := range cells {
		if v := strings.Trim(c, "$()%—–-*,;"); v != "" && strings.ContainsFunc(v, unicode.IsDigit) {
			values = append(values, v)
		}
	}
	return strings.TrimSpace(label), values
}
