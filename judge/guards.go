package judge

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// The guards below are deterministic checks of an answer against its
// sources. The deterministic judge runs all of them; an LLM judge runs them
// on top of its own verdict (see ApplyGuards), so both modes share them.

// IssueKind names what a guard found.
type IssueKind string

// Issue kinds.
const (
	// IssueContradiction: the claim states a fact (number, percentage,
	// money, duration, date) that differs from the same kind of fact in its
	// evidence.
	IssueContradiction IssueKind = "contradiction"
	// IssueUnsupportedFact: the claim states a fact its evidence does not
	// state at all.
	IssueUnsupportedFact IssueKind = "unsupported_fact"
	// IssueBadCitation: a citation names no retrieved section (or the
	// wrong page).
	IssueBadCitation IssueKind = "bad_citation"
	// IssueQuoteNotFound: quoted text does not occur in the cited section.
	IssueQuoteNotFound IssueKind = "quote_not_found"
	// IssueUnsupported: no passage of the sections covers enough of the
	// claim's terms.
	IssueUnsupported IssueKind = "unsupported"
	// IssueUnaddressed: the sections the answer rests on do not mention
	// the question's key terms.
	IssueUnaddressed IssueKind = "unaddressed"
	// IssueAbstention: the answer says the documents do not answer.
	IssueAbstention IssueKind = "abstention"
	// IssueEmpty: the answer has no claim to check.
	IssueEmpty IssueKind = "empty"
)

// Issue is one finding. Claim is the index of the claim it concerns, or
// -1 for the answer as a whole.
type Issue struct {
	Kind   IssueKind
	Claim  int
	Detail string
	// Rule is the ID of the detector that found it (see rules.go); empty
	// means the kind's own rule (KindRule).
	Rule string
}

// RuleID returns the ID of the detector that found the issue.
func (i Issue) RuleID() string {
	if i.Rule != "" {
		return i.Rule
	}
	return KindRule(i.Kind)
}

// String renders the issue for a reader.
func (i Issue) String() string {
	if i.Claim < 0 {
		return i.Detail
	}
	return fmt.Sprintf("claim %d: %s", i.Claim+1, i.Detail)
}

// CheckCitations resolves each citation of c against sections and returns
// the indices of the sections cited (without duplicates) and a problem
// description for each citation that resolves to none. A citation by title
// and page names every retrieved section with that title and page: when
// several documents have one (the same contract as PDF and DOCX, two
// policies with a "Scope" on page 1), all of them count as cited.
func CheckCitations(c Claim, sections []schema.Section) (cited []int, problems []string) {
	seen := map[int]bool{}
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			cited = append(cited, i)
		}
	}
	for _, cit := range c.Citations {
		i, why := ResolveCitation(cit, sections)
		if i < 0 {
			problems = append(problems, why)
			continue
		}
		add(i)
		if cit.ID == "" {
			want := normTitle(cit.Title)
			for j := i + 1; j < len(sections); j++ {
				if titleMatches(want, sections[j].Title) && pageMatches(cit.Page, sections[j]) {
					add(j)
				}
			}
		}
	}
	return cited, problems
}

var reQuote = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?:^|[\s(])'([^']+)'(?:[\s).,;:!?]|$)`)

// Quotes returns the passages of text within quotation marks (straight or
// curly, double or single).
func Quotes(text string) []string {
	var out []string
	for _, m := range reQuote.FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if strings.TrimSpace(g) != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

// CheckQuotes returns the quoted passages of claim that occur in none of
// the evidence texts. Comparison ignores case, punctuation, white space
// and the kind of quotation mark (word tokens must appear in sequence).
func CheckQuotes(claim string, evidence ...string) []string {
	return missingPhrases(Quotes(claim), evidence)
}

// missingPhrases returns the phrases whose word tokens occur in sequence
// in none of texts (case, punctuation and white space ignored).
func missingPhrases(phrases, texts []string) []string {
	if len(phrases) == 0 {
		return nil
	}
	norm := make([]string, len(texts))
	for i, e := range texts {
		norm[i] = " " + strings.Join(textproc.Tokens(e), " ") + " "
	}
	var missing []string
	for _, q := range phrases {
		toks := textproc.Tokens(q)
		if len(toks) == 0 {
			continue
		}
		nq := " " + strings.Join(toks, " ") + " "
		if !slices.ContainsFunc(norm, func(e string) bool { return strings.Contains(e, nq) }) {
			missing = append(missing, q)
		}
	}
	return missing
}

// QuestionKeyTerms returns the key terms of a question: the
// decomposition's KeyTerms when present, otherwise question.KeyTerms of
// the query.
func QuestionKeyTerms(query string, d *schema.Decomposition) []string {
	if d != nil && len(d.KeyTerms) > 0 {
		return d.KeyTerms
	}
	return question.KeyTerms(query)
}

var reAbstention = regexp.MustCompile(`(?i)\b(?:` +
	`(?:do|does|did)\s+not\s+(?:address|mention|specify|state|contain|include|provide|say|cover|discuss|describe|answer)` +
	`|(?:is|are|was|were)\s+not\s+(?:mentioned|specified|stated|provided|addressed|covered|discussed|available|included|given|found)` +
	`|(?:no|not\s+(?:any|enough))\s+(?:relevant\s+)?(?:information|mention|details?|data|answer)` +
	`|(?:cannot|can\s*not|can't|unable\s+to)\s+(?:be\s+)?(?:determine|determined|find|found|answer|answered|provide|provided|confirm)` +
	`|not\s+possible\s+to\s+(?:determine|answer|say)` +
	`)\b`)

// IsAbstention reports whether a sentence says the documents do not answer
// the question ("The provided documents do not address this question.",
// "The passages do not mention the warranty period.").
func IsAbstention(sentence string) bool { return reAbstention.MatchString(sentence) }
