package spell

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/textproc"
)

// MaxTitles is the most distinct titles a Titled vocabulary gives.
const MaxTitles = 20000

// Titled is a Vocabulary that also gives the titles of its documents and
// sections (at most MaxTitles), read for the names an acronym stands for.
type Titled interface {
	Titles(ctx context.Context) ([]string, error)
}

// Acronyms are 3 to maxAcronym capital letters.
const maxAcronym = 6

// acronyms reads each acronym of the question that no section holds as
// the name of a document's or a section's title whose words' initials it
// is ("MSA" as "Master Services Agreement", "SOW" as "Statement of
// Work"): people name a contract by the letters of its title, which the
// contract itself seldom writes. An acronym that two different names
// share is left as asked, as is one the sections hold ("SOW" defined in
// a clause) or when the vocabulary gives no titles.
func (c *Corrector) acronyms(ctx context.Context, question string) (string, []Fix, error) {
	titled, ok := c.vocab.(Titled)
	if !ok {
		return question, nil, nil
	}
	type span struct{ start, end int }
	var found []span
	var stems []string
	for start, end := range textproc.TokenSpans(question) {
		for _, p := range []string{"'s", "’s"} { // "the MSA's"
			if strings.HasSuffix(question[start:end], p) {
				end -= len(p)
				break
			}
		}
		if w := question[start:end]; isAcronym(w) && len(found) < maxTypos {
			found = append(found, span{start, end})
			stems = append(stems, textproc.Stem(strings.ToLower(w)))
		}
	}
	if len(found) == 0 {
		return question, nil, nil
	}
	dfs, err := c.vocab.DocFreqs(ctx, stems)
	if err != nil {
		return question, nil, fmt.Errorf("spelling: %w", err)
	}
	var titles []string
	var fixes []Fix
	var at [][2]int
	for i, sp := range found {
		if dfs[i] > 0 {
			continue
		}
		if titles == nil {
			if titles, err = titled.Titles(ctx); err != nil {
				return question, nil, fmt.Errorf("spelling: %w", err)
			}
		}
		name := expansion(question[sp.start:sp.end], titles)
		if name == "" {
			continue
		}
		fixes = append(fixes, Fix{From: question[sp.start:sp.end], To: name})
		at = append(at, [2]int{sp.start, sp.end})
	}
	if len(fixes) == 0 {
		return question, nil, nil
	}
	return rewrite(question, at, fixes), fixes, nil
}

// isAcronym reports whether w is 3 to maxAcronym capital ASCII letters.
func isAcronym(w string) bool {
	if len(w) < 3 || len(w) > maxAcronym {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return false
		}
	}
	return true
}

// joiners are the small words a name keeps between its capitalised words
// without an initial of theirs ("Statement of Work", "Terms and
// Conditions").
var joiners = map[string]bool{"of": true, "and": true, "for": true, "the": true, "to": true, "on": true, "in": true, "&": true}

// expansion returns the name among titles whose capitalised words'
// initials are acronym, as a title writes it; "" when none is, or when
// two different names are.
func expansion(acronym string, titles []string) string {
	found := ""
	for _, t := range titles {
		for _, name := range names(t) {
			if initials(name, false) != acronym && initials(name, true) != acronym {
				continue
			}
			if found != "" && !strings.EqualFold(found, name) {
				return ""
			}
			found = name
		}
	}
	return found
}

// names returns the runs of capitalised words of a title, joined by
// joiners, without joiners at their ends: "Exhibit B - Service Level
// Agreement (SLA)" holds "Exhibit B" and "Service Level Agreement".
// Punctuation other than an apostrophe or a hyphen inside a word ends a
// name.
func names(title string) []string {
	var out, cur []string
	flush := func() {
		for len(cur) > 0 && joiners[strings.ToLower(cur[len(cur)-1])] {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 1 {
			out = append(out, strings.Join(cur, " "))
		}
		cur = nil
	}
	word := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '&' || r == '\'' || r == '’' || r == '-'
	}
	for i := 0; i < len(title); {
		r, n := utf8.DecodeRuneInString(title[i:])
		if !word(r) {
			if !unicode.IsSpace(r) {
				flush()
			}
			i += n
			continue
		}
		j := i
		for j < len(title) {
			r2, n2 := utf8.DecodeRuneInString(title[j:])
			if !word(r2) {
				break
			}
			j += n2
		}
		w := strings.Trim(title[i:j], "-'’")
		switch {
		case w == "":
			flush()
		case unicode.IsUpper([]rune(w)[0]):
			cur = append(cur, w)
		case len(cur) > 0 && joiners[strings.ToLower(w)]:
			cur = append(cur, w)
		default:
			flush()
		}
		i = j
	}
	flush()
	return out
}

// initials returns the initials of a name's capitalised words, and with
// joiners those of its joiners too ("SOW" of "Statement of Work", where
// "Terms and Conditions" is "T&C" or "TC").
func initials(name string, joiners bool) string {
	var b strings.Builder
	for _, w := range strings.Fields(name) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) || joiners && unicode.IsLetter(r) {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}
