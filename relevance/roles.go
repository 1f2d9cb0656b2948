package relevance

import (
	"regexp"
	"strings"

	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// A question that asks who did something to a thing ("Who calibrated
// newer studies?") is not answered by a statement in which that thing
// did it ("… had both been calibrated by newer studies"): the roles are
// swapped. The question's form is "who" or "what" (or "which" and a
// noun) and a verb in the past tense, then its object; the statement's,
// the same verb, "by", and the question's object as the agent.

// reAgentVerb matches "Who calibrated newer studies?", "What caused the
// fire?", "Which company acquired Slack?": the verb and what follows.
var reAgentVerb = regexp.MustCompile(`(?i)^\s*(?:who|what|which\s+[\p{L}-]+)\s+([\p{L}]+ed)\s+(.+)$`)

// agentRole returns the stem of the question's verb and the folded first
// word of its object ("calibr", "newer"), or "", "" when the question
// does not ask who did something.
func agentRole(question string) (verb, object string) {
	m := reAgentVerb.FindStringSubmatch(wordvec.Fold(question))
	if m == nil {
		return "", ""
	}
	for _, t := range textproc.Tokens(m[2]) {
		if determiners[t] {
			continue
		}
		if textproc.IsStopWord(t) {
			return "", ""
		}
		return textproc.Stem(strings.ToLower(m[1])), t
	}
	return "", ""
}

// swappedRoles reports whether claim states the question's object as the
// agent of its verb ("calibrated by newer studies" for "Who calibrated
// newer studies?").
func (f Frame) swappedRoles(claim string) bool {
	if f.roleVerb == "" {
		return false
	}
	toks := textproc.Tokens(wordvec.Fold(claim))
	for k := 0; k+2 < len(toks); k++ {
		if toks[k+1] != "by" || textproc.Stem(toks[k]) != f.roleVerb {
			continue
		}
		j := k + 2
		for j < len(toks) && determiners[toks[j]] {
			j++
		}
		if j < len(toks) && sameWord(toks[j], f.roleObject) {
			return true
		}
	}
	return false
}
