package relevance

import (
	"slices"
	"strings"
	"sync"

	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// A question that narrows a word with an adjective ("a horizontal spring",
// "the second law", "three fundamental interactions") is not answered by
// a statement about the same word narrowed by another adjective of the
// same kind ("a vertical spring", "the first law", "four fundamental
// interactions"): the statement shares every other word of the question,
// and word vectors place the two adjectives close together, so the focus
// check takes one for the other. Adjectives and their synonyms are
// WordNet's (adjectives.txt): a synonym ("global" for "worldwide") or
// another form of the word ("higher" for "high") states what the question
// asks; so does a statement that also uses the question's adjective.

// minModifierSimilarity is the least word-vector cosine of two adjectives
// that are members of one series, where one excludes the other ("three"
// and "four" 0.99, "first" and "second" 0.93, "vertical" and "horizontal"
// 0.93, "liberal" and "conservative" 0.93, "long" and "short" 0.82).
// Below it, two adjectives may describe the same thing in other words
// ("important" and "key" 0.77, "strong" and "powerful" 0.69, "total" and
// "current" 0.58, "largest" and "populous" 0.57): measured on the answers
// of all of SQuAD and the filings, 0.5 refused 8 right answers (one
// filing's) with 35 wrong ones, 0.8 none with 19.
const minModifierSimilarity = 0.8

// adjectiveSynsets reads adjectives.txt (WordNet's adjective synsets) on
// first use.
var adjectiveSynsets = sync.OnceValue(func() wordSets { return readWordSets("adjectives") })

// modifierWord reports whether w can narrow a word as an adjective does: a
// WordNet adjective, or a number. Adverbs in "-ly" ("early", "only")
// narrow verbs and other adjectives, not nouns, and are left out.
func modifierWord(w string) bool {
	if strings.HasSuffix(w, "ly") || textproc.IsStopWord(w) {
		return false
	}
	return len(adjectiveSynsets().of[w]) > 0 || numberWord(w)
}

// synonymAdjectives reports whether a and b share a WordNet synset.
func synonymAdjectives(a, b string) bool { return adjectiveSynsets().share(a, b) }

// sameWordForm reports whether a and b are forms of one word ("high",
// "higher"; "large", "largest"): one holds the other, or they share
// their first four letters.
func sameWordForm(a, b string) bool {
	return strings.Contains(a, b) || strings.Contains(b, a) || len(a) >= 4 && len(b) >= 4 && a[:4] == b[:4]
}

// modifiers returns the pairs of a modifier and the word after it in the
// question ("horizontal", "spring"). A modifier of the question's form
// ("how many", "how long") asks for the answer and is left out.
func modifiers(question string) [][2]string {
	toks := textproc.Tokens(wordvec.Fold(question))
	var out [][2]string
	for i := 0; i+1 < len(toks); i++ {
		m, h := toks[i], toks[i+1]
		if i > 0 && toks[i-1] == "how" || !modifierWord(m) || textproc.IsStopWord(h) || !textproc.HasLetter(h) || hasDigit(h) {
			continue
		}
		out = append(out, [2]string{m, h})
	}
	return out
}

// otherModifier returns the phrase of claim that narrows a word of the
// question with another adjective of the same kind than the question
// does ("vertical spring" for "horizontal spring"), and the question's
// phrase, or "", "" when there is none.
func (f Frame) otherModifier(claim string) (stated, asked string) {
	if len(f.modifiers) == 0 {
		return "", ""
	}
	toks := textproc.Tokens(wordvec.Fold(claim))
	stems := make([]string, len(toks))
	for i, t := range toks {
		stems[i] = textproc.Stem(t)
	}
	vec := wordvec.Default()
	for _, p := range f.modifiers {
		m, h := p[0], p[1]
		ms, hs := textproc.Stem(m), textproc.Stem(h)
		if slices.Contains(stems, ms) {
			continue // the statement uses the question's adjective
		}
		for k := 1; k < len(toks); k++ {
			if stems[k] != hs {
				continue
			}
			o := toks[k-1]
			// a prefix makes another word of an adjective ("subatomic
			// particles" are not "atomic particles"), however far apart
			// the word vectors place the two
			if prefixedForm(m, o) || prefixedForm(o, m) {
				return o + " " + toks[k], m + " " + h
			}
			if !modifierWord(o) || sameWordForm(m, o) || numberWord(m) != numberWord(o) ||
				synonymAdjectives(m, o) || vec.Similarity(m, o) < minModifierSimilarity {
				continue
			}
			return o + " " + toks[k], m + " " + h
		}
	}
	return "", ""
}

// modifierPrefixes make another adjective of an adjective ("subatomic",
// "international", "postwar", "nonlinear").
var modifierPrefixes = []string{"sub", "super", "non", "un", "anti", "pre", "post", "semi", "multi", "inter", "intra", "extra", "micro", "macro", "hyper", "hypo", "over", "under"}

// prefixedForm reports whether b is a with one of modifierPrefixes, with
// or without a hyphen.
func prefixedForm(a, b string) bool {
	for _, p := range modifierPrefixes {
		if rest, ok := strings.CutPrefix(b, p); ok && len(a) >= 4 && strings.TrimPrefix(rest, "-") == a {
			return true
		}
	}
	return false
}
