package judge

import (
	"math"
	"slices"
)

// DefaultMinConfidence is the least calibrated confidence for an answer to
// be returned (Thresholds.MinConfidence). It is chosen by `docmind eval
// calibrate` on the development sets together (see scripts/calibrate.sh
// and BENCHMARKS.md, "Confidence"), printed beside the fitted model.
const DefaultMinConfidence = calibrationThreshold

// CalibrationSignals names the signals of an answer that the calibrated
// confidence is estimated from, in the order CalibrationInputs returns
// them:
//
//	guard_confidence   the judge's guard confidence (claim support, citations)
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
//	exact_focus        question_focus with the question's own words only
//	max_missing_focus  the largest share of one focus term the best claim's
//	                   passage does not state in the question's words
//	answering_share    share of the claims that answer the question
//	lead_answers       1 when the first claim answers the question
//	phrase_overlap     share of the question's neighbouring content terms
//	                   the first claim states side by side
//	matched_terms      the question's distinct content terms the first
//	                   claim states, capped at 10, scaled to 0-1
//	question_terms     the question's distinct content terms, capped at 10,
//	                   scaled to 0-1 (how specific the question is)
func CalibrationSignals() []string { return slices.Clone(calibrationSignals) }

var calibrationSignals = []string{
	"guard_confidence", "question_focus", "claim_focus", "key_term_coverage",
	"min_idf_coverage", "mean_idf_coverage", "novel_ratio", "min_support",
	"top_relevance", "claims", "exact_focus", "max_missing_focus",
	"answering_share", "lead_answers", "phrase_overlap", "matched_terms",
	"question_terms",
}

// ShippedCalibration returns the calibrated confidence's model as this
// build ships it (calibration.go): the weights of CalibrationSignals, the
// bias and the default threshold.
func ShippedCalibration() (weights []float64, bias, threshold float64) {
	return slices.Clone(calibrationWeights), calibrationBias, calibrationThreshold
}

// CalibrationInputs returns the answer's calibration signals (named by
// CalibrationSignals), or nil when there is nothing to calibrate: the
// relevance check did not run (an assessment without a question, or with
// WithMinFocus(-1)), or the answer is empty or only abstains.
func (a *Assessment) CalibrationInputs() []float64 {
	if a.Frame == nil {
		return nil
	}
	n := 0
	for _, c := range a.Claims {
		if !c.Abstention {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	top := 0.0
	for _, s := range a.Sections {
		top = math.Max(top, s.RelevanceScore)
	}
	return []float64{
		a.Confidence(), a.Focus, a.ClaimFocus, a.KeyTermCoverage,
		a.MinIDFCoverage, a.MeanIDFCoverage, a.NovelRatio, a.MinSupport,
		top, float64(min(n, 3)) / 3, a.ExactFocus, a.MaxMissingFocus,
		a.AnsweringShare, b2f(a.LeadAnswers), a.PhraseOverlap,
		float64(min(a.MatchedTerms, 10)) / 10, float64(min(a.QuestionTerms, 10)) / 10,
	}
}

// CalibratedConfidence returns the estimated probability that the answer
// is correct: a logistic model over CalibrationInputs whose weights
// `docmind eval calibrate` fitted on the development sets (calibration.go),
// or the guard confidence when there is nothing to calibrate.
func (a *Assessment) CalibratedConfidence() float64 {
	x := a.CalibrationInputs()
	if x == nil {
		return a.Confidence()
	}
	z := calibrationBias
	for i, w := range calibrationWeights {
		z += w * x[i]
	}
	p := 1 / (1 + math.Exp(-z))
	return math.Round(p*1000) / 1000
}

// signals returns the calibration signals by name, for the verdict (nil
// when there is nothing to calibrate).
func (a *Assessment) signals() map[string]float64 {
	x := a.CalibrationInputs()
	if x == nil {
		return nil
	}
	m := make(map[string]float64, len(x))
	for i, name := range calibrationSignals {
		m[name] = math.Round(x[i]*1e6) / 1e6
	}
	return m
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
