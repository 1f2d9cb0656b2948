package judge

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// IssueNovelContent: the answer introduces more distinct content terms
// that occur in no section (nor in the question) than the judge allows
// (WithMaxNovelTerms). It catches added, unsupported elaboration that a
// per-claim support ratio misses: many claims each a little unsupported.
const IssueNovelContent IssueKind = "novel_content"

// WithMaxNovelTerms makes an answer with more than n novel terms (see
// NovelTerms) not grounded. n < 0, the default, turns the check off; the
// pipeline's default judge does not use it. It is meant for answers
// written in free prose over long passages (benchmarks such as
// RAGTruth), where unsupported additions rarely contradict a number.
func WithMaxNovelTerms(n int) Option { return func(d *Offline) { d.maxNovel = n } }

// answerWords are words an answer uses to talk about its sources rather
// than to state facts; they are never counted as novel. Edit internal/wordlists/answer.txt.
var answerWords = textproc.StemSet(wordlists.Words("answer"))

// listMarker matches a leading list number or bullet ("3. ", "* ");
// sourceRef a reference to a numbered source ("Passage 2", "passages 1
// and 3").
var (
	listMarker = regexp.MustCompile(`^\s*(?:\d{1,2}[.)]|[*+•-])\s+`)
	sourceRef  = regexp.MustCompile(`(?i)\b(?:passage|document|section|source)s?\s+\d+(?:\s*(?:,|&|and)\s*\d+)*`)
)

// KnownTerms returns the stemmed terms of the query and of every
// section's title and content: what an answer may mention without
// introducing anything new.
func KnownTerms(query string, sections []schema.Section) map[string]bool {
	known := map[string]bool{}
	for _, t := range textproc.Terms(query) {
		known[t] = true
	}
	for _, s := range sections {
		for _, t := range textproc.Terms(s.Title) {
			known[t] = true
		}
		for _, t := range textproc.Terms(s.Content) {
			known[t] = true
		}
	}
	return known
}

// NovelTerms returns the distinct stemmed terms of text that known does
// not contain, ignoring leading list markers, references to numbered sources and words answers use to
// refer to their sources ("passage", "provided", ...). Sorted.
func NovelTerms(text string, known map[string]bool) []string {
	text = sourceRef.ReplaceAllString(listMarker.ReplaceAllString(text, ""), "")
	var out []string
	for _, t := range textproc.Terms(text) {
		if !known[t] && !answerWords[t] {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// scoreNovelty fills the claims' and the answer's novel terms.
func scoreNovelty(a *Assessment, known map[string]bool) {
	a.NovelTerms = nil
	for i := range a.Claims {
		c := &a.Claims[i]
		if c.Abstention {
			continue
		}
		c.NovelTerms = NovelTerms(c.Claim.Text, known)
		a.NovelTerms = append(a.NovelTerms, c.NovelTerms...)
	}
	slices.Sort(a.NovelTerms)
	a.NovelTerms = slices.Compact(a.NovelTerms)
}

// noveltyIssues returns the issues WithMaxNovelTerms raises: one per
// claim carrying at least two novel terms (or the claim with the most),
// when the answer as a whole has more than max.
func noveltyIssues(a *Assessment, max int) []Issue {
	if max < 0 || len(a.NovelTerms) <= max {
		return nil
	}
	var out []Issue
	top, topN := -1, 0
	for i, c := range a.Claims {
		if n := len(c.NovelTerms); n > topN {
			top, topN = i, n
		}
		if len(c.NovelTerms) >= 2 {
			out = append(out, Issue{Kind: IssueNovelContent, Claim: i, Detail: novelDetail(c.NovelTerms, len(a.NovelTerms), max)})
		}
	}
	if len(out) == 0 && top >= 0 {
		out = append(out, Issue{Kind: IssueNovelContent, Claim: top, Detail: novelDetail(a.Claims[top].NovelTerms, len(a.NovelTerms), max)})
	}
	return out
}

func novelDetail(terms []string, total, max int) string {
	shown := terms[:min(len(terms), 5)]
	return fmt.Sprintf("introduces terms found in no section (%s); the answer has %d such terms, more than %d", strings.Join(shown, ", "), total, max)
}
