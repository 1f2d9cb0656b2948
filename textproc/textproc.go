// Package textproc holds the text analysis shared by lexical retrieval and
// the deterministic judge: tokenising, stop words, stemming and sentence
// splitting. Everything here is deterministic and allocation-light.
package textproc

import (
	"iter"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/kljensen/snowball/english"

	"github.com/docmind/docmind/internal/wordlists"
)

// Tokens splits s into lower-cased word tokens without accents (Fold).
// Letters and digits form tokens; a '.' or ',' between digits is kept
// ("1.5", "10,000"), as are apostrophes inside words. Everything else
// separates tokens.
func Tokens(s string) []string {
	var out []string
	for start, end := range TokenSpans(s) {
		out = append(out, normalise(s[start:end]))
	}
	return out
}

// TokenSpans yields the byte spans of s's tokens as written, before they
// are lower-cased and folded (Tokens), for a caller that rewrites them in
// place.
func TokenSpans(s string) iter.Seq2[int, int] {
	return func(yield func(start, end int) bool) {
		start := -1
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			keep := unicode.IsLetter(r) || unicode.IsDigit(r)
			if !keep && start >= 0 && (r == '.' || r == ',' || r == '\'' || r == '’') {
				prev, _ := utf8.DecodeLastRuneInString(s[:i])
				next, _ := utf8.DecodeRuneInString(s[i+size:])
				if r == '.' || r == ',' {
					keep = unicode.IsDigit(prev) && unicode.IsDigit(next)
				} else {
					keep = unicode.IsLetter(prev) && unicode.IsLetter(next)
				}
			}
			if keep {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				if !yield(start, i) {
					return
				}
				start = -1
			}
			i += size
		}
		if start >= 0 {
			yield(start, len(s))
		}
	}
}

func normalise(tok string) string {
	tok = Fold(tok)
	tok = strings.ReplaceAll(tok, "’", "'")
	if strings.HasSuffix(tok, "'s") {
		tok = tok[:len(tok)-2]
	}
	return tok
}

// Stem returns the Porter2 (Snowball English) stem of a lower-case token,
// one stem for a word's British and American spellings ("licence" and
// "license", "organised" and "organized": spellingStems). Tokens that
// contain a digit are returned unchanged.
func Stem(tok string) string {
	for _, r := range tok {
		if unicode.IsDigit(r) {
			return tok
		}
	}
	return cachedStem(tok, stemUncached)
}

// stemUncached is Stem without the cache (see stemcache.go).
func stemUncached(tok string) string {
	st := english.Stem(tok, false)
	if c, ok := spellingStems()[st]; ok {
		return c
	}
	return st
}

// spellingStems maps the stem of each spelling variant of
// internal/wordlists/spelling.txt (WordNet's pairs of British and
// American spellings) to the stem of its canonical spelling, where the
// two differ: "licenc" to "licens", "organis" to "organ". The stemmer
// then reduces every inflection of either spelling to one stem
// ("organised", "organising", "organized").
var spellingStems = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range wordlists.Lines("spelling") {
		w, c, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		if sw, sc := english.Stem(w, false), english.Stem(c, false); sw != sc {
			m[sw] = sc
		}
	}
	return m
})

// TermSet returns the set of the stemmed content terms of s: the terms
// of Terms, each once.
func TermSet(s string) map[string]bool { return StemSet(ContentWords(s)) }

// StemSet returns the set of the stems of words (each a lower-case word).
func StemSet(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[Stem(w)] = true
	}
	return m
}

// Terms returns the stemmed content terms of s: tokens minus stop words,
// stemmed. Numbers are kept.
func Terms(s string) []string {
	toks := Tokens(s)
	out := toks[:0]
	for _, t := range toks {
		if IsStopWord(t) {
			continue
		}
		out = append(out, Stem(t))
	}
	return out
}

// BM25Length is the length of a text of these terms for BM25's length
// normalisation: its word terms. Values (terms without a letter: amounts,
// years, counts) are matched like words but do not count towards the
// length, so that a table, which is mostly values, does not rank as a long,
// verbose section below the prose that comments on it. Text of values only
// has length 1; no terms, 0.
func BM25Length(terms []string) int {
	if len(terms) == 0 {
		return 0
	}
	n := 0
	for _, t := range terms {
		if HasLetter(t) {
			n++
		}
	}
	return max(n, 1)
}

// HasLetter reports whether s contains a letter (a word rather than a
// value: "2023", "49,954").
func HasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

// ContentWords returns the unstemmed tokens of s that are not stop words.
func ContentWords(s string) []string {
	toks := Tokens(s)
	out := toks[:0]
	for _, t := range toks {
		if !IsStopWord(t) {
			out = append(out, t)
		}
	}
	return out
}

// IsContraction reports whether a lower-case token is a contraction of a
// function word ("don't", "couldn't", "they've", "we'll"): it names no
// subject, though the stop word list does not hold it.
func IsContraction(tok string) bool {
	tok = strings.ReplaceAll(tok, "’", "'")
	for _, suf := range []string{"n't", "'ve", "'re", "'ll", "'d", "'m"} {
		if strings.HasSuffix(tok, suf) {
			return true
		}
	}
	return false
}

// IsStopWord reports whether a lower-case token is an English stop word.
func IsStopWord(tok string) bool {
	_, ok := stopWords[tok]
	return ok
}

// stopWords is a standard English list (Lucene's plus common question and
// auxiliary words), small enough to keep query meaning. Edit internal/wordlists/stop.txt.
var stopWords = func() map[string]struct{} {
	words := wordlists.Words("stop")
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// IndexFold returns where sub first occurs in s under Unicode case
// folding, as byte offsets into s (start, end), or -1, -1. Offsets found
// in a lower-cased copy of s are not offsets into s: lower-casing changes
// the length of some text (invalid UTF-8 becomes U+FFFD).
func IndexFold(s, sub string) (int, int) {
	if sub == "" {
		return 0, 0
	}
	for i := range s {
		j, k := i, 0
		for k < len(sub) && j < len(s) {
			r1, n1 := utf8.DecodeRuneInString(s[j:])
			r2, n2 := utf8.DecodeRuneInString(sub[k:])
			if r1 != r2 && !strings.EqualFold(string(r1), string(r2)) {
				break
			}
			j, k = j+n1, k+n2
		}
		if k == len(sub) {
			return i, j
		}
	}
	return -1, -1
}

// Fold lower-cases word and strips accents: the combining marks that,
// after Unicode canonical decomposition, follow a Latin or Greek letter
// ("Möngke" becomes "mongke", "CAFÉ" becomes "cafe"). Marks of other
// scripts, where a mark makes another letter (Cyrillic "й") or a vowel
// sign another word, are kept.
func Fold(word string) string {
	ascii := true
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(word)
	}
	d := norm.NFD.String(word)
	var b strings.Builder
	b.Grow(len(d))
	accented := false // the last base letter takes accents that fold
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			if accented {
				continue
			}
		} else {
			accented = unicode.In(r, unicode.Latin, unicode.Greek)
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return norm.NFC.String(b.String())
}

// ContainsFoldASCII reports whether s holds sub, a string of lower-case
// ASCII letters, in any case: as a (?i) regular expression finds it when
// none of sub's letters has a case pair outside ASCII (k and s do: the
// Kelvin sign, the long s). It lets a caller turn away a text before an
// expression that needs sub runs.
func ContainsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}
