package textproc

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// abbreviations end with a period but do not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "inc": true, "ltd": true, "co": true,
	"corp": true, "no": true, "nos": true, "art": true, "sec": true, "para": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
	"vs": true, "approx": true, "fig": true, "p": true, "pp": true, "u.s": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// Sentences splits text into sentences. It ends a sentence at '.', '!' or
// '?' followed by white space and an upper-case letter, digit, quote or
// bracket, except after common abbreviations, single initials and section
// numbers ("7.1"). Blank lines and list bullets (at the start of a line or,
// in a document's text, inside it) also end a sentence. The
// returned sentences are trimmed and keep their punctuation. A line that
// is a record (see IsRecord) is a sentence of its own.
func Sentences(text string) []string {
	var out []string
	for _, para := range splitParagraphs(text) {
		out = append(out, splitSentences(para, true)...)
	}
	return out
}

// AnswerSentences splits an answer into its sentences as Sentences does,
// except that a list item inside a line does not start a sentence: an
// answer's claim is what its writer put in one sentence, while a
// document's paragraph may be list items whose lines were joined.
func AnswerSentences(text string) []string {
	var out []string
	for _, para := range splitParagraphs(text) {
		out = append(out, splitSentences(para, false)...)
	}
	return out
}

func splitParagraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || t == "\f" {
			flush()
			continue
		}
		if IsRecord(t) {
			// a row of a sheet or table, written with its column
			// headers, is a unit of its own: joined to the next row it
			// would read as one sentence about every row
			flush()
			paras = append(paras, t)
			continue
		}
		if isBullet(t) {
			flush()
		}
		cur = append(cur, t)
	}
	flush()
	return paras
}

// IsRecord reports whether line is a record: a table row written with its
// column headers as "Header: value; Header: value", the form the
// spreadsheet, CSV and document-table readers give each row. It has at
// least two fields, and each field is a short label (at most
// maxRecordLabel words), a colon and a value.
func IsRecord(line string) bool {
	fields := strings.Split(line, "; ")
	if len(fields) < 2 {
		return false
	}
	for _, f := range fields {
		label, value, ok := strings.Cut(f, ": ")
		if !ok || strings.TrimSpace(value) == "" {
			return false
		}
		if n := len(strings.Fields(label)); n == 0 || n > maxRecordLabel {
			return false
		}
	}
	return true
}

// maxRecordLabel is the most words a record's column header has.
const maxRecordLabel = 6

// bulletGlyphs are the characters that mark list items.
var bulletGlyphs = map[rune]bool{'•': true, '▪': true, '●': true, '◦': true, '■': true, '□': true, '▸': true, '►': true, '‣': true, '⁃': true, '∙': true}

// ListItem returns the text of a list item (a sentence that starts with
// a bullet or an item number, as Sentences splits them: "- Labor Day",
// "2. submit receipts within 30 days; and", "(b) …") without its marker
// and without a trailing conjunction or separator that joins it to the
// next item ("; and", ", or", ";"); ok is false for any other sentence.
func ListItem(sent string) (item string, ok bool) {
	t := strings.TrimSpace(sent)
	if !isBullet(t) {
		return "", false
	}
	_, rest, _ := strings.Cut(t, " ")
	rest = strings.TrimSpace(rest)
	for _, tail := range []string{"; and", "; or", ", and", ", or", ";", ","} {
		if strings.HasSuffix(rest, tail) {
			rest = strings.TrimSpace(strings.TrimSuffix(rest, tail))
			break
		}
	}
	return rest, rest != ""
}

// LeadIns returns, for each of sentences, the index of the sentence that
// introduces the list it is an item of ("The company observes the
// following paid holidays each year:", ending in a colon, followed by
// items one after another: ListItem), or -1 when it is no such item. A
// list item is read with that sentence, as a table's row is with its
// header, and that sentence with its items.
func LeadIns(sentences []string) []int {
	out := make([]int, len(sentences))
	leadIn := -1
	for i, sent := range sentences {
		if _, ok := ListItem(sent); ok {
			out[i] = leadIn
			continue
		}
		out[i], leadIn = -1, -1
		if strings.HasSuffix(strings.TrimSpace(sent), ":") {
			leadIn = i
		}
	}
	return out
}

func isBullet(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return true
	}
	if r, size := utf8.DecodeRuneInString(t); bulletGlyphs[r] && size < len(t) && t[size] == ' ' {
		return true
	}
	// "(a) ", "1. ", "1) "
	i := 0
	if i < len(t) && t[i] == '(' {
		i++
	}
	j := i
	for j < len(t) && (unicode.IsDigit(rune(t[j])) || (j-i < 2 && unicode.IsLower(rune(t[j])))) {
		j++
	}
	return j > i && j+1 < len(t) && (t[j] == ')' || t[j] == '.') && t[j+1] == ' '
}

func splitSentences(p string, inlineItems bool) []string {
	var out []string
	start := 0
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if inlineItems && bulletGlyphs[r] && i > start && unicode.IsSpace(rs[i-1]) {
			// a list item flattened into the paragraph ("... revenue. ▪
			// Mobileye ...", PDF lines joined with spaces) starts a new
			// sentence, as a bullet at the start of a line does
			if s := strings.TrimSpace(string(rs[start:i])); s != "" {
				out = append(out, s)
			}
			start = i
			continue
		}
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		// absorb closing quotes/brackets
		end := i + 1
		for end < len(rs) && strings.ContainsRune(`"')]”’`, rs[end]) {
			end++
		}
		if end >= len(rs) {
			break
		}
		if !unicode.IsSpace(rs[end]) {
			continue
		}
		next := end
		for next < len(rs) && unicode.IsSpace(rs[next]) {
			next++
		}
		if next >= len(rs) {
			break
		}
		nr := rs[next]
		if !(unicode.IsUpper(nr) || unicode.IsDigit(nr) || strings.ContainsRune(`"'(“‘[`, nr)) {
			continue
		}
		if r == '.' && !endsSentence(rs[start:i]) {
			continue
		}
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = next
		i = next - 1
	}
	if s := strings.TrimSpace(string(rs[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

// endsSentence reports whether a period after text ends a sentence.
func endsSentence(text []rune) bool {
	j := len(text)
	for j > 0 && !unicode.IsSpace(text[j-1]) && text[j-1] != '(' {
		j--
	}
	word := strings.ToLower(string(text[j:]))
	if word == "" {
		return true
	}
	if abbreviations[word] {
		return false
	}
	// single initial ("J.") or section number ("7", "7.1") at the start
	if len([]rune(word)) == 1 && unicode.IsLetter([]rune(word)[0]) {
		return false
	}
	allNum := true
	for _, r := range word {
		if !unicode.IsDigit(r) && r != '.' {
			allNum = false
			break
		}
	}
	if allNum && j == 0 {
		return false
	}
	return true
}
