// Package spell corrects misspelt words of a question against the
// vocabulary of the documents it is asked over, so that a typo ("Carslbad"
// for "Carlsbad", "ultimatly") neither misses the sections that say the
// word nor makes the judge refuse for a topic "no document mentions".
//
// A word is read as a typo only when all of these hold: it has at least
// MinLetters letters and no digit; no section of the corpus holds it (its
// stem); it is not a known English word (the embedded word-vector
// vocabulary, package wordvec: "marry" is not a typo of "carry", however
// rare "marry" is in the documents); and a word one edit away (a letter
// inserted, deleted, replaced, or two neighbours swapped: Damerau
// distance 1) is held by some section (its stem). The correction is the
// word one edit away that the most sections hold, English words first.
package spell

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// MinLetters is the least length, in letters, of a word read as a typo:
// shorter words have too many neighbours one edit away.
const MinLetters = 5

// Bounds on the work one question costs, whatever its length: at most
// maxChecked words outside the vocabulary are looked up in the corpus, at
// most maxTypos of those the corpus lacks are corrected, and words longer
// than maxLetters are left as they are (54 neighbours a letter).
const (
	maxChecked = 16
	maxTypos   = 4
	maxLetters = 24
)

// Vocabulary counts the sections of a corpus that hold each of a batch
// of stems (textproc.Stem of a folded word), in one call.
type Vocabulary interface {
	DocFreqs(ctx context.Context, stems []string) ([]int, error)
}

// Fix is one corrected word: From as the question wrote it, To as it is
// read.
type Fix = schema.SpellingFix

var _ schema.Speller = (*Corrector)(nil)

// Corrector corrects questions against a Vocabulary. It is safe for
// concurrent use when its Vocabulary is.
type Corrector struct {
	vocab Vocabulary
	known func(word string) bool
}

// New returns a Corrector over vocab whose known English words are those
// of the embedded word vectors (wordvec.Default).
func New(vocab Vocabulary) *Corrector {
	m := wordvec.Default()
	return &Corrector{vocab: vocab, known: m.Has}
}

// Correct returns question with its misspelt words corrected (see the
// package documentation), keeping their capitals ("Carslbad" becomes
// "Carlsbad"), and the corrections made; question unchanged and no fixes
// when there is nothing to correct.
func (c *Corrector) Correct(ctx context.Context, question string) (string, []Fix, error) {
	// the known words are English ones: in a question in another
	// language every word is unknown, and one a letter away from a word
	// of the documents is a form of it ("welcher", "welches"), not a typo
	if !textproc.Language(question).IsEnglish() {
		return question, nil, nil
	}
	q, fixes, err := c.acronyms(ctx, question)
	if err != nil {
		return question, nil, err
	}
	out, typos, err := c.typos(ctx, q)
	if err != nil {
		return question, nil, err
	}
	fixes = append(fixes, typos...)
	if len(fixes) == 0 {
		return question, nil, nil
	}
	return out, fixes, nil
}

// typos is Correct without acronyms.
func (c *Corrector) typos(ctx context.Context, question string) (string, []Fix, error) {
	type word struct {
		start, end int
		folded     string
	}
	var cands []word
	seen := map[string]bool{}
	// the question's words as the index reads them: textproc's tokens
	// ("D'Olier" is one word, not a misspelt "Olier")
	for start, end := range textproc.TokenSpans(question) {
		// a possessive's "'s" is not part of the word, as in the
		// tokens ("Saarbucken's")
		for _, p := range []string{"'s", "’s", "'S", "’S"} {
			if strings.HasSuffix(question[start:end], p) {
				end -= len(p)
				break
			}
		}
		f := textproc.Fold(question[start:end])
		if n := utf8.RuneCountInString(f); n < MinLetters || n > maxLetters || seen[f] || textproc.IsStopWord(f) || !asciiLetters(f) || c.known(f) {
			continue
		}
		seen[f] = true
		cands = append(cands, word{start, end, f})
		if len(cands) == maxChecked {
			break
		}
	}
	if len(cands) == 0 {
		return question, nil, nil
	}
	// one read for the words themselves, one for the edits of those the
	// corpus does not hold
	stems := make([]string, len(cands))
	for i, w := range cands {
		stems[i] = textproc.Stem(w.folded)
	}
	dfs, err := c.vocab.DocFreqs(ctx, stems)
	if err != nil {
		return question, nil, fmt.Errorf("spelling: %w", err)
	}
	var typos []word
	var edits [][]string
	stemOf := map[string]string{} // each edit's stem
	for i, w := range cands {
		if dfs[i] > 0 || len(typos) == maxTypos {
			continue
		}
		e := edits1(w.folded)
		typos = append(typos, w)
		edits = append(edits, e)
		for _, x := range e {
			stemOf[x] = textproc.Stem(x)
		}
	}
	if len(typos) == 0 {
		return question, nil, nil
	}
	all := make([]string, 0, len(stemOf))
	for _, st := range stemOf {
		all = append(all, st)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	counts, err := c.vocab.DocFreqs(ctx, all)
	if err != nil {
		return question, nil, fmt.Errorf("spelling: %w", err)
	}
	df := make(map[string]int, len(all))
	for i, s := range all {
		df[s] = counts[i]
	}
	var fixes []Fix
	var at [][2]int
	for i, w := range typos {
		best, bestDF, bestKnown := "", 0, false
		for _, x := range edits[i] {
			st := stemOf[x]
			n := df[st]
			if n == 0 {
				continue
			}
			// an English word before a mere stem match ("ultimately",
			// not "ultimably", for "ultimatly"), then the commoner; a
			// word no dictionary has must be the stem the documents hold
			// with a short ending ("cydippids"), not a made-up word
			// sharing it ("moneyizing" for "monetizing")
			known := c.known(x)
			if !known && !(strings.HasPrefix(x, st) && len(x)-len(st) <= maxEnding) {
				continue
			}
			if best == "" || known && !bestKnown || known == bestKnown && (n > bestDF || n == bestDF && x < best) {
				best, bestDF, bestKnown = x, n, known
			}
		}
		if best == "" {
			continue
		}
		from := question[w.start:w.end]
		fixes = append(fixes, Fix{From: from, To: withCase(best, from)})
		at = append(at, [2]int{w.start, w.end})
	}
	if len(fixes) == 0 {
		return question, nil, nil
	}
	return rewrite(question, at, fixes), fixes, nil
}

// rewrite returns q with each span at[i] (in order, not overlapping)
// replaced by fixes[i].To.
func rewrite(q string, at [][2]int, fixes []Fix) string {
	var b strings.Builder
	last := 0
	for i, sp := range at {
		b.WriteString(q[last:sp[0]])
		b.WriteString(fixes[i].To)
		last = sp[1]
	}
	b.WriteString(q[last:])
	return b.String()
}

// maxEnding is the longest ending, in letters, that a correction outside
// the dictionary may have past its stem.
const maxEnding = 3

func asciiLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// edits1 returns the distinct words one edit from w (lower-case ASCII):
// a letter deleted, two neighbours swapped, a letter replaced or inserted.
func edits1(w string) []string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	out := make([]string, 0, 54*len(w)+25)
	for i := 0; i <= len(w); i++ {
		a, b := w[:i], w[i:]
		if b != "" {
			out = append(out, a+b[1:])
			for j := 0; j < len(letters); j++ {
				if letters[j] != b[0] {
					out = append(out, a+letters[j:j+1]+b[1:])
				}
			}
		}
		if len(b) > 1 && b[0] != b[1] {
			out = append(out, a+b[1:2]+b[:1]+b[2:])
		}
		for j := 0; j < len(letters); j++ {
			out = append(out, a+letters[j:j+1]+b)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// withCase writes the lower-case word w with the capitals of as: all
// capitals, or a capital first letter.
func withCase(w, as string) string {
	first, _ := utf8.DecodeRuneInString(as)
	switch {
	case as == strings.ToUpper(as) && strings.ToUpper(as) != strings.ToLower(as):
		return strings.ToUpper(w)
	case unicode.IsUpper(first):
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return w
}
