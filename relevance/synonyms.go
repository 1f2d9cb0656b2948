package relevance

import (
	"slices"
	"strings"
	"sync"

	"github.com/docmind/docmind/internal/wordlists"
)

// wordSets is a list of word sets, one a line (adjectives.txt,
// synonyms.txt), read: the sets, and the sets each word is in.
type wordSets struct {
	sets [][]string
	of   map[string][]int
}

// readWordSets reads the embedded list name.
func readWordSets(name string) wordSets {
	x := wordSets{of: map[string][]int{}}
	for i, l := range wordlists.Lines(name) {
		ws := strings.Fields(l)
		x.sets = append(x.sets, ws)
		for _, w := range ws {
			x.of[w] = append(x.of[w], i)
		}
	}
	return x
}

// share reports whether a and b are in one set.
func (x wordSets) share(a, b string) bool {
	for _, i := range x.of[a] {
		if slices.Contains(x.of[b], i) {
			return true
		}
	}
	return false
}

// synonymSets reads synonyms.txt (WordNet's synsets, each word in its two
// most frequent senses) on first use.
var synonymSets = sync.OnceValue(func() wordSets { return readWordSets("synonyms") })

// Synonymous reports whether words a and b, or the words they inflect
// ("renewing", "renew"), are WordNet synonyms in a common sense of each:
// "level" and "tier", "stop" and "halt". Word vectors place such words
// close together too, but not always close enough ("level" and "tier"
// 0.51), and place opposites as close: read together they find a
// paraphrase that neither finds alone.
func Synonymous(a, b string) bool { return SynonymsOf(a).Has(b) }

// Synonyms is the set of the WordNet synonyms of a word (SynonymsOf).
type Synonyms map[string]bool

// SynonymsOf returns the synonyms of w and of the words it inflects, in
// their common senses, without w itself: for a caller that tests many
// words against one.
func SynonymsOf(w string) Synonyms {
	forms := lemmaForms(strings.ToLower(w))
	idx := synonymSets()
	var out Synonyms
	for _, x := range forms {
		for _, i := range idx.of[x] {
			for _, y := range idx.sets[i] {
				if !slices.Contains(forms, y) {
					if out == nil {
						out = Synonyms{}
					}
					out[y] = true
				}
			}
		}
	}
	return out
}

// Has reports whether t, or a word t inflects, is one of the synonyms.
func (s Synonyms) Has(t string) bool {
	if len(s) == 0 {
		return false
	}
	t = strings.ToLower(t)
	for _, x := range lemmaForms(t) {
		if s[x] {
			return true
		}
	}
	return false
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
