// Package wordlists holds the curated word lists of the offline stages as
// embedded text files, one list a file, with one loader: the stop words
// (stop.txt), the thesaurus (thesaurus.txt), the judge's discourse and
// answer words, the relevance check's question-form words, measure nouns,
// whole modifiers, complement markers, other bases and opposites, the
// retriever's question filler words. Each file documents its list in '#'
// comment lines; edit the files, not code. Three lists are generated from
// WordNet (see ./gen): antonyms.txt, its antonym pairs; synonyms.txt, its
// synsets in their words' common senses; derivations.txt, its
// derivationally related word forms.
package wordlists

//go:generate go run ./gen -in ${WORDNET_SRC} -out antonyms.txt -synonyms synonyms.txt -derivations derivations.txt -senses 2

import (
	"embed"
	"strings"
)

//go:embed *.txt
var files embed.FS

// Text returns list name (a file name without ".txt") as written,
// comments included. It panics when no such list is embedded: the names
// are fixed in code and a test loads every one.
func Text(name string) string {
	b, err := files.ReadFile(name + ".txt")
	if err != nil {
		panic("wordlists: no list " + name)
	}
	return string(b)
}

// Lines returns the lines of list name without comments ('#' lines),
// blank lines and surrounding space.
func Lines(name string) []string {
	var out []string
	for _, l := range strings.Split(Text(name), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// Words returns the whitespace-separated words of list name, comments
// excluded.
func Words(name string) []string { return strings.Fields(strings.Join(Lines(name), "\n")) }

// Set returns the set of the words of lists, each split at white space:
// Set("a b", "c") holds a, b and c. It is the one way the offline stages
// turn a word list, embedded or written in code, into a lookup.
func Set(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = true
		}
	}
	return m
}
