package relevance

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

// wordSets is a list of word sets, one a line (synonyms.txt; derivations.txt's pairs "hour | hourly"), read: the sets,
// and the sets each word is in.
type wordSets struct {
	sets [][]string
	of   map[string][]int
}

// readWordSets reads the embedded list name, a set a line, its words
// separated by spaces or " | ".
func readWordSets(name string) wordSets {
	x := wordSets{of: map[string][]int{}}
	for i, l := range wordlists.Lines(name) {
		ws := strings.Fields(strings.ReplaceAll(l, "|", " "))
		x.sets = append(x.sets, ws)
		for _, w := range ws {
			x.of[w] = append(x.of[w], i)
		}
	}
	return x
}

// synonymSets reads synonyms.txt (WordNet's synsets, each word in its two
// most frequent senses) on first use.
var synonymSets = sync.OnceValue(func() wordSets { return readWordSets("synonyms") })

// formSets reads derivations.txt (WordNet's derivationally related forms,
// "hour | hourly") on first use, each pair a set.
var formSets = sync.OnceValue(func() wordSets { return readWordSets("derivations") })

// Paraphrases is a set of words that may stand for one word in a
// paraphrase (ParaphrasesOf).
type Paraphrases map[string]bool

// ParaphrasesOf returns the words that may stand for w, or for a word w
// inflects, in a paraphrase, without w itself: its WordNet synonyms in
// their common senses ("tier" for "level") and the forms WordNet derives
// from it or it from them ("hour" for "hourly", "death" for "die",
// "renewal" for "renewing"), whose vectors are often further apart
// (0.45, 0.77, 0.57). It is for a caller that tests many words against
// one.
func ParaphrasesOf(w string) Paraphrases { return wordsOf(w, synonymSets(), formSets()) }

// wordsOf returns the words that share a set of lists with w or a word
// it inflects, other than those.
func wordsOf(w string, lists ...wordSets) Paraphrases {
	forms := lemmaForms(strings.ToLower(w))
	var out Paraphrases
	for _, idx := range lists {
		for _, x := range forms {
			for _, i := range idx.of[x] {
				for _, y := range idx.sets[i] {
					if !slices.Contains(forms, y) {
						if out == nil {
							out = Paraphrases{}
						}
						out[y] = true
					}
				}
			}
		}
	}
	return out
}

// Has reports whether t, or a word t inflects, is one of the words.
func (s Paraphrases) Has(t string) bool {
	if len(s) == 0 {
		return false
	}
	return slices.ContainsFunc(lemmaForms(strings.ToLower(t)), func(x string) bool { return s[x] })
}

// lemmaForms returns w and the words it may be a regular inflection of
// ("renewing": "renewing", "renew", "renewe"; "stopped": "stop";
// "companies": "company").
func lemmaForms(w string) []string {
	out := []string{w}
	for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
		if base, ok := strings.CutSuffix(w, suf); ok && len(base) >= 3 {
			out = append(out, base, base+"e")
			if n := len(base); (suf == "ed" || suf == "ing") && base[n-1] == base[n-2] {
				out = append(out, base[:n-1]) // a doubled consonant
			}
		}
	}
	for _, suf := range []string{"ies", "ied"} {
		if base, ok := strings.CutSuffix(w, suf); ok && len(base) >= 2 {
			out = append(out, base+"y")
		}
	}
	return out
}

// DerivedForms returns the forms WordNet derives from w, or from a word w
// inflects, or it from them ("death" for "died").
func DerivedForms(w string) []string { return slices.Sorted(maps.Keys(wordsOf(w, formSets()))) }

// FormsOfOneWord reports whether a and b are forms of one word: inflections of
// it ("hours" and "hour") or forms WordNet derives one from the other
// ("hourly" and "hour", "renewal" and "renewing"). Synonyms are not
// ("secret" and "confidential").
func FormsOfOneWord(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == "" || b == "" {
		return false
	}
	if a == b || textproc.Stem(a) == textproc.Stem(b) {
		return true
	}
	fa := lemmaForms(a)
	return slices.ContainsFunc(lemmaForms(b), func(x string) bool { return slices.Contains(fa, x) }) || wordsOf(a, formSets()).Has(b)
}
