// Package wordlists holds the word knowledge of the offline stages as
// embedded text files, one list a file, with one loader: the stop words
// (stop.txt), the thesaurus (thesaurus.txt), the month table
// (months.txt), the reference nouns, the question's intent words, the
// relevance check's negations, bounds, periods, units and question-form
// words, the judge's discourse and answer words, the retriever's question
// filler words, the conversation rewriter's fragment words, the function
// words of the languages told apart from English (languages.txt). Each file
// documents its list in '#' comment lines, ending with the code that
// reads it; edit the files, not code. Code reads a list as a set (Named,
// Set), as words (Words, Joined) or as a regular expression
// (Alternation). Four lists are generated from WordNet (see ./gen):
// antonyms.txt, its antonym pairs; synonyms.txt, its synsets in their
// words' common senses; derivations.txt, its derivationally related word
// forms; spelling.txt, the British and American spellings of a word.
// docs/notes/wordlists.md lists what is here and what is still written
// in code.
package wordlists

//go:generate go run ./gen -in ${WORDNET_SRC} -out antonyms.txt -synonyms synonyms.txt -derivations derivations.txt -spelling spelling.txt -senses 2

import (
	"embed"
	"regexp"
	"slices"
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

// Named returns the set of the words of the lists named: Named("a", "b")
// is Set of the words of a.txt and b.txt.
func Named(names ...string) map[string]bool {
	var ws []string
	for _, n := range names {
		ws = append(ws, Joined(n))
	}
	return Set(ws...)
}

// Joined returns the words of list name joined by spaces, for a Set that
// adds words given in code (Set(question.WhWords, Joined("phrase_ends"))).
func Joined(name string) string { return strings.Join(Words(name), " ") }

// Alternation returns a regular expression group that matches any word
// of list name: `(?:a|b|c)`, each word quoted (regexp.QuoteMeta), the
// longer first ("sept" before "sep"), words of one length in the list's
// order. Every regular expression built from a list reads it this way.
func Alternation(name string) string { return AlternationOf(Words(name)...) }

// AlternationOf is Alternation of words given in code (a list derived
// from one, such as MonthNames).
func AlternationOf(words ...string) string {
	ws := slices.Clone(words)
	slices.SortStableFunc(ws, func(a, b string) int { return len(b) - len(a) })
	for i, w := range ws {
		ws[i] = regexp.QuoteMeta(w)
	}
	return "(?:" + strings.Join(ws, "|") + ")"
}

// Capitalised returns words with their first letter in upper case
// ("January"), for the expressions that match names case-sensitively.
func Capitalised(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return out
}

// Month is a line of months.txt: a month's name and its abbreviations,
// none for "may".
type Month struct {
	Name          string
	Abbreviations []string
}

// Months returns the months of months.txt in order, January first.
func Months() []Month {
	var out []Month
	for _, l := range Lines("months") {
		f := strings.Fields(l)
		m := Month{Name: f[0]}
		if f[1] != "-" {
			m.Abbreviations = f[1:]
		}
		out = append(out, m)
	}
	return out
}

// MonthNames returns the months' names in order ("january" … "december").
func MonthNames() []string {
	var out []string
	for _, m := range Months() {
		out = append(out, m.Name)
	}
	return out
}

// MonthWords returns every word that names a month: the names, then the
// abbreviations ("jan", "sep", "sept"), in the months' order.
func MonthWords() []string {
	out := MonthNames()
	for _, m := range Months() {
		out = append(out, m.Abbreviations...)
	}
	return out
}

// MonthStems returns the first three letters of each month's name ("jan"
// … "dec"), which expressions read a month by when any ending may follow
// ("Sept.", "Febr").
func MonthStems() []string {
	var out []string
	for _, m := range Months() {
		out = append(out, m.Name[:3])
	}
	return out
}
