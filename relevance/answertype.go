package relevance

import (
	"regexp"
	"slices"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/textproc"
)

// This file reads what kind of answer a question asks for where the
// question's first words mislead: an opening clause of time or condition
// before the question proper, and a measure noun outside the noun phrase
// a "what was …" question asks about. It also holds the forms an answer
// of a type may take beyond the plainest: a year before 1500, a clause of
// time, a place named by a common noun, a length, a fraction; and when a
// question's capitalised first word is a name (writtenInLowerCase).

// clauseOpeners: internal/wordlists/clause_openers.txt.
var clauseOpeners = wordlists.Named("clause_openers")

// reWhWord matches a question word.
var reWhWord = regexp.MustCompile(`\b` + wordlists.Alternation("wh_words") + `\b`)

// questionProper returns the lower-cased question q from its own question
// word on, when it opens with a clause of time or condition and asks with
// a later question word: "when b cells begin to replicate, what do their
// offspring become?" asks what, not when. A question that opens "when"
// with an auxiliary (auxiliaries: "when did …") asks when, and one with
// no later question word is returned whole.
func questionProper(q string) string {
	for {
		words := reWord.FindAllStringIndex(q, 2)
		if len(words) < 2 || !clauseOpeners[q[words[0][0]:words[0][1]]] || auxiliaries[q[words[1][0]:words[1][1]]] {
			return q
		}
		m := reWhWord.FindStringIndex(q[words[1][0]:])
		if m == nil {
			return q
		}
		// the question proper may open with a clause of its own ("when
		// rock folds …, when it buckles upwards it creates what?")
		q = q[words[1][0]+m[0]:]
	}
}

// measureWords are the words of measure_nouns.txt as written: a noun of
// the phrase a question asks about is a measure when it is one of them
// or its plural, not when it only shares a stem with one ("populous" is
// not "population", "proceedings" not "proceeds").
var measureWords = wordlists.Named("measure_nouns")

// isMeasureWord reports whether the lower-cased word w is a measure noun
// or the plural of one.
func isMeasureWord(w string) bool {
	return measureWords[w] || measureWords[strings.TrimSuffix(w, "s")] || measureWords[strings.TrimSuffix(w, "es")]
}

// phraseEnds: internal/wordlists/phrase_ends.txt.
var phraseEnds = wordlists.Set(question.WhWords, wordlists.Joined("phrase_ends"))

// reNamingQ matches a question asking what a thing is called.
var reNamingQ = regexp.MustCompile(`\b(?:called|named|termed|known\s+as)\b`)

// asksWhatMeasureWas reports whether the lower-cased question asks what a
// measure was: "what was/were/is …" with a measure noun in the noun
// phrase it asks about ("what were oracle's total revenues in fiscal
// 2023?", "what was mcdonald's provision for income taxes?"), not in a
// phrase or clause after it ("what was the catalyst that created greater
// interest …?", "what is the general term used to describe the output
// …?"). A question that asks what a thing is called ("what is the area
// called where …?"), or what a preposition at its end takes ("what is an
// object's mass proportional to?"), does not ask for the measure.
func asksWhatMeasureWas(q string) bool {
	m := reWhatWas.FindStringIndex(q)
	if m == nil || reNamingQ.MatchString(q) {
		return false
	}
	words := reWord.FindAllString(q[m[1]:], -1)
	if len(words) > 0 && phraseEnds[words[len(words)-1]] {
		return false
	}
	for _, w := range words {
		if phraseEnds[w] {
			return false
		}
		if isMeasureWord(withoutPossessive(w)) {
			return true
		}
	}
	return false
}

// reEarlyYear matches a year of three or four digits where a year stands:
// after "in", "since", "until", "circa", a month or an era's mark, in
// parentheses, or before an era ("in 1018", "April 1191", "(1421)", "711
// AD"); not after words that open counts as often ("and 150 farms").
var reEarlyYear = regexp.MustCompile(`(?i)(?:\b(?:in|since|until|till|circa|c\.|ad|year|` + monthWords + `)\s+|\()([1-9]\d{2,3})\b|\b([1-9]\d{2,3})\s+(?:ad|bc|bce|ce)\b`)

// statesYear reports whether claim states a year: one reYear reads, or
// an earlier one the question does not state, where a year stands
// (reEarlyYear), that is not the start of a larger number or a
// percentage.
func statesYear(claim string, qnums map[string]bool) bool {
	if reYear.MatchString(claim) {
		return true
	}
	for _, m := range reEarlyYear.FindAllStringSubmatchIndex(claim, -1) {
		lo, hi := m[2], m[3]
		if lo < 0 {
			lo, hi = m[4], m[5]
		}
		rest := claim[hi:]
		if qnums[claim[lo:hi]] || reNumberGoesOn.MatchString(rest) || rePercentAfter.MatchString(rest) {
			continue
		}
		return true
	}
	return false
}

// reNumberGoesOn matches what continues a number ("1,200", "150.5").
var reNumberGoesOn = regexp.MustCompile(`^[.,]\d`)

// timeClauseWords open a clause that says when something happens: an
// answer to "when …?" may be a condition ("inequalities are justified
// only when they improve …").
var timeClauseWords = wordlists.Set(`when whenever`)

// locatives are the prepositions and adverbs that say where something is.
var locatives = wordlists.Named("locatives")

// statesPlace reports whether claim says where: a name the question does
// not use (hasNewName), or a place in common words, a locative followed
// within three words by a content word the question does not use ("in
// bays", "in the parts of the internal canal network", "underground").
func statesPlace(f Frame, claim string) bool {
	if hasNewName(f, claim) {
		return true
	}
	q := NewText(f.Question)
	toks := textproc.Tokens(claim) // lower-cased
	for i, t := range toks {
		if !locatives[t] {
			continue
		}
		if t == "underground" || t == "underwater" || t == "abroad" || t == "overseas" {
			return true
		}
		if n := contentWordAfter(toks, i); n != "" && !q.says(n) {
			return true
		}
	}
	return false
}

// contentWordAfter returns the first word of toks after toks[i] that is
// not a stop word, within three words; "" when there is none.
func contentWordAfter(toks []string, i int) string {
	for _, n := range toks[i+1 : min(i+4, len(toks))] {
		if !textproc.IsStopWord(n) {
			return n
		}
	}
	return ""
}

// says reports whether x has the token t or a word of its stem.
func (x Text) says(t string) bool { return x.tokens[t] || x.stems[textproc.Stem(t)] }

// statesAll reports whether x has a word of each of stems.
func (x Text) statesAll(stems []string) bool {
	return !slices.ContainsFunc(stems, func(st string) bool { return !x.stems[st] })
}

// reLengthQ matches a question asking how long a thing is, not how long
// something lasts ("how long is the rhine?").
var reLengthQ = regexp.MustCompile(`\bhow\s+long\s+(?:is|are|was|were)\b`)

// reLength matches a length ("86 km", "1,230 kilometres", "300 km long").
var reLength = regexp.MustCompile(`(?i)\d[\d,.]*\s*(?:km|kilomet(?:re|er)s?|m|met(?:re|er)s?|mi|miles?|ft|feet|foot|yards?|inch(?:es)?|cm|mm|nautical\s+miles?)\b`)

// reFraction matches a fraction in words ("one-fifth", "two thirds",
// "half"), which states how much of a whole.
var reFraction = regexp.MustCompile(`(?i)\b(?:(?:one|two|three|four|five|six|seven|eight|nine|ten)[\s-](?:halves|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?|tenths?)|half|halves)\b`)

// spelledCompound reports whether the lower-cased word w is a compound
// that opens with a spelled number other than "one" ("four-valve",
// "three-day").
func spelledCompound(w string) bool {
	head, _, ok := strings.Cut(w, "-")
	return ok && head != "one" && spelledNum[head]
}

// reComparedQ matches a question asking by how much one thing differs
// from another ("how much less steam did it use?"): a percentage or a
// difference answers it as it answers a change.
var reComparedQ = regexp.MustCompile(`\bhow\s+(?:much|many)\s+(?:less|more|fewer|higher|lower|greater|smaller|larger|bigger)\b`)

// writtenInLowerCase reports whether the texts of c write the word w in
// lower case: then w, capitalised as the question's first word, is an
// ordinary word ("Outside of livestock, …", "Compared to Smeaton's
// improvement, …", "Policies …"), not a name, which documents write
// capitalised wherever it stands ("France laid siege …").
func writtenInLowerCase(w string, c Context) bool {
	lw := strings.ToLower(w)
	if lw == w || w == strings.ToUpper(w) {
		return false // not capitalised, or an acronym ("US", "IBM")
	}
	has := func(text string) bool {
		for i := 0; ; {
			j := strings.Index(text[i:], lw)
			if j < 0 {
				return false
			}
			lo, hi := i+j, i+j+len(lw)
			if (lo == 0 || !isWordByte(text[lo-1])) && (hi == len(text) || !isWordByte(text[hi])) {
				return true
			}
			i = hi
		}
	}
	return has(c.Claim) || has(c.Passage) || has(c.Heading) || slices.ContainsFunc(c.Sections, has)
}

// isWordByte reports whether b may be part of a word: a letter, a digit,
// or a byte of a multi-byte letter.
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
}

// statesAgent reports whether claim says who: a name the question does not
// use (hasNewName), or a doer in common words, a content word the
// question does not use standing as the subject of one of the question's
// verbs ("An architect normally manages the job" for "Who normally
// manages a construction job?", "contractors are typically required to
// verify …") or after "by" ("… was commissioned by the bishop").
func statesAgent(f Frame, claim string) bool {
	if hasNewName(f, claim) {
		return true
	}
	q := NewText(f.Question)
	doer := func(t string) bool {
		return textproc.HasLetter(t) && !textproc.IsStopWord(t) && !q.says(t) && !auxiliaries[t]
	}
	toks := textproc.Tokens(claim) // lower-cased
	for i, t := range toks {
		if t == "by" {
			if n := contentWordAfter(toks, i); n != "" && doer(n) {
				return true
			}
			continue
		}
		if textproc.IsStopWord(t) || !q.says(t) {
			continue
		}
		// the word before the verb, past adverbs and auxiliaries
		for j := i - 1; j >= max(0, i-4); j-- {
			p := toks[j]
			if auxiliaries[p] || strings.HasSuffix(p, "ly") {
				continue
			}
			if doer(p) {
				return true
			}
			break
		}
	}
	return false
}
