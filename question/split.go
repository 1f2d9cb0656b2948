package question

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/internal/wordlists"
)

var (
	reQuestionEnd = regexp.MustCompile(`[?;]+`)
	// reConj finds coordinating conjunctions that may join two questions.
	reConj = regexp.MustCompile(`(?i),?\s+\b(and also|and|as well as|plus)\s+`)
)

// clauseStarters open a new question: a wh-word or an auxiliary.
var clauseStarters = wordlists.Set(WhWords, Auxiliaries)

var determiners = wordlists.Named("split_determiners")

// Split splits a multi-part question into self-contained questions. Parts
// are separated by '?' or ';', or joined by "and", "as well as" or "plus"
// when the next part starts a new question ("and how much is ...") or a
// new noun phrase ("and the termination fee"). A noun
// phrase borrows the question frame of the part before it ("What is the
// notice period and the termination fee?" gives "What is the notice
// period?" and "What is the termination fee?"); "it" and "they" refer to
// the earlier part's subject. A single question yields itself.
func Split(q string) []string {
	q = normalizeSpace(q)
	isQuestion := strings.Contains(q, "?")
	var out []string
	for _, piece := range reQuestionEnd.Split(q, -1) {
		piece = strings.TrimSpace(strings.Trim(piece, " ,."))
		// a closing quote or bracket right after a question mark (`… to
		// "self-determination?"`) ends the part before it
		if n := len(out); n > 0 {
			rest := strings.TrimLeft(piece, `"”’')]`)
			out[n-1] += piece[:len(piece)-len(rest)]
			piece = strings.TrimSpace(rest)
		}
		if piece == "" {
			continue
		}
		out = append(out, splitConjunctions(piece)...)
	}
	if len(out) == 0 {
		return []string{q}
	}
	for i, s := range out {
		s = capitalise(strings.TrimSpace(s))
		if isQuestion && !strings.HasSuffix(s, "?") {
			s += "?"
		}
		out[i] = s
	}
	return out
}

func splitConjunctions(piece string) []string {
	locs := reConj.FindAllStringSubmatchIndex(piece, -1)
	if len(locs) == 0 {
		return []string{piece}
	}
	var parts []string
	start := 0
	var frame, subject string
	for _, m := range locs {
		left := strings.TrimSpace(piece[start:m[0]])
		right := piece[m[1]:]
		conj := strings.ToLower(piece[m[2]:m[3]])
		rw := words(right)
		if left == "" || len(rw) == 0 {
			continue
		}
		if start == 0 {
			frame, subject = questionFrame(left)
		}
		switch {
		case clauseStarters[rw[0]]:
			parts = append(parts, left)
			start = m[1]
		case frame != "" && (determiners[rw[0]] || conj == "as well as" || conj == "plus"):
			parts = append(parts, left)
			start = m[1]
		default:
			continue
		}
	}
	parts = append(parts, strings.TrimSpace(piece[start:]))
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		rw := words(p)
		if len(rw) == 0 {
			continue
		}
		if clauseStarters[rw[0]] {
			if subject != "" {
				p = replacePronoun(p, subject)
			}
			parts[i] = p
			continue
		}
		parts[i] = frame + " " + p
	}
	return parts
}

var reFrame = regexp.MustCompile(`(?i)^((?:what|which|who|how much|how many|how long|where|when)\s+(?:[a-z]+\s+)?(?:is|are|was|were|will be))\s+(.+)$`)

// questionFrame returns the leading "What is" / "How much is" of a
// question and the subject that follows it.
func questionFrame(q string) (frame, subject string) {
	m := reFrame.FindStringSubmatch(q)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

var rePronoun = regexp.MustCompile(`(?i)\b(it|they|them)\b`)

func replacePronoun(q, subject string) string {
	done := false
	return rePronoun.ReplaceAllStringFunc(q, func(w string) string {
		if done {
			return w
		}
		done = true
		return subject
	})
}

func capitalise(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || r == utf8.RuneError || unicode.IsUpper(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
