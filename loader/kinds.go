package loader

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Section kinds are read from a section's layout, not from what it is
// about: the parts of a document that identify it (the parties and date of
// an agreement, its signatures, a filing's cover and certifications, a
// table of contents, a running header) have shapes of their own that
// recur in every document of their type. ClassifyKinds sets
// schema.Section.Kind from those shapes; a section that shows none of
// them is body text. Each shape is one named test below, so that a wrong
// kind can be traced to the test that gave it.

// kindShape is one test of a section's shape.
type kindShape struct {
	kind schema.SectionKind
	// test reports whether the section at index i (of all the document's
	// sections, in order) has the shape.
	test func(d *kindDoc, i int) bool
}

// kindDoc is a document's sections with what the shapes read of them all.
type kindDoc struct {
	secs []schema.Section
	// running counts, per folded short text, the pages it stands on.
	running map[string]map[int]bool
}

// kindShapes are tried in order; the first that holds gives the kind.
var kindShapes = []kindShape{
	{schema.KindTOC, isTableOfContents},
	{schema.KindSignature, isSignatureBlock},
	{schema.KindCertification, isCertification},
	{schema.KindCover, isCoverPage},
	{schema.KindPreamble, isPreamble},
	{schema.KindRecitals, isRecitals},
	{schema.KindCrossReference, isCrossReference},
	{schema.KindHeaderFooter, isRunningLine},
}

// ClassifyKinds sets the Kind of each of a document's sections (given in
// document order) that is not body text. Sections that already have a
// kind keep it. Running headers and footers are looked for only in paged
// formats other than text and Markdown, whose sections are read one at a
// time (TextStream) and must get the kinds the whole file gives.
func ClassifyKinds(secs []schema.Section, format string) {
	d := &kindDoc{secs: secs}
	if format != formats.Text && format != formats.Markdown {
		d.running = map[string]map[int]bool{}
		for _, s := range secs {
			if norm := normRunning(s.Content); norm != "" && len(words(norm)) <= 15 {
				if d.running[norm] == nil {
					d.running[norm] = map[int]bool{}
				}
				d.running[norm][s.Page] = true
			}
		}
	}
	for i := range secs {
		d.classify(i)
	}
}

// next classifies s as the next section of a document read one section at
// a time, from the sections before it, and returns it.
func (d *kindDoc) next(s schema.Section) schema.Section {
	// only the first sections can be a preamble or recitals; keep those
	if len(d.secs) < 10 {
		d.secs = append(d.secs, s)
		d.classify(len(d.secs) - 1)
		return d.secs[len(d.secs)-1]
	}
	d.secs[9] = s
	d.classify(9)
	return d.secs[9]
}

// classify sets the kind of section i.
func (d *kindDoc) classify(i int) {
	if d.secs[i].Kind != schema.KindBody {
		return
	}
	for _, sh := range kindShapes {
		if sh.test(d, i) {
			d.secs[i].Kind = sh.kind
			return
		}
	}
}

// words splits text into whitespace-separated words.
func words(text string) []string { return strings.Fields(text) }

// lines splits text into its non-empty trimmed lines.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// tocLine is a line that ends with a page reference, after dot leaders or
// a gap: "Item 7. Management's Discussion ........ 25", "Article 3  12".
var tocLine = regexp.MustCompile(`(?:\.{3,}|…|\s{2,}|\s)\s*(?:\d{1,4}|[ivxlc]{1,6}|[A-Z]-\d{1,3})\s*$`)

// tocRun is one "title …… page" run of a table of contents flattened
// into one line.
var tocRun = regexp.MustCompile(`\.{4,}\s*\d{1,4}`)

// endsInTwoNumbers reports whether the line's last two words are numbers,
// as a table row's values are and a contents line's are not.
func endsInTwoNumbers(line string) bool {
	ws := words(line)
	return len(ws) >= 2 && numberWords(ws[len(ws)-2]+" "+ws[len(ws)-1]) == 2
}

// numberWords counts the words of a line that are numbers ("812",
// "$1,204", "(18)"): a table row has several, a contents line one (its
// page) or two (an item number too).
func numberWords(line string) int {
	n := 0
	for _, w := range words(line) {
		w = strings.TrimLeft(w, "($-")
		if w != "" && w[0] >= '0' && w[0] <= '9' {
			n++
		}
	}
	return n
}

// tocHeading is a heading that announces a table of contents.
var tocHeading = regexp.MustCompile(`(?i)^\s*(?:table of )?contents\s*$|^\s*index\s*$`)

// isTableOfContents: most of the section's lines end with a page number
// (at least four lines), or its heading announces contents and its lines
// are short references.
func isTableOfContents(d *kindDoc, i int) bool {
	secs := d.secs
	s := secs[i]
	ls := lines(s.Content)
	if len(ls) < 4 {
		// flattened text: many "title … page" runs in one line
		return len(tocRun.FindAllStringIndex(s.Content, -1)) >= 4
	}
	n := 0
	for _, l := range ls {
		if tocLine.MatchString(l) && len(words(l)) <= 14 && numberWords(l) <= 2 && !endsInTwoNumbers(l) {
			n++
		}
	}
	if tocHeading.MatchString(s.Title) {
		return 2*n >= len(ls)
	}
	return 10*n >= 7*len(ls)
}

// signatureLabel is a field label of a signature block at a line's or a
// run's start.
var signatureLabel = regexp.MustCompile(`(?i)(?:^|\s|/)(by|name|title|date|its|signature|signed)\s*:\s*`)

// witnessClause opens the execution clause of an agreement.
var witnessClause = regexp.MustCompile(`(?i)^\s*in witness whereof\b`)

// isSignatureBlock: an execution clause, or a short text made of signature
// field labels ("By:", "Name:", "Title:") and "/s/" marks, with few words
// between them.
func isSignatureBlock(d *kindDoc, i int) bool {
	secs := d.secs
	text := secs[i].Content
	ws := words(text)
	if len(ws) == 0 {
		return false
	}
	if witnessClause.MatchString(text) && len(ws) <= 200 {
		return true
	}
	// each label holds a colon: a text with fewer than three colons and
	// marks has fewer than three labels, without the expression
	marks := strings.Count(text, "/s/")
	if strings.Count(text, ":")+marks < 3 {
		return false
	}
	labels := len(signatureLabel.FindAllStringIndex(text, -1)) + marks
	if labels < 3 {
		return false
	}
	// most of the text sits between labels: at most ~12 words a label
	return len(ws) <= 12*labels
}

// certifyClause is the opening of an officer's certification ("I, Jane
// Doe, certify that") or a statement made under a named statute.
var certifyClause = regexp.MustCompile(`(?i)\bI,\s+[^,]{3,60},\s+(?:hereby\s+)?certify\b|\bcertif(?:y|ies|ication)\b[^.]{0,200}\bpursuant to\b[^.]{0,80}\b(?:section|rule)\s+\d`)

// isCertification: a certification by a named officer, or made pursuant
// to a numbered section or rule.
func isCertification(d *kindDoc, i int) bool {
	c := d.secs[i].Content
	// both of certifyClause's forms write "certif", in any case: a
	// section that does not is turned away before the expression runs
	return textproc.ContainsFoldASCII(c, "certif") && certifyClause.MatchString(c)
}

// checkBoxes are the marks of a form's tick boxes.
const checkBoxes = "☐☒☑□■þ¨"

// isCoverPage: a section on a document's first page that is a form (tick
// boxes) or that is mostly upper-case title lines.
func isCoverPage(d *kindDoc, i int) bool {
	secs := d.secs
	s := secs[i]
	if s.Page > 1 {
		return false
	}
	boxes := 0
	for _, r := range s.Content {
		if strings.ContainsRune(checkBoxes, r) {
			boxes++
		}
	}
	return boxes >= 2
}

// partyDefinition is a defined name in parentheses and quotes, as
// agreements introduce their parties: (“Licensee”), ("the Company"),
// (hereinafter referred to as “Consultant”), (herein "Go Call").
var partyDefinition = regexp.MustCompile(`(?i)\(\s*(?:(?:the|each\s+a|individually|collectively|herein|hereinafter|hereafter)[\s,]+(?:(?:referred\s+to|called)\s+(?:herein\s+)?(?:as\s+)?)?(?:the\s+)?)?["“”'‘’][^"“”'‘’()]{2,40}["“”'‘’]`)

// betweenParties is the clause that names an agreement's parties.
var betweenParties = regexp.MustCompile(`(?i)\b(?:by and )?between\b|\bamong\b|\bentered into\b|\bis made\b|\bmade and entered\b`)

// isPreamble: among a document's first sections (first pages), a
// paragraph that names parties: it introduces a defined name in quotes and
// states between whom it is made, or, among the first three sections, it
// introduces two.
func isPreamble(d *kindDoc, i int) bool {
	secs := d.secs
	s := secs[i]
	if s.Page > 2 || i > 4 {
		return false
	}
	head := beforeParts(s.Content)
	if len(head) > 1200 {
		head = head[:1200]
	}
	defs := len(partyDefinition.FindAllStringIndex(head, -1))
	return defs >= 2 && i <= 2 || betweenParties.MatchString(head) && defs >= 1
}

// partStart opens a part of an agreement that follows its preamble: a
// numbered clause ("1. APPOINTMENT", "2.1 Term", "Article II", "Section
// 3"), a lettered recital ("A. Acme makes …") or a recital ("WHEREAS").
var partStart = regexp.MustCompile(`(?m)^\s*(?:` + schema.ClauseHead + `|[A-Z]\.\s|(?i:whereas|recitals?)\b)`)

// beforeParts returns text up to the first part that follows a preamble:
// the names a clause or a recital defines ("the Products") are not the
// parties a preamble names.
func beforeParts(text string) string {
	if loc := partStart.FindStringIndex(text); loc != nil {
		return text[:loc[0]]
	}
	return text
}

// whereas opens a recital.
var whereas = regexp.MustCompile(`(?i)^\s*(?:[A-Z]\.\s+)?(?:whereas|recitals?)\b`)

// isRecitals: a section that opens with a recital, near the start of the
// document.
func isRecitals(d *kindDoc, i int) bool {
	secs := d.secs
	return secs[i].Page <= 3 && i <= 8 && whereas.MatchString(secs[i].Content)
}

// pointer is a reference to another part of a document or to another
// document (internal/wordlists/cross_reference_nouns.txt).
var pointer = regexp.MustCompile(`(?i)\b(?:see|refer to|as described in|as discussed in|is incorporated (?:herein )?by reference|are incorporated (?:herein )?by reference|set forth in)\b[^.]{0,80}\b` + wordlists.Alternation("cross_reference_nouns") + `s?\s+[0-9A-Z]`)

// isCrossReference: a short section whose statements mostly send the
// reader elsewhere.
func isCrossReference(d *kindDoc, i int) bool {
	secs := d.secs
	text := secs[i].Content
	ws := words(text)
	if len(ws) == 0 || len(ws) > 60 {
		return false
	}
	refs := pointer.FindAllStringIndex(text, -1)
	if len(refs) == 0 {
		return false
	}
	covered := 0
	for _, r := range refs {
		covered += len(words(text[r[0]:r[1]]))
	}
	// the pointers and their sentence make up most of the text
	return 3*covered >= len(ws) || len(ws) <= 25
}

// isRunningLine: a short section whose text recurs on three or more pages
// of the same document (a running header or footer cut out as its own
// section).
func isRunningLine(d *kindDoc, i int) bool {
	secs := d.secs
	norm := normRunning(secs[i].Content)
	return norm != "" && len(d.running[norm]) >= 3
}

// normRunning folds a running line for comparison: case, digits (page
// numbers) and punctuation are ignored.
func normRunning(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r):
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
