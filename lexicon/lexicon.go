// Package lexicon is DocMind's offline lexical-semantics resource: a
// curated thesaurus of near-synonym groups for business, legal, policy,
// HR, IT-service and technical-manual English, matched stem by stem.
//
// The offline stages use it so that a question worded differently from
// the documents ("uptime" for "availability", "unpaid" for "overdue") is
// still understood, while a topic that no word of its group reaches in
// the documents stays absent. Synonyms are weaker evidence than the exact
// word; callers weight them down (see SynonymWeight).
package lexicon

import (
	"strings"
	"sync"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

// SynonymWeight is the suggested weight of a synonym hit relative to an
// exact hit (1) for retrieval and sentence scoring.
const SynonymWeight = 0.5

// Entry is one member of a synonym group: its text as written and its
// stemmed tokens (stop words kept, so "not paid" and "per annum" stay
// phrases).
type Entry struct {
	Text  string
	Stems []string
}

// IsPhrase reports whether the entry has more than one token.
func (e Entry) IsPhrase() bool { return len(e.Stems) > 1 }

// Thesaurus maps stemmed terms to the groups of entries they belong to.
// It is read-only after construction and safe for concurrent use.
type Thesaurus struct {
	groups [][]Entry
	byStem map[string][]int   // single-token entry stem -> group indices
	syn    map[string][]Entry // stem -> its synonyms, precomputed
}

// New builds a thesaurus from groups of words or phrases. Empty entries
// and groups of fewer than two distinct entries are ignored.
func New(groups [][]string) *Thesaurus {
	t := &Thesaurus{byStem: map[string][]int{}}
	for _, g := range groups {
		var entries []Entry
		seen := map[string]bool{}
		for _, w := range g {
			stems := stemAll(w)
			key := strings.Join(stems, " ")
			if len(stems) == 0 || seen[key] {
				continue
			}
			seen[key] = true
			entries = append(entries, Entry{Text: strings.TrimSpace(w), Stems: stems})
		}
		if len(entries) < 2 {
			continue
		}
		gi := len(t.groups)
		t.groups = append(t.groups, entries)
		for _, e := range entries {
			if !e.IsPhrase() && !containsInt(t.byStem[e.Stems[0]], gi) {
				t.byStem[e.Stems[0]] = append(t.byStem[e.Stems[0]], gi)
			}
		}
	}
	t.syn = make(map[string][]Entry, len(t.byStem))
	for stem := range t.byStem {
		t.syn[stem] = t.synonyms(stem)
	}
	return t
}

// Parse builds a thesaurus from text with one comma-separated group per
// line; blank lines and lines starting with '#' are skipped.
func Parse(text string) *Thesaurus {
	var groups [][]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		groups = append(groups, strings.Split(line, ","))
	}
	return New(groups)
}

var defaultThesaurus = sync.OnceValue(func() *Thesaurus { return Parse(wordlists.Text("thesaurus")) })

// Default returns the shipped thesaurus (internal/wordlists/thesaurus.txt,
// which explains its choices).
// It is built once and shared read-only.
func Default() *Thesaurus { return defaultThesaurus() }

// Len returns the number of groups.
func (t *Thesaurus) Len() int {
	if t == nil {
		return 0
	}
	return len(t.groups)
}

// Synonyms returns the entries that share a group with the stemmed term
// (a textproc.Terms output), excluding the term itself. The slice is
// shared: callers must not modify it. A nil thesaurus has no synonyms.
func (t *Thesaurus) Synonyms(stem string) []Entry {
	if t == nil {
		return nil
	}
	return t.syn[stem]
}

func (t *Thesaurus) synonyms(stem string) []Entry {
	var out []Entry
	seen := map[string]bool{stem: true}
	for _, gi := range t.byStem[stem] {
		for _, e := range t.groups[gi] {
			key := strings.Join(e.Stems, " ")
			if !seen[key] {
				seen[key] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// SynonymStems returns the single-word synonyms of a stemmed term, as
// stems: what a bag-of-words retriever can add to a query.
func (t *Thesaurus) SynonymStems(stem string) []string {
	var out []string
	for _, e := range t.Synonyms(stem) {
		if !e.IsPhrase() && !textproc.IsStopWord(e.Stems[0]) {
			out = append(out, e.Stems[0])
		}
	}
	return out
}

// Match says how a text mentions a stemmed term.
type Match int

// The ways a text can mention a term.
const (
	NoMatch Match = iota
	SynonymMatch
	ExactMatch
)

// Text is a stemmed view of a passage for term and phrase lookups.
type Text struct {
	set    map[string]bool
	joined string // " stem stem ... " with stop words kept
}

// NewText stems every token of s (stop words kept).
func NewText(s string) Text {
	stems := stemAll(s)
	x := Text{set: make(map[string]bool, len(stems)), joined: " " + strings.Join(stems, " ") + " "}
	for _, st := range stems {
		x.set[st] = true
	}
	return x
}

// Has reports whether the text contains the stem.
func (x Text) Has(stem string) bool { return x.set[stem] }

// HasEntry reports whether the text contains the entry (a phrase as
// consecutive tokens).
func (x Text) HasEntry(e Entry) bool {
	if !e.IsPhrase() {
		return x.set[e.Stems[0]]
	}
	return strings.Contains(x.joined, " "+strings.Join(e.Stems, " ")+" ")
}

// Find reports whether x mentions the stemmed term exactly, through a
// synonym, or not at all. A nil thesaurus only finds exact mentions.
func (t *Thesaurus) Find(stem string, x Text) Match {
	if x.set[stem] {
		return ExactMatch
	}
	for _, e := range t.Synonyms(stem) {
		if x.HasEntry(e) {
			return SynonymMatch
		}
	}
	return NoMatch
}

func stemAll(s string) []string {
	toks := textproc.Tokens(s)
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i] = textproc.Stem(tok)
	}
	return out
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}
