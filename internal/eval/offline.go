package eval

import (
	"context"
	"fmt"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

// DeterministicVariant is one decision rule of the deterministic judge.
type DeterministicVariant struct {
	Name  string
	Judge *judge.Offline
	// Learn makes the variant's candidate a learned one (see
	// Candidate.Learn): its verdicts give the claim spans, a risk model
	// trained per fold gives the response decision.
	Learn bool
}

// RunDeterministicSweep scores every response once with scorer
// (judge.Offline.Score) and decides with every variant
// (judge.Offline.Decide), which is much cheaper than running each
// variant as a judge. Variants may differ only in what Decide reads from
// the judge (MinConfidence, WithMaxNovelTerms); scoring options come from
// scorer.
func RunDeterministicSweep(ctx context.Context, scorer *judge.Offline, variants []DeterministicVariant, sources []RAGTruthSource, opts JudgeRunOptions) ([]Candidate, error) {
	if len(variants) == 0 {
		return nil, fmt.Errorf("deterministic sweep: no variants")
	}
	out, err := runMulti(ctx, len(variants), func(ctx context.Context, req schema.JudgeRequest) ([]*schema.Verdict, []float64, error) {
		a, err := scorer.Score(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		vs := make([]*schema.Verdict, len(variants))
		for i, v := range variants {
			vs[i] = v.Judge.Decide(a)
		}
		return vs, riskFeatures(a), nil
	}, sources, opts)
	if err != nil {
		return nil, err
	}
	cands := make([]Candidate, len(variants))
	for i, v := range variants {
		cands[i] = Candidate{Name: v.Name, Outcomes: out[i], Learn: v.Learn}
	}
	return cands, nil
}

// BenchmarkThresholds are the deterministic judge's thresholds for
// hallucination benchmarks: no per-claim support, key-term or confidence
// floor (free-prose answers over long passages fail those for reasons
// other than hallucination), so that contradictions and novel content
// decide.
func BenchmarkThresholds() judge.Thresholds {
	t := judge.DefaultThresholds()
	t.Support, t.KeyTermCoverage, t.MinConfidence = 0, 0, 0
	return t
}

// NovelTermGrid is the range of WithMaxNovelTerms limits offered to
// cross-validation.
var NovelTermGrid = func() []int {
	var g []int
	for n := 0; n <= 40; n++ {
		g = append(g, n)
	}
	return g
}()

// LearnedCandidate names the offline candidate whose decision is a
// logistic model over riskFeatureNames trained per fold; its claim spans
// are the claims carrying novel terms (WithMaxNovelTerms(0)).
const LearnedCandidate = "logistic"

// OfflineJudgeCandidates returns the scorer and the variants that
// cross-validation chooses from for the offline judge: the benchmark
// thresholds, abstentions accepted; the learned candidate
// (LearnedCandidate), and every novel-term limit in NovelTermGrid (plus
// "off").
func OfflineJudgeCandidates(factChecks bool) (*judge.Offline, []DeterministicVariant) {
	base := []judge.Option{judge.WithThresholds(BenchmarkThresholds()), judge.WithRejectAbstentions(false), judge.WithFactChecks(factChecks)}
	scorer := judge.NewOffline(base...)
	variants := []DeterministicVariant{
		{Name: LearnedCandidate, Judge: judge.NewOffline(append(base, judge.WithMaxNovelTerms(0))...), Learn: true},
		{Name: "novel-off", Judge: scorer},
	}
	for _, n := range NovelTermGrid {
		variants = append(variants, DeterministicVariant{
			Name:  fmt.Sprintf("max-novel-terms=%d", n),
			Judge: judge.NewOffline(append(base, judge.WithMaxNovelTerms(n))...),
		})
	}
	return scorer, variants
}

// OfflineSweep computes the candidates for `docmind eval judge` with the
// offline judge: first the pipeline's default deterministic judge as
// configured, then the OfflineJudgeCandidates variants (fact checks on)
// for cross-validation.
func OfflineSweep(ctx context.Context, sources []RAGTruthSource, opts JudgeRunOptions) ([]Candidate, error) {
	def, err := RunJudge(ctx, judge.NewOffline(), sources, opts)
	if err != nil {
		return nil, err
	}
	scorer, variants := OfflineJudgeCandidates(true)
	cands, err := RunDeterministicSweep(ctx, scorer, variants, sources, opts)
	if err != nil {
		return nil, err
	}
	return append([]Candidate{{Name: "deterministic (pipeline defaults)", Outcomes: def}}, cands...), nil
}
