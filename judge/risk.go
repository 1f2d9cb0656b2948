package judge

import "fmt"

// RiskScorer estimates the probability that an assessed answer is
// hallucinated and the probability from which it is judged so. Package
// judge/risk provides one: a logistic model over learned-risk features,
// computed only when a scorer is set.
type RiskScorer interface {
	Risk(a *Assessment) (probability, threshold float64, err error)
}

// IssueLearnedRisk: the risk scorer (WithRisk) gives the answer a
// hallucination probability at or above its threshold.
const IssueLearnedRisk IssueKind = "learned_risk"

// WithRisk makes the judge also reject an answer that the scorer gives a
// hallucination probability at or above its threshold. The pipeline's
// default judge sets none; risk.RAGTruthQA() is one trained for free-prose
// answers over retrieved passages.
func WithRisk(r RiskScorer) Option { return func(d *Offline) { d.risk = r } }

// riskIssue returns the learned-risk issue for a, if the judge has a
// scorer and it fires.
func (d *Offline) riskIssue(a *Assessment) []Issue {
	if d.risk == nil {
		return nil
	}
	p, threshold, err := d.risk.Risk(a)
	if err != nil {
		return []Issue{{Kind: IssueLearnedRisk, Claim: -1, Detail: "the risk model could not score the answer: " + err.Error()}}
	}
	if p < threshold {
		return nil
	}
	return []Issue{{Kind: IssueLearnedRisk, Claim: -1, Detail: fmt.Sprintf("the answer's signals (novel terms, support, citations) give a hallucination probability of %.2f, at or above %.2f", p, threshold)}}
}
