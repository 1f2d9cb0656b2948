package relevance

import (
	"regexp"
	"slices"
	"strings"

	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// A text may name what the question names in another form:
//
//   - by its initials: "EU" for "the European Union", "the United States"
//     for "US" or "U.S." (names), written in capitals in the text;
//   - by a word derived from the name: "Britain" for "British", "China"
//     for "Chinese", "Aristotelian" for "Aristotle's": a capitalised word
//     of the text that begins as the name does and whose word vectors
//     place it next to the name;
//   - with its initials joined by "&" spelled out: "California research
//     and development" for "California R&D", "Standard & Poor's" for
//     "S&P" (spellsOut);
//   - with two of its words written as one, or one as two: "AppleTalk"
//     for "Apple Talk" (respells).
//
// Two names that only look alike ("Austria" and "Australia") are far
// apart in the word vectors, and two neighbours of another spelling
// ("French" and "German") do not begin alike.

// names reports whether x names the entity e, whose significant tokens
// are toks, in one of the forms above.
func (x Text) names(e string, toks []string) bool {
	return x.hasPhrase(toks) || x.hasInitialsOf(e) || x.statesInitials(toks) || x.spellsOut(e) || x.respells(toks) ||
		len(toks) == 1 && x.hasDerivedName(toks[0])
}

// respells reports whether x writes the name toks with the breaks between
// its words placed otherwise: "AppleTalk" for "Apple Talk", "Apple Talk"
// for "AppleTalk".
func (x Text) respells(toks []string) bool {
	want, seq := strings.Join(toks, ""), x.seq()
	for i := range seq {
		run := ""
		for j := i; j < len(seq) && len(run) < len(want); j++ {
			if run += seq[j]; run == want && j-i+1 != len(toks) {
				return true
			}
		}
	}
	return false
}

// reAmpInitials matches initials joined by ampersands ("R&D", "SG&A").
var reAmpInitials = regexp.MustCompile(`\b\p{Lu}+(?:&\p{Lu}+)+\b`)

// spellsOut reports whether x writes the name e with its initials joined
// by "&" spelled out: "California research and development" for
// "California R&D", "selling, general and administrative" for "SG&A". The
// name's other words stand around them as they do in e.
func (x Text) spellsOut(e string) bool {
	loc := reAmpInitials.FindStringIndex(e)
	if loc == nil {
		return false
	}
	before, after := SignificantTokens(e[:loc[0]]), SignificantTokens(e[loc[1]:])
	letters := strings.ToLower(strings.ReplaceAll(e[loc[0]:loc[1]], "&", ""))
	if len(before)+len(after) == 0 {
		// initials alone ("S&P") are spelled out by capitalised words
		// ("Standard & Poor's"), not by any two words that begin so
		// ("stock price")
		var pat strings.Builder
		for i, r := range strings.ReplaceAll(e[loc[0]:loc[1]], "&", "") {
			if i > 0 {
				pat.WriteString(`,?(?:\s+(?:&|and|of|the))?\s+`)
			}
			pat.WriteString(regexp.QuoteMeta(string(r)) + `[\p{L}'’-]*`)
		}
		re, err := regexp.Compile(`\b` + pat.String())
		return err == nil && re.MatchString(x.raw)
	}
	seq := x.seq()
	// at reports whether toks stand in seq from i on, and where they end
	at := func(i int, toks []string) (int, bool) {
		for _, t := range toks {
			if i >= len(seq) || !sameWord(seq[i], t) {
				return i, false
			}
			i++
		}
		return i, true
	}
	for i := range seq {
		j, ok := at(i, before)
		if !ok {
			continue
		}
		k, gap := 0, 0 // the initials spelled so far; one stop word ("and") may stand between two
		for j < len(seq) && k < len(letters) {
			if w := seq[j]; !textproc.IsStopWord(w) && w[0] == letters[k] {
				k, gap = k+1, 0
			} else if k == 0 || gap == 1 || !textproc.IsStopWord(w) {
				break
			} else {
				gap++
			}
			j++
		}
		if _, ok := at(j, after); k == len(letters) && ok {
			return true
		}
	}
	return false
}

// minNameFormSimilarity is the least word-vector cosine of a name and a
// word derived from it that begins with the same two letters ("Irish"
// and "Ireland" 0.745, "Swiss" and "Switzerland" 0.743, "British" and
// "Britain" 0.792); minStemSimilarity that of two that share five
// letters ("Aristotle" and "Aristotelian" 0.577; "Austria" and
// "Australia" are 0.466 apart).
const (
	minNameFormSimilarity = 0.7
	minStemSimilarity     = 0.5
)

// hasDerivedName reports whether x has a capitalised word derived from
// the name t (folded, lower case), or that t is derived from.
func (x Text) hasDerivedName(t string) bool {
	if len(t) < 4 {
		return false
	}
	vec := wordvec.Default()
	for _, w := range reWord.FindAllString(x.raw, -1) {
		if !isUpper(w) {
			continue
		}
		lw := strings.ToLower(wordvec.Fold(withoutPossessive(w)))
		if len(lw) < 4 || lw[:2] != t[:2] || lw == t {
			continue
		}
		sim := vec.Similarity(lw, t)
		if commonPrefix(lw, t) >= 5 && sim >= minStemSimilarity || sim >= minNameFormSimilarity {
			return true
		}
	}
	return false
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// reCapitalRun matches a run of capitalised words, with "of", "the",
// "and", "for" or "de" inside it ("Bank of Ireland", "European Union").
var reCapitalRun = regexp.MustCompile(`\p{Lu}[\p{L}'’-]*(?:\s+(?:(?:of|the|and|for|de)\s+)*\p{Lu}[\p{L}'’-]*)+`)

// reInitials matches a name written in initials: two to six capitals
// ("EU", "IPCC"), with a dot after each at times ("U.S.").
var reInitials = regexp.MustCompile(`^(?:\p{Lu}{2,6}|(?:\p{Lu}\.){2,6})$`)

// hasInitialsOf reports whether the entity e is written in initials
// ("EU") and x names what they stand for ("the European Union").
func (x Text) hasInitialsOf(e string) bool {
	e = strings.TrimSpace(e)
	if !reInitials.MatchString(e) {
		return false
	}
	want := strings.ToLower(strings.ReplaceAll(e, ".", ""))
	return slices.ContainsFunc(reCapitalRun.FindAllString(x.raw, -1), func(run string) bool { return initials(run) == want })
}

// statesInitials reports whether x writes the initials of the entity's
// significant tokens in capitals ("EU", "U.S.") for a name of two or
// more words ("European Union", "United States").
func (x Text) statesInitials(toks []string) bool {
	if len(toks) < 2 {
		return false
	}
	want := initials(strings.Join(toks, " "))
	for _, w := range strings.FieldsFunc(x.raw, func(r rune) bool { return !(r == '.' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') }) {
		w = strings.TrimSuffix(w, ".")
		if reInitials.MatchString(w) || reInitials.MatchString(w+".") {
			if strings.ToLower(strings.ReplaceAll(w, ".", "")) == want {
				return true
			}
		}
	}
	return false
}

// initials returns the lower-case first letters of a run's capitalised
// words ("European Union" → "eu", "Bank of Ireland" → "bi").
func initials(run string) string {
	var b strings.Builder
	for _, w := range textproc.Tokens(run) {
		if textproc.IsStopWord(w) {
			continue
		}
		b.WriteByte(w[0])
	}
	return b.String()
}

// NamesIn reports, for each of the question's names (Entities), whether
// text names it in one of the forms entity.unnamed accepts: as written,
// by its initials, by a word derived from it or a few letters longer
// ("VerticalNet" for "Vertical"), or by the other name the question gives
// it in brackets.
func (f Frame) NamesIn(text string) []bool {
	x := NewText(text)
	out := make([]bool, len(f.Entities))
	for i := range f.Entities {
		out[i] = len(f.entityTokens[i]) > 0 && f.namedIn(i, x)
	}
	return out
}

// namedIn reports whether x names the question's name i, or its alias.
func (f Frame) namedIn(i int, x Text) bool {
	if x.names(f.Entities[i], f.entityTokens[i]) {
		return true
	}
	if i >= len(f.aliases) {
		return false // a Frame not made by Analyze
	}
	a := f.aliases[i]
	return a >= 0 && x.names(f.Entities[a], f.entityTokens[a])
}

// aliasesOf pairs a name the question writes in brackets right after
// another with that name: "Airsopure International Group, Inc. (Airtech
// International Group)", "Jaguar Investments, Inc. (Power2Ship)" name one
// party twice, and a document that writes either names it. Only legal
// forms and punctuation may stand between the two. spans are the names'
// byte offsets in question, toks their significant tokens.
func aliasesOf(question string, spans [][2]int, toks [][]string) []int {
	out := make([]int, len(spans))
	for i := range out {
		out[i] = -1
	}
	for j := 1; j < len(spans); j++ {
		before := strings.TrimRight(question[:spans[j][0]], " ")
		after := strings.TrimLeft(question[spans[j][1]:], " ")
		if len(toks[j]) == 0 || !strings.HasSuffix(before, "(") || !strings.HasPrefix(after, ")") {
			continue
		}
		i := j - 1
		for i >= 0 && len(toks[i]) == 0 {
			i--
		}
		if i < 0 || len(SignificantTokens(question[spans[i][1]:len(before)-1])) > 0 {
			continue
		}
		out[i], out[j] = j, i
	}
	return out
}
