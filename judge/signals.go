package judge

import (
	"math"
	"regexp"
	"strings"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// contextIndex is what the answer-level signals need to know about the
// sections.
type contextIndex struct {
	known  map[string]bool    // stemmed terms of the question, titles and contents
	idf    map[string]float64 // by sentence document frequency
	maxIDF float64            // the IDF of a term in no sentence
}

func buildContextIndex(query string, sections []schema.Section, prep []preparedSection) *contextIndex {
	ci := &contextIndex{known: KnownTerms(query, sections), idf: map[string]float64{}}
	df := map[string]int{}
	n := 0
	for _, p := range prep {
		for _, m := range p.terms {
			n++
			for t := range m {
				df[t]++
			}
		}
	}
	for t, d := range df {
		ci.idf[t] = math.Log((float64(n) + 1) / (float64(d) + 0.5))
	}
	ci.maxIDF = math.Log((float64(n) + 1) / 0.5)
	return ci
}

func (ci *contextIndex) termIDF(t string) float64 {
	if v, ok := ci.idf[t]; ok {
		return v
	}
	return ci.maxIDF
}

// idfCoverage returns the IDF-weighted share of the claim's terms found in
// the passage: a rare term the passage lacks costs more than a common one.
func (ci *contextIndex) idfCoverage(claim, passage string) float64 {
	terms := claimTerms(claim)
	if len(terms) == 0 {
		return 1
	}
	in := textproc.TermSet(passage)
	var got, total float64
	for _, t := range terms {
		w := ci.termIDF(t)
		total += w
		if in[t] {
			got += w
		}
	}
	if total == 0 {
		return 1
	}
	return got / total
}

// IDFCoverage returns the IDF-weighted share of the claim's terms (see
// ClaimTerms) that passage contains, the IDF taken over the sentences of
// the assessed sections: a rare term the passage lacks costs more than a
// common one. 1 for a claim without terms; 0 for an assessment Score did
// not finish.
func (a *Assessment) IDFCoverage(claim, passage string) float64 {
	if a.ci == nil {
		return 0
	}
	return a.ci.idfCoverage(claim, passage)
}

// scoreSignals fills the answer-level support and novelty signals the
// calibrated confidence uses.
func scoreSignals(a *Assessment, ci *contextIndex) {
	a.ci = ci
	scoreNovelty(a, ci.known)
	n := 0
	minS, minI := 1.0, 1.0
	var sumI float64
	answerTerms := map[string]bool{}
	for _, c := range a.Claims {
		if c.Abstention {
			continue
		}
		n++
		minS = math.Min(minS, c.Support)
		cov := ci.idfCoverage(c.Claim.Text, c.Passage)
		sumI += cov
		minI = math.Min(minI, cov)
		for _, t := range claimTerms(AnswerText(c.Claim.Text)) {
			if !answerWords[t] {
				answerTerms[t] = true
			}
		}
	}
	a.MinSupport, a.MinIDFCoverage, a.MeanIDFCoverage = minS, minI, 1
	if n > 0 {
		a.MeanIDFCoverage = sumI / float64(n)
	}
	a.NovelRatio = 0
	if len(answerTerms) > 0 {
		a.NovelRatio = float64(len(a.NovelTerms)) / float64(len(answerTerms))
	}
}

// ClaimTerms returns the distinct stemmed content terms of a claim,
// without words that frame a statement rather than carry its content
// ("according to the passages").
func ClaimTerms(claim string) []string { return claimTerms(claim) }

// IsAnswerWord reports whether a stemmed term is a word answers use to
// talk about their sources ("passage", "provided") rather than to state
// facts; such words are never novel.
func IsAnswerWord(stem string) bool { return answerWords[stem] }

// AnswerText returns a claim's text without a leading list marker ("3. ")
// and references to numbered sources ("Passage 2"): what it states.
func AnswerText(claim string) string {
	return sourceRef.ReplaceAllString(listMarker.ReplaceAllString(claim, ""), "")
}

// WithoutSourceRefs returns text without references to numbered sources
// ("Passage 2", "passages 1 and 3").
func WithoutSourceRefs(text string) string { return sourceRef.ReplaceAllString(text, "") }

var reRefNum = regexp.MustCompile(`\d+`)

// NamedSources returns the indices of the sections a claim names in prose
// ("Passage 2", "passages 1 and 3"): sections titled that way.
func NamedSources(claim string, sections []schema.Section) []int {
	var out []int
	for _, ref := range sourceRef.FindAllString(claim, -1) {
		word := strings.ToLower(strings.TrimRight(strings.Fields(ref)[0], "sS"))
		for _, num := range reRefNum.FindAllString(ref, -1) {
			want := normTitle(word + " " + num)
			for i, s := range sections {
				if normTitle(s.Title) == want {
					out = append(out, i)
				}
			}
		}
	}
	return out
}
