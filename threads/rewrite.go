package threads

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Turn is an earlier question of a thread, as the rewriter sees it. Only
// questions are given: answers are always retrieved and judged again from
// the documents, never taken from the conversation.
type Turn struct {
	// Question is the text as asked.
	Question string
	// Query is the standalone question the pipeline ran for it.
	Query string
}

// standalone returns the turn's standalone question.
func (t Turn) standalone() string {
	if t.Query != "" {
		return t.Query
	}
	return t.Question
}

// FollowUpRewriter turns a follow-up question into a standalone one using
// the thread's earlier questions (oldest first). A question that needs no
// context is returned unchanged.
type FollowUpRewriter interface {
	Rewrite(ctx context.Context, history []Turn, question string) (string, error)
}

// Offline is the offline FollowUpRewriter. It resolves follow-ups against the
// previous standalone question with a few rules:
//
//   - a leading "and", "but", "also", "so" or "then" is dropped;
//   - a prepositional fragment ("and for enterprise clients?") is appended
//     to the previous question as a constraint;
//   - "what about X?" replaces the previous question's topic with X, or
//     appends X when X is prepositional;
//   - "what if ..." becomes "What happens if ...";
//   - the pronouns it, its, they, them, their (and this or that before a
//     verb) are replaced by the previous question's topic, the noun
//     phrase after its question words ("late payment penalties"). A
//     singular pronoun whose topic ends in a plural head refers to the
//     modifier's head noun ("it" after "late payment penalties" is
//     "payment").
//
// Offline is deterministic and makes no calls.
type Offline struct{}

var _ FollowUpRewriter = Offline{}

// Rewrite applies the rules, then carries over the previous question's
// subject (see carry) and records what it carried as a note of the run
// (schema.RecordNote). Earlier turns given without their standalone
// question (a chat client's message history) are rewritten first, oldest
// first, so that a subject carries across several follow-ups.
func (Offline) Rewrite(ctx context.Context, history []Turn, question string) (string, error) {
	q := strings.TrimSpace(question)
	if len(history) == 0 || q == "" {
		return q, nil
	}
	prev := ""
	for _, t := range history {
		if t.Query != "" || prev == "" {
			prev = strings.TrimSpace(t.standalone())
			continue
		}
		prev, _ = rewriteFollowUp(prev, strings.TrimSpace(t.Question))
	}
	if prev == "" {
		return q, nil
	}
	out, note := rewriteFollowUp(prev, q)
	schema.RecordNote(ctx, note)
	return out, nil
}

// rewriteFollowUp rewrites q after the standalone question prev and says
// what it carried over.
func rewriteFollowUp(prev, q string) (string, string) {
	q = question.Asked(q) // "Thanks! And in 2024?" follows up as "And in 2024?"
	out := rewriteRules(prev, q)
	if strings.TrimSpace(out) == "" {
		return out, ""
	}
	return carry(prev, q, out, topicOf(prev))
}

var (
	connectors = wordlists.Named("connectors")
	// prepositions that open a constraint fragment.
	prepositions = wordlists.Named("fragment_prepositions")
	// questionWords are skipped before a question's topic: the wh-words and
	// auxiliaries (package question) but "had", which the rules have never
	// skipped, and the other words that frame a question.
	questionWords = without(wordlists.Set(question.WhWords, question.Auxiliaries, wordlists.Joined("question_words")), "had")
	// leadVerbs start a full question; a fragment has none of them. Only
	// "when" is both a lead verb and a preposition.
	leadVerbs = wordlists.Set(question.WhWords, question.Auxiliaries, wordlists.Joined("lead_verbs"))
	// verbsAfterDemonstrative mark "this"/"that" used as a pronoun.
	verbsAfterDemonstrative = wordlists.Named("verbs_after_demonstrative")
	// expletive "it": "is it possible to ...".
	expletiveAfterIt = wordlists.Named("expletive_after_it")
)

// without deletes words from set m and returns it.
func without(m map[string]bool, words ...string) map[string]bool {
	for _, w := range words {
		delete(m, w)
	}
	return m
}

// bare lower-cases a word and strips surrounding punctuation.
func bare(w string) string {
	return strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

// body returns a question without its final punctuation. The full stop
// of a final abbreviation ("in the U.S.?") is kept.
func body(q string) string {
	b := strings.TrimRightFunc(strings.TrimSpace(q), func(r rune) bool { return r == '?' || r == '.' || r == '!' || unicode.IsSpace(r) })
	rest := strings.TrimSpace(q)[len(b):]
	if strings.HasPrefix(rest, ".") {
		last := b[strings.LastIndexFunc(b, unicode.IsSpace)+1:]
		if strings.Count(last, ".") > 0 && len(last) <= 6 {
			b += "."
		}
	}
	return b
}

func rewriteRules(prev, q string) string {
	words := strings.Fields(body(q))
	// Drop leading connectors ("and", "and also", "ok, so").
	for len(words) > 0 && connectors[bare(words[0])] {
		words = words[1:]
	}
	if len(words) == 0 {
		return q
	}
	topic := topicOf(prev)
	prevBody := body(prev)
	first := bare(words[0])

	// "what about X" / "how about X".
	if len(words) > 2 && (first == "what" || first == "how") && bare(words[1]) == "about" {
		rest := words[2:]
		if out, ok := swapSubject(prevBody, rest); ok {
			return finish(out)
		}
		if prepositions[bare(rest[0])] {
			return finish(prevBody + " " + strings.Join(replacePronouns(rest, topic), " "))
		}
		if len(topic) > 0 {
			if i, j := textproc.IndexFold(prevBody, strings.Join(topic, " ")); i >= 0 {
				return finish(prevBody[:i] + strings.Join(rest, " ") + prevBody[j:])
			}
		}
		return finish(prevBody + ", regarding " + strings.Join(rest, " "))
	}
	// A prepositional fragment is a constraint on the previous question.
	if prepositions[first] && !leadVerbs[first] {
		if out, ok := swapSubject(prevBody, words); ok {
			return finish(out)
		}
		return finish(prevBody + " " + strings.Join(replacePronouns(words, topic), " "))
	}
	// "what if ..." -> "What happens if ...".
	if len(words) > 1 && first == "what" && bare(words[1]) == "if" {
		words = append([]string{"what", "happens"}, words[1:]...)
	}
	return finish(strings.Join(replacePronouns(words, topic), " "))
}

// finish capitalises the first letter and ends the text with "?".
func finish(s string) string {
	s = strings.TrimSpace(body(s))
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:] + "?"
}

// topicOf returns the words of a question's topic: the first run of
// content words after its question words.
func topicOf(q string) []string {
	words := strings.Fields(body(q))
	i := 0
	for i < len(words) && (questionWords[bare(words[i])] || bare(words[i]) == "") {
		i++
	}
	var out []string
	for ; i < len(words); i++ {
		w := bare(words[i])
		if w == "" || textproc.IsStopWord(w) || questionWords[w] {
			break
		}
		out = append(out, strings.Trim(words[i], ",;:?!.\"'()"))
		if strings.ContainsAny(words[i], ",;:") {
			break
		}
	}
	return out
}

// antecedent renders the topic a pronoun stands for. A singular pronoun
// cannot stand for a plural head, so with "late payment penalties" it
// stands for the head of the modifier, "payment".
func antecedent(topic []string, plural bool) string {
	if len(topic) > 1 && !plural && isPlural(bare(topic[len(topic)-1])) {
		return topic[len(topic)-2]
	}
	return "the " + strings.Join(topic, " ")
}

// isPlural guesses whether an English noun is plural.
func isPlural(w string) bool {
	if len(w) < 4 || !strings.HasSuffix(w, "s") {
		return false
	}
	for _, suf := range []string{"ss", "us", "is", "ous"} {
		if strings.HasSuffix(w, suf) {
			return false
		}
	}
	return true
}

// replacePronouns substitutes the topic for pronouns that refer back.
func replacePronouns(words, topic []string) []string {
	if len(topic) == 0 {
		return words
	}
	out := make([]string, 0, len(words)+len(topic))
	for i, w := range words {
		lw := bare(w)
		next := ""
		if i+1 < len(words) {
			next = bare(words[i+1])
		}
		// Keep the word's trailing punctuation.
		tail := w[len(strings.TrimRightFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })):]
		var rep string
		switch lw {
		case "it":
			if !expletiveAfterIt[next] {
				rep = antecedent(topic, false)
			}
		case "they", "them":
			rep = antecedent(topic, true)
		case "these", "those":
			if next == "" || next == "are" || next == "were" || verbsAfterDemonstrative[next] {
				rep = antecedent(topic, true)
			}
		case "its":
			rep = antecedent(topic, false) + "'s"
		case "their":
			rep = antecedent(topic, true) + "'"
		case "this", "that":
			if next == "" || verbsAfterDemonstrative[next] {
				rep = antecedent(topic, false)
			}
		}
		if rep == "" {
			out = append(out, w)
			continue
		}
		out = append(out, rep+tail)
	}
	return out
}

// StageRewrite is the stage name of a follow-up's rewrite in a run's
// State.Notes and State.Usage.ByNode.
const StageRewrite = "rewrite"

// RewritePromptName is the name under which a run's prompt versions
// record the LLM rewriting prompt: not "rewrite", the retry's query
// rewrite (prompts.NameRewrite), which the same run may use too.
const RewritePromptName = "followup-rewrite"

// RewritePromptVersion is the version of the LLM rewriting prompt, recorded
// in the run's prompt versions as RewritePromptName.
const RewritePromptVersion = "rewrite/v1"

const rewriteSystemPrompt = `You rewrite a follow-up question from a conversation about a set of documents into one standalone question.
Use the earlier questions only to resolve pronouns, ellipsis and implied topics. Keep every constraint, number and date of the follow-up.
Do not answer the question and do not add facts. If the follow-up is already standalone, return it unchanged.
Reply with the standalone question only, on one line.`

// LLM is a FollowUpRewriter that asks a language model (any langchaingo
// llms.Model) for the standalone question. It reports token use with
// schema.RecordUsage and its prompt version with schema.RecordPromptVersion.
type LLM struct {
	// Model is the language model to call.
	Model llms.Model
	// Fallback, when set, rewrites the question when the model fails or
	// replies with nothing usable, a reply cut off at its token limit
	// included (Offline{} is a good choice), and the run is told why with a
	// note (schema.RecordNote, kept in State.Notes["rewrite"]); otherwise
	// the model's error is returned.
	Fallback FollowUpRewriter
	// Options are passed to every call (for example llms.WithModel).
	Options []llms.CallOption
	// MaxTurns bounds how many earlier questions are sent (default 5).
	MaxTurns int
	// ModelName names the model for cost estimates when its replies do
	// not.
	ModelName string
}

var _ FollowUpRewriter = (*LLM)(nil)

// Rewrite asks the model. With no earlier questions the question is
// returned unchanged without a call.
func (l *LLM) Rewrite(ctx context.Context, history []Turn, question string) (string, error) {
	q := strings.TrimSpace(question)
	if len(history) == 0 || q == "" {
		return q, nil
	}
	out, err := l.ask(ctx, history, q)
	if err != nil {
		if l.Fallback != nil {
			by := "the fallback rewriter's question"
			if _, ok := l.Fallback.(Offline); ok {
				by = "the rule-based rewrite"
			}
			schema.RecordNote(ctx, redact.String(err.Error())+"; used "+by+" instead")
			return l.Fallback.Rewrite(ctx, history, q)
		}
		return "", fmt.Errorf("rewrite follow-up question: %w", err)
	}
	return out, nil
}

func (l *LLM) ask(ctx context.Context, history []Turn, q string) (string, error) {
	if l.Model == nil {
		return "", errors.New("no language model configured")
	}
	maxTurns := l.MaxTurns
	if maxTurns <= 0 {
		maxTurns = 5
	}
	if len(history) > maxTurns {
		history = history[len(history)-maxTurns:]
	}
	var b strings.Builder
	b.WriteString("Earlier questions, oldest first:\n")
	for i, t := range history {
		fmt.Fprintf(&b, "%d. %s\n", i+1, t.standalone())
	}
	fmt.Fprintf(&b, "\nFollow-up question: %s\n\nStandalone question:", q)
	schema.RecordPromptVersion(ctx, RewritePromptName, RewritePromptVersion)
	resp, err := l.Model.GenerateContent(ctx, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, rewriteSystemPrompt),
		llms.TextParts(llms.ChatMessageTypeHuman, b.String()),
	}, l.Options...)
	if err != nil {
		return "", fmt.Errorf("model call failed: %w", err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return "", errors.New("the model returned no choices")
	}
	llm.RecordUsage(ctx, resp, l.ModelName)
	if te := llm.CutOff(resp, llm.MaxTokensOf(l.Options)); te != nil {
		// Half a question is not the question.
		return "", te
	}
	out := cleanRewrite(resp.Choices[0].Content)
	if out == "" {
		return "", fmt.Errorf("the model's reply %q holds no question", resp.Choices[0].Content)
	}
	return out, nil
}

// cleanRewrite takes the first non-empty line of a reply and strips labels
// and quotes.
func cleanRewrite(reply string) string {
	for _, line := range strings.Split(reply, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		if i := strings.Index(line, ":"); i >= 0 && strings.Contains(strings.ToLower(line[:i]), "question") {
			line = strings.TrimSpace(line[i+1:])
		}
		return strings.Trim(line, "\"'“”` ")
	}
	return ""
}
