package judge

import (
	"math"
	"slices"
	"sync"

	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

// DefaultMinConfidence is the least probability that the answer is right
// (Thresholds.MinConfidence) for it to be returned. `docmind eval
// calibrate` chooses it on the leave-one-domain-out figures of the
// development sets (see scripts/calibrate.sh and docs/decision.md) and
// writes it beside the fitted model.
const DefaultMinConfidence = calibrationThreshold

// baseSignals are the decision model's inputs that measure the answer as
// a whole, in [0,1]. None rewards the question's own words over a
// paraphrase (SQuAD's questions are written from their passage, users'
// are not; see docs/decision.md):
//
//	support            mean of the lowest and the average claim support
//	question_focus     weighted share of the question's focus terms the best
//	                   claim's passage addresses
//	claim_focus        the same share in the claim itself
//	key_term_coverage  weighted share of the question's key terms in the
//	                   supporting sections
//	min_idf_coverage   IDF-weighted support of the weakest claim
//	mean_idf_coverage  IDF-weighted support of the mean claim
//	novel_ratio        share of the answer's terms found in no section
//	min_support        lowest claim support
//	top_relevance      the best retrieved section's relevance score
//	claims             non-abstaining claims, capped at 3, scaled to 0-1
//	answering_share    share of the claims no detector fires on
//	lead_answers       1 when no detector fires on the first claim
//	phrase_overlap     share of the question's neighbouring content terms
//	                   the first claim states side by side
//	no_rule            1 when no rule of the model fires on the answer
//	no_rule_focus      no_rule times claim_focus: a clean answer that
//	                   states what the question asks
//	topic_focus        claim_focus of the first claim over the question's
//	                   focus terms that did not choose its document
//	                   (Section.NamedBy): what the question asks about the
//	                   document, not which document
//	lead_rank          1/(1+r), r the retrieval rank of the first claim's
//	                   section (0 without a section)
var baseSignals = []string{
	"support", "question_focus", "claim_focus", "key_term_coverage",
	"min_idf_coverage", "mean_idf_coverage", "novel_ratio", "min_support",
	"top_relevance", "claims", "answering_share", "lead_answers", "phrase_overlap",
	"no_rule", "no_rule_focus", "topic_focus", "lead_rank",
}

// answerRules are the judge's rules that are signals of the model (not
// vetoes), reported on the answer as a whole; claimRules those reported
// on its claims.
var (
	answerRules = []string{RuleUnaddressed, RuleUnanswered, RuleConflict}
	claimRules  = []string{RuleNumberUnstated, RuleSupport}
)

// ModelRules returns the rules that are inputs of the decision model, by
// name: every detector of package relevance that runs on a claim, and
// the judge's rules that are not vetoes. Each is a signal named by the
// rule's ID: the share of the answer's claims it fires on (1 or 0 for a
// rule about the answer as a whole).
var ModelRules = sync.OnceValue(func() []string {
	var out []string
	for _, d := range relevance.Detectors() {
		if d.Run != nil {
			out = append(out, d.Name)
		}
	}
	out = append(out, answerRules...)
	out = append(out, claimRules...)
	slices.Sort(out)
	return out
})

// DecisionSignals names the decision model's inputs, in the order
// DecisionInputs returns them: the answer's measures (baseSignals) and
// then one signal per rule (ModelRules).
func DecisionSignals() []string { return append(slices.Clone(baseSignals), ModelRules()...) }

// RuleWeight returns a rule's weight in the decision model: what firing
// on every claim adds to the log-odds that the answer is right (0 for a
// rule that is not an input, such as a veto).
func RuleWeight(rule string) float64 { return calibrationWeights[rule] }

// ShippedCalibration returns the decision model as this build ships it
// (calibration.go): the weights of DecisionSignals, the bias and the
// default threshold.
func ShippedCalibration() (weights []float64, bias, threshold float64) {
	for _, s := range DecisionSignals() {
		weights = append(weights, calibrationWeights[s])
	}
	return weights, calibrationBias, calibrationThreshold
}

// DecisionInputs returns the answer's signals (named by DecisionSignals),
// or nil when there is nothing to decide on: the relevance check did not
// run (an assessment without a question), or
// the answer is empty or only abstains.
func (a *Assessment) DecisionInputs() []float64 {
	if a.Frame == nil {
		return nil
	}
	n := 0
	fired := map[string]float64{}
	for _, c := range a.Claims {
		if c.Abstention {
			continue
		}
		n++
		seen := map[string]bool{}
		for _, f := range c.OffQuestion {
			seen[f.Rule] = true
		}
		for _, is := range enabled(c.Issues) {
			seen[is.RuleID()] = true
		}
		for r := range seen {
			fired[r]++
		}
	}
	if n == 0 {
		return nil
	}
	for r := range fired {
		fired[r] /= float64(n)
	}
	for _, is := range enabled(a.Issues) {
		fired[is.RuleID()] = 1
	}
	if relevance.Enabled(RuleConflict) && slices.ContainsFunc(a.Conflicts, func(c schema.Conflict) bool { return !c.Acknowledged }) {
		fired[RuleConflict] = 1
	}
	top := 0.0
	for _, s := range a.Sections {
		top = math.Max(top, s.RelevanceScore)
	}
	lead := 0.0
	if a.LeadAnswers {
		lead = 1
	}
	x := []float64{
		a.Confidence(), a.Focus, a.ClaimFocus, a.KeyTermCoverage,
		a.MinIDFCoverage, a.MeanIDFCoverage, a.NovelRatio, a.MinSupport,
		top, float64(min(n, 3)) / 3, a.AnsweringShare, lead, a.PhraseOverlap,
	}
	clean := 1.0
	var rules []float64
	for _, r := range ModelRules() {
		rules = append(rules, fired[r])
		if fired[r] > 0 {
			clean = 0
		}
	}
	rank := 0.0
	if a.LeadRank >= 0 {
		rank = 1 / float64(1+a.LeadRank)
	}
	x = append(x, clean, clean*a.ClaimFocus, a.TopicFocus, rank)
	return append(x, rules...)
}

// CalibratedConfidence returns the decision model's probability that the
// answer is right: a logistic model over DecisionInputs whose weights
// `docmind eval calibrate` fitted on the development sets of several
// domains (calibration.go); the claims' support (Confidence) when there
// is nothing to decide on.
func (a *Assessment) CalibratedConfidence() float64 {
	x := a.DecisionInputs()
	if x == nil {
		return a.Confidence()
	}
	z := calibrationBias
	for i, name := range DecisionSignals() {
		z += calibrationWeights[name] * x[i]
	}
	return math.Round(1000/(1+math.Exp(-z))) / 1000
}

// signals returns the decision signals by name, for the verdict (nil
// when there is nothing to decide on): every measure of the answer, and
// the rules that fired on it (a rule not listed did not fire).
func (a *Assessment) signals() map[string]float64 {
	x := a.DecisionInputs()
	if x == nil {
		return nil
	}
	m := make(map[string]float64, len(baseSignals))
	for i, name := range DecisionSignals() {
		if i < len(baseSignals) || x[i] != 0 {
			m[name] = math.Round(x[i]*1e6) / 1e6
		}
	}
	return m
}
