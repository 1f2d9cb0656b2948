package loader

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/internal/wordlists"
)

// Numbered clauses. Contracts (and many policies and handbooks) number
// their clauses, "12. TERMINATION", "12.2 Termination for Convenience.
// Either party may …", and a PDF or plain-text reader sees most of them as
// paragraphs, often several clauses to one paragraph. Read as paragraphs
// under the few headings the reader found, a long agreement was cut into
// windows that straddle clauses. The clauser finds the clause numbers that
// open a paragraph or a sentence and makes each clause a heading of its
// own, nested by its number ("12.2" under "12."), so that every clause is
// a section with its heading path.
//
// A number is taken for a clause only where it continues the document's
// numbering: after clause 4.3 come 4.4, 5 or 4.3.1 (a small gap allowed,
// for a clause the reader lost), not 1 or 17. So the numbered list inside a
// clause ("1. Year 1 … 2. Year 2 …"), a year or an amount that starts a
// sentence, stay text. The numbering may start again (at 1 or 1.1) after a
// heading without a number ("EXHIBIT A", "SCHEDULE 2").

// clauseMaxGap is the largest step a clause number may take over the one
// before it at the same depth (4.2 may follow 4.1 or, a clause lost, 4.3).
const clauseMaxGap = 3

// clauseMaxDepth is the deepest clause number taken (1.2.3.4).
const clauseMaxDepth = 4

// reClauseStart matches a clause number at the start of text: "12.",
// "12.2", "12.2.", "Section 12.2", "ARTICLE 4", followed by white space
// and a capital letter, or a quote, an opening parenthesis or bracket
// or an asterisk (of a redaction, "[***]") before more text.
var reClauseStart = regexp.MustCompile(`^(?:(?i:section|article|clause)\s+)?(\d{1,2}(?:\.\d{1,2}){0,3})(\.?)\s+(?:["“(\[*]\S|\p{Lu})`)

// clauseNumber is a parsed clause number: "12.2" is [12 2].
type clauseNumber []int

func parseClauseNumber(s string) clauseNumber {
	parts := strings.Split(s, ".")
	n := make(clauseNumber, 0, len(parts))
	for _, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil
		}
		n = append(n, v)
	}
	return n
}

// follows reports whether n may be the clause after prev: the next at
// prev's depth or at a shallower one, or the first under prev, each with
// a gap of at most clauseMaxGap.
func (n clauseNumber) follows(prev clauseNumber) bool {
	if len(n) == 0 || len(n) > clauseMaxDepth {
		return false
	}
	if len(prev) == 0 {
		return n[0] >= 1 && n[0] <= clauseMaxGap && allSmall(n[1:])
	}
	// The first clause under prev: 4.3 -> 4.3.1.
	if len(n) == len(prev)+1 && equalInts(n[:len(prev)], prev) {
		return n[len(n)-1] >= 1 && n[len(n)-1] <= clauseMaxGap
	}
	// The next at some depth d of prev: 4.3.1 -> 4.3.2, 4.4, 5 (and 5.1,
	// a reader having lost "5.").
	for d := min(len(n), len(prev)); d >= 1; d-- {
		if !equalInts(n[:d-1], prev[:d-1]) {
			continue
		}
		step := n[d-1] - prev[d-1]
		if step >= 1 && step <= clauseMaxGap && allSmall(n[d:]) {
			return true
		}
	}
	return false
}

// allSmall reports whether each number of a clause number's tail may open
// its level (1 or, a clause lost, a little more).
func allSmall(tail []int) bool {
	for _, v := range tail {
		if v < 1 || v > clauseMaxGap {
			return false
		}
	}
	return true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// openClause is a clause heading still open: its number and heading
// level.
type openClause struct {
	depth int
	level int
}

// clauser turns the clauses of a document's paragraphs into headings, one
// block at a time (see the comment above).
type clauser struct {
	off     bool         // pass blocks through unchanged (SectionOptions.Clauses unset)
	last    clauseNumber // the last clause number taken
	base    int          // the level of the last heading without a number
	restart bool         // the numbering may start again
	open    []openClause // clause headings open, outermost first
}

// block returns the blocks bl becomes, in order.
func (c *clauser) block(bl document.Block) []document.Block {
	if c.off {
		return []document.Block{bl}
	}
	switch bl.Kind {
	case document.Heading:
		return []document.Block{c.heading(bl)}
	case document.Paragraph:
		return c.paragraph(bl)
	}
	return []document.Block{bl}
}

// heading records a heading the reader found. A numbered one that
// continues the numbering is a clause at its own level; another leaves
// the clauses and lets the numbering start again.
func (c *clauser) heading(bl document.Block) document.Block {
	if n, _, ok := c.take(bl.Text); ok {
		for len(c.open) > 0 && c.open[len(c.open)-1].level >= bl.Level {
			c.open = c.open[:len(c.open)-1]
		}
		c.open = append(c.open, openClause{depth: len(n), level: bl.Level})
		return bl
	}
	c.base = bl.Level
	c.open = c.open[:0]
	c.restart = true
	return bl
}

// reNotClause is what follows a number that does not open a clause: a
// month (a date, "1 January 2025") or, within the line, dot leaders (a
// table of contents: "1 Introduction . . . . 1").
var reNotClause = regexp.MustCompile(`^(?i:` + wordlists.AlternationOf(wordlists.MonthStems()...) + `)[a-z]*\b|^[^\n]{0,100}?(?:\. ?){4}|^[^\n]{0,100}?…`)

// take reads a clause number at the start of text and, when it continues
// the numbering, takes it as the last clause. end is where the number
// (with its dot) ends in text.
func (c *clauser) take(text string) (clauseNumber, int, bool) {
	m := reClauseStart.FindStringSubmatchIndex(text)
	if m == nil {
		return nil, 0, false
	}
	n := parseClauseNumber(text[m[2]:m[3]])
	// a single number opens a clause with its dot ("3. Fees"), or after
	// "Section", "Article", "Clause": "3 Three Months Ended" heading a
	// filing's table, or a bare count opening a line, is not one
	if n == nil || len(n) == 1 && m[5] == m[4] && m[2] == 0 {
		return nil, 0, false
	}
	if reNotClause.MatchString(strings.TrimSpace(text[m[5]:])) {
		return nil, 0, false
	}
	ok := n.follows(c.last)
	if !ok && c.restart {
		ok = n.follows(nil)
	}
	if !ok {
		return nil, 0, false
	}
	c.last, c.restart = n, false
	return n, m[5], true
}

// paragraph splits a paragraph at the clauses that start in it.
func (c *clauser) paragraph(bl document.Block) []document.Block {
	var out []document.Block
	rest := bl.Text
	for rest != "" {
		n, numEnd, ok := c.take(rest)
		if !ok {
			// Text before the first clause, or a paragraph without one.
			cut := c.nextClause(rest)
			out = append(out, document.Block{Kind: document.Paragraph, Text: strings.TrimSpace(rest[:cut]), Page: bl.Page})
			rest = strings.TrimSpace(rest[cut:])
			continue
		}
		cut := c.nextClause(rest[numEnd:]) + numEnd
		piece := strings.TrimSpace(rest[:cut])
		rest = strings.TrimSpace(rest[cut:])
		heading, body := clauseHeading(piece, numEnd)
		out = append(out, document.Block{Kind: document.Heading, Level: c.level(len(n)), Text: heading, Page: bl.Page})
		if body {
			out = append(out, document.Block{Kind: document.Paragraph, Text: piece, Page: bl.Page})
		}
	}
	return out
}

// level is the heading level of a clause at depth (a number of depth
// parts) found in a paragraph, and opens it.
func (c *clauser) level(depth int) int {
	level := 0
	for len(c.open) > 0 && c.open[len(c.open)-1].depth >= depth {
		if top := c.open[len(c.open)-1]; top.depth == depth {
			level = top.level // the clause before at this depth
		}
		c.open = c.open[:len(c.open)-1]
	}
	switch k := len(c.open); {
	case level > 0:
	case k > 0:
		level = c.open[k-1].level + depth - c.open[k-1].depth
	default:
		level = c.base + depth
	}
	c.open = append(c.open, openClause{depth: depth, level: level})
	return level
}

// nextClause is where the next clause starts in text (len(text) when none
// does): after a sentence's end, a clause number that would continue the
// numbering. It does not take the number.
func (c *clauser) nextClause(text string) int {
	saved := *c
	defer func() { *c = saved }()
	for i := 0; i < len(text); {
		j := strings.IndexAny(text[i:], ".:;")
		if j < 0 {
			return len(text)
		}
		i += j + 1
		k := i
		for k < len(text) && (text[k] == ' ' || text[k] == '\n' || text[k] == '\t') {
			k++
		}
		if k == i || k >= len(text) {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(text[k:]); !unicode.IsDigit(r) && r != 'S' && r != 'A' && r != 'C' {
			continue
		}
		if _, _, ok := c.take(text[k:]); ok {
			return k
		}
	}
	return len(text)
}

// Limits of a clause's heading.
const (
	clauseHeadingWords = 12
	clauseRunInWords   = 8
)

// clauseHeading is the heading of a clause whose text is piece, its
// number ending at numEnd: the whole piece when it is a short heading
// line ("12. TERMINATION"), else the number and a run-in title ("12.2
// Termination for Convenience" of "12.2 Termination for Convenience.
// Either party …"), else the number alone. body says the piece has text
// beyond its heading.
func clauseHeading(piece string, numEnd int) (heading string, body bool) {
	num := strings.TrimSpace(piece[:numEnd])
	rest := strings.TrimSpace(piece[numEnd:])
	line := strings.TrimRight(rest, ".:")
	if !strings.ContainsAny(line, ".;:\n") && len(strings.Fields(line)) <= clauseHeadingWords && (isAllCaps(line) || titleCase(line)) {
		return num + " " + line, false
	}
	if i := strings.Index(rest, ". "); i > 0 {
		title := rest[:i]
		if w := len(strings.Fields(title)); w <= clauseRunInWords && !strings.ContainsAny(title, ";:,\"“”") && titleCase(title) {
			return num + " " + title, true
		}
	}
	if caps := leadingCaps(rest); caps != "" {
		return num + " " + caps, true
	}
	return num, true
}

// leadingCaps is the run of upper-case words that opens text and is
// followed by more text, as an upper-case run-in title is ("1.
// APPLICABILITY AND DEFINITIONS This License applies …"), at most
// clauseRunInWords words; "" when there is none.
func leadingCaps(text string) string {
	ws := strings.Fields(text)
	n := 0
	for n < len(ws) && n <= clauseRunInWords && upperWord(ws[n]) {
		n++
	}
	if n == 0 || n > clauseRunInWords || n == len(ws) || !isAllCaps(strings.Join(ws[:n], " ")) {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(ws[n]); unicode.IsLower(r) || unicode.IsDigit(r) {
		return "" // "ABC shall …": a name, not a title
	}
	return strings.TrimRight(strings.Join(ws[:n], " "), ".:;,")
}

// upperWord reports a word with a letter and no lower-case letter.
func upperWord(w string) bool {
	letter := false
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		letter = letter || unicode.IsLetter(r)
	}
	return letter
}

// titleCase reports whether most words of a run-in title start with a
// capital letter ("Termination for Convenience" yes, "The term of this
// Agreement" no).
func titleCase(s string) bool {
	words := strings.Fields(s)
	caps := 0
	for _, w := range words {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			caps++
		}
	}
	return caps*2 > len(words)
}
