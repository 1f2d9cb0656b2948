package pdf

import (
	"regexp"
	"strings"
	"unicode"
)

// Document context: what the document is (title), whom it is about
// (entity) and which period it covers, read from how documents state
// them on their first pages. The rules are general patterns, never names:
//
//   - entity: the line before "(Exact name of registrant as specified in
//     its charter)" (SEC filings); else the subject of a headline "X
//     Reports ..."/"X Announces ..." (press releases), completed with a
//     corporate suffix when the first pages spell it ("Intel" -> "Intel
//     Corporation"); else the name with a corporate suffix ("Inc.",
//     "Corporation", ...) most often repeated on the first pages.
//   - period: "For the fiscal year ended May 31, 2023", "For the quarterly
//     period ended October 31, 2022" (-> "fiscal year ended May 31,
//     2023"); else a quarter named in the first page's headings ("First
//     Quarter 2023" -> "first quarter 2023"); else "three months ended
//     April 1, 2023".
//   - title: the file's Title metadata unless it is junk (empty, an
//     accession or file name, "Microsoft Word - x.doc", mostly digits);
//     else "<entity> Form 10-K" for a filing cover; else the first
//     heading of the first page that is not cover boilerplate, an
//     exhibit's label ("Exhibit 10.17"), a copy's stamp ("Execution
//     Version"), a numbered clause's heading or a legend, joined to the
//     next when it ends in "of" ("FORM OF" / "TRADEMARK LICENSE
//     AGREEMENT").

// contextPages is how many pages are read for the context.
const contextPages = 3

var (
	registrantNote = regexp.MustCompile(`(?i)\(\s*exact name of (?:the )?registrants?\s+as specified in (?:its|their) (?:charters?|organizational documents)\s*\)`)
	headlineVerb   = regexp.MustCompile(`^(.{2,60}?)\s+(?:Reports|Announces|Reported|Announced|Posts|Delivers|Declares)\b`)
	corpSuffix     = `(?:Inc\.?|Incorporated|Corporation|Corp\.|Company|Co\.|Ltd\.?|Limited|LLC|L\.P\.|LP|plc|PLC|N\.V\.|S\.A\.|SE|AG|GmbH|Group|Holdings|Limited Partnership)`
	corpName       = regexp.MustCompile(`\b((?:[A-Z][A-Za-z0-9&'’.-]*\s+){0,4}?[A-Z][A-Za-z0-9&'’.-]*,?\s+` + corpSuffix + `)(?:[^A-Za-z]|$)`)
	periodFor      = regexp.MustCompile(`(?i)\bfor the ((?:fiscal |calendar )?(?:year|quarterly period|quarter|(?:three|six|nine|twelve|thirteen|twenty-six|fifty-two|fifty-three) (?:months|weeks)|period)) ended,?\s+([A-Z][a-z]{2,8}\.?\s+\d{1,2},\s+\d{4})`)
	periodQuarter  = regexp.MustCompile(`(?i)\b(first|second|third|fourth|1st|2nd|3rd|4th)[- ]quarter(?:\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?)?)?\s*((?:19|20)\d\d)\b|\bQ([1-4])\s*(?:FY\s*)?((?:19|20)\d\d)\b`)
	periodEnded    = regexp.MustCompile(`(?i)\b((?:three|six|nine|twelve) months|quarter|(?:fiscal )?year) ended,?\s+([A-Z][a-z]{2,8}\.?\s+\d{1,2},\s+\d{4})`)
	secForm        = regexp.MustCompile(`(?i)^form\s+(10-K|10-Q|8-K|20-F|40-F|6-K|10-KT|10-QT|S-1|DEF 14A)(?:/A)?$`)
	accession      = regexp.MustCompile(`^\d{10}-\d{2}-\d{6}$`)
)

// docContext reads title, entity and period from the first pages' lines
// (after running headers are removed) and the headings found there.
func docContext(meta string, lines []line, marked []hline) (title, entity, period string) {
	var first []line
	for _, l := range lines {
		if l.page > contextPages {
			break
		}
		first = append(first, l)
	}
	entity = findEntity(first)
	period = findPeriod(first, marked)
	title = bareTitle(meta)
	if junkTitle(title) {
		title = coverTitle(first, marked, entity)
	}
	return title, entity, period
}

var (
	// exhibitLabel is the number or letter an exhibit or annex is filed
	// under, set above or before its title: "Exhibit 10.17", "EXHIBIT B",
	// "Annex A-1" (not the words of "Appendix to the Report").
	exhibitLabel = regexp.MustCompile(`^(?i:exhibit|annex|appendix|attachment)\s+(?:\d[0-9A-Z]{0,2}|[A-Z])(?:[.-][0-9A-Z]{1,3}){0,2}(?:[\s.:–—-]+|$)`)
	// copyStamp is the state of a copy stamped on its first page:
	// "Execution Version", "Redacted Copy", "Confidential Treatment
	// Requested".
	copyStamp = regexp.MustCompile(`(?i)^(?:execution|redacted|conformed|final|confidential|draft)(?:\s+(?:copy|version|draft|treatment(?:\s+requested)?))?[\s.]*$`)
	// clauseNumber opens a numbered clause's heading ("1. Products"),
	// which is a part of the document, not its title.
	clauseNumber = regexp.MustCompile(`^\d{1,2}(?:\.\d{1,2})*\.?\s`)
	// danglingWord ends a heading that goes on in the next one: "FORM
	// OF" above "TRADEMARK LICENSE AGREEMENT".
	danglingWord = regexp.MustCompile(`(?i)\b(?:of|for|and|to|between|among|by)$`)
)

// maxTitleWords bounds a heading that may title its document: a longer
// one is a legend or a sentence ("CONFIDENTIAL PORTIONS OF THIS DOCUMENT
// HAVE BEEN REDACTED AND …").
const maxTitleWords = 10

// bareTitle returns a title without the exhibit label before it ("Exhibit
// 10.16 ENDORSEMENT AGREEMENT" → "ENDORSEMENT AGREEMENT"), and "" for a
// label or a copy's stamp alone ("Exhibit 2.7", "EXHIBIT 10.2 EXECUTION
// VERSION"): neither says what the document is.
func bareTitle(t string) string {
	t = strings.TrimSpace(t)
	t = strings.TrimSpace(t[len(exhibitLabel.FindString(t)):])
	if copyStamp.MatchString(t) {
		return ""
	}
	return t
}

func findEntity(first []line) string {
	for i, l := range first {
		loc := registrantNote.FindStringIndex(l.text)
		if loc == nil {
			continue
		}
		name := strings.TrimSpace(l.text[:loc[0]])
		if name == "" {
			// The name may wrap over the lines just above, set in the
			// same font: "BOSTON PROPERTIES, INC." / "BOSTON PROPERTIES
			// LIMITED PARTNERSHIP".
			for j := i - 1; j >= 0 && j >= i-3; j-- {
				t := strings.TrimSpace(first[j].text)
				if t == "" || junkHeading(t) || j < i-1 && (first[j].size != first[i-1].size || first[j].bold != first[i-1].bold) {
					break
				}
				name = strings.TrimSpace(t + " " + name)
			}
		}
		if name = tidyName(name); name != "" {
			return name
		}
	}
	for _, l := range first {
		if l.page != 1 {
			break
		}
		m := headlineVerb.FindStringSubmatch(l.text)
		if m == nil || !startsUpperOrMixed(m[1]) {
			continue
		}
		subj := strings.TrimSpace(m[1])
		// Complete with a suffix the first pages spell.
		for _, f := range first {
			for _, c := range corpName.FindAllStringSubmatch(f.text, -1) {
				if strings.HasPrefix(c[1], subj) && len(c[1]) > len(subj) {
					return tidyName(c[1])
				}
			}
		}
		return tidyName(subj)
	}
	counts := map[string]int{}
	best, bestN := "", 0
	for _, l := range first {
		for _, c := range corpName.FindAllStringSubmatch(l.text, -1) {
			n := tidyName(c[1])
			counts[n]++
			if counts[n] > bestN {
				best, bestN = n, counts[n]
			}
		}
	}
	if bestN >= 2 {
		return best
	}
	return ""
}

func startsUpperOrMixed(s string) bool {
	for _, r := range s {
		return unicode.IsUpper(r) || unicode.IsLower(r) && strings.ContainsFunc(s, unicode.IsUpper)
	}
	return false
}

var upperSuffix = regexp.MustCompile(`(?i)\b(INC|CORP|CO|LTD)\.|\b(LLC|L\.P\.|LP|PLC|N\.V\.|S\.A\.|AG|GMBH)\b`)

// tidyName trims punctuation, turns a name set in capitals into title
// case (keeping suffixes such as LLC in capitals) and joins two
// registrants named on one line with "and".
func tidyName(s string) string {
	s = strings.Trim(strings.TrimSpace(s), ",;:")
	if s == "" || len(s) > 150 {
		return ""
	}
	if isUpperText(s) {
		words := strings.Fields(strings.ToLower(s))
		for i, w := range words {
			rs := []rune(w)
			rs[0] = unicode.ToUpper(rs[0])
			words[i] = string(rs)
			if upperSuffix.MatchString(w) && !strings.HasSuffix(w, ".") && !strings.Contains(w, "inc") {
				words[i] = strings.ToUpper(w)
			}
		}
		s = strings.Join(words, " ")
	}
	// "Boston Properties, Inc. Boston Properties Limited Partnership":
	// two names, each ending in a suffix.
	if loc := regexp.MustCompile(`\b(?:Inc\.|Corp\.|Corporation|Company|Ltd\.|LLC|plc)\s+[A-Z]`).FindStringIndex(s); loc != nil {
		s = s[:loc[1]-1] + "and " + s[loc[1]-1:]
	}
	return s
}

func findPeriod(first []line, marked []hline) string {
	for _, l := range first {
		if m := periodFor.FindStringSubmatch(l.text); m != nil {
			return strings.ToLower(m[1]) + " ended " + m[2]
		}
	}
	// Quarters named in the first page's headings, then its text.
	var texts []string
	for _, h := range marked {
		if h.page == 1 && h.level > 0 {
			texts = append(texts, h.text)
		}
	}
	for _, l := range first {
		if l.page == 1 {
			texts = append(texts, l.text)
		}
	}
	ordinal := map[string]string{"1": "first", "2": "second", "3": "third", "4": "fourth", "1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth"}
	for _, t := range texts {
		if m := periodQuarter.FindStringSubmatch(t); m != nil {
			if m[1] != "" {
				q := strings.ToLower(m[1])
				if o, ok := ordinal[q]; ok {
					q = o
				}
				return q + " quarter " + m[2]
			}
			return ordinal[m[3]] + " quarter " + m[4]
		}
	}
	for _, l := range first {
		if m := periodEnded.FindStringSubmatch(l.text); m != nil {
			return strings.ToLower(m[1]) + " ended " + m[2]
		}
	}
	return ""
}

// junkTitle reports whether a Title metadata value says nothing about
// the document: empty, an accession number, a file name, a word
// processor's "Microsoft Word - x.doc", mostly digits and punctuation.
func junkTitle(t string) bool {
	t = strings.TrimSpace(t)
	if t == "" || accession.MatchString(t) {
		return true
	}
	low := strings.ToLower(t)
	for _, p := range []string{"microsoft word", "untitled", ".doc", ".pdf", ".indd", ".xls", ".htm"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	if strings.Contains(t, "_") && !strings.Contains(t, " _ ") {
		return true
	}
	letters, other := 0, 0
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letters++
		case !unicode.IsSpace(r):
			other++
		}
	}
	return letters < 4 || letters < other
}

// partName is a heading that names a part of a document (a PDF
// bookmark such as "Cover Page"), never the document's title.
var partName = regexp.MustCompile(`(?i)^(?:the\s+)?(?:cover(?:\s+page)?|(?:table\s+of\s+)?contents|index|title\s+page|front\s+matter|signatures?|exhibits?(?:\s+index)?)$`)

// coverTitle makes a title from the first page: "<entity> Form 10-K"
// when it is a filing's cover (the form named in a line or heading of
// the first page), else its first heading that is neither boilerplate
// nor the name of a part ("Cover Page"), else the entity.
func coverTitle(first []line, marked []hline, entity string) string {
	if entity != "" {
		texts := []string{}
		for _, l := range first {
			if l.page == 1 {
				texts = append(texts, l.text)
			}
		}
		for _, h := range marked {
			if h.page == 1 {
				texts = append(texts, h.text)
			}
		}
		for _, t := range texts {
			if m := secForm.FindStringSubmatch(strings.TrimSpace(t)); m != nil {
				return entity + " Form " + strings.ToUpper(m[1])
			}
		}
	}
	for i, h := range marked {
		if h.page > 1 {
			break
		}
		t := bareTitle(h.text)
		if h.level == 0 || t == "" || junkHeading(t) || partName.MatchString(t) || clauseNumber.MatchString(t) || len(strings.Fields(t)) > maxTitleWords {
			continue
		}
		if danglingWord.MatchString(t) && i+1 < len(marked) && marked[i+1].page == 1 && marked[i+1].level > 0 {
			if next := bareTitle(marked[i+1].text); next != "" {
				t += " " + next
			}
		}
		return t
	}
	return entity
}
