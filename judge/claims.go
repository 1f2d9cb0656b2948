package judge

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Citation is a reference to a section found in an answer: either
// "(See Late Payment Penalties, page 8)" (Title and Page set) or an id
// marker "[S1]" (ID set, as the LLM generator writes them).
type Citation struct {
	// Raw is the marker as written.
	Raw string
	// Title and Page are set for "(See <title>, page <page>)"; Page keeps
	// what was written after "page"/"pages" ("8", "8–9", "n/a").
	Title, Page string
	// ID is set for "[S1]"-style markers ("S1").
	ID string
}

// String renders the citation as it would be written.
func (c Citation) String() string {
	if c.ID != "" {
		return "[" + c.ID + "]"
	}
	return c.Title + ", page " + c.Page
}

// Claim is one checkable statement of an answer: a sentence with its
// citation markers removed and the citations it carries.
type Claim struct {
	// Text is the sentence without citation markers, list bullets or
	// Markdown emphasis, white space collapsed.
	Text string
	// Citations are the markers written after the sentence, or, for a
	// sentence without markers, those of the next cited sentence in the
	// same paragraph ("A. B. (See X, page 2)": A and B both cite X).
	Citations []Citation
	// Start and End are the byte offsets of the sentence in the answer
	// (citation markers inside it included).
	Start, End int
}

var (
	// reParenCite matches "(See Title, page 8)", "(Title, pages 8–9)",
	// "(see also A, p. 3; B, page 4)", "(Source: Title, page n/a)". A
	// title may hold up to three parentheses, one level deep, as the
	// headings of financial statements do ("(See Amount
	// Increase/(decrease), pages 12–13)", "Net Income (Loss)"): the
	// offline generator writes a section's title as it is, and so may a
	// model.
	reParenCite = regexp.MustCompile(`(?i)\(\s*(?:(?:see|source|sources|cf\.?)\s*:?\s*(?:also\s+)?)?((?:[^()\n]{1,300}?|[^()\n]{0,300}?(?:\([^()\n]{0,60}\)[^()\n]{0,200}?){1,3}),\s*(?:pages?|pp?\.)\s*[^()\n]{1,40}?)\s*\)`)
	// rePageSplit splits "Title, page 8" at its last ", page".
	rePageSplit = regexp.MustCompile(`(?i)^(.*\S)\s*,\s*(?:pages?|pp?\.)\s*(\S.*)$`)
	// reIDCite matches "[S1]", "[S1, S3]", "[S2; S4]".
	reIDCite = regexp.MustCompile(`(?i)\[\s*(S\d{1,4}(?:\s*(?:,|;|and)\s*S\d{1,4})*)\s*\]`)
	reIDOne  = regexp.MustCompile(`(?i)S\d{1,4}`)
	reBullet = regexp.MustCompile(`^(?:[-*•]\s+|\(?\d{1,3}[.)]\s+|\(?[a-z][.)]\s+)`)
)

type marker struct {
	start, end int
	cites      []Citation
}

// findCitations returns the citation markers of answer in order.
func findCitations(answer string) []marker {
	var out []marker
	for _, m := range reParenCite.FindAllStringSubmatchIndex(answer, -1) {
		var cites []Citation
		for _, part := range strings.Split(answer[m[2]:m[3]], ";") {
			pm := rePageSplit.FindStringSubmatch(strings.TrimSpace(part))
			if pm == nil {
				continue
			}
			title := strings.TrimSpace(pm[1])
			if low := strings.ToLower(title); strings.HasPrefix(low, "see ") {
				title = strings.TrimSpace(title[4:])
			}
			cites = append(cites, Citation{Raw: answer[m[0]:m[1]], Title: title, Page: strings.TrimSpace(pm[2])})
		}
		if len(cites) > 0 {
			out = append(out, marker{m[0], m[1], cites})
		}
	}
	for _, m := range reIDCite.FindAllStringSubmatchIndex(answer, -1) {
		var cites []Citation
		for _, id := range reIDOne.FindAllString(answer[m[2]:m[3]], -1) {
			cites = append(cites, Citation{Raw: answer[m[0]:m[1]], ID: strings.ToUpper(id)})
		}
		out = append(out, marker{m[0], m[1], cites})
	}
	// order by position (two sorted lists, merged)
	slices.SortStableFunc(out, byStart)
	return out
}

// maxCitationPasses bounds how many times blankCitations looks again:
// once per level of markers nested in markers, which real answers do not
// have; the bound keeps a crafted answer linear.
const maxCitationPasses = 8

// blankCitations returns answer's citation markers, in order, and answer
// with each replaced by spaces. Blanking a marker can make one of the text
// around it ("(0, (See A, page 1) page 2)" leaves "(0,  page 2)"), so it
// looks again until no marker is left, at most maxCitationPasses times.
func blankCitations(answer string) ([]marker, string) {
	b := []byte(answer)
	var out []marker
	for pass := 0; pass < maxCitationPasses; pass++ {
		found := findCitations(string(b))
		if len(found) == 0 {
			break
		}
		for _, m := range found {
			for i := m.start; i < m.end; i++ {
				b[i] = ' '
			}
		}
		out = append(out, found...)
	}
	slices.SortStableFunc(out, byStart)
	return out, string(b)
}

func byStart(a, b marker) int { return a.start - b.start }

// StripCitations returns answer without its citation markers.
func StripCitations(answer string) string {
	_, blank := blankCitations(answer)
	return cleanText(blank)
}

// SplitClaims splits an answer into claims: its sentences
// (textproc.Sentences), each without citation markers, with the citations
// that belong to it. Sentences without a content word ("Yes.") are not
// claims. It never fails; an empty answer has no claims.
func SplitClaims(answer string) []Claim {
	markers, clean := blankCitations(answer)
	type sent struct {
		start, end int
		text       string
		para       int
		cites      []Citation
	}
	var sents []sent
	cursor, para, counted := 0, 0, 0
	for _, s := range textproc.AnswerSentences(clean) {
		st, en, ok := locate(clean, s, cursor)
		if !ok {
			continue
		}
		// paragraph breaks are counted once, from where the last count
		// stopped (the answer is read once: linear in its length)
		para += strings.Count(clean[counted:st], "\n\n")
		counted = st
		sents = append(sents, sent{start: st, end: en, text: s, para: para})
		cursor = en
	}
	// a marker belongs to the last sentence starting before it (sentences
	// are in order)
	for _, m := range markers {
		k := sort.Search(len(sents), func(i int) bool { return sents[i].start > m.start }) - 1
		if k < 0 {
			continue
		}
		sents[k].cites = append(sents[k].cites, m.cites...)
		if m.end > sents[k].end {
			sents[k].end = m.end
		}
	}
	// uncited sentences take the citations of the next cited sentence of
	// their paragraph
	for i := len(sents) - 2; i >= 0; i-- {
		if len(sents[i].cites) == 0 && sents[i+1].para == sents[i].para {
			sents[i].cites = sents[i+1].cites
		}
	}
	var out []Claim
	for _, s := range sents {
		text := cleanText(s.text)
		if !hasContent(text) {
			continue
		}
		out = append(out, Claim{Text: text, Citations: s.cites, Start: s.start, End: trimEnd(answer, s.start, s.end)})
	}
	return out
}

// hasContent reports whether text has a content word other than a bare
// "yes" or "no".
func hasContent(text string) bool {
	return slices.ContainsFunc(textproc.Terms(text), func(t string) bool { return t != "yes" && t != "no" })
}

// trimEnd moves end back over trailing white space.
func trimEnd(s string, start, end int) int {
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	return end
}

// cleanText collapses white space, drops a list bullet and Markdown
// emphasis, and removes the space a stripped marker left before
// punctuation.
var tidy = strings.NewReplacer("**", "", "__", "", " .", ".", " ,", ",", " ;", ";", " :", ":", " !", "!", " ?", "?")

func cleanText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = reBullet.ReplaceAllString(s, "")
	s = tidy.Replace(s)
	return strings.TrimSpace(s)
}

// locate finds sentence s in text at or after from, ignoring differences
// in white space, and returns its byte span.
func locate(text, s string, from int) (int, int, bool) {
	if from > len(text) {
		return 0, 0, false
	}
	if i := strings.Index(text[from:], s); i >= 0 {
		return from + i, from + i + len(s), true
	}
	first, _ := utf8.DecodeRuneInString(s)
	for st := from; st < len(text); {
		r, size := utf8.DecodeRuneInString(text[st:])
		if r == first {
			if en, ok := matchLoose(text, st, s); ok {
				return st, en, true
			}
		}
		st += size
	}
	return 0, 0, false
}

func matchLoose(text string, i int, s string) (int, bool) {
	j := 0
	for j < len(s) {
		rs, ns := utf8.DecodeRuneInString(s[j:])
		if unicode.IsSpace(rs) {
			j += ns
			continue
		}
		for i < len(text) {
			rt, nt := utf8.DecodeRuneInString(text[i:])
			if !unicode.IsSpace(rt) {
				break
			}
			i += nt
		}
		if i >= len(text) {
			return 0, false
		}
		rt, nt := utf8.DecodeRuneInString(text[i:])
		if rt != rs {
			return 0, false
		}
		i += nt
		j += ns
	}
	return i, true
}

// ResolveCitation returns the index in sections of the section c refers
// to, or -1 and the reason it refers to none. An id "S3" is the third
// section. A title matches a section's title, or the last part of a
// heading path ("Fees > Late Payment Penalties"), ignoring case,
// punctuation and white space; its page must be one the section is on
// ("n/a" for a section with no page).
func ResolveCitation(c Citation, sections []schema.Section) (int, string) {
	if c.ID != "" {
		n, err := strconv.Atoi(c.ID[1:])
		if err != nil || n < 1 || n > len(sections) {
			return -1, fmt.Sprintf("cites %s, but only S1..S%d were given", c.Raw, len(sections))
		}
		return n - 1, ""
	}
	want := normTitle(c.Title)
	titleSeen := -1
	for i, s := range sections {
		if !titleMatches(want, s.Title) {
			continue
		}
		if titleSeen < 0 {
			titleSeen = i
		}
		if pageMatches(c.Page, s) {
			return i, ""
		}
	}
	if titleSeen >= 0 {
		s := sections[titleSeen]
		return -1, fmt.Sprintf("cites %q on page %s, but that section is on %s", c.Title, c.Page, s.PageRef())
	}
	return -1, fmt.Sprintf("cites %q, which is not one of the retrieved sections", c.Title)
}

func titleMatches(want, title string) bool {
	if want == "" {
		return false
	}
	if normTitle(title) == want {
		return true
	}
	for _, sep := range []string{" > ", " / ", " — ", " › ", " » "} {
		if i := strings.LastIndex(title, sep); i >= 0 && normTitle(title[i+len(sep):]) == want {
			return true
		}
	}
	return false
}

func normTitle(s string) string { return strings.Join(textproc.Tokens(s), " ") }

func pageMatches(page string, s schema.Section) bool {
	p := strings.ToLower(strings.TrimSpace(page))
	if p == "n/a" || p == "" {
		return s.Page <= 0
	}
	if s.PageLabel != "" && strings.EqualFold(p, s.PageLabel) {
		return true
	}
	if strings.EqualFold(p, strings.TrimPrefix(strings.TrimPrefix(s.PageRef(), "pages "), "page ")) {
		return true
	}
	// first number written
	i := strings.IndexFunc(p, unicode.IsDigit)
	if i < 0 {
		return false
	}
	j := i
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
	}
	n, err := strconv.Atoi(p[i:j])
	if err != nil {
		return false
	}
	return n >= s.Page && n <= max(s.Page, s.PageEnd)
}
