package textproc

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/docmind/docmind/internal/wordlists"
)

// Lang is a language a text is written in: its ISO 639-1 code and its
// English name.
type Lang struct {
	Code, Name string
}

// English is the language the offline stages read.
var English = Lang{Code: "en", Name: "English"}

// IsEnglish reports whether l is English (the zero Lang is taken for
// English: a text Language cannot place).
func (l Lang) IsEnglish() bool { return l.Code == "" || l.Code == English.Code }

// language is one list of internal/wordlists/languages.txt.
type language struct {
	Lang
	words map[string]bool // folded, every word of the list
}

// languages holds the lists, in the file's order, and for each word that
// tells a language (not an English stop word, two letters or more) the
// number of lists that hold it: a word of several languages counts for
// each in part ("de": French, Spanish, Dutch, Portuguese).
var languages = sync.OnceValues(func() ([]language, map[string]int) {
	var out []language
	at := map[string]int{}
	for _, l := range wordlists.Lines("languages") {
		head, words, ok := strings.Cut(l, "|")
		code, name, ok2 := strings.Cut(strings.TrimSpace(head), " ")
		if !ok || !ok2 {
			continue
		}
		i, found := at[code]
		if !found {
			i = len(out)
			at[code] = i
			out = append(out, language{Lang: Lang{Code: code, Name: strings.TrimSpace(name)}, words: map[string]bool{}})
		}
		for _, w := range strings.Fields(words) {
			out[i].words[Fold(w)] = true
		}
	}
	shared := map[string]int{}
	for _, l := range out {
		for w := range l.words {
			if !IsStopWord(w) && utf8.RuneCountInString(w) >= 2 {
				shared[w]++
			}
		}
	}
	return out, shared
})

// Language returns the language text is written in: English unless the
// function words of another language of internal/wordlists/languages.txt
// outnumber its English ones.
//
// A word shared by n of the other languages counts 1/n for each. An
// English stop word counts 1 for English, or half when another language
// has it too ("on", "by", "to"); a lower-case "i" counts for none
// (English writes "I"; "i" is Danish, Swedish or Italian). Another
// language needs more than English and at least 1.5 (two words of its
// own, or more shared ones), or 0.5 in a text of three words or more with
// no English function word. "Wie hoch ist die monatliche Vergütung?" is
// German, "Quel est le préavis ?" French, "What did Van Gogh paint?" and
// "PD-1 triggering on monocytes enhances IL-10 production" English: no
// question of the shared English sets is read as another language.
func Language(text string) Lang {
	langs, shared := languages()
	if len(langs) == 0 {
		return English
	}
	score := make([]float64, len(langs))
	en, n := 0.0, 0
	for start, end := range TokenSpans(text) {
		n++
		t := normalise(text[start:end])
		k := shared[t]
		switch {
		case k > 0:
			for j, l := range langs {
				if l.words[t] {
					score[j] += 1 / float64(k)
				}
			}
		case text[start:end] == "i" || !IsStopWord(t):
		case inAny(langs, t):
			en += 0.5
		default:
			en++
		}
	}
	best := -1
	for j, s := range score {
		if s > 0 && (best < 0 || s > score[best]) {
			best = j
		}
	}
	if best < 0 {
		return English
	}
	if s := score[best]; s > en && (s >= 1.5 || en == 0 && s >= 0.5 && n >= 3) {
		return langs[best].Lang
	}
	return English
}

func inAny(langs []language, w string) bool {
	for _, l := range langs {
		if l.words[w] {
			return true
		}
	}
	return false
}

// IsStopWordIn reports whether a lower-case folded token is a function
// word of language l (English: IsStopWord).
func IsStopWordIn(l Lang, tok string) bool {
	if l.IsEnglish() {
		return IsStopWord(tok)
	}
	langs, _ := languages()
	for _, x := range langs {
		if x.Code == l.Code {
			return x.words[tok] || IsStopWord(tok)
		}
	}
	return IsStopWord(tok)
}

// QuestionWords returns the unstemmed content words of a question:
// ContentWords, and for a question in another language than English
// (Language) without that language's function words too.
func QuestionWords(text string) []string { return questionWords(Language(text), text) }

func questionWords(l Lang, text string) []string {
	words := ContentWords(text)
	if l.IsEnglish() {
		return words
	}
	out := words[:0]
	for _, w := range words {
		if !IsStopWordIn(l, w) {
			out = append(out, w)
		}
	}
	return out
}

// QueryText returns a question to search with: the question itself, or
// for a question in another language than English (Language) its words
// without that language's function words ("wie", "ist", "die" of "Wie
// hoch ist die monatliche Vergütung?"), which would otherwise match every
// section written in it and are not the English stop words the search
// leaves out.
func QueryText(text string) string {
	l := Language(text)
	if l.IsEnglish() {
		return text
	}
	return strings.Join(questionWords(l, text), " ")
}
