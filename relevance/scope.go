package relevance

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// reValue matches a table value token: a number, possibly with a currency
// sign, parentheses or a percent sign.
var reValue = regexp.MustCompile(`^\(?\$?\(?[\d,]*\d(?:\.\d+)?\)?%?\)?[*,;]?$`)

// Tabular reports whether text is a table's text rather than prose: at
// least three values, a fifth of its words or more ("In millions 2022 2021
// U.S. $ 1,845.6 $ 2,413.9 Income before provision for income taxes $
// 7,825.4 …"). In prose "after" and "before" are more often times than
// the bounds of a measure.
func Tabular(text string) bool {
	return valueShare(text) >= minValueShare && len(strings.Fields(text)) >= 3 && countValues(text) >= 3
}

// minValueShare is the least share of values among the words of a table's
// text.
const minValueShare = 0.2

// valueShare is the share of text's words that are values.
func valueShare(text string) float64 {
	n := len(strings.Fields(text))
	if n == 0 {
		return 0
	}
	return float64(countValues(text)) / float64(n)
}

// countValues counts text's values, not the years and days of its dates
// ("As of September 25, 2021, the Company had approximately 154,000
// employees" states one value).
func countValues(text string) int {
	n := 0
	toks := strings.Fields(text)
	for i, t := range toks {
		if !reValue.MatchString(t) || reYear.MatchString(strings.Trim(t, ",.;")) && len(strings.Trim(t, ",.;")) == 4 ||
			i > 0 && dateDay(toks[i-1], t) {
			continue
		}
		n++
	}
	return n
}

// maxScopeWords bounds the group label read before a colon.
const maxScopeWords = 8

// RowScope returns the label of the group of rows that claim, one row of
// a table flattened into content, belongs to: for the row "Total revenues
// 3,274" of "… 2023 2022 Hardware Revenues: Americas $ 1,702 … Total
// revenues 3,274 …" it is "Hardware Revenues". A group label is the text
// after the previous value and before a colon that is followed by rows of
// values up to the claim's row. It returns "" when claim is not a row of
// content or its rows have no group label.
//
// row reports whether claim is a row of a table of content at all.
func RowScope(content, claim string) (scope string, row bool) {
	if textproc.IsRecord(strings.TrimSpace(claim)) {
		// a record names its columns ("Region: EMEA; Q3 2024: 1,204"):
		// its first label is a column header, not a group it is under
		return "", true
	}
	label := rowLabel(claim)
	if label == "" || sentence(claim) {
		return "", false
	}
	at := rowIndex(content, label)
	if at < 0 {
		return "", false
	}
	// the row itself when content holds it word for word: a label can
	// recur with other values under another group ("Sales and marketing
	// expenses" under each segment of a segment note)
	if i, j := strings.Index(content, claim), strings.Index(claim, label); i >= 0 && j >= 0 {
		at = i + j
	}
	// a row quoted with its group's label ("Expenses: Hardware products
	// and support 1,011") is in that group
	if i := strings.LastIndexByte(label, ':'); i >= 0 {
		return strings.TrimSpace(label[:i]), true
	}
	return groupLabel(content[:at]), true
}

// groupLabel returns the label of the group of rows that ends before: the
// words before its last colon, back to the previous value.
func groupLabel(before string) string {
	colon := strings.LastIndexByte(before, ':')
	if colon < 0 {
		return ""
	}
	// the rows between the label and the claim's row hold values, and no
	// paragraph or sentence ends among them: a colon of prose ("as
	// follows:") two paragraphs up is not a group label
	between := before[colon+1:]
	if strings.Contains(between, "\n\n") || strings.Contains(between, ". ") {
		return ""
	}
	toks := strings.Fields(before[:colon])
	start := len(toks)
	for start > 0 && len(toks)-start < maxScopeWords && !reValue.MatchString(toks[start-1]) &&
		!strings.ContainsAny(toks[start-1], ").") {
		start--
	}
	return strings.Join(toks[start:], " ")
}

// rowLabel is the words of a row before its first value, or before a
// colon that its values follow ("Total revenues" of "Total revenues 3,274
// 3% 6% 3,183" or of "Total revenues: 2023 $49,954; 2022 $42,440"); ""
// when the text is not a row.
func rowLabel(claim string) string {
	toks := strings.Fields(claim)
	for i, t := range toks {
		if strings.HasSuffix(t, ":") && (i+1 < len(toks) && reValue.MatchString(toks[i+1]) || i+1 == len(toks)) {
			return strings.Join(append(toks[:i:i], strings.TrimSuffix(t, ":")), " ")
		}
		if t == "$" || reValue.MatchString(t) {
			if i > 0 && dateDay(toks[i-1], t) || i > 1 && dateDay(toks[i-2], toks[i-1]) && reYear.MatchString(t) {
				continue // "December 31, 2022," is a date, not values
			}
			if i == 0 || proseLabel(toks[:i]) {
				return ""
			}
			return strings.Join(toks[:i], " ")
		}
	}
	return ""
}

// sentence reports whether claim is a sentence that cites a number on the
// way ("The obligations in this Section 12 continue … for five (5) years
// after …"), not a row of a table: it ends a sentence, and fewer than a
// fifth of its words are values. Rows of a flattened table end with a
// value, or with a label running into the next row.
func sentence(claim string) bool {
	c := strings.TrimSpace(claim)
	return strings.HasSuffix(c, ".") && valueShare(c) < minValueShare
}

// dateDay reports whether num is the day of a date after the month word
// ("May 31,").
func dateDay(word, num string) bool {
	return months[strings.ToLower(strings.TrimSuffix(word, "."))] || word == "May" && reValue.MatchString(num)
}

// proseLabel reports whether the words before a number are a sentence's,
// not a row's label: a label does not end with a function word ("…
// carryforwards of $407.5 million", "revenues were 49,954").
func proseLabel(words []string) bool {
	last := strings.ToLower(strings.Trim(words[len(words)-1], ",;"))
	return textproc.IsStopWord(last)
}

// rowIndex returns where the row labelled label starts in content: an
// occurrence of the label followed by a value; -1 if there is none.
func rowIndex(content, label string) int {
	from := 0
	for {
		i := strings.Index(content[from:], label)
		if i < 0 {
			return -1
		}
		i += from
		rest := strings.Fields(content[i+len(label) : min(len(content), i+len(label)+40)])
		// footnote references stand between a label and its values
		// ("Wearables, Home and Accessories (1)(2) 41,241")
		for len(rest) > 1 && reFootnoteRef.MatchString(rest[0]) {
			rest = rest[1:]
		}
		if len(rest) > 0 && (rest[0] == "$" || rest[0] == ":" || reValue.MatchString(strings.TrimPrefix(rest[0], ":"))) {
			return i
		}
		from = i + len(label)
	}
}

// wholeModifiers qualify a measure without narrowing it ("Total
// revenues"). Edit internal/wordlists/whole_modifiers.txt.
var wholeModifiers = wordlists.Named("whole_modifiers")

// narrowedBy returns the words of scope, a table rows' group label, that
// narrow the question's focus to a part the question does not ask about:
// "Hardware" of "Hardware Revenues" when the question asks for total
// revenues. Only the words right before the first focus term of the label
// count; words the question itself uses, its entities, periods, stop words
// and modifiers that state the whole ("Total", "Consolidated") do not
// narrow it.
func (f Frame) narrowedBy(scope string) []string {
	if scope == "" || len(f.Focus) == 0 {
		return nil
	}
	words := reWord.FindAllString(scope, -1)
	head := slices.IndexFunc(words, f.isFocus)
	if head <= 0 {
		return nil
	}
	q := NewText(f.Question)
	var out []string
	for _, w := range words[max(0, head-3):head] {
		lw := wordvec.Fold(strings.ToLower(w))
		if textproc.IsStopWord(lw) || !narrowing(lw, q) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// isFocus reports whether the stem of word w is a focus term of the
// question.
func (f Frame) isFocus(w string) bool {
	return slices.Contains(f.Focus, textproc.Stem(wordvec.Fold(strings.ToLower(w))))
}

// narrowing reports whether lw, a folded word before a measure, may
// narrow it to a part: it is not a word of the question q, a modifier that
// states the whole ("Total", "Consolidated"), a number or a legal form.
func narrowing(lw string, q Text) bool {
	return !q.hasToken(lw) && !wholeModifiers[lw] && !hasDigit(lw) && !legalForms[lw]
}

// wholeWords: internal/wordlists/whole_words.txt.
var wholeWords = wordlists.Named("whole_words")

// partOf reports whether scope, the label of the group of rows a row is
// in, names a part of the whole the question asks about: a segment, a
// product line or a region ("Cloud and license:", "Hardware:") rather than
// a category of measures ("Operating expenses:", "Current assets:") or the
// whole ("Totals:"). It does when its words name no measure and none of
// them is the question's, nor a period, a unit or a modifier that states
// the whole.
func (f Frame) partOf(scope string) bool {
	if scope == "" {
		return false
	}
	q := NewText(f.Question)
	named := false
	for _, w := range reWord.FindAllString(scope, -1) {
		lw := wordvec.Fold(strings.ToLower(w))
		if textproc.IsStopWord(lw) || hasDigit(lw) || spelledNum[lw] || legalForms[lw] || months[lw] || periodUnits[lw] || unitWords[lw] {
			continue // "Three Months Ended:", "(in millions):"
		}
		st := textproc.Stem(lw)
		if wholeModifiers[lw] || measureNouns[st] || q.hasToken(lw) || q.stems[st] || periodQualifiers[st] {
			return false
		}
		named = true
	}
	return named
}

// headPhrase returns the words of a heading line before its first
// preposition: a title is about its head phrase ("Provision for Income
// Taxes" is about a provision, "Hardware Business by Region" about the
// hardware business; "Cloud and License Business" is one phrase).
func headPhrase(line string) []string {
	words := reWord.FindAllString(line, -1)
	if i := slices.IndexFunc(words, func(w string) bool { return headEnds[wordvec.Fold(strings.ToLower(w))] }); i >= 0 {
		return words[:i]
	}
	return words
}

// headEnds are the prepositions that end a heading's head phrase.
var headEnds = wordlists.Named("head_ends")

// hasAll reports whether x has every word of a compound ("part-time").
func (x Text) hasAll(compound string) bool {
	toks := textproc.Tokens(compound)
	return len(toks) > 0 && !slices.ContainsFunc(toks, func(t string) bool { return !x.tokens[t] && !x.stems[textproc.Stem(t)] })
}

// partNouns name a part of an organisation. Edit
// internal/wordlists/part_nouns.txt.
var partNouns = wordlists.Named("part_nouns")

// genericParts: internal/wordlists/generic_parts.txt.
var genericParts = wordlists.Named("generic_parts")

// otherHead returns the head noun of a row's label when it names another
// thing than the question asks about, "" otherwise: "Employee stock
// awards" states awards, not the employees a question counts. The head is
// the last word of the label before a comma, a parenthesis or a
// preposition ("Cash and cash equivalents, end of period", "Net income
// per share", "Number of employees"); it names what is asked when it is
// a focus term or another word of the question, a modifier that states
// the whole, or a quantity of what follows it ("Number of").
func (f Frame) otherHead(label string) string {
	if i := strings.IndexAny(label, ",(["); i >= 0 {
		label = label[:i]
	}
	var words []string
	for _, w := range reWord.FindAllString(label, -1) {
		lw := wordvec.Fold(strings.ToLower(w))
		if len(words) > 0 && (ofPrepositions[lw] || lw == "per") {
			break
		}
		if !textproc.IsStopWord(lw) && !hasDigit(lw) {
			words = append(words, lw)
		}
	}
	if len(words) == 0 {
		return ""
	}
	head := words[len(words)-1]
	st := textproc.Stem(head)
	q := NewText(f.Question)
	if q.hasToken(head) || q.stems[st] || wholeModifiers[head] || quantityOf[st] || unitWords[head] {
		return ""
	}
	return head
}

// quantityOf are the stems of nouns that state the quantity of what
// follows them. Edit internal/wordlists/quantity_of.txt.
var quantityOf = termSet("quantity_of")

// unitWords: internal/wordlists/unit_words.txt.
var unitWords = wordlists.Named("unit_words")

// ownLabel is a row's label without its group's ("Americas" of "Total
// Revenues by Geography: Americas $31,226").
func ownLabel(claim string) string {
	label := rowLabel(claim)
	if i := strings.LastIndexByte(label, ':'); i >= 0 {
		label = label[i+1:]
	}
	return strings.TrimSpace(label)
}

// PartRow reports whether claim, a table row (or "Label: h1 v1; h2 v2"),
// is labelled with a part the question does not name, not the whole.
func (f Frame) PartRow(claim string) bool {
	if head, _, _ := strings.Cut(claim, "; "); strings.Contains(head, ": ") {
		claim = head[:strings.LastIndex(head, ": ")+1]
	}
	return f.partOf(ownLabel(claim))
}

// memberRow reports whether a row labelled label is one member of its
// group rather than the group's whole: the group's label (scope) names
// the question's focus ("Revenues:", "Total Revenues by Geography:"), and
// the row's own label names neither the focus nor the whole ("Total
// revenues") nor anything else the question asks ("Americas" answers a
// question about the Americas' revenues).
func (f Frame) memberRow(label, scope string) bool {
	if label == "" || scope == "" || len(f.Focus) == 0 {
		return false
	}
	if !slices.ContainsFunc(reWord.FindAllString(scope, -1), f.isFocus) {
		return false
	}
	q := NewText(f.Question)
	for _, w := range reWord.FindAllString(label, -1) {
		lw := wordvec.Fold(strings.ToLower(w))
		if f.isFocus(w) || wholeModifiers[lw] || !textproc.IsStopWord(lw) && q.hasToken(lw) {
			return false
		}
	}
	return true
}

// maxRowLabelWords bounds the label read before a row's first value.
const maxRowLabelWords = 10

// TableRow returns the label of the first row of a table in content that
// names the measure a figure question asks for, or "" when there is none
// or the question does not ask what a measure was (an amount, a count or
// a percentage). A row names the measure when its label, with its group's
// label when it has one ("Total Revenues by Geography: Americas"), holds
// every focus term of the question, its compound names side by side, and
// its group does not narrow the measure to a part the question does not
// ask about ("Hardware Revenues: … Total revenues"). Labels are the words
// after the previous value (years are a header's, not values) and before a
// value, at most maxRowLabelWords of them; a label of prose ("revenues
// were", "In reported currency, Cerner contributed") is no row's.
//
// Retrieval uses it to find, among sections that share the question's
// words, the table that states the figure asked for: BM25 ranks a table
// below prose that repeats the measure's name.
func (f Frame) TableRow(content string) string {
	if !f.AsksFigure() {
		return ""
	}
	toks, offs := fieldsAt(content)
	start := 0 // first word of the current label
	for i, t := range toks {
		if !reValue.MatchString(t) && t != "$" || reYear.MatchString(t) && len(strings.Trim(t, ",.;")) == 4 {
			continue
		}
		if i > start && i-start <= maxRowLabelWords {
			words := toks[start:i]
			// the group of this row, not of an earlier row of the same
			// label (a segment note repeats "Sales and marketing
			// expenses" under each segment)
			if label := strings.Join(words, " "); !proseLabel(words) && !clauseWords(words) && f.rowNames(content[:offs[i]], label) {
				return label
			}
		}
		start = i + 1
	}
	return ""
}

// fieldsAt is strings.Fields with each field's byte offset in s.
func fieldsAt(s string) (fields []string, offs []int) {
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				fields, offs = append(fields, s[start:i]), append(offs, start)
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		fields, offs = append(fields, s[start:]), append(offs, start)
	}
	return fields, offs
}

// inherited is a row's label with its group's head noun, the last word
// of the group's label: a row "General and administrative" under
// "Operating expenses:" states "General and administrative expenses".
func inherited(label, scope string) string {
	if h := groupHead(scope); h != "" {
		return label + " " + h
	}
	return label
}

// groupHead is the last word of a group's label, its head noun
// ("expenses" of "Operating expenses:").
func groupHead(scope string) string {
	ws := strings.Fields(scope)
	if len(ws) == 0 {
		return ""
	}
	return strings.Trim(ws[len(ws)-1], ":,;")
}

// SectionRow is TableRow over a section: "" too when the section's title
// or heading path states the figures on another basis than the one the
// question asks about ("Unaudited Pro Forma Financial Information").
func (f Frame) SectionRow(s schema.Section) string {
	if !f.AsksFigure() || f.otherBasis(HeadingContext(s)) != "" {
		return ""
	}
	return f.TableRow(s.Content)
}

// NamesRow reports whether row, one row of a table in content, names the
// measure a figure question asks for (see TableRow): by its own label, or
// by its label and its group's head noun when together they state one of
// the question's compound names ("General and administrative 297" under
// "Operating expenses:" for general and administrative expenses).
//
// A row also names it when its own label names what the question asks
// the measure of (one of its entities: a product, a segment) and the
// table's header names the measure ("Net sales by product … (in
// millions): 2022 2021 Phones $ 1,200 $ 1,100 Tablets 300 280" for a
// question about phones' net sales).
func (f Frame) NamesRow(content, row string) bool {
	if f.TableRow(row) != "" || f.entityRow(content, row) {
		return true
	}
	scope, isRow := RowScope(content, row)
	label := ownLabel(row)
	if !isRow || scope == "" || strings.Contains(rowLabel(row), ":") || !f.completes(label, scope) {
		return false
	}
	return f.TableRow(scope+": "+row) != ""
}

// entityRow reports whether row, one row of a table in content, is
// labelled with one of the question's entities and sits under a header
// (TableHeader) that states every term of the question's focus.
func (f Frame) entityRow(content, row string) bool {
	return f.entityUnder(row, TableHeader(content, row))
}

// entityUnder reports whether row's own label names one of the
// question's entities (a product, a segment) and header, its table's
// header, states every term of the question's focus: the row states the
// measure asked about for what the question asks it of.
func (f Frame) entityUnder(row, header string) bool {
	label := ownLabel(row)
	if label == "" || header == "" || len(f.Focus) == 0 {
		return false
	}
	own := NewText(label)
	return slices.ContainsFunc(f.entityTokens, func(toks []string) bool { return len(toks) > 0 && own.hasPhrase(toks) }) &&
		NewText(header).statesAll(f.Focus)
}

// reFootnoteRef is a footnote reference after a row's label: "(1)",
// "(1)(2)", "(a)".
var reFootnoteRef = regexp.MustCompile(`^(?:\((?:\d{1,2}|[a-z])\))+$`)

// reNoteNumber is the number a footnote or a list's item opens with:
// "(1) ", "(12) ".
var reNoteNumber = regexp.MustCompile(`^\s*\(\d{1,2}\)\s+`)

// yearsOnly reports whether s holds one or more words, all years ("2022").
func yearsOnly(s string) bool {
	ws := strings.Fields(s)
	return len(ws) > 0 && !slices.ContainsFunc(ws, func(w string) bool {
		return !reYear.MatchString(strings.Trim(w, ",.;")) || len(strings.Trim(w, ",.;")) != 4
	})
}

// approximators stand before a count that they bound or round.
var approximators = wordlists.Named("approximators")

// completes reports whether a row's label completes one of the question's
// compound measure names with its group's head noun: "General and
// administrative" under "Operating expenses:" names the "administrative
// expenses" asked about, so "Operating" names the category the row
// belongs to, not a part of the measure.
func (f Frame) completes(label, scope string) bool {
	h := groupHead(scope)
	if h == "" || len(f.compounds) == 0 {
		return false
	}
	head := textproc.Stem(wordvec.Fold(strings.ToLower(h)))
	own := NewText(label)
	return slices.ContainsFunc(f.compounds, func(c [2]string) bool { return c[1] == head && own.stems[c[0]] && !own.stems[c[1]] })
}

// clauseWords reports whether words read as prose rather than a row's
// label: one ends a clause or a sentence ("In reported currency, Cerner
// contributed"), where "U.S." is an abbreviation.
func clauseWords(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool {
		return strings.HasSuffix(w, ",") || strings.HasSuffix(w, ";") || strings.HasSuffix(w, ".") && strings.Count(w, ".") == 1
	})
}

// AsksFigure reports whether the question asks what a measure it names
// was: an amount, a count or a percentage of something (TableRow).
func (f Frame) AsksFigure() bool { return figureType(f.Type) && len(f.Focus) > 0 }

// rowNames reports whether a row labelled label names the question's
// measure (see TableRow); content is the text up to the row's first
// value.
func (f Frame) rowNames(content, label string) bool {
	scope := ""
	if i := strings.LastIndexByte(label, ':'); i >= 0 && !yearsOnly(label[i+1:]) {
		scope, label = strings.TrimSpace(label[:i]), strings.TrimSpace(label[i+1:])
	} else if i >= 0 {
		// a row written under its columns' years ("Total stores: 2022
		// 1,200; 2021 1,150"): the years head its values, the words
		// before them are its own label
		label = strings.TrimSpace(label[:i])
	} else if at := strings.LastIndex(content, label); at >= 0 {
		scope = groupLabel(content[:at]) // content ends with the row's label
	}
	if !NewText(scope + " " + label).statesAll(f.Focus) {
		return false
	}
	switch {
	case f.missingCompound(label, scope+" "+label, inherited(label, scope)) != "":
		return false // "net … income" apart
	case f.complementOnly(label) != "" || f.otherHead(label) != "":
		return false // "Cost of revenues", "Employee stock awards"
	case f.openingOnly(label):
		return false // "beginning balances" for a balance at a date
	case f.partOf(scope) || len(f.narrowedBy(scope)) > 0 && !f.completes(label, scope):
		return false // a segment's row, "Hardware Revenues: … Total revenues"
	}
	return !f.memberRow(label, scope)
}

// narrowedMeasure returns the phrase of claim, a statement, that states a
// part of the measure the question asks for as a whole ("Hotel Revenue"
// for "What was Boston Properties' total revenue for 2015?"), when every
// mention of the measure in the claim is narrowed; "" otherwise, when the
// question does not ask for the whole, and when the claim does not
// mention the measure. The question asks for the whole when a word of
// wholeWords stands right before the measure; a name such as "Early
// Termination Fee" answers "What is the termination fee?". A mention is
// narrowed by the words right before it, up to the nearest stop word,
// that the question does not use and that are not modifiers that state
// the whole, a legal form, a number or a unit: "Hotel Revenue" is
// narrowed; "total revenue", "revenue of" and "an increase in revenue"
// are not.
func (f Frame) narrowedMeasure(claim string) string {
	measures := map[string]bool{}
	qw := reWord.FindAllString(f.Question, -1)
	for i := 1; i < len(qw); i++ {
		st := textproc.Stem(wordvec.Fold(strings.ToLower(qw[i])))
		if measureNouns[st] && wholeWords[wordvec.Fold(strings.ToLower(qw[i-1]))] {
			measures[st] = true
		}
	}
	if len(measures) == 0 {
		return ""
	}
	q := NewText(f.Question)
	words := reWord.FindAllString(claim, -1)
	first := ""
	for i, w := range words {
		if !measures[textproc.Stem(wordvec.Fold(strings.ToLower(w)))] {
			continue
		}
		var by []string
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			lw := wordvec.Fold(strings.ToLower(words[j]))
			if textproc.IsStopWord(lw) || measureNouns[textproc.Stem(lw)] {
				break
			}
			if !narrowing(lw, q) || spelledNum[lw] || unitWords[lw] {
				continue
			}
			by = append([]string{words[j]}, by...)
		}
		if len(by) == 0 {
			return ""
		}
		if first == "" {
			first = strings.Join(by, " ") + " " + w
		}
	}
	return first
}

// partHeading returns the part of an organisation a heading line is about
// when the question does not ask about it: "Hardware Business" when the
// question asks for Oracle's sales and marketing expenses. The line's
// head phrase (headPhrase) ends in a noun that names a part
// ("business", "segment", "division"), and a word before it is not a
// word of the question ("Oracle's hardware business" asks about it).
// Only a question that names an organisation or another entity is
// narrowed; it returns "" otherwise.
func (f Frame) partHeading(heading string) string {
	if heading == "" || len(f.Entities) == 0 {
		return ""
	}
	q := NewText(f.Question)
	for _, line := range strings.Split(heading, "\n") {
		words := headPhrase(line)
		if len(words) < 2 || !partNouns[wordvec.Fold(strings.ToLower(words[len(words)-1]))] {
			continue
		}
		for _, w := range words[:len(words)-1] {
			lw := wordvec.Fold(strings.ToLower(w))
			if textproc.IsStopWord(lw) || hasDigit(lw) || wholeModifiers[lw] || legalForms[lw] || genericParts[lw] {
				continue
			}
			if !q.hasToken(lw) && !q.stems[textproc.Stem(lw)] && !q.hasAll(lw) {
				return strings.Join(words, " ")
			}
		}
	}
	return ""
}

// subsetCount returns the count of the question's focus that claim
// states only as where something is ("drive-thrus in over 1,200 of its
// stores", "kiosks in 300 stores"): a count after "in" or "at" (and an
// approximation, "over", "about", "nearly") of what the question counts
// is the number of those that have something, a subset, not how many
// there are. It returns "" when the question counts things "in" or "at"
// something itself, or when the word before the preposition is a verb of
// result or a participle ("resulted in 5 deaths", "closing at 12
// stores").
func (f Frame) subsetCount(claim string) string {
	if f.Type != TypeCount || len(f.Focus) == 0 {
		return ""
	}
	qw := strings.Fields(strings.ToLower(f.Question))
	for i, w := range qw {
		if w != "in" && w != "at" {
			continue
		}
		// "at year-end 2022", "in 2021", "at the end of May": when, not
		// where
		next := ""
		for _, n := range qw[i+1:] {
			if n = strings.Trim(n, "?,.;"); n != "the" && n != "fiscal" {
				next = n
				break
			}
		}
		first, _, _ := strings.Cut(next, "-")
		if next == "" || !(hasDigit(next) || months[first] || periodUnits[first] || first == "end") {
			return ""
		}
	}
	toks := strings.Fields(claim)
	for i, t := range toks {
		lt := strings.ToLower(t)
		if lt != "in" && lt != "at" || i == 0 {
			continue
		}
		prev := strings.ToLower(strings.Trim(toks[i-1], ",;:"))
		if strings.HasSuffix(prev, "ed") || strings.HasSuffix(prev, "ing") || strings.HasPrefix(prev, "result") || !textproc.HasLetter(prev) || textproc.IsStopWord(prev) {
			continue
		}
		j := i + 1
		for j < len(toks) && j <= i+3 && approximators[strings.ToLower(toks[j])] {
			j++
		}
		if j+1 >= len(toks) || !reNumber.MatchString(toks[j]) || reYear.MatchString(strings.Trim(toks[j], ",.;")) {
			continue
		}
		if f.isFocus(strings.Trim(toks[j+1], ",.;:")) {
			return strings.Join(toks[j:j+2], " ")
		}
	}
	return ""
}
