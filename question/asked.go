package question

import (
	"regexp"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

var (
	courtesy     = wordlists.Named("courtesy")
	requestVerbs = wordlists.Named("request_verbs")
	// reRequest is a request for what the documents say before what it
	// asks for: "Can you please tell me", "Summarise", "Find me", "I'd
	// like to know about", "Help me understand".
	reRequest = regexp.MustCompile(`(?i)^(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:` +
		`(?:` + wordlists.Alternation("request_verbs") + `)(?:\s+(?:me|us))?(?:\s+(?:about|on|with))?` +
		`|i(?:\s+would|'d|’d)?\s+(?:want|need|like|wish)\s+to\s+(?:know|find\s+out|understand)(?:\s+about)?` +
		`|(?:do\s+you\s+know|let\s+me\s+know|help\s+me\s+understand|walk\s+me\s+through)(?:\s+about)?` +
		`)\s+`)
	// reReported is a lead that reports whose question follows its
	// colon: "Our CFO wants to know:", "My boss asked me:", "Question
	// from Legal:".
	reReported = regexp.MustCompile(`(?i)^[^:?]*\b(?:asks?|asked|wants?\s+to\s+know|would\s+like\s+to\s+know|needs?\s+to\s+know|wonders?|wondering|questions?\s+from)\b[^:?]*:\s*(\S.*)$`)
	// reSentence splits a text after a sentence's end.
	reSentence = regexp.MustCompile(`[.!?]+["”’')\]]*\s+`)
	// reLead is a lead before the question, up to the punctuation that
	// ends it ("Hi,", "Quick question:", "Thanks -").
	reLead = regexp.MustCompile(`^([^,:;—–]+?)\s*(?:[,:;—–]|\s-)\s*(\S.*)$`)
)

// maxCourtesies is the most leads, and closing courtesies, Asked leaves
// out ("Hi, quick question: …" is two).
const maxCourtesies = 4

// Asked returns the question a text asks, without what people write
// around a question that asks nothing:
//   - sentences of courtesies only ("Hello!", "Thanks in advance.");
//   - a lead of them ("Hi,", "Quick question:", "OK so what …");
//   - a lead that says whose question follows its colon ("Our CFO wants
//     to know: what …");
//   - a closing courtesy (", please", ", thanks");
//   - a request for what the documents say before what it asks for
//     ("Summarise the termination clause", "Can you tell me the late
//     fee?", "I'd like to know about …").
//
// The question's own words are kept as written; a text that is nothing
// but courtesies, or whose request names nothing, is returned as it is.
func Asked(q string) string {
	q = normalizeSpace(q)
	if q == "" {
		return q
	}
	// sentences of courtesies only
	var kept []string
	rest := q
	for rest != "" {
		loc := reSentence.FindStringIndex(rest)
		s := rest
		if loc != nil {
			s, rest = rest[:loc[1]], rest[loc[1]:]
		} else {
			rest = ""
		}
		if !courtesyOnly(s) {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return q
	}
	out := strings.TrimSpace(strings.Join(kept, ""))
	// a lead before the question: up to a comma or colon, or courtesy
	// words before a word that opens a question ("OK so what …"); a few
	// at most, so that a long text of commas costs linear time
	for range maxCourtesies {
		if m := reLead.FindStringSubmatch(out); m != nil && courtesyOnly(m[1]) && hasContent(m[2]) {
			out = m[2]
			continue
		}
		ws := strings.Fields(out)
		i := 0
		for i < len(ws) && courtesy[textproc.Fold(strings.Trim(ws[i], ",.!:;"))] {
			i++
		}
		if i > 0 && i < len(ws) {
			next := textproc.Fold(strings.Trim(ws[i], ",.!:;"))
			if whWords[next] || auxiliaries[next] || requestVerbs[next] {
				out = strings.Join(ws[i:], " ")
				continue
			}
		}
		break
	}
	// a lead that reports whose question follows
	if m := reReported.FindStringSubmatch(out); m != nil && opensQuestion(m[1]) {
		out = m[1]
	}
	// a closing courtesy: ", please", ", thanks?" (its end mark stays)
	for range maxCourtesies {
		i := strings.LastIndexAny(out, ",;")
		if i < 0 || !courtesyOnly(out[i+1:]) || !hasContent(out[:i]) {
			break
		}
		tail := out[i+1:]
		end := strings.TrimRightFunc(tail, func(r rune) bool { return strings.ContainsRune(".!?", r) })
		out = strings.TrimSpace(out[:i]) + tail[len(end):]
	}
	// a request before what it asks for
	if loc := reRequest.FindStringIndex(out); loc != nil && hasContent(out[loc[1]:]) {
		out = out[loc[1]:]
	}
	return out
}

// opensQuestion reports whether s is a question: it ends with a question
// mark ("Within how many days …?") or starts with a question word or an
// auxiliary ("what …", "does …").
func opensQuestion(s string) bool {
	if strings.HasSuffix(strings.TrimSpace(s), "?") {
		return true
	}
	toks := textproc.Tokens(s)
	return len(toks) > 0 && (whWords[toks[0]] || auxiliaries[toks[0]])
}

// courtesyOnly reports whether a text holds a courtesy word and no other
// word than courtesy and stop words, none of them a question word ("If
// so, why?" asks).
func courtesyOnly(s string) bool {
	found := false
	for _, w := range textproc.Tokens(s) {
		switch {
		case whWords[w]:
			return false
		case courtesy[w]:
			found = true
		case textproc.IsStopWord(w):
		default:
			return false
		}
	}
	return found
}

// hasContent reports whether a text holds a word that is neither a
// courtesy nor a stop word.
func hasContent(s string) bool {
	for _, w := range textproc.Tokens(s) {
		if !courtesy[w] && !textproc.IsStopWord(w) {
			return true
		}
	}
	return false
}
