// Package relevance decides whether a statement answers a question, as
// opposed to merely quoting a passage on the same topic. It reads a
// question into a Frame — the kind of answer it expects, the entities and
// periods it names, its focus terms and its polarity — and checks a
// candidate answer sentence, with the passage around it and the context of
// its document, against that frame.
//
// The checks are general mechanisms, not rules for particular questions:
//
//   - Entities: every name the question uses (an organisation, a person, a
//     product, a place) must be found in the document's context (its title,
//     file name, the organisation it is about), the section's heading path,
//     or the passage around the answer. A figure from 3M's filing does not
//     answer a question about Costco.
//   - Periods: every year, quarter and month the question names must be
//     found there too. A 2022 figure does not answer a question about 2018.
//     A statement dated by other years, centuries or months than those
//     asked about is about another period, whatever its passage says.
//   - Expected answer type: "how many" wants a count, "how much" an
//     amount, "what percentage" a percentage, "how long" a duration,
//     "when" a time, "in what year" a year, "who" a name. The answer
//     sentence must state one.
//   - Focus: the question's content terms, weighted by their rarity, must
//     be addressed by the answer's passage itself, not merely somewhere in
//     the retrieved sections ("parental leave", not just "leave").
//   - Polarity: a negated statement ("need not inform") does not answer a
//     positive question ("had to let the jurors know"), and vice versa.
//   - Roles: what the question asks about is not the one who did it
//     ("Who calibrated newer studies?" is not answered by "calibrated by
//     newer studies").
//
// Both the extractive generator (to choose sentences) and the judge (to
// reject answers that do not answer) use it, so the two agree.
package relevance

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// AnswerType is the kind of answer a question expects.
type AnswerType int

// Answer types. TypeAny places no constraint on the answer.
const (
	TypeAny AnswerType = iota
	TypeAmount
	TypeCount
	TypePercent
	TypeDuration
	TypeTime
	TypeAgent
	TypePlace
	TypeYesNo
	TypeFrequency
)

var typeNames = [...]string{"any", "amount", "count", "percentage", "duration", "time", "name", "place", "yes/no", "frequency"}

// String names the type as the judge's reasoning uses it.
func (t AnswerType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "any"
}

// Frame is what a question asks for.
type Frame struct {
	Question string
	// Lang is the question's language (textproc.Language). The frame of
	// a question in another language than English names no entity (its
	// capitals are not names: German writes every noun so) and its focus
	// leaves out that language's function words; the English rules of
	// the detectors find nothing else in it.
	Lang textproc.Lang
	// Type is the expected answer type.
	Type AnswerType
	// Entities are the names the question uses, as written ("Oracle",
	// "FedEx Express").
	Entities []string
	// Periods are the years, quarters and months the question names, as
	// folded tokens ("2023", "q1", "july").
	Periods []string
	// Focus are the stemmed content terms of the question that are not
	// entities, periods or words of the question form.
	Focus []string
	// Negated is true when the question is negative ("did not", "never").
	Negated bool
	// negatedStems are the stems of the words a negative question negates:
	// the first content word after each negation ("fail" of "did not
	// fail to implement", "help" of "does not often help").
	negatedStems []string
	// relations are the question's stop words that state an order in
	// time or a comparison ("after", "more", "much"; see relationWords)
	relations []string
	// negatedByNon are the words the question negates with "non"
	// ("shared" of "non-shared", "self" of "nonself")
	negatedByNon []string
	// implicit are the question's words that negate without "not"
	// ("failed", "lack", "least"; implicit_negatives.txt)
	implicit []string
	// FocusWords maps each focus stem to a word of the question with it.
	FocusWords map[string]string
	// entityTokens are the folded significant tokens of each entity.
	entityTokens [][]string
	// aliases are, for each entity, the index of the other name the
	// question gives it in brackets, or -1 ("Airsopure International
	// Group, Inc. (Airtech International Group)"; see aliasesOf).
	aliases []int
	// compounds are the pairs of focus stems the question puts side by
	// side that end with a measure noun ("net income", "income taxes",
	// "jet fuel cost"): one measure's name.
	compounds [][2]string
	// counted are the question's numbers and ordinals with the nouns they
	// count or order ("two" of "two consistent theories", "second" of
	// "the second assessment report"; see countsOf).
	counted []counted
	// opener is the index in Entities of the one-word name that opens the
	// question ("Outside of livestock, …"), or -1: its capital may only
	// be the question's (see writtenInLowerCase).
	opener int
}

// Context is what an answer sentence is checked in.
type Context struct {
	// Claim is the answer sentence.
	Claim string
	// Passage is the claim's supporting passage with the sentences around
	// it (for an extractive answer, the sentence itself and its neighbours).
	Passage string
	// Before is the claim with the passage's sentences before it, when
	// Passage also holds sentences after it: a name the question uses is
	// stated there or in the heading or document, since a statement
	// refers back to what it is about ("It was commissioned by Odo"),
	// not ahead. Empty means Passage.
	Before string
	// Heading is the section's title and heading path.
	Heading string
	// Document is the document's context: title, file name, the
	// organisation and period it is about.
	Document string
	// Named are the question's words that chose the claim's document
	// (schema.Section.NamedBy): they say which document, not what in it
	// answers, so Result.TopicFocus leaves them out.
	Named string
	// Row is true when the claim is a row of a table (see RowScope); its
	// subject is then its label, its group's label (Scope) and the
	// heading, not the rest of the table.
	Row bool
	// Scope is the label of the group of table rows the claim belongs
	// to, when it is a row.
	Scope string
	// Span is the length of the period the columns of the claim's table
	// cover, when it is a row (see TableSpan): SpanQuarter, SpanPartYear,
	// SpanYear, or "" when no header says.
	Span string
	// Header is the header of the claim's table, when it is a row (see
	// TableHeader): the years it names are the years the row is for.
	Header string
	// Kind is what part of its document the claim's section is (see
	// schema.SectionKind; the kind.* detectors).
	Kind schema.SectionKind
	// Sections are the texts the claim was chosen among (the retrieved
	// sections, its own included): a heading that narrows a focus word
	// is a special case only when they write the narrowing as a name for
	// a minority of the word's mentions (SpecialCase). Nil skips that
	// check.
	Sections []string
}

// Finding is one way a statement fails to answer the question.
type Finding struct {
	// Rule is the ID of the detector that reported it
	// ("period.unstated"; see Detectors).
	Rule string
	// Check is the rule's family: "entity", "period", "quantity", "type",
	// "focus", "scope", "polarity" or "kind".
	Check string
	// Claim is the statement checked.
	Claim  string
	Detail string
}

func (f Finding) String() string { return f.Detail }

var (
	reWord = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’&.\-]*[\p{L}\p{N}]|[\p{L}\p{N}]`)
	reYear = regexp.MustCompile(`\b(1[5-9]\d\d|20\d\d)s?\b`)
	// quarters: "Q1", "first quarter", "first-quarter", "1Q23"
	reQuarter = regexp.MustCompile(`(?i)\b(?:q([1-4])|([1-4])q\d{0,2}|(first|second|third|fourth)[\s-]+quarter)\b`)
	// "may" is a month only when capitalised and followed by a day or year
	reMay    = regexp.MustCompile(`\bMay\s+\d`)
	ordinals = map[string]string{"first": "1", "second": "2", "third": "3", "fourth": "4"}
)

// legalForms are words of company names that do not identify the company
// ("Inc.", "Corporation"): a name matches without them. Edit
// internal/wordlists/legal_forms.txt.
var legalForms = wordlists.Named("legal_forms")

// questionOpeners: internal/wordlists/question_openers.txt.
var questionOpeners = wordlists.Set(question.WhWords, question.Auxiliaries, wordlists.Joined("question_openers"))

// termSet returns the terms (textproc.Terms) of word list name.
func termSet(name string) map[string]bool {
	return textproc.TermSet(strings.Join(wordlists.Lines(name), "\n"))
}

// askedOf is question.Asked (the parameter of Analyze shadows the
// package).
var askedOf = question.Asked

// Analyze reads a question into its frame: the question it asks, without
// the courtesies and request written around it (question.Asked: "Hi,",
// "Thanks!", "Can you tell me").
func Analyze(question string) Frame {
	question = askedOf(question)
	f := Frame{Question: question, Lang: textproc.Language(question)}
	foreign := !f.Lang.IsEnglish()
	lower := strings.ToLower(question)
	f.Type = answerType(lower)
	f.Negated = negated(question)
	if f.Negated {
		f.negatedStems = negatedWords(question)
	}
	// periods
	seenP := map[string]bool{}
	addP := func(p string) {
		if !seenP[p] {
			seenP[p] = true
			f.Periods = append(f.Periods, p)
		}
	}
	for _, m := range reYear.FindAllStringSubmatch(question, -1) {
		addP(m[1])
	}
	for _, m := range reQuarter.FindAllStringSubmatch(question, -1) {
		addP("q" + quarterNumber(m))
	}
	qtoks := textproc.Tokens(wordvec.Fold(question))
	f.relations = wordsIn(qtoks, relationWords, "how")
	f.negatedByNon = negatedByNon(qtoks)
	f.implicit = wordsIn(qtoks, implicitNegatives, "at")
	f.counted = countsOf(qtoks)
	words := reWord.FindAllString(question, -1)
	for i, w := range words {
		lw := strings.ToLower(w)
		if months[lw] && isUpper(w) {
			addP(lw)
		}
		if lw == "may" && i > 0 && reMay.MatchString(strings.Join(words[i:min(i+2, len(words))], " ")) {
			addP("may")
		}
	}
	// entities: runs of capitalised words (a possessive ends one), not the
	// question's first word
	// when it is capitalised only as an opener, nor months, quarters or
	// the pronoun "I"
	var cur []string
	var curSpan [2]int // cur's byte offsets in the question
	var entitySpans [][2]int
	f.opener = -1
	opens := false // cur starts the question
	flush := func() {
		if len(cur) > 0 {
			if opens && len(cur) == 1 {
				f.opener = len(f.Entities)
			}
			f.Entities = append(f.Entities, strings.Join(cur, " "))
			entitySpans = append(entitySpans, curSpan)
			cur = nil
		}
	}
	spans := reWord.FindAllStringIndex(question, -1)
	for i, w := range words {
		// punctuation ends a name ("Watt, Boulton and Smeaton", "San
		// Bernardino - Riverside")
		if i > 0 && strings.TrimSpace(question[spans[i-1][1]:spans[i][0]]) != "" {
			flush()
		}
		lw := strings.ToLower(withoutPossessive(w))
		// a question may open with a contraction ("What're", "Isn't")
		opener := uncontracted(lw)
		name := !foreign && isName(w) && !(i == 0 && (questionOpeners[opener] || textproc.IsStopWord(opener))) &&
			!months[lw] && !(lw == "may" && seenP["may"]) && lw != "i" && reQuarter.FindString(w) == "" && !reYear.MatchString(w)
		if name {
			opens = opens && len(cur) > 0 || i == 0
			if len(cur) == 0 {
				curSpan[0] = spans[i][0]
			}
			curSpan[1] = spans[i][1]
			cur = append(cur, w)
			if strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") {
				flush() // "Apple's iPhone": two names, each checked on its own
			}
			continue
		}
		flush()
	}
	// what a rate was in a period is a figure: a percentage, or an
	// amount per unit ("the effective tax rate for fiscal 2022"), where
	// "what is the time rate of change" asks what it is
	if (f.Type == TypeAny || f.Type == TypeAmount) && len(f.Periods) > 0 && reRateQ.MatchString(lower) {
		f.Type = TypePercent
	}
	flush()
	entityStems := map[string]bool{}
	for _, e := range f.Entities {
		toks := SignificantTokens(e)
		f.entityTokens = append(f.entityTokens, toks)
		for _, t := range toks {
			entityStems[textproc.Stem(t)] = true
		}
	}
	f.aliases = aliasesOf(question, entitySpans, f.entityTokens)
	// the unit the answer is asked in ("in millions", "in thousands of
	// dollars") says how to state the figure, not what it is of
	unitStems := map[string]bool{}
	for _, m := range reUnitSpec.FindAllString(wordvec.Fold(question), -1) {
		maps.Copy(unitStems, textproc.TermSet(m))
	}
	// focus: content terms minus entities, periods, numbers and the words
	// of the question form
	seen := map[string]bool{}
	f.FocusWords = map[string]string{}
	for _, w := range textproc.QuestionWords(wordvec.Fold(question)) {
		t := textproc.Stem(w)
		if seen[t] || entityStems[t] || formWords[t] || hasDigit(t) || seenP[t] || months[t] || months[w] || unitStems[t] || textproc.IsContraction(w) ||
			figureType(f.Type) && reportingVerbs[t] {
			continue
		}
		// the ordinal of a quarter the question names is part of the
		// period ("the second quarter of 2023" is q2)
		if f.Type == TypeDuration && durationVerbs[t] || len(f.Periods) > 0 && periodQualifiers[t] ||
			ordinals[w] != "" && seenP["q"+ordinals[w]] || len(f.Periods) > 0 && spelledNum[w] && nextIsPeriodUnit(question, w) {
			continue
		}
		seen[t] = true
		f.Focus = append(f.Focus, t)
		f.FocusWords[t] = w
	}
	// a possessive ends a name ("the company's net sales")
	prev := ""
	for _, w := range reWord.FindAllString(wordvec.Fold(question), -1) {
		lw := strings.ToLower(w)
		poss := strings.HasSuffix(lw, "'s") || strings.HasSuffix(lw, "’s")
		toks := textproc.Tokens(lw)
		if len(toks) != 1 || textproc.IsStopWord(toks[0]) {
			prev = ""
			continue
		}
		t := textproc.Stem(toks[0])
		if prev != "" && prev != t && seen[prev] && seen[t] && measureNouns[t] {
			f.compounds = append(f.compounds, [2]string{prev, t})
		}
		prev = t
		if poss {
			prev = ""
		}
	}
	return f
}

// reAsOf matches a question about a balance at a date ("as of
// September 26, 2020", "at the end of 2015", "at May 31, 2023");
// reOpening a row label of the balance at the beginning of its period
// ("beginning balances", "Balance at beginning of year", "Opening
// balance").
var (
	reAsOf    = regexp.MustCompile(`(?i)\b(?:as\s+of|at\s+the\s+end\s+of|at\s+` + monthStems + `[a-z]*\.?\s+\d)`)
	reOpening = regexp.MustCompile(`(?i)\b(?:beginning|opening|start)\b`)
)

// openingOnly reports whether a row labelled label states the balance at
// the beginning of its period where the question asks for one at a date:
// a statement's column "September 26, 2020" holds, in its row "beginning
// balances", the balance of a year before.
func (f Frame) openingOnly(label string) bool {
	return label != "" && reAsOf.MatchString(f.Question) && reOpening.MatchString(label) && !reOpening.MatchString(f.Question)
}

// reportingVerbs are the stems of the verbs a question asks through what
// a document states ("How much goodwill did Salesforce report?", "How
// many stores did it record?"): for a figure, how it was stated, not what
// it is of.
var reportingVerbs = termSet("reporting_verbs")

// reUnitSpec matches the unit a question asks a figure in: "in
// millions", "in thousands of dollars", "in U.S. dollars", "in percent",
// ending the clause or before its next preposition or verb ("in millions
// of homes" names homes).
var reUnitSpec = regexp.MustCompile(`(?i)\bin\s+(?:(?:thousands|millions|billions|trillions)(?:\s+of\s+(?:u\.?s\.?\s+)?(?:dollars|euros|pounds|yen|shares|units))?|(?:u\.?s\.?\s+)?(?:dollars|euros|pounds|yen)|percent(?:age)?s?)(?:\s*(?:[,?.;)]|$)|\s+(?:for|in|at|during|as|did|does|do|was|were|is|are)\b)`)

// reAsksPer matches a question about a measure per unit ("diluted
// earnings per share", "revenue per square foot"); rePerWord the word
// that states one.
var (
	reAsksPer = regexp.MustCompile(`(?i)\bper\s+\w`)
	rePerWord = regexp.MustCompile(`(?i)\bper\b|/`)
)

// figureType reports whether t is the answer type of a question asking
// what a measure was: its name must be stated as the question names it.
func figureType(t AnswerType) bool { return t == TypeAmount || t == TypeCount || t == TypePercent }

// missingCompound returns the first of the question's compound names
// ("net income") whose words the parts of a statement (its text, heading,
// a row's group label before its own label) use apart, none side by side:
// "net of offsetting tax benefits … income" does not name the net income.
// A statement that lacks one of the words may still name the measure
// ("Research and development 4,109" in a table of expenses).
func (f Frame) missingCompound(parts ...string) string {
	if len(f.compounds) == 0 {
		return ""
	}
	pairs := map[[2]string]bool{}
	stems := map[string]bool{}
	for _, p := range parts {
		toks := textproc.Tokens(wordvec.Fold(p))
		for i, t := range toks {
			stems[textproc.Stem(t)] = true
			if i > 0 {
				pairs[[2]string{textproc.Stem(toks[i-1]), textproc.Stem(t)}] = true
			}
		}
	}
	for _, c := range f.compounds {
		if stems[c[0]] && stems[c[1]] && !pairs[c] {
			return f.FocusWords[c[0]] + " " + f.FocusWords[c[1]]
		}
	}
	return ""
}

// nextIsPeriodUnit reports whether word w of question is followed by a
// unit of a period ("three months ended October 31, 2022").
func nextIsPeriodUnit(question, w string) bool {
	toks := textproc.Tokens(wordvec.Fold(question))
	for i := 0; i+1 < len(toks); i++ {
		if toks[i] == w && periodUnits[toks[i+1]] {
			return true
		}
	}
	return false
}

// periodQualifiers: internal/wordlists/period_qualifiers.txt.
var periodQualifiers = wordlists.Named("period_qualifiers")

// durationVerbs: internal/wordlists/duration_verbs.txt.
var durationVerbs = wordlists.Named("duration_verbs")

// formWords are stems of the words that frame a question rather than name
// its subject ("how many", "what percentage", "approximately", "what
// happens if"). Edit internal/wordlists/question_form.txt.
var formWords = termSet("question_form")

func quarterNumber(m []string) string {
	switch {
	case m[1] != "":
		return m[1]
	case m[2] != "":
		return m[2]
	}
	return ordinals[strings.ToLower(m[3])]
}

func isUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// isName reports whether a word is written as a name: capitalised,
// all capitals, or with a capital inside ("eBay", "iPhone").
func isName(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	if unicode.IsUpper(r) {
		return true
	}
	return unicode.IsLetter(r) && strings.ContainsFunc(w[utf8.RuneLen(r):], unicode.IsUpper)
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

var (
	rePercentQ = regexp.MustCompile(`\b(?:what|which)\s+(?:\w+\s+)?(?:percentage|percent|per cent|proportion|fraction|share|rate|ratio|margin)\b|\bhow\s+(?:high|low|big|large)\s+(?:a|an|the|is|was|were)?\s*(?:\w+\s+)?(?:percentage|rate|share|margin)\b|\bpercentage\b`)
	// reRateQ matches a question asking what a rate was ("What was
	// Apple's effective tax rate for fiscal 2022?")
	reRateQ        = regexp.MustCompile(`^\s*what\s+(?:was|were|is|are|will\s+be|had\s+been)\s+(?:[\w'’\-]+\s+){0,5}?rates?\b(?:\s+(?:for|in|of|during|at|as|on|under|over)\b|\s*[?,.]|\s*$)`)
	reCountQ       = regexp.MustCompile(`\bhow\s+many\b`)
	reFrequencyQ   = regexp.MustCompile(`\bhow\s+(?:often|frequently)\b|\bhow\s+many\s+times\b`)
	reAmountQ      = regexp.MustCompile(`\bhow\s+much\b|\bhow\s+(?:big|large|high|low)\b|\bwhat\s+(?:\w+\s+)?(?:amount|sum|price|cost|value|number)\b`)
	reDurationQ    = regexp.MustCompile(`\bhow\s+long\b|\bfor\s+how\s+many\s+(?:years|months|weeks|days|hours)\b`)
	reYearQ        = regexp.MustCompile(`(?i)\b(?:what|which)\s+(?:\w+\s+and\s+)?years?\b`)
	reTimeQ        = regexp.MustCompile(`^\s*when\b|\b(?:what|which)\s+(?:\w+\s+)?(?:year|years|date|day|month|century|decade|era|time|period)\b|\b(?:what|which)\s+(?:is|was|are|were)\s+the\s+(?:\w+\s+)?(?:date|day)\b(?:[^-]|$)|\bin\s+what\s+year\b|\bwhen\s+(?:did|was|were|is|does|do|will|had|has)\b`)
	reAgentQ       = regexp.MustCompile(`^\s*(?:who|whom|whose)\b|\b(?:by|from|to)\s+whom\b|[,;]\s*who\b`)
	rePlaceQ       = regexp.MustCompile(`^\s*where\b|\bwhere\s+(?:did|was|were|is|are|does|do)\b|\bin\s+what\s+(?:country|city|state|town|region|place|county|area)\b|\bwhat\s+(?:country|city|state|town|region|county)\b`)
	reHowManyUnits = regexp.MustCompile(`\bhow\s+many\s+(?:\w+\s+)?(?:years|months|weeks|days|hours|minutes)\b`)
	reYesNoQ       = regexp.MustCompile(`^\s*(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|must|may|shall)\b`)
)

// reWhatWas matches a question asking what a thing was ("What were
// Oracle's total revenues ...?").
var reWhatWas = regexp.MustCompile(`^\s*(?:what|how\s+much)\s+(?:was|were|is|are|will\s+be|had\s+been)\b`)

// measureNouns are nouns that name a measured quantity: a question asking
// what one of them was asks for an amount. They are kept apart from the
// question's other words: "What was the revenue?" wants a figure, "What
// was the reason?" does not. Edit internal/wordlists/measure_nouns.txt.
var measureNouns = termSet("measure_nouns")

// asksMeasure reports whether the question's words include a measure noun.
func asksMeasure(q string) bool {
	return slices.ContainsFunc(textproc.Terms(q), func(t string) bool { return measureNouns[t] })
}

// answerType reads the expected answer type from a lower-cased question.
// The most specific form wins: "how many years" is a duration, "what
// percentage" a percentage.
func answerType(q string) AnswerType {
	q = questionProper(q)
	switch {
	case reFrequencyQ.MatchString(q):
		return TypeFrequency
	case reDurationQ.MatchString(q):
		return TypeDuration
	case rePercentQ.MatchString(q) && !reCountQ.MatchString(q):
		return TypePercent
	case reCountQ.MatchString(q):
		if reHowManyUnits.MatchString(q) {
			return TypeDuration
		}
		return TypeCount
	case reAmountQ.MatchString(q):
		return TypeAmount
	case asksWhatMeasureWas(q):
		return TypeAmount
	case reTimeQ.MatchString(q):
		return TypeTime
	case reAgentQ.MatchString(q):
		return TypeAgent
	case rePlaceQ.MatchString(q):
		return TypePlace
	case reYesNoQ.MatchString(q):
		return TypeYesNo
	}
	return TypeAny
}

var negations = wordlists.Named("negations")

// negationAt reports whether toks[i] negates: a word of negations, but
// not the "not" of "whether or not", which asks both ways.
func negationAt(toks []string, i int) bool {
	t := strings.ReplaceAll(toks[i], "’", "'")
	return negations[t] && !(t == "not" && i > 0 && toks[i-1] == "or")
}

// negated reports whether text negates its statement.
func negated(text string) bool {
	toks := textproc.Tokens(text)
	for i := range toks {
		if negationAt(toks, i) {
			return true
		}
	}
	return false
}

// boundWords: internal/wordlists/bound_words.txt.
var boundWords = wordlists.Named("bound_words")

// negationAdverbs: internal/wordlists/negation_adverbs.txt.
var negationAdverbs = wordlists.Named("negation_adverbs")

// negatedWords returns the stems of the words question negates: the first
// content word within five after each negation ("justified" of "wasn't
// able to be justified").
func negatedWords(question string) []string {
	var out []string
	toks := textproc.Tokens(wordvec.Fold(question))
	for i := range toks {
		if !negationAt(toks, i) {
			continue
		}
		for _, w := range toks[i+1 : min(i+6, len(toks))] {
			if textproc.IsStopWord(w) || negationAdverbs[w] || negations[w] {
				continue
			}
			if st := textproc.Stem(w); !slices.Contains(out, st) {
				out = append(out, st)
			}
			break
		}
	}
	return out
}

// negatesSame reports whether text negates a word the question negates:
// a negation among the four words before it ("do not require" for "never
// require"), or the word with a negative prefix ("unencrypted" for "not
// encrypted").
func (f Frame) negatesSame(text string) bool {
	toks := textproc.Tokens(wordvec.Fold(text))
	for j, t := range toks {
		st := textproc.Stem(t)
		if slices.Contains(f.negatedStems, st) {
			for i := max(0, j-4); i < j; i++ {
				if negationAt(toks, i) {
					return true
				}
			}
		}
		for _, p := range negativePrefixes {
			if rest, ok := strings.CutPrefix(t, p); ok && slices.Contains(f.negatedStems, textproc.Stem(rest)) && negativeOf(rest, t) {
				return true
			}
		}
	}
	return false
}

var negativePrefixes = []string{"un", "non", "in", "im", "dis", "il", "ir"}

// negatedAbout reports whether text negates what the question is about: a
// negation with one of the question's focus or entity words among the
// four words after it ("need not inform the jurors"), unless the text
// also states those words where no negation reaches them. Negations that
// bound an amount ("not less than") do not count. For a negative question the
// text must negate what the question negates ("did not fail to
// implement" is not answered by "may not be able to bring claims"); when
// no word of the question is negated, any negation counts.
func (f Frame) negatedAbout(text string) bool {
	if f.Negated {
		if len(f.negatedStems) > 0 {
			return f.negatesSame(text)
		}
		return negated(text)
	}
	about, focus := map[string]bool{}, map[string]bool{}
	for _, t := range f.Focus {
		about[t], focus[t] = true, true
	}
	for _, toks := range f.entityTokens {
		for _, t := range toks {
			about[textproc.Stem(t)] = true
		}
	}
	toks := textproc.Tokens(wordvec.Fold(text))
	// a verb that negates without "not" negates as "not" does ("plants
	// lack phagocytic cells" for "What cells do plants have?"), unless
	// the question itself asks about such a negative (positiveOf)
	negAt := func(i int) bool {
		return negationAt(toks, i) || len(f.implicit) == 0 && implicitNegatives[toks[i]] && !degreeWords[toks[i]] && !inCondition(toks, i)
	}
	// a negation and a "without" after it state a condition and cancel
	// ("shall not remove or replace Key Personnel without giving notice");
	// other negations cancel only close together ("never fails"), not
	// across clauses ("did not consider 1 a number, so they could not
	// consider it a prime")
	cancelled := map[int]bool{}
	for i := range toks {
		if !negAt(i) || cancelled[i] {
			continue
		}
		for j := i + 1; j < len(toks); j++ {
			if negAt(j) {
				if toks[j] == "without" || j <= i+cancelSpan {
					cancelled[i], cancelled[j] = true, true
				}
				break
			}
		}
	}
	var reached []string      // the question's words a negation reaches
	inReach := map[int]bool{} // positions within reach of a negation
	for i := range toks {
		if !negAt(i) || cancelled[i] || notAssertion(toks, i, about) {
			continue
		}
		if i+1 < len(toks) && boundWords[toks[i+1]] {
			continue
		}
		// "no increase shall exceed four percent" bounds the increase
		if boundWithin(toks[i+1 : min(i+4, len(toks))]) {
			continue
		}
		// "audit once a year, in a way that does not disrupt the
		// Provider's operations": a negation in a clause that describes
		// a noun negates what the question asks only when it negates a
		// focus word ("a part which does not attack microbes"), not when
		// a name the question uses merely follows it
		words := about
		if inRelativeClause(toks, i) {
			words = focus
		}
		for j := i + 1; j < len(toks) && j <= i+negationReach; j++ {
			inReach[j] = true
			if st := textproc.Stem(toks[j]); words[st] {
				reached = append(reached, st)
			}
		}
	}
	if len(reached) == 0 {
		return false
	}
	// a negation of words the text also states where no negation
	// reaches them is a condition on what it asserts, not a denial of
	// it: "invoices are payable within forty-five (45) days …, applied
	// to amounts not received within that period" states when invoices
	// are payable
	positive := map[string]bool{}
	for j, t := range toks {
		if !inReach[j] {
			positive[textproc.Stem(t)] = true
		}
	}
	for _, st := range reached {
		if !positive[st] {
			return true
		}
	}
	return false
}

// inCondition reports whether toks[i] stands in a clause that states a
// condition ("If Provider fails to meet the availability target …,
// Client may terminate"): "if", "unless" or "whenever" up to five words
// before it.
func inCondition(toks []string, i int) bool {
	return slices.ContainsFunc(toks[max(0, i-5):i], func(t string) bool { return conditionWords[t] })
}

var conditionWords = wordlists.Set(`if unless whenever`)

// degreeWords are the implicit negatives that state the low end of a
// degree ("least", "fewest"), not a denial: "at least two" bounds.
var degreeWords = wordlists.Set(`least fewest`)

// negationReach is how many words after a negation it negates.
const negationReach = 4

// cancelSpan is how many words after a negation a second one cancels it;
// constructionSpan how far a negation's "until" or "but" may follow it.
const (
	cancelSpan       = 4
	constructionSpan = 8
)

// notAssertion reports whether the negation at toks[i] opens a
// construction that states something rather than denies it: a time ("did
// not develop until the 18th century"), an addition ("not just economic
// prosperity, but also"), a correction ("not by the employer but by the
// market", when what the question is about follows "but"), or a hedge
// ("it is not known whether").
func notAssertion(toks []string, i int, about map[string]bool) bool {
	if i+1 < len(toks) && additive[toks[i+1]] {
		return true
	}
	for j := i + 1; j < len(toks) && j <= i+constructionSpan; j++ {
		switch toks[j] {
		case "until", "till":
			return true
		case "but":
			return !slices.ContainsFunc(toks[i+1:j], func(t string) bool { return about[textproc.Stem(t)] })
		}
	}
	return i+2 < len(toks) && hedgeWords[toks[i+1]] && (toks[i+2] == "whether" || toks[i+2] == "if")
}

var (
	additive   = wordlists.Set(`just merely simply`)
	hedgeWords = wordlists.Named("hedge_words")
)

// auxiliaries may stand between a clause's subject and its negation.
var auxiliaries = wordlists.Set(question.Auxiliaries, `be been being`)

// determiners open a noun phrase.
var determiners = wordlists.Named("determiners")

// inRelativeClause reports whether the negation at toks[i] is in a
// relative clause: after "which", "who" or "whom", or after a "that" that
// follows a noun phrase ("a way that does not", "the amounts that are
// not") rather than a verb ("ruled that the jury need not"), with only
// auxiliaries between.
func inRelativeClause(toks []string, i int) bool {
	k := i - 1
	for k >= 0 && auxiliaries[toks[k]] {
		k--
	}
	if k < 0 {
		return false
	}
	switch toks[k] {
	case "which", "who", "whom":
		return true
	case "that":
		return k >= 2 && determiners[toks[k-2]] && !auxiliaries[toks[k-1]] && !textproc.IsStopWord(toks[k-1])
	}
	return false
}

// boundWithin reports whether words, the few after a negation, hold a
// word that bounds an amount ("no increase shall exceed").
func boundWithin(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return boundWords[w] && w != "only" && w != "than" })
}

// SignificantTokens returns the folded tokens of a name that identify it:
// without legal forms ("Inc.") and stop words.
func SignificantTokens(name string) []string {
	var out []string
	for _, t := range textproc.Tokens(wordvec.Fold(name)) {
		if legalForms[t] || textproc.IsStopWord(t) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// DocumentContext renders a section's document context for Check: its
// document title, file name (without extension), organisation and period.
func DocumentContext(s schema.Section) string {
	base := filepath.Base(filepath.ToSlash(s.Source))
	base = strings.TrimSuffix(base, filepath.Ext(base))
	return strings.Join([]string{s.DocTitle, base, s.DocEntity, s.DocPeriod, strings.Join(s.NamedBy, " ")}, "\n")
}

// HeadingContext renders a section's title and heading path for Check.
func HeadingContext(s schema.Section) string {
	return s.Title + "\n" + strings.Join(s.Path, "\n")
}

// Text is a text prepared for matching: its folded tokens and stems.
type Text struct {
	tokens map[string]bool
	stems  map[string]bool
	raw    string
}

// NewText prepares s for matching.
func NewText(s string) Text {
	x := Text{tokens: map[string]bool{}, stems: map[string]bool{}, raw: s}
	for _, t := range textproc.Tokens(wordvec.Fold(splitCamel(s))) {
		x.tokens[t] = true
		x.stems[textproc.Stem(t)] = true
	}
	return x
}

// splitCamel also splits file-name style words ("APPLE_2022_10K",
// "BostonProperties") into their parts, keeping the original.
func splitCamel(s string) string {
	var b strings.Builder
	b.WriteString(s)
	b.WriteByte(' ')
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteByte(' ')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// hasToken reports whether x has the token t or a word that is the same
// word (see sameWord).
func (x Text) hasToken(t string) bool {
	if x.says(t) {
		return true
	}
	for w := range x.tokens {
		if extends(w, t) {
			return true
		}
	}
	return false
}

// hasPhrase reports whether x has the tokens of a name in a row, allowing
// legal forms, stop words and punctuation between them ("Boston
// Properties, Inc.", "FedEx Express's"); a one-word name is hasToken.
func (x Text) hasPhrase(toks []string) bool {
	if len(toks) == 1 {
		return x.hasToken(toks[0])
	}
	for _, t := range toks {
		if !x.hasToken(t) {
			return false
		}
	}
	seq := x.seq()
	for i := range seq {
		if !sameWord(seq[i], toks[0]) {
			continue
		}
		j, k := i+1, 1
		for j < len(seq) && k < len(toks) && j-i <= 2*len(toks)+2 {
			switch {
			case sameWord(seq[j], toks[k]):
				k++
			case !(legalForms[seq[j]] || textproc.IsStopWord(seq[j])):
				j = len(seq)
				continue
			}
			j++
		}
		if k == len(toks) {
			return true
		}
	}
	return false
}

func (x Text) seq() []string { return textproc.Tokens(wordvec.Fold(x.raw)) }

// sameWord reports whether two folded words are the same word: equal, with
// the same stem, or (both of four letters or more) one a short extension
// of the other ("Norman" and "Normans", "Victoria" and "Victorians").
func sameWord(a, b string) bool {
	return a == b || textproc.Stem(a) == textproc.Stem(b) || extends(a, b)
}

// extends reports whether one word of four letters or more is the other
// with at most three more letters.
func extends(a, b string) bool {
	if len(a) < 4 || len(b) < 4 {
		return false
	}
	return strings.HasPrefix(a, b) && len(a)-len(b) <= 3 || strings.HasPrefix(b, a) && len(b)-len(a) <= 3
}

// hasPeriod reports whether x states period p ("2023", "q2", "july").
func (x Text) hasPeriod(p string) bool {
	switch {
	case strings.HasPrefix(p, "q") && len(p) == 2:
		for _, m := range reQuarter.FindAllStringSubmatch(x.raw, -1) {
			if "q"+quarterNumber(m) == p {
				return true
			}
		}
		return false
	case hasDigit(p):
		if x.tokens[p] || x.tokens[p+"s"] {
			return true
		}
		// fiscal years written "FY23" / "fiscal 23"
		return x.tokens["fy"+p[2:]] || x.tokens["fy"+p]
	}
	if x.tokens[p] {
		return true
	}
	// a month abbreviated before a day ("Three Months Ended Apr 1, 2023")
	if abbr := monthAbbreviations[p]; abbr != "" {
		for _, m := range reMonthDay.FindAllStringSubmatch(x.raw, -1) {
			if abbreviatedMonth[strings.ToLower(m[1])] == p {
				return true
			}
		}
	}
	return false
}

// StatesMonth reports whether text names month (a month's full name,
// "April"), in full or abbreviated before a day ("Apr 1, 2023").
func StatesMonth(month, text string) bool {
	m := wordvec.Fold(strings.ToLower(strings.TrimSpace(month)))
	if monthAbbreviations[m] == "" && m != "may" {
		return false
	}
	return NewText(text).hasPeriod(m)
}

// Matcher says whether a prepared text mentions a focus stem, possibly in
// other words; nil means exact stems only.
type Matcher func(stem string, x Text) bool

// Weigher returns a focus stem's weight (its rarity); nil means 1 each.
type Weigher func(stem string) float64

// Result is the outcome of Check.
type Result struct {
	Findings []Finding
	// Focus is the weighted share of the focus terms addressed.
	Focus float64
	// MissingFocus are the focus terms not addressed.
	MissingFocus []string
	// ClaimFocus is Focus over the statement and heading alone.
	ClaimFocus float64
	// TopicFocus is ClaimFocus over the focus terms that did not choose
	// the claim's document (Context.Named): the share of what the
	// question asks about the document that the statement or its
	// heading states (1 when the question asks nothing more).
	TopicFocus float64
}

// OK reports whether no check failed.
func (r Result) OK() bool { return len(r.Findings) == 0 }

// Check checks a statement in its context against the frame: it runs
// every enabled detector (see Detectors) and returns their findings with
// the focus shares. minFocus is the least weighted share of the focus
// terms the passage (or heading) must address (focus.share).
func (f Frame) Check(c Context, minFocus float64, match Matcher, weight Weigher) Result {
	var res Result
	p := &Pass{Frame: &f, Context: &c, Match: match, Weight: weight, MinFocus: minFocus, Result: &res}
	p.around = NewText(c.Claim + "\n" + c.Passage + "\n" + c.Heading)
	p.doc = NewText(c.Document)
	p.before = p.around
	if c.Before != "" {
		p.before = NewText(c.Claim + "\n" + c.Before + "\n" + c.Heading)
	}
	subject := c.Claim + "\n" + c.Passage + "\n" + c.Heading
	p.subject = p.around
	if c.Row {
		subject = c.Claim + "\n" + c.Scope + "\n" + c.Heading
		// a row labelled with what the question names states the
		// measure its table's header names ("Net sales by product …:
		// 2022 2021 Phones $ 1,200 …")
		if f.entityUnder(c.Claim, c.Header) {
			subject += "\n" + c.Header
		}
		p.subject = NewText(subject)
	}
	// for focus.share, the words that chose the claim's document are
	// stated by the document, not by one of its passages (as the
	// generator scores them): a clause need not repeat the site or the
	// title the question names to address it. Result.Focus, a signal of
	// the decision model, still counts them (docs/notes/decision.md,
	// twelfth session: counting them there too did not pay).
	res.Focus, res.MissingFocus = f.focus(p.subject, match, weight)
	p.addressed, p.missing = res.Focus, res.MissingFocus
	if strings.TrimSpace(c.Named) != "" {
		p.addressed, p.missing = f.focus(NewText(subject+"\n"+c.Named), match, weight)
	}
	// a row states its group's head noun ("General and administrative
	// 297" under "Operating expenses:" states an expense)
	claim := c.Claim
	if c.Row {
		claim = inherited(c.Claim, c.Scope)
	}
	stated := NewText(claim + "\n" + c.Heading)
	res.ClaimFocus, _ = f.focus(stated, match, weight)
	res.TopicFocus = res.ClaimFocus
	if named := NewText(c.Named); len(named.stems) > 0 {
		topic := f
		topic.Focus = slices.DeleteFunc(slices.Clone(f.Focus), func(t string) bool { return named.stems[t] })
		res.TopicFocus, _ = topic.focus(stated, match, weight)
	}
	p.run()
	return res
}

// otherBases are the phrases that state a figure on another basis than
// the reported one ("pro forma", "non-GAAP"), as folded tokens. Edit
// internal/wordlists/other_basis.txt.
var otherBases = func() [][]string {
	var out [][]string
	for _, l := range wordlists.Lines("other_basis") {
		out = append(out, textproc.Tokens(wordvec.Fold(l)))
	}
	return out
}()

// otherBasis returns the phrase of otherBases that text names and the
// question does not: a pro forma net income does not answer what the net
// income was, unless the question asks for the pro forma one.
func (f Frame) otherBasis(text string) string {
	x, q := NewText(text), NewText(f.Question)
	for _, b := range otherBases {
		if x.hasPhrase(b) && !q.hasPhrase(b) && !(b[0] == "non" && q.hasPhrase(b[1:]) && standsAlone(text, b[1:])) {
			return strings.Join(b, " ")
		}
	}
	return ""
}

// standsAlone reports whether text names phrase other than after "non":
// a table of GAAP and non-GAAP figures states the GAAP one a question
// about GAAP asks for.
func standsAlone(text string, phrase []string) bool {
	toks := textproc.Tokens(wordvec.Fold(text))
	for i := range toks {
		if i+len(phrase) <= len(toks) && slices.Equal(toks[i:i+len(phrase)], phrase) && (i == 0 || toks[i-1] != "non") {
			return true
		}
	}
	return false
}

// complementMarkers are words that make the measure after them the
// complement of another ("Income before provision for income taxes").
// Edit internal/wordlists/complement_markers.txt.
var complementMarkers = wordlists.Named("complement_markers")

// ofPrepositions: internal/wordlists/of_prepositions.txt.
var ofPrepositions = wordlists.Named("of_prepositions")

// measureOf are the stems of nouns that name their own measure before an
// ofPreposition: the measure nouns and nouns of change, not those that
// state the quantity of what follows (quantityOf). Edit
// internal/wordlists/measure_of.txt and quantity_of.txt.
var measureOf = func() map[string]bool {
	m := termSet("measure_of")
	for t := range measureNouns {
		m[t] = true
	}
	for t := range quantityOf {
		delete(m, t)
	}
	return m
}()

// complementOnly returns, for a table's row or text, the marker word when claim names the question's
// focus, its first focus term the claim names at all, only right after a
// complement marker the question does not use: "Income before provision
// for income taxes" states an income, not the provision a question about
// the "provision for income taxes" asks for. For a figure, a measure of
// it counts as a marker too ("cost of" of "Cost of revenues"). Articles between the marker
// and the term are skipped. It returns "" when the claim names none of the
// focus terms, names that term once elsewhere, or the question uses the
// marker itself ("income before taxes").
func (f Frame) complementOnly(claim string) string {
	toks := textproc.Tokens(wordvec.Fold(claim))
	stems := make([]string, len(toks))
	for i, t := range toks {
		stems[i] = textproc.Stem(t)
	}
	q := NewText(f.Question)
	for _, head := range f.Focus {
		marker, named, last := "", false, 0
		for i, st := range stems {
			if st != head {
				continue
			}
			if named && i-last <= 2 && (toks[i-1] == "and" || toks[i-1] == "or") {
				last = i // "cash and cash equivalents": the same phrase
				continue
			}
			named, last = true, i
			j := i - 1
			for j >= 0 && (toks[j] == "the" || toks[j] == "a" || toks[j] == "an") {
				j--
			}
			// "Cost of revenues" states a cost, "Net increase in cash" a
			// change: a measure of the focus, not the figure asked for
			if j >= 1 && figureType(f.Type) && ofPrepositions[toks[j]] && measureOf[stems[j-1]] && !q.hasToken(toks[j-1]) {
				marker = toks[j-1] + " " + toks[j]
				continue
			}
			if j < 0 || !complementMarkers[toks[j]] || q.hasToken(toks[j]) {
				return ""
			}
			marker = toks[j]
		}
		if named {
			return marker
		}
	}
	return ""
}

// years returns the years the question names.
func (f Frame) years() []string {
	var ys []string
	for _, p := range f.Periods {
		if len(p) == 4 && hasDigit(p) {
			ys = append(ys, p)
		}
	}
	return ys
}

// reRelativeYear matches a year the question names as a bound ("after
// 1945", "since 2020"): a statement about another year may answer it.
var reRelativeYear = regexp.MustCompile(`(?i)\b(?:after|before|since|until|till|by|from|prior\s+to|following|between|to|through)\s+(?:the\s+)?(?:(?:fiscal|calendar|financial)\s+)?(?:years?\s+)?(?:1[5-9]\d\d|20\d\d)`)

// otherYears checks the years a statement dates itself by against the
// years the question names: a statement that states years, none of them
// one the question asks about, nor a span or decade holding one, is
// about another period ("At December 31, 2022, ..." does not answer
// "in 2023"), whatever its document's period. It returns the years the
// statement states and false then. A statement that states no year says
// nothing here: its document or passage dates it.
func (f Frame) otherYears(claim string) ([]string, bool) {
	asked := f.years()
	if len(asked) == 0 || reRelativeYear.MatchString(f.Question) {
		return nil, true
	}
	var stated []string
	lo, hi := 9999, 0
	seen := map[string]bool{}
	fiscal := map[int]bool{} // years labelled as fiscal years ("Fiscal 2020")
	for _, m := range reYear.FindAllStringSubmatchIndex(claim, -1) {
		y := claim[m[2]:m[3]]
		// a year inside a larger number ("1,2005") or a figure
		// ("$2,019") is not a year
		if m[0] > 0 && strings.ContainsAny(claim[m[0]-1:m[0]], ",.$") {
			continue
		}
		n, _ := strconv.Atoi(y)
		decade := m[1] > m[3] // "1940s"
		for _, a := range asked {
			an, _ := strconv.Atoi(a)
			if a == y || decade && an/10 == n/10 {
				return nil, true
			}
		}
		lo, hi = min(lo, n), max(hi, n)
		if reFiscalLabel.MatchString(claim[max(0, m[0]-16):m[0]]) {
			fiscal[n] = true
		}
		if !seen[y] {
			seen[y] = true
			stated = append(stated, claim[m[0]:m[1]])
		}
	}
	if len(stated) == 0 {
		return nil, true
	}
	if len(stated) > 1 {
		for _, a := range asked {
			if an, _ := strconv.Atoi(a); an > lo && an < hi {
				return nil, true // "from 1939 to 1947"
			}
		}
	}
	// a fiscal year may end in the next calendar year ("fiscal 2023
	// ended January 31, 2024"); an adjacent year in a fiscal question is
	// not a mismatch, unless the statement labels it a fiscal year itself
	// ("Fiscal 2020 Activity" is not fiscal 2019)
	if reFiscal.MatchString(f.Question) {
		for _, a := range asked {
			an, _ := strconv.Atoi(a)
			if hi == an+1 && !fiscal[hi] {
				return nil, true
			}
		}
	}
	return stated, false
}

// reFiscalLabel matches the end of a text that labels the year after it
// a fiscal year ("Fiscal ", "FY", "fiscal year ").
var reFiscalLabel = regexp.MustCompile(`(?i)\b(?:fiscal(?:\s+year)?|fy)\s*'?$`)

// reFiscal matches a question about a fiscal year.
var reFiscal = regexp.MustCompile(`(?i)\b(?:fiscal|financial\s+year|fy)`)

// missingQuantities returns the quantities the question states (numbers,
// amounts, durations; not years, which are periods) that text does not
// state: "laws not improved on for three thousand years" is not answered
// by a passage about three hundred years.
func (f Frame) missingQuantities(text string) []string {
	var missing []string
	var have []facts.Fact
	for _, qf := range facts.Extract(f.Question) {
		if qf.Kind == facts.Date || qf.Kind == facts.Number && reYear.MatchString(qf.Text) {
			continue
		}
		if have == nil {
			have = facts.Extract(text)
		}
		found := slices.ContainsFunc(have, func(e facts.Fact) bool { return qf.Matches(e) || e.Matches(qf) })
		// "in a year" is a unit, stated by "each year", "per year",
		// "a year"
		if lq := strings.ToLower(qf.Text); !found && (strings.HasPrefix(lq, "a ") || strings.HasPrefix(lq, "an ")) {
			ws := strings.Fields(lq)
			found = NewText(text).stems[textproc.Stem(ws[len(ws)-1])]
		}
		if !found && !strings.Contains(strings.ToLower(text), strings.ToLower(qf.Text)) {
			missing = append(missing, qf.Text)
		}
	}
	return missing
}

// article is "an" before a vowel, "a" otherwise.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

func periodName(p string) string {
	switch {
	case strings.HasPrefix(p, "q") && len(p) == 2:
		return "Q" + p[1:]
	case hasDigit(p):
		return p
	}
	return strings.ToUpper(p[:1]) + p[1:]
}

// QuoteList writes words quoted, comma-separated.
func QuoteList(ws []string) string {
	n := min(len(ws), quoteListMax)
	q := make([]string, n, n+1)
	for i, w := range ws[:n] {
		if r := []rune(w); len(r) > quoteTermMax {
			w = string(r[:quoteTermMax-1]) + "…"
		}
		q[i] = fmt.Sprintf("%q", w)
	}
	if more := len(ws) - n; more > 0 {
		q = append(q, fmt.Sprintf("%d more", more))
	}
	return strings.Join(q, ", ")
}

// A finding quotes at most quoteListMax terms, each cut to quoteTermMax
// characters: a question may be one 60,000-letter word, or a thousand
// words, and a finding is read as one line.
const (
	quoteListMax = 10
	quoteTermMax = 40
)

// focus returns the weighted share of the focus terms x addresses.
func (f Frame) focus(x Text, match Matcher, weight Weigher) (share float64, missing []string) {
	if len(f.Focus) == 0 {
		return 1, nil
	}
	var got, total float64
	for _, t := range f.Focus {
		w := 1.0
		if weight != nil {
			w = weight(t)
		}
		total += w
		if x.stems[t] || (match != nil && (match(t, x) || statedByConstruction(t, x))) {
			got += w
		} else {
			missing = append(missing, t)
		}
	}
	if total == 0 {
		return 1, missing
	}
	return got / total, missing
}

// words returns the question's words for the focus stems (the stem
// where the question has none), as a finding names them to a reader:
// "convenience", not "conveni".
func (f Frame) words(stems []string) []string {
	out := make([]string, len(stems))
	for i, st := range stems {
		out[i] = cmp.Or(f.FocusWords[st], st)
	}
	return out
}

// Tokens returns the folded tokens of x.
func (x Text) Tokens() []string { return slices.Collect(maps.Keys(x.tokens)) }

// Raw returns the text x was made from.
func (x Text) Raw() string { return x.raw }

var (
	reNumber   = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)
	timeWords  = wordlists.Named("time_words")
	spelledNum = wordlists.Named("spelled_numbers")
)

// states reports whether claim states an answer of the frame's type.
func states(f Frame, claim string) bool {
	claim = withoutLabels(claim)
	qnums := map[string]bool{}
	for _, n := range reNumber.FindAllString(f.Question, -1) {
		qnums[strings.ReplaceAll(n, ",", "")] = true
	}
	newNumber := false
	for _, loc := range reNumber.FindAllStringIndex(claim, -1) {
		// a designation's digits ("Agreement A29889", "5G") state no
		// value
		n := strings.ReplaceAll(claim[loc[0]:loc[1]], ",", "")
		if qnums[n] || reYear.MatchString(n) && len(n) == 4 || inName(claim, loc[0], loc[1]) {
			continue
		}
		newNumber = true
		break
	}
	toks := textproc.Tokens(claim)
	spelled := slices.ContainsFunc(toks, func(t string) bool { return spelledNum[t] })
	switch f.Type {
	case TypeAmount, TypeCount:
		// "how much notice" may be answered by a length of time; "what
		// was the cost" and "how many employees" are not
		lq := strings.ToLower(f.Question)
		// unless the question names a measure ("how much revenue"): a
		// length of time is not a sum of it
		periods := f.Type == TypeAmount && reHowMuch.MatchString(lq) && !asksMeasure(lq)
		// "what were the revenues" asks for what a measure was: a count
		// of things ("across our three businesses") does not state it
		figure := f.Type == TypeAmount && !reAmountQ.MatchString(lq)
		if f.Type == TypeCount && countsOther(f.Question, claim, qnums) {
			return false
		}
		return statesQuantity(qnums, claim, periods, asksChange(lq) || reComparedQ.MatchString(lq), asksPart(lq), f.Type == TypeCount, figure)
	case TypePercent:
		return strings.Contains(claim, "%") || newNumber && rePerUnit.MatchString(claim) ||
			slices.ContainsFunc(toks, func(t string) bool { return t == "percent" || t == "percentage" || t == "percentages" || t == "cent" })
	case TypeDuration:
		// "how long is the rhine?" asks for a length
		if reLengthQ.MatchString(strings.ToLower(f.Question)) && reLength.MatchString(claim) {
			return true
		}
		if slices.ContainsFunc(facts.Extract(claim), func(ft facts.Fact) bool { return ft.Kind == facts.Duration }) {
			return true
		}
		if !newNumber && !spelled && !reYear.MatchString(claim) {
			return false
		}
		return slices.ContainsFunc(toks, func(t string) bool { return timeWords[t] || months[t] }) || reYear.MatchString(claim)
	case TypeTime:
		// "in what year" (or "what years", "what month and year") asks
		// for a year: a day, a month or a count ("one of the founders")
		// does not state one
		if reYearQ.MatchString(f.Question) {
			return statesYear(claim, qnums)
		}
		if reYear.MatchString(claim) || newNumber {
			return true
		}
		for i, t := range toks {
			if unitOfTime(t) {
				// a unit names a time after a number or an ordinal
				// ("the first quarter", "the last day"), none alone
				// ("the period of ____", "each month")
				if i > 0 && numberWord(toks[i-1]) {
					return true
				}
				continue
			}
			// a spelled number alone counts things ("two originals"); it
			// names a time only with a unit of time, read above
			if months[t] || timeWords[t] || timeClauseWords[t] || strings.HasSuffix(t, "th") && hasDigit(t) {
				return true
			}
		}
		return false
	case TypeAgent:
		return statesAgent(f, claim)
	case TypePlace:
		return statesPlace(f, claim)
	case TypeFrequency:
		// "once in any twelve (12) month period", "every 90 days",
		// "annually", "three times a year"
		return slices.ContainsFunc(toks, func(t string) bool { return frequencyWords[t] }) || reEveryPeriod.MatchString(claim)
	}
	return true
}

// unitOfTime reports whether t is a unit of time ("day", "months",
// "period") other than a century or a decade, which name a time by
// themselves ("during the century of the Reformation").
func unitOfTime(t string) bool {
	return (periodUnits[t] || t == "period" || t == "periods") && !namedPeriods[t]
}

var namedPeriods = wordlists.Set(`century centuries decade decades`)

// frequencyWords state how often something happens; reEveryPeriod a
// period something recurs in ("each month", "per year", "a week").
var (
	frequencyWords = wordlists.Named("frequency_words")
	reEveryPeriod  = regexp.MustCompile(`(?i)\b` + wordlists.Alternation("rate_words") + `\s+(?:\w+\s+)?` + wordlists.Alternation("recurring_periods") + `s?\b`)
)

var reHowMuch = regexp.MustCompile(`\bhow\s+much\b`)

// rePerUnit matches a rate stated per unit ("11.2 per 1,000 births",
// "$20 an hour"), which answers a question about a rate as a percentage
// does.
var rePerUnit = regexp.MustCompile(`\d[)\]]?\s*(?:[\p{L}]+\s+)?(?:per|an|a)\s+(?:\d[\d,]*\s+)?(?:hour|day|week|month|year|annum|capita|head|person|people|person|thousand|million|unit|share|mile|kilometre|kilometer|barrel|ton|tonne)s?\b|\bper\s+\d`)

// periodUnits are the words that make a number the length of a period.
var periodUnits = wordlists.Named("period_units")

// inName reports whether the number claim[lo:hi] is part of a name or a
// model's designation, not a quantity: a letter stands right before it
// ("M1", "A15") or capitals right after it ("5G", "3D") that are not a
// scale ("5M", "2B", "10K", "3MM", "1BN").
func inName(claim string, lo, hi int) bool {
	if r, _ := utf8.DecodeLastRuneInString(claim[:lo]); lo > 0 && unicode.IsLetter(r) {
		return true
	}
	j := hi
	for j < len(claim) && claim[j] >= 'A' && claim[j] <= 'Z' {
		j++
	}
	if j == hi || j < len(claim) && unicode.IsLetter(rune(claim[j])) {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(claim[:lo]); lo > 0 && strings.ContainsRune("$€£¥", r) {
		return false
	}
	switch claim[hi:j] {
	case "K", "M", "B", "MM", "BN", "T":
		return false
	}
	return true
}

// statesQuantity reports whether claim states an amount or a count: a
// number the question does not state and that is not a year, or a spelled
// number, unless it is the length of a period ("the last five fiscal
// years", "within 30 days"), which answers how long, not what a cost was
// or how many there are (periods false; a "how much" question may be
// answered by a length of time: periods true).
//
// A percentage or a sum of money is not a count (count true), nor an
// amount ("what were the revenues" is not answered by "contributed 84%,
// 10% and 6% of the growth") unless it is a rate ("a late fee of 1.5% per
// month"), or the question asks how much of a thing that is not a
// measure (periods true: "how much imported oil …" is answered by "71%
// of its imported oil"; so is it by a fraction in words, "one-fifth").
// The size of a change ("sales increased 8% or $28.5 billion") is not
// the level a question asks for unless it asks about the change (change
// true), and neither is a part of the whole ("Cerner contributed $5.9
// billion to our total revenues" does not say what the total revenues
// were) unless it asks about the part (part true). When the question asks
// what a measure was (figure true), a spelled number states it only with
// a scale ("two million"), not as a count of things ("three
// businesses").
func statesQuantity(qnums map[string]bool, claim string, periods, change, part, count, figure bool) bool {
	lengthOfPeriod := func(rest string) bool {
		if periods {
			return false
		}
		// one other word may stand between ("five fiscal years"), and
		// further numbers joined by a conjunction ("three and nine
		// months", "30 to 60 days")
		if rePercentAfter.MatchString(rest) {
			return false // "1.5% per month" is a rate
		}
		other, prev := 0, ""
		for _, w := range reWord.FindAllString(rest, 6) {
			lw := strings.ToLower(w)
			if periodUnits[lw] {
				return !rateWords[prev] // "$5 per day" is a rate
			}
			prev = lw
			if rangeWords[lw] || spelledNum[lw] || hasDigit(lw) && !textproc.HasLetter(lw) {
				continue
			}
			if other++; other > 1 {
				return false
			}
		}
		return false
	}
	notTheLevel := func(before string) bool {
		words := reWord.FindAllString(before, -1)
		for i := len(words) - 1; i >= max(0, len(words)-3); i-- {
			w := strings.ToLower(words[i])
			if i == len(words)-1 && (w == "to" || w == "at") {
				return false // "increased to $49.9 billion" states the level
			}
			if changeWords[w] && !change || partWords[w] && !part {
				return true
			}
		}
		return false
	}
	for _, m := range reNumber.FindAllStringIndex(claim, -1) {
		n := strings.ReplaceAll(claim[m[0]:m[1]], ",", "")
		if qnums[n] || reYear.MatchString(n) && len(n) == 4 || inName(claim, m[0], m[1]) || lengthOfPeriod(claim[m[1]:]) ||
			rePercentAfter.MatchString(claim[m[1]:]) && (count || !change && !periods && !reRateAfter.MatchString(claim[m[1]:])) ||
			notTheLevel(claim[:m[0]]) || reLabelBefore.MatchString(claim[:m[0]]) ||
			count && (reCurrencyBefore.MatchString(claim[:m[0]]) || reCurrencyAfter.MatchString(claim[m[1]:])) {
			continue
		}
		return true
	}
	words := reWord.FindAllStringIndex(claim, -1)
	for i, m := range words {
		w := strings.ToLower(claim[m[0]:m[1]])
		if figure && !scaleWords[w] && (i+1 == len(words) || !scaleWords[strings.ToLower(claim[words[i+1][0]:words[i+1][1]])]) {
			continue
		}
		// "one" is more often a determiner ("under one brand") than a
		// count; a scale after figures ("$28.5 billion") is part of
		// the figure, which decided above
		// "(in millions)" states a table's unit, not a figure
		if scaleWords[w] && i > 0 && strings.EqualFold(claim[words[i-1][0]:words[i-1][1]], "in") {
			continue
		}
		if (spelledNum[w] && w != "one" || spelledCompound(w)) && !reFigureBefore.MatchString(claim[:m[0]]) &&
			!lengthOfPeriod(claim[m[1]:]) && !rePercentAfter.MatchString(claim[m[1]:]) {
			return true
		}
	}
	// "one-fifth of the population" says how much of a whole, not how
	// many there are nor what a measure was
	return !count && !figure && reFraction.MatchString(claim)
}

// reCurrencyBefore and reCurrencyAfter match what makes a number a sum of
// money ("$84 million", "12 million euros"), which is not a count.
var (
	reCurrencyBefore = regexp.MustCompile(`(?i)(?:[$€£¥]|\b(?:usd|eur|gbp|us\$))\s*$`)
	reCurrencyAfter  = regexp.MustCompile(`(?i)^(?:\.\d+)?\s*(?:(?:thousand|million|billion|trillion)\s+)?(?:dollars|euros|pounds|yen|usd|eur|gbp)\b`)
)

// scaleWords make a spelled number an amount ("two million").
var scaleWords = wordlists.Named("scale_words")

// rateWords make the period after them the unit of a rate.
var rateWords = wordlists.Named("rate_words")

// rangeWords: internal/wordlists/range_words.txt.
var rangeWords = wordlists.Named("range_words")

// reLabelBefore matches text that makes the number after it a day of a
// date ("as of September 26") or the label of a reference ("Note 11",
// "Form 10-K", "page 43"), not a quantity: the months and
// internal/wordlists/figure_labels.txt.
var reLabelBefore = regexp.MustCompile(`(?i)\b(?:` + monthWords + `|` + wordlists.Alternation("figure_labels") + `)\.?\s*$`)

// reFigureBefore matches text that ends with a figure.
var reFigureBefore = regexp.MustCompile(`\d\s*$`)

// reRateAfter matches a percentage stated as a rate: per period or per
// unit ("1.5% per month", "5% a year", "2% annually").
var reRateAfter = regexp.MustCompile(`(?i)^\s*(?:%|percent\b|per\s+cent\b)\s*(?:` + wordlists.Alternation("rate_words") + `|` + wordlists.Alternation("rate_adverbs") + `)\b`)

// rePercentAfter matches what makes the number before it a percentage.
var rePercentAfter = regexp.MustCompile(`(?i)^\s*(?:%|percent\b|per\s+cent\b|percentage\s+points?\b)`)

// changeWords: internal/wordlists/change_words.txt.
var changeWords = wordlists.Named("change_words")

// partWords: internal/wordlists/part_verbs.txt.
var partWords = wordlists.Named("part_verbs")

// asksPart reports whether a lower-cased question asks about a part of a
// whole ("how much did Cerner contribute to revenues").
func asksPart(q string) bool {
	return slices.ContainsFunc(reWord.FindAllString(q, -1), func(w string) bool {
		return partWords[w] || w == "contribution" || w == "contributions" || w == "account"
	})
}

// asksChange reports whether a lower-cased question asks about a change
// ("how much did revenue increase", "by what percentage did it grow").
func asksChange(q string) bool {
	return slices.ContainsFunc(reWord.FindAllString(q, -1), func(w string) bool { return changeWords[w] })
}

// hasNewName reports whether claim names something the question does not:
// a capitalised word that is not a question word.
func hasNewName(f Frame, claim string) bool {
	q := NewText(f.Question)
	words := reWord.FindAllString(claim, -1)
	for i, w := range words {
		if !isName(w) {
			continue
		}
		lw := strings.ToLower(w)
		if i == 0 && (textproc.IsStopWord(lw) || questionOpeners[lw]) {
			continue
		}
		if q.tokens[wordvec.Fold(lw)] {
			continue
		}
		return true
	}
	return false
}

// reLabel is a number that labels a part of a document ("Item 525",
// "Section 5.2(a)", "Exhibit 10.16"): internal/wordlists/reference_nouns.txt.
var reLabel = regexp.MustCompile(`(?i)\b` + wordlists.Alternation("reference_nouns") + `s?\s+(?:no\.\s*)?\d[\w.]*(?:\(\w{1,4}\))*`)

// reSubsection is a number that names a subsection by its lettered part
// without a noun before it: a statute's or a rule's ("401(k)", "501(c)(3)",
// "15(d)"), a clause's ("3.05(f)"). A figure is not written so: an amount
// with a footnote's letter has its sign or separators ("$1,412(a)").
var reSubsection = regexp.MustCompile(`(^|[^\w$.,])\d+(?:\.\d+)*\([a-z]{1,4}\)(?:\(\w{1,4}\))*`)

// withoutLabels is claim without the numbers that label parts of a
// document or name a subsection: they are not values it states.
func withoutLabels(claim string) string {
	return reSubsection.ReplaceAllString(reLabel.ReplaceAllString(claim, ""), "${1}")
}

// AsksNothing reports whether the question names nothing an answer could
// address: no content word of more than one letter (a lone letter is an
// enumerator, a variable or an initial: "(b)" answers "a b" in any
// contract), no name, period or number. No answer can be checked against
// such a question, whatever the documents say.
func (f Frame) AsksNothing() bool {
	if len(f.Entities) > 0 || len(f.Periods) > 0 || strings.ContainsFunc(f.Question, unicode.IsDigit) {
		return false
	}
	for _, w := range f.FocusWords {
		if len([]rune(w)) > 1 {
			return false
		}
	}
	return true
}

// reHowManyNoun is what "how many" asks to count, up to its verb or
// preposition: "how many [of Apple's employees] were …".
var reHowManyNoun = regexp.MustCompile(`(?i)\bhow\s+many\s+((?:[\w'’-]+\s+){0,4}?)(?:were|was|are|is|did|do|does|have|has|had|will|would|can|could|in|at|on|for|during|as|per)\b`)

// countsOther reports whether every count the claim states counts
// something the question does not ask to count: "37 million shares" for
// "how many employees". A number with no plural noun after it ("was
// 2,345") stops the check; a year or a number the question states (qnums)
// is not read.
func countsOther(question, claim string, qnums map[string]bool) bool {
	m := reHowManyNoun.FindStringSubmatch(question)
	if m == nil {
		return false
	}
	counted := textproc.TermSet(m[1])
	if len(counted) == 0 {
		return false
	}
	other := 0
	for _, loc := range reNumber.FindAllStringIndex(claim, -1) {
		n := claim[loc[0]:loc[1]]
		if reYear.MatchString(n) && len(n) == 4 || qnums[strings.ReplaceAll(n, ",", "")] {
			continue // a year, or a number the question states (its date)
		}
		words := reWord.FindAllString(claim[loc[1]:], 4)
		i := 0
		for i < len(words) && scaleWords[strings.ToLower(words[i])] {
			i++
		}
		if i >= len(words) {
			return false
		}
		for _, w := range words[i:] {
			for _, t := range textproc.Terms(w) {
				if counted[t] {
					return false // it counts what is asked
				}
			}
		}
		w := strings.ToLower(words[i])
		if len(w) < 4 || !strings.HasSuffix(w, "s") || strings.HasSuffix(w, "ss") || !textproc.HasLetter(w) || hasDigit(w) {
			return false // not plainly a count of things
		}
		other++
	}
	return other > 0
}
