// Package question reads what a question asks for: its intent, the kind of
// answer it wants, its key terms, the words an answer must address, and
// the self-contained questions a multi-part question is made of (Split).
// The decomposer, the generator and the judge share these rules. Intents,
// in the order they are tried:
//
//	comparison  "difference between", "compare", "versus", "more than"
//	yes_no      starts with an auxiliary: "Is", "Can", "Does", "Must" ...
//	definition  "what is a ...", "what does ... mean", "define"
//	penalty     penalties, fines, late fees, sanctions, liquidated damages
//	duration    "how long", "period", "duration", "how many days"
//	deadline    "when", "deadline", "due date", "by what date"
//	amount      "how much", "how many", cost, price, fee, rate, cap, limit
//	procedure   "how do/does/can/to", steps, process, procedure
//	definition  "what is <term>" (no article)
//	list        "what are the ...", "list", "which ... are", "what types"
//	general     anything else
package question

import (
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/textproc"
)

// Intent labels, as written to schema.Decomposition.Intent.
const (
	IntentComparison = "comparison"
	IntentYesNo      = "yes_no"
	IntentPenalty    = "penalty"
	IntentDuration   = "duration"
	IntentDeadline   = "deadline"
	IntentAmount     = "amount"
	IntentProcedure  = "procedure"
	IntentDefinition = "definition"
	IntentList       = "list"
	IntentGeneral    = "general"
)

// Intents are every intent a decomposition may have, rule-based or from a
// model: the enum of the docmind_decomposition JSON schema.
var Intents = []string{IntentDefinition, IntentProcedure, IntentAmount, IntentDeadline, IntentComparison,
	IntentYesNo, IntentList, IntentPenalty, IntentDuration, IntentGeneral}

// IsIntent reports whether s is one of Intents.
func IsIntent(s string) bool {
	for _, i := range Intents {
		if s == i {
			return true
		}
	}
	return false
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// words returns the lower-case word tokens of s (textproc.Tokens).
func words(s string) []string { return textproc.Tokens(s) }

// WhWords are the question words, space-separated: a question that starts
// with one asks for a fact ("What ...", "How ..."). The decomposer, the
// follow-up rewriter and the relevance check read them from here
// (internal/wordlists/wh_words.txt).
var WhWords = wordlists.Joined("wh_words")

// Auxiliaries are the auxiliary verbs, space-separated, that open a
// yes/no question ("Is ...", "Can ...", "Must ..."):
// internal/wordlists/auxiliaries.txt.
var Auxiliaries = wordlists.Joined("auxiliaries")

var (
	auxiliaries = wordlists.Set(Auxiliaries)
	whWords     = wordlists.Set(WhWords)
)

func containsAny(s string, phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func hasWord(ws []string, vocab map[string]bool) bool {
	for _, w := range ws {
		if vocab[w] {
			return true
		}
	}
	return false
}

var (
	penaltyWords  = wordlists.Named("penalty_words")
	amountWords   = wordlists.Named("amount_words")
	durationWords = wordlists.Named("duration_words")
	deadlineWords = wordlists.Named("deadline_words")
	procWords     = wordlists.Named("procedure_words")
	listWords     = wordlists.Named("list_words")
	defWords      = wordlists.Named("definition_words")
)

// Intent classifies one question; see the package documentation for the
// labels and the order in which they are tried.
func Intent(question string) string {
	q := " " + strings.ToLower(normalizeSpace(question)) + " "
	ws := words(q)
	if len(ws) == 0 {
		return IntentGeneral
	}
	first := ws[0]
	second := ""
	if len(ws) > 1 {
		second = ws[1]
	}
	switch {
	case containsAny(q, "difference between", " differ", "compare", " vs ", " vs. ", "versus", " more than ", " less than ",
		" better ", " higher than ", " lower than ", " longer than ", " shorter than "):
		return IntentComparison
	case auxiliaries[first]:
		return IntentYesNo
	case hasWord(ws, defWords) || containsAny(q, "what is meant") ||
		first == "what" && (second == "is" || second == "are") && len(ws) > 2 && (ws[2] == "a" || ws[2] == "an"):
		return IntentDefinition
	case hasWord(ws, penaltyWords) || containsAny(q, "late fee", "liquidated damages", "what happens if", "consequence"):
		return IntentPenalty
	case containsAny(q, "how long", "how soon", "how many days", "how many months", "how many years", "how many weeks", "how many hours") ||
		hasWord(ws, durationWords) && !hasWord(ws, amountWords):
		return IntentDuration
	case first == "when" || hasWord(ws, deadlineWords) || containsAny(q, "by when", "what time"):
		return IntentDeadline
	case containsAny(q, "how much", "how many") || hasWord(ws, amountWords):
		return IntentAmount
	case first == "how" && (auxiliaries[second] || second == "to") || hasWord(ws, procWords):
		return IntentProcedure
	case first == "what" && (second == "is" || second == "are") && len(ws) > 2 && !textproc.IsStopWord(ws[2]):
		return IntentDefinition
	case first == "list" || hasWord(ws, listWords) || first == "what" && second == "are" || first == "which":
		return IntentList
	}
	return IntentGeneral
}

// genericWords: internal/wordlists/generic_words.txt.
var genericWords = wordlists.Named("generic_words")

// KeyTerms returns the content words of the question q asks (Asked) that
// an answer must address: its
// words minus stop words (the question's language's: textproc.QuestionWords),
// question words, numbers and genericWords, lower-case, one per stem, in
// order. The judge stems them and checks that
// the sections an answer rests on mention them.
func KeyTerms(q string) []string {
	q = Asked(q)
	var out []string
	seen := map[string]bool{}
	for _, w := range textproc.QuestionWords(q) {
		if genericWords[w] || whWords[w] || auxiliaries[w] || !hasLetter(w) || len(w) < 2 || textproc.IsContraction(w) {
			continue
		}
		st := textproc.Stem(w)
		if seen[st] {
			continue
		}
		seen[st] = true
		out = append(out, w)
	}
	return out
}

func hasLetter(s string) bool {
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r > 127 {
			return true
		}
	}
	return false
}
