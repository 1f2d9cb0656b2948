package relevance

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// Some focus words of a question name a relation that documents state
// in a construction rather than a word: a bound ("the maximum service
// credit" — "shall not exceed 20%"), an obligation ("does the tier
// promise" — "Provider shall"), a calculation ("how is the fee
// calculated" — "a fee equal to 25% of") or a rate ("the hourly rate" —
// "US$185 per hour"). The focus check counts such a
// construction as addressing the word, the way a synonym does; the exact
// focus still counts only the question's own words.

// A question may ask for a bound ("What is the maximum service credit?",
// "the ceiling on the increase", "the minimum term"). A document states a
// bound as "shall not exceed 20%", "no increase shall exceed 4%", "up to
// forty hours", "at least ninety days".

// upperBoundStems and lowerBoundStems are the stems of the nouns and
// adjectives a question names an upper or a lower bound with.
var (
	upperBoundStems = stemSet(wordlists.Joined("upper_bound_nouns"))
	lowerBoundStems = stemSet(wordlists.Joined("lower_bound_nouns"))
)

// A question may ask whether something is promised or required ("Does
// the Standard tier promise 99.9% availability?"); a document states the
// obligation with a modal ("Provider shall make the platform available").
// What is needed or required of an amount ("How much notice is needed?")
// is its least, stated as a lower bound ("at least ninety days").
var (
	obligationStems = stemSet(wordlists.Joined("obligation_words"))
	obligationWords = wordlists.Set(`shall must`)
)

// upperAfterNegation follow a negation, within four words, to bound an
// amount from above ("not exceed", "no more than", "not greater than");
// lowerAfterNegation from below ("not less than", "no fewer than").
var (
	upperAfterNegation = wordlists.Named("upper_after_negation")
	lowerAfterNegation = wordlists.Named("lower_after_negation")
)

// A question may ask how an amount is calculated ("How is the early
// termination fee calculated?"); a document states the calculation as a
// formula ("a fee equal to twenty-five percent (25%) of the Monthly
// Service Fees").
var (
	calculationStems = stemSet(wordlists.Joined("calculation_words"))
	reFormula        = regexp.MustCompile(`(?i)\b(?:equals?|equal to|equalling|equaling|multiplied by|divided by|the sum of|the product of|based on)\b|(?:%|\bpercent|\bper cent)\s+of\b`)
)

// A question may ask for a rate ("the hourly rate", "the late-payment
// rate"); a document states a rate as an amount per unit ("US$185 per
// hour", "1.5% per month") or a percentage ("grew 10.0%").
var (
	rateStems = stemSet(`rate rates`)
	reRate    = regexp.MustCompile(`(?i)\d[\d,.]*\)?\s*(?:%|percent\b|per\s*cent\b|(?:[^\s.;]+\s+){0,5}per\s+\p{L})`)
)

func stemSet(words string) map[string]bool { return textproc.StemSet(strings.Fields(words)) }

// statedByConstruction reports whether x addresses the focus stem st by
// one of the constructions above: an upper bound ("maximum") by "at
// most", "up to", "capped" or a negation before "exceed"/"more"; a lower
// one ("minimum") by "at least" or a negation before "less"/"fewer"; an
// obligation ("promise", "required", "needed") by "shall", "must" or a
// lower bound; a calculation
// by a formula ("equal to", "25% of"); a rate by an amount per unit ("185
// per hour") or a percentage. It is false for any other stem.
func statedByConstruction(st string, x Text) bool {
	upper, lower := upperBoundStems[st], lowerBoundStems[st]
	if calculationStems[st] {
		return reFormula.MatchString(x.raw)
	}
	if rateStems[st] {
		return reRate.MatchString(x.raw)
	}
	if obligationStems[st] {
		for t := range obligationWords {
			if x.tokens[t] {
				return true
			}
		}
		// what is needed of an amount is its least: "how much notice is
		// needed" is answered by "at least ninety days"
		lower = true
	}
	if !upper && !lower {
		return false
	}
	toks := x.seq()
	for i, t := range toks {
		next := ""
		if i+1 < len(toks) {
			next = toks[i+1]
		}
		switch {
		case upper && (t == "at" && next == "most" || t == "up" && next == "to" || t == "capped" || t == "maximum"):
			return true
		case lower && (t == "at" && next == "least" || t == "minimum"):
			return true
		}
		if !negationAt(toks, i) {
			continue
		}
		for _, w := range toks[i+1 : min(i+5, len(toks))] {
			if upper && upperAfterNegation[w] || lower && lowerAfterNegation[w] {
				return true
			}
		}
	}
	return false
}

// Contrasts reports whether the text word t cannot stand for the question
// word w however close their word vectors are. Word vectors place words
// of one kind together, opposites and other members of a series included:
// another number ("seven" for "eight", "third" for "fourth", "billion"
// for "million"), the word's negative ("informal" for "formal",
// "indirectly" for "directly") or its opposite ("lower" for "higher",
// "women" for "men"; opposites.txt) does not state what the question
// asks.
func Contrasts(w, t string) bool {
	w, t = strings.ToLower(w), strings.ToLower(t)
	if w == t {
		return false
	}
	if numberWord(w) && numberWord(t) || oppositeWords(w, t) {
		return true
	}
	return negativeOf(w, t)
}

// negativeOf reports whether one of w and t is the other with a negative
// prefix ("formal" and "informal", "able" and "unable"). The two must be
// near in meaning too (word-vector cosine at least 0.35): "discover" is
// not "cover" negated, nor "discount" "count", nor "insight" "sight"
// (cosines 0.12–0.30, against 0.38 for "independent", 0.43–0.86 for
// "irregular", "invalid", "unable"); and "in" negates only a word of five
// letters or more ("inside", "income", "inform").
func negativeOf(w, t string) bool {
	if len(w) > len(t) {
		w, t = t, w
	}
	if len(w) < 4 || w == t {
		return false
	}
	for _, p := range negativePrefixes {
		if t == p+w && (p != "in" || len(w) >= 5) {
			return wordvec.Default().Similarity(w, t) >= 0.35
		}
	}
	return false
}

// numberWord reports whether w names a number or a place in a series.
func numberWord(w string) bool {
	return spelledNum[w] || ordinals[w] != "" || reOrdinalWord.MatchString(w) || hasDigit(w) && !textproc.HasLetter(w)
}

var reOrdinalWord = regexp.MustCompile(`^(?:fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|\w+ieth|last|\d+(?:st|nd|rd|th))$`)

// poles maps each word of internal/wordlists/opposites.txt (hand-written
// scales) and antonyms.txt (WordNet's antonym pairs) to the scales it
// is on: the line, and the side of the "|" (0 or 1). Words are matched
// as written and by regular inflection (see poleRefs), not by stem:
// Porter2 stems "internal" and "international" alike.
type poleRef struct{ line, side int }

var poles = func() map[string][]poleRef {
	m := map[string][]poleRef{}
	lines := append(wordlists.Lines("opposites"), wordlists.Lines("antonyms")...)
	for i, l := range lines {
		one, other, ok := strings.Cut(l, "|")
		if !ok {
			continue
		}
		for side, pole := range []string{one, other} {
			for _, w := range strings.Fields(pole) {
				m[w] = append(m[w], poleRef{i, side})
			}
		}
	}
	return m
}()

// poleRefs returns the scales word is on, itself and by a regular
// inflection of a listed word ("increased", "increases", "increasing"):
// both, as WordNet lists "increased | decreased" apart from "increase |
// decrease".
func poleRefs(word string) []poleRef {
	w := strings.ToLower(word)
	refs := poles[w]
	for _, suf := range []string{"s", "es", "ed", "d", "ing", "ly", "ies", "ied"} {
		base, ok := strings.CutSuffix(w, suf)
		if !ok || len(base) < 3 {
			continue
		}
		if suf == "ies" || suf == "ied" {
			base += "y"
		}
		refs = append(refs[:len(refs):len(refs)], poles[base]...)
		if suf == "ing" || suf == "ed" {
			refs = append(refs, poles[base+"e"]...)
		}
	}
	return refs
}

// oppositeWords reports whether a and b are on two sides of one scale of
// opposites.txt; samePole whether they are on one side.
func oppositeWords(a, b string) bool { return relatedPoles(a, b, false) }

func samePole(a, b string) bool { return relatedPoles(a, b, true) }

func relatedPoles(a, b string, same bool) bool {
	ra := poleRefs(a)
	if len(ra) == 0 {
		return false
	}
	for _, x := range ra {
		for _, y := range poleRefs(b) {
			if x.line == y.line && (x.side == y.side) == same {
				return true
			}
		}
	}
	return false
}

// opposite returns a word of x that is the opposite of a focus word of
// the question x does not state ("northern" for "What drained the
// southern flanks?", "formal" for "an informal language"), or "".
func (f Frame) opposite(x Text) string {
	for _, st := range f.Focus {
		// "not encrypted" is what "unencrypted" states
		if x.stems[st] || slices.Contains(f.negatedStems, st) {
			continue
		}
		if word := f.FocusWords[st]; len(poleRefs(word)) > 0 {
			// a word of the focus word's own pole ("woman" for "women",
			// "many" for "a lot") states it
			mate, other := false, ""
			for t := range x.tokens {
				switch {
				case samePole(word, t):
					mate = true
				case (other == "" || t < other) && oppositeWords(word, t):
					other = t
				}
			}
			if !mate && other != "" {
				return other
			}
		}
		w := strings.ToLower(f.FocusWords[st])
		for _, p := range negativePrefixes {
			if x.tokens[p+w] && negativeOf(w, p+w) {
				return p + w
			}
			if rest, ok := strings.CutPrefix(w, p); ok && x.tokens[rest] && negativeOf(w, rest) {
				return rest
			}
		}
	}
	if w := f.oppositeRelation(x); w != "" {
		return w
	}
	return f.withoutNon(x)
}

// relationWords: internal/wordlists/relation_words.txt.
var relationWords = wordlists.Named("relation_words")

// wordsIn returns the distinct words of a question's folded tokens that
// set holds, in order, but not one right after notAfter: the relation
// words, not the "much" and "many" of "how much" and "how many", which ask
// for an amount (notAfter "how"); the implicit negatives, not the "least"
// of "at least", a bound (notAfter "at").
func wordsIn(toks []string, set map[string]bool, notAfter string) []string {
	var out []string
	for i, t := range toks {
		if set[t] && !(i > 0 && toks[i-1] == notAfter) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// oppositeRelation returns the word of x that states the other end of a
// relation word of the question when x does not state that end itself,
// "" otherwise. "at least" and "at most" state bounds, not comparisons.
func (f Frame) oppositeRelation(x Text) string {
	if len(f.relations) == 0 {
		return ""
	}
	toks := x.seq()
	for _, word := range f.relations {
		mate, other := false, ""
		for i, t := range toks {
			if i > 0 && toks[i-1] == "at" && (t == "least" || t == "most") {
				continue
			}
			switch {
			case t == word || samePole(word, t):
				mate = true
			case other == "" && oppositeWords(word, t):
				other = t
			}
		}
		if !mate && other != "" {
			return other
		}
	}
	return ""
}

// negatedByNon returns the words a question (its folded tokens) negates
// with "non": the word after "non" ("non-shared", "non shared") or the rest of a word
// that begins with it ("nonself"; "none" and "nonetheless" are words of
// their own).
func negatedByNon(toks []string) []string {
	var out []string
	for i, t := range toks {
		switch {
		case t == "non" && i+1 < len(toks) && !hasDigit(toks[i+1]):
			out = append(out, toks[i+1])
		case len(t) > 6 && strings.HasPrefix(t, "non") && !strings.HasPrefix(t, "none") && negativeOf(t[3:], t):
			out = append(out, t[3:])
		}
	}
	return out
}

// withoutNon returns a word the question negates with "non" that x
// states without it ("a shared physical medium" for "non-shared physical
// medium"), "" when x negates it too ("non-shared", "neither Party shall
// solicit" for "non-solicitation") or does not state it.
func (f Frame) withoutNon(x Text) string {
	toks := x.seq()
	for _, w := range f.negatedByNon {
		st := textproc.Stem(w)
		stated, negated := false, false
		for i, t := range toks {
			switch {
			case t == "non"+w:
				negated = true
			case textproc.Stem(t) == st:
				stated = true
				// "non" before it, or a negation a few words before
				// ("neither Party shall directly solicit" states the
				// non-solicitation)
				for j := max(0, i-5); j < i; j++ {
					negated = negated || toks[j] == "non" || negationAt(toks, j)
				}
			}
		}
		if stated && !negated {
			return w
		}
	}
	return ""
}

// implicitNegatives are the words that negate without "not", as written
// (a noun made from one, "failure", "refusal", names a topic).
// Edit internal/wordlists/implicit_negatives.txt.
var implicitNegatives = wordlists.Named("implicit_negatives")

// counted is a number or ordinal of a question with the stems of the
// words it counts or orders.
type counted struct {
	word  string
	value seriesValue
	heads []string
}

// seriesValue is a number's place in its series: cardinals ("two", "2")
// and ordinals ("second", "2nd") are two series.
type seriesValue struct {
	n       int
	ordinal bool
}

// numberValue returns the value of an exact number or ordinal word, and
// false for a word that names none or only roughly ("several", "dozens",
// "hundreds") and for a year ("1998"), which the period checks read.
func numberValue(w string) (seriesValue, bool) {
	if n, ok := cardinalWords[w]; ok {
		return seriesValue{n: n}, true
	}
	if n, ok := ordinalWords[w]; ok {
		return seriesValue{n: n, ordinal: true}, true
	}
	digits, suffix := w, ""
	for _, s := range []string{"st", "nd", "rd", "th"} {
		if d, ok := strings.CutSuffix(w, s); ok {
			digits, suffix = d, s
			break
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 0 || suffix == "" && reYear.MatchString(digits) {
		return seriesValue{}, false
	}
	return seriesValue{n: n, ordinal: suffix != ""}, true
}

// cardinalWords and ordinalWords map the numbers and ordinals written
// in words to their values: internal/wordlists/number_words.txt and
// ordinal_words.txt.
var cardinalWords, ordinalWords = valuedWords("number_words"), valuedWords("ordinal_words")

// valuedWords reads a word list of "word value" lines.
func valuedWords(name string) map[string]int {
	m := map[string]int{}
	for _, l := range wordlists.Lines(name) {
		w, v, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			panic("wordlists: " + name + ": " + l)
		}
		m[w] = n
	}
	return m
}

// countsOf returns the numbers and ordinals of a question's folded tokens
// that stand before a content word within two words ("two consistent
// theories"), with the stems of those words. The ordinal of a quarter or
// a half is a period, which the period checks read ("the second
// quarter").
func countsOf(toks []string) []counted {
	var out []counted
	for i, t := range toks {
		v, ok := numberValue(t)
		if !ok {
			continue
		}
		var heads []string
		for _, n := range toks[i+1 : min(i+3, len(toks))] {
			if _, isNum := numberValue(n); isNum || textproc.IsStopWord(n) {
				break
			}
			heads = append(heads, textproc.Stem(n))
		}
		if len(heads) == 0 || heads[0] == "quarter" || heads[0] == "half" {
			continue
		}
		out = append(out, counted{word: t, value: v, heads: heads})
	}
	return out
}

// otherNumber returns a number or ordinal of x that counts or orders what
// a number of the question does, with another value of the same series
// ("one consistent theory" for "two consistent theories", "the third
// assessment report" for "the second"), and the question's number, when x
// does not state the question's own; "" otherwise. Another number answers
// a yes-or-no question ("Must the Client review it within 5 Business
// Days?" — "within ten (10) Business Days").
func (f Frame) otherNumber(x Text) (other, asked string) {
	if f.Type == TypeYesNo {
		return "", ""
	}
	var toks []string
	for _, c := range f.counted {
		if x.tokens[c.word] {
			continue
		}
		if toks == nil {
			toks = x.seq()
		}
		stated := false
		other := ""
		for i, t := range toks {
			v, ok := numberValue(t)
			if !ok || v.ordinal != c.value.ordinal {
				continue
			}
			for _, n := range toks[i+1 : min(i+3, len(toks))] {
				if slices.Contains(c.heads, textproc.Stem(n)) {
					if v == c.value {
						stated = true
					} else if other == "" {
						other = t
					}
				}
			}
		}
		if !stated && other != "" {
			return other, c.word
		}
	}
	return "", ""
}
