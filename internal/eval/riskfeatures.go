package eval

import (
	"math"
	"regexp"
	"strings"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// The RAGTruth learned candidate's features (riskFeatures), in order:
// free-prose answers over long passages, which the offline decision
// model's signals do not describe (novel numbers and names, miscited
// passages). Every feature is computed from the answer, the question and
// the sections only. They are benchmark code: no judge decision reads
// them.
var riskFeatureNames = []string{
	"claims",            // ln(1 + non-abstaining claims)
	"min_support",       // lowest claim support (share of terms in the best window)
	"mean_support",      // mean claim support
	"min_idf_coverage",  // lowest IDF-weighted share of a claim's terms in its best window
	"mean_idf_coverage", // mean of the same
	"novel_terms",       // ln(1 + distinct answer terms found in no section nor the question)
	"novel_ratio",       // novel terms / distinct answer terms
	"max_claim_novel",   // ln(1 + most novel terms in one claim)
	"novel_numbers",     // ln(1 + numbers the context does not contain)
	"novel_names",       // ln(1 + capitalised words, not sentence-initial, found in no section nor the question)
	"novel_bigrams",     // share of adjacent term pairs of the answer never near each other in a context sentence
	"contradictions",    // claims with a contradicted fact
	"unstated_facts",    // claims with a fact the evidence does not state
	"abstains",          // 1 when some sentence says the documents do not answer
	"key_term_coverage", // weighted share of the question's key terms in the supporting sections
	"length",            // ln(1 + distinct answer terms)
	"long_novel",        // ln(1 + novel terms whose stem has at least 7 letters: rarer words)
	"novel_claims",      // share of claims with at least one novel term
	"max_claim_ratio",   // highest share of novel terms in one claim
	"miscited",          // claims naming a source ("Passage 2") whose text supports them clearly less than another section's
	"outside_knowledge", // sentences admitting content from outside the sources ("not explicitly mentioned", "general knowledge")
}

var (
	reNumber = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	reName   = regexp.MustCompile(`\b[A-Z][\p{L}'’-]+`)
	// reOutside matches an answer admitting it goes beyond its sources.
	reOutside = regexp.MustCompile(`(?i)\b(?:not\s+(?:explicitly|directly|specifically)\s+(?:mentioned|stated|provided|discussed)|general\s+knowledge|my\s+(?:own\s+)?knowledge|(?:is|are)\s+not\s+(?:mentioned|stated|provided)\s+in\s+the\s+(?:given\s+|provided\s+)?(?:passage|document|context|text)s?|however,?\s+(?:it\s+is|it's)\s+(?:generally|commonly|widely))`)
)

// riskContext is what the features need to know about the sections
// beyond what the judge's assessment holds.
type riskContext struct {
	known   map[string]bool    // stemmed terms of the question, titles and contents
	near    map[[2]string]bool // unordered term pairs at most two terms apart in a sentence
	numbers map[string]bool    // numbers written in the sections or the question, digits only
}

func buildRiskContext(query string, sections []schema.Section) *riskContext {
	ci := &riskContext{known: judge.KnownTerms(query, sections), near: map[[2]string]bool{}, numbers: map[string]bool{}}
	addNumbers(ci.numbers, query)
	for _, s := range sections {
		addNumbers(ci.numbers, s.Title+" "+s.Content)
		for _, sent := range textproc.AnswerSentences(s.Content) {
			ts := textproc.Terms(sent)
			for a := range ts {
				for b := a + 1; b <= a+2 && b < len(ts); b++ {
					ci.near[pairKey(ts[a], ts[b])] = true
				}
			}
		}
	}
	return ci
}

func addNumbers(set map[string]bool, text string) {
	for _, n := range reNumber.FindAllString(text, -1) {
		set[normNumber(n)] = true
	}
}

func normNumber(n string) string { return strings.TrimRight(strings.ReplaceAll(n, ",", ""), ".") }

func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// novelNumbers counts the distinct numbers of text the context lacks.
func (ci *riskContext) novelNumbers(text string) int {
	seen := map[string]bool{}
	for _, n := range reNumber.FindAllString(text, -1) {
		k := normNumber(n)
		if !ci.numbers[k] && !seen[k] {
			seen[k] = true
		}
	}
	return len(seen)
}

// novelNames counts the distinct capitalised words of text, other than a
// sentence's first word, whose stem the context and question lack.
func (ci *riskContext) novelNames(text string) int {
	seen := map[string]bool{}
	for _, loc := range reName.FindAllStringIndex(text, -1) {
		before := strings.TrimRight(text[:loc[0]], " \t\n\"'“(")
		if before == "" || strings.HasSuffix(before, ".") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "!") || strings.HasSuffix(before, "?") {
			continue
		}
		for _, t := range textproc.Terms(text[loc[0]:loc[1]]) {
			if !ci.known[t] && !judge.IsAnswerWord(t) && !seen[t] {
				seen[t] = true
			}
		}
	}
	return len(seen)
}

// bigramCounts returns how many adjacent term pairs text has and how many
// of them are never near each other in a context sentence.
func (ci *riskContext) bigramCounts(text string) (novel, total int) {
	ts := textproc.Terms(text)
	for i := 0; i+1 < len(ts); i++ {
		if judge.IsAnswerWord(ts[i]) || judge.IsAnswerWord(ts[i+1]) {
			continue
		}
		total++
		if !ci.near[pairKey(ts[i], ts[i+1])] {
			novel++
		}
	}
	return novel, total
}

// riskFeatures returns the answer's learned-risk features, named by Names, in
// order. Every feature is computed from the assessment: the answer, the
// question and the sections.
func riskFeatures(a *judge.Assessment) []float64 {
	ci := buildRiskContext(a.Query, a.Sections)
	f := make([]float64, len(riskFeatureNames))
	n := 0
	minS, minI := 1.0, 1.0
	var sumS, sumI float64
	novelClaims, maxRatio := 0, 0.0
	maxNovel, numbers, names, bgNovel, bgTotal, contra, unstated := 0, 0, 0, 0, 0, 0, 0
	abstains := 0.0
	answerTerms := map[string]bool{}
	for _, c := range a.Claims {
		if c.Abstention {
			abstains = 1
			continue
		}
		n++
		sumS += c.Support
		minS = math.Min(minS, c.Support)
		cov := a.IDFCoverage(c.Claim.Text, c.Passage)
		sumI += cov
		minI = math.Min(minI, cov)
		maxNovel = max(maxNovel, len(c.NovelTerms))
		if len(c.NovelTerms) > 0 {
			novelClaims++
			if ct := len(judge.ClaimTerms(c.Claim.Text)); ct > 0 {
				maxRatio = math.Max(maxRatio, float64(len(c.NovelTerms))/float64(ct))
			}
		}
		text := judge.AnswerText(c.Claim.Text)
		numbers += ci.novelNumbers(text)
		names += ci.novelNames(text)
		nb, tb := ci.bigramCounts(text)
		bgNovel, bgTotal = bgNovel+nb, bgTotal+tb
		hasContra, hasUnstated := false, false
		for _, m := range c.Mismatches {
			if m.Contradiction() {
				hasContra = true
			} else {
				hasUnstated = true
			}
		}
		contra += b2i(hasContra)
		unstated += b2i(hasUnstated)
		for _, t := range judge.ClaimTerms(text) {
			if !judge.IsAnswerWord(t) {
				answerTerms[t] = true
			}
		}
	}
	if n == 0 {
		minS, minI = 1, 1
	}
	f[0] = math.Log1p(float64(n))
	f[1], f[3] = minS, minI
	if n > 0 {
		f[2], f[4] = sumS/float64(n), sumI/float64(n)
	} else {
		f[2], f[4] = 1, 1
	}
	f[5] = math.Log1p(float64(len(a.NovelTerms)))
	if len(answerTerms) > 0 {
		f[6] = float64(len(a.NovelTerms)) / float64(len(answerTerms))
	}
	f[7] = math.Log1p(float64(maxNovel))
	f[8] = math.Log1p(float64(numbers))
	f[9] = math.Log1p(float64(names))
	if bgTotal > 0 {
		f[10] = float64(bgNovel) / float64(bgTotal)
	}
	f[11], f[12] = float64(contra), float64(unstated)
	f[13] = abstains
	f[14] = a.KeyTermCoverage
	f[15] = math.Log1p(float64(len(answerTerms)))
	long := 0
	for _, t := range a.NovelTerms {
		if len(t) >= 7 {
			long++
		}
	}
	f[16] = math.Log1p(float64(long))
	if n > 0 {
		f[17] = float64(novelClaims) / float64(n)
	}
	f[18] = math.Min(maxRatio, 1)
	miscited, outside := 0, 0
	for _, c := range a.Claims {
		if reOutside.MatchString(c.Claim.Text) {
			outside++
		}
		if !c.Abstention && isMiscited(a, c) {
			miscited++
		}
	}
	f[19] = math.Log1p(float64(miscited))
	f[20] = math.Log1p(float64(outside))
	return f
}

// isMiscited reports whether the claim names sources (judge.NamedSources)
// whose best window covers at least a quarter fewer of its terms than its
// best passage elsewhere, while that passage supports it well.
func isMiscited(a *judge.Assessment, c judge.ClaimAssessment) bool {
	cited := judge.NamedSources(c.Claim.Text, a.Sections)
	if len(cited) == 0 || c.Section < 0 || c.Support < 0.5 {
		return false
	}
	for _, i := range cited {
		if i == c.Section {
			return false
		}
	}
	text := judge.WithoutSourceRefs(c.Claim.Text)
	best := 0.0
	for _, i := range cited {
		best = math.Max(best, a.IDFCoverage(text, a.Sections[i].Title+"\n"+a.Sections[i].Content))
	}
	return a.IDFCoverage(text, c.Passage)-best >= 0.25
}
