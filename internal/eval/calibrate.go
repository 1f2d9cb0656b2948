package eval

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// CalibrationSet is one development set: the results of an `eval qa
// --min-confidence 0 --json` run (every answer the judge's guards accept
// is returned, with its calibration signals).
type CalibrationSet struct {
	Name    string
	Results []QAResult
}

// LoadCalibrationSet reads an `eval qa --json` report; the set is named
// after the file.
func LoadCalibrationSet(path string) (CalibrationSet, error) {
	rep, err := LoadQAReport(path)
	if err != nil {
		return CalibrationSet{}, fmt.Errorf("calibration set: %w", err) // err names the path
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return CalibrationSet{Name: name, Results: rep.Results}, nil
}

// CalibrationOptions tune FitCalibration.
type CalibrationOptions struct {
	// L2 is the ridge penalty on the weights (not the bias) against the
	// mean log loss; 0 means DefaultCalibrationL2.
	L2 float64
	// WrongCost is what a wrong answer costs against a correct one
	// (worth 1) and a refusal (worth 0) when the threshold is chosen;
	// 0 means DefaultWrongCost.
	WrongCost float64
}

const (
	// DefaultCalibrationL2 keeps the weights of correlated signals small.
	DefaultCalibrationL2 = 0.001
	// DefaultWrongCost: a confident wrong answer costs twice what a
	// correct one gains; a refusal costs nothing but the answer it
	// withholds.
	DefaultWrongCost = 2.0
)

// Calibration is a fitted logistic model of the probability that an
// answer the judge's guards accept is correct, and the confidence
// threshold chosen with it.
type Calibration struct {
	Signals   []string  `json:"signals"`
	Weights   []float64 `json:"weights"`
	Bias      float64   `json:"bias"`
	WrongCost float64   `json:"wrong_cost"`
	// Threshold maximises the mean over the sets of the utility per
	// question: (correct - WrongCost * wrong) / questions.
	Threshold float64 `json:"threshold"`
	// HeldOutThreshold maximises the same mean over the domains, each
	// scored by the model fitted without it (LeaveOneDomainOut); 0 with
	// fewer than two domains.
	HeldOutThreshold float64 `json:"held_out_threshold,omitempty"`
	// Shipped is true when the model was not fitted but reported as a
	// build ships it (ShippedCalibration).
	Shipped bool `json:"shipped"`
	// Sets report each set at every candidate threshold.
	Sets []CalibrationSetReport `json:"sets"`
	// Domains are the leave-one-domain-out figures (LeaveOneDomainOut),
	// when the sets fall in two domains or more.
	Domains []DomainHoldout `json:"leave_one_domain_out,omitempty"`
}

// CalibrationSetReport is one set's figures at each candidate threshold.
type CalibrationSetReport struct {
	Name       string `json:"name"`
	Questions  int    `json:"questions"`
	Answerable int    `json:"answerable"`
	Samples    int    `json:"samples"` // answers with signals
	// AURC is the area under the set's risk–coverage curve (as eval qa
	// computes it, over all the set's questions) with the model's
	// confidences: how well the model ranks the answers, whatever the
	// threshold.
	AURC   float64          `json:"aurc"`
	Points []ThresholdPoint `json:"points"`
	// Separation is, per signal and for the model's confidence
	// ("confidence"), how well it tells the set's right answers from its
	// wrong ones: the probability that a right answer scores higher than
	// a wrong one (ties count half; the area under the ROC curve). 0.5 is
	// no separation, under 0.5 a signal that marks wrong answers. Absent
	// when the set has no right or no wrong answer with signals.
	Separation map[string]float64 `json:"separation,omitempty"`
}

// ThresholdPoint is a set's outcome when answers under Threshold are
// refused.
type ThresholdPoint struct {
	Threshold         float64 `json:"threshold"`
	Answered          int     `json:"answered"`
	Correct           int     `json:"correct"`
	AnsweredAccuracy  float64 `json:"answered_accuracy"`
	AnswerableCorrect float64 `json:"answerable_correct"`
	Utility           float64 `json:"utility"`
}

// CalibrationThresholds are the thresholds FitCalibration chooses from.
var CalibrationThresholds = func() []float64 {
	var ts []float64
	for i := 0; i <= 19; i++ {
		ts = append(ts, float64(i)/20)
	}
	return ts
}()

// FitCalibration fits the calibration over the named signals on the sets,
// each set weighing the same whatever its size: answered results with
// signals are the samples, labelled by Correct (FitLogistic).
// Results without signals (refused
// by a guard, or judged without a calibration) are not samples but count
// as questions for the threshold table.
func FitCalibration(sets []CalibrationSet, signals []string, opts CalibrationOptions) (*Calibration, error) {
	if len(sets) == 0 {
		return nil, errors.New("calibration: no sets")
	}
	if opts.L2 <= 0 {
		opts.L2 = DefaultCalibrationL2
	}
	if opts.WrongCost <= 0 {
		opts.WrongCost = DefaultWrongCost
	}
	var xs [][]float64
	var ys []bool
	var ws []float64
	samples := make([]int, len(sets))
	for i, s := range sets {
		x, y, err := s.samples(signals)
		if err != nil {
			return nil, err
		}
		xs, ys = append(xs, x...), append(ys, y...)
		samples[i] = len(x)
		// each set weighs the same (FitLogistic normalises the weights)
		for range samples[i] {
			ws = append(ws, 1/float64(samples[i]))
		}
	}
	w, b, err := fitRules(xs, ys, ws, signals, opts.L2)
	if err != nil {
		return nil, err
	}
	c := &Calibration{Signals: signals, Weights: w, Bias: b, WrongCost: opts.WrongCost}
	utility := make([]float64, len(CalibrationThresholds))
	for i, s := range sets {
		rep := c.setReport(s, samples[i])
		for k, p := range rep.Points {
			utility[k] += p.Utility / float64(len(sets))
		}
		c.Sets = append(c.Sets, rep)
	}
	c.Threshold = bestThreshold(utility)
	return c, nil
}

// bestThreshold returns the threshold (of CalibrationThresholds) whose
// utility, averaged with its neighbours' (one on each side), is highest:
// the utility at one threshold moves by a question or two from one fit
// to the next, and a choice by a single point follows that noise (it
// moved the held-out choice between 0.55 and 0.65 on curves that differ
// there by 0.002; docs/decision.md, "Threshold"). The first of equals
// wins.
func bestThreshold(utility []float64) float64 {
	best, at := math.Inf(-1), 0
	for k := range utility {
		lo, hi := max(k-1, 0), min(k+2, len(utility))
		mean := 0.0
		for _, u := range utility[lo:hi] {
			mean += u / float64(hi-lo)
		}
		if mean > best+1e-12 {
			best, at = mean, k
		}
	}
	return CalibrationThresholds[at]
}

// fitRules fits the logistic model with the weight of every rule signal
// (a name with a dot, "period.unstated") at most 0: a rule is evidence
// that an answer is wrong, never that it is right. A rule the free fit
// gives a positive weight is left out (its weight 0) and the model fitted
// again, until no rule weighs more than 0; such a rule does not pay.
func fitRules(xs [][]float64, ys []bool, ws []float64, signals []string, l2 float64) ([]float64, float64, error) {
	out := make([]bool, len(signals))
	for {
		in := xs
		if slices.Contains(out, true) {
			in = make([][]float64, len(xs))
			for i, x := range xs {
				in[i] = slices.Clone(x)
				for k := range x {
					if out[k] {
						in[i][k] = 0
					}
				}
			}
		}
		w, b, err := FitLogistic(in, ys, ws, l2, 100)
		if err != nil {
			return nil, 0, fmt.Errorf("calibration: %w", err)
		}
		more := false
		for k, name := range signals {
			if out[k] {
				w[k] = 0
			} else if strings.Contains(name, ".") && w[k] > 0 {
				out[k], more = true, true
			}
		}
		if !more {
			return w, b, nil
		}
	}
}

// ShippedCalibration reports an existing model (the judge's shipped
// weights, bias and threshold) on the sets without fitting, with the
// figures FitCalibration reports for a fitted one: what the sets score
// under it at every threshold, and its AURC on each.
func ShippedCalibration(sets []CalibrationSet, signals []string, weights []float64, bias, threshold, wrongCost float64) (*Calibration, error) {
	if len(sets) == 0 {
		return nil, errors.New("calibration: no sets")
	}
	if len(weights) != len(signals) {
		return nil, fmt.Errorf("calibration: %d weights for %d signals", len(weights), len(signals))
	}
	if wrongCost <= 0 {
		wrongCost = DefaultWrongCost
	}
	c := &Calibration{Signals: signals, Weights: weights, Bias: bias, WrongCost: wrongCost, Threshold: threshold, Shipped: true}
	for _, s := range sets {
		xs, _, err := s.samples(signals)
		if err != nil {
			return nil, err
		}
		c.Sets = append(c.Sets, c.setReport(s, len(xs)))
	}
	return c, nil
}

// samples returns the set's answered results that carry signals, as the
// named signals' values and whether each answer is correct. A result that
// lacks one of the signals, or a set with no such result, is an error.
func (s CalibrationSet) samples(signals []string) ([][]float64, []bool, error) {
	var xs [][]float64
	var ys []bool
	for _, r := range s.Results {
		if !r.Answered || r.Signals == nil {
			continue
		}
		x := make([]float64, len(signals))
		for k, name := range signals {
			v, ok := r.Signals[name]
			if !ok && strings.Contains(name, ".") {
				continue // a rule that did not fire (judge.DecisionSignals)
			}
			if !ok {
				return nil, nil, fmt.Errorf("calibration: set %s, question %s: no signal %q (a report from another version?)", s.Name, r.ID, name)
			}
			x[k] = v
		}
		xs, ys = append(xs, x), append(ys, r.Correct)
	}
	if len(xs) == 0 {
		return nil, nil, fmt.Errorf("calibration: set %s has no answers with signals (was it run offline with --min-confidence 0?)", s.Name)
	}
	return xs, ys, nil
}

// Probability is the calibrated confidence of signals x, rounded as the
// judge rounds it.
func (c *Calibration) Probability(x []float64) float64 {
	z := c.Bias
	for i, w := range c.Weights {
		z += w * x[i]
	}
	return math.Round(1000/(1+math.Exp(-z))) / 1000
}

func (c *Calibration) setReport(s CalibrationSet, samples int) CalibrationSetReport {
	rep := CalibrationSetReport{Name: s.Name, Questions: len(s.Results), Samples: samples}
	// the results as the model scores them: an answer's confidence is
	// the model's probability
	rescored := make([]QAResult, 0, len(s.Results))
	for _, r := range s.Results {
		if r.Answerable {
			rep.Answerable++
		}
		if !r.Answered {
			rescored = append(rescored, QAResult{})
			continue
		}
		p := r.Confidence // no signals: the judge's own confidence
		if r.Signals != nil {
			x := make([]float64, len(c.Signals))
			for k, name := range c.Signals {
				x[k] = r.Signals[name]
			}
			p = c.Probability(x)
		}
		rescored = append(rescored, QAResult{Answered: true, Confidence: p, Correct: r.Correct})
	}
	rep.AURC = AURC(RiskCoverage(rescored), len(rescored))
	rep.Separation = c.separation(s, rescored)
	for _, t := range CalibrationThresholds {
		pt := ThresholdPoint{Threshold: t}
		for _, a := range rescored {
			if a.Answered && a.Confidence >= t {
				pt.Answered++
				if a.Correct {
					pt.Correct++
				}
			}
		}
		if pt.Answered > 0 {
			pt.AnsweredAccuracy = round3(float64(pt.Correct) / float64(pt.Answered))
		}
		if rep.Answerable > 0 {
			pt.AnswerableCorrect = round3(float64(pt.Correct) / float64(rep.Answerable))
		}
		wrong := pt.Answered - pt.Correct
		pt.Utility = round3((float64(pt.Correct) - c.WrongCost*float64(wrong)) / float64(rep.Questions))
		rep.Points = append(rep.Points, pt)
	}
	return rep
}

// WriteCalibrationGo writes the judge's calibration.go: the fitted
// weight of each signal of c.Signals (judge.DecisionSignals), the bias
// and the threshold.
func WriteCalibrationGo(w io.Writer, c *Calibration, command string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by docmind eval calibrate; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Refit with scripts/calibrate.sh (see docs/decision.md).\n")
	fmt.Fprintf(&b, "// %s\n\npackage judge\n\n", command)
	fmt.Fprintf(&b, "// The decision model of CalibratedConfidence: a weight per signal of\n// DecisionSignals (a signal not listed weighs 0) and the bias.\n")
	fmt.Fprintf(&b, "var calibrationWeights = map[string]float64{\n")
	for i, name := range c.Signals {
		if v := math.Round(c.Weights[i]*1e4) / 1e4; v != 0 {
			fmt.Fprintf(&b, "\t%q: %.4f,\n", name, v)
		}
	}
	fmt.Fprintf(&b, "}\n\nconst calibrationBias = %.4f\n\n", c.Bias)
	fmt.Fprintf(&b, "// calibrationThreshold is DefaultMinConfidence: the threshold with the\n")
	if c.HeldOutThreshold > 0 {
		// what a new user's documents will see: each domain scored by
		// a model that never saw it (issue 39)
		fmt.Fprintf(&b, "// highest mean utility over the domains, each scored by the model fitted\n")
		fmt.Fprintf(&b, "// without it, a wrong answer costing %g (docs/decision.md, \"Threshold\").\n", c.WrongCost)
		fmt.Fprintf(&b, "// The model fitted on every set would choose %g.\n", c.Threshold)
		fmt.Fprintf(&b, "const calibrationThreshold = %g\n", c.HeldOutThreshold)
	} else {
		fmt.Fprintf(&b, "// highest mean utility over the sets, a wrong answer costing %g.\n", c.WrongCost)
		fmt.Fprintf(&b, "const calibrationThreshold = %g\n", c.Threshold)
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("calibration: format generated code: %w", err)
	}
	_, err = w.Write(src)
	return err
}

// separation returns each signal's and the confidence's separation of the
// set's right and wrong answers (CalibrationSetReport.Separation); nil
// when the set lacks right or wrong answers with signals.
func (c *Calibration) separation(s CalibrationSet, rescored []QAResult) map[string]float64 {
	var right, wrong []int // indices of answered results with signals
	for i, r := range s.Results {
		if !r.Answered || r.Signals == nil {
			continue
		}
		if r.Correct {
			right = append(right, i)
		} else {
			wrong = append(wrong, i)
		}
	}
	if len(right) == 0 || len(wrong) == 0 {
		return nil
	}
	out := make(map[string]float64, len(c.Signals)+1)
	auc := func(v func(i int) float64) float64 {
		r, w := make([]float64, len(right)), make([]float64, len(wrong))
		for k, i := range right {
			r[k] = v(i)
		}
		for k, j := range wrong {
			w[k] = v(j)
		}
		return rocArea(r, w)
	}
	for _, name := range c.Signals {
		out[name] = auc(func(i int) float64 { return s.Results[i].Signals[name] })
	}
	out["confidence"] = auc(func(i int) float64 { return rescored[i].Confidence })
	return out
}

// WriteCalibrationTable prints the fitted weights and each set's figures
// at every candidate threshold, the chosen one marked.
func WriteCalibrationTable(w io.Writer, c *Calibration) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "calibration (logistic, a wrong answer costs %g):\n", c.WrongCost)
	for i, s := range c.Signals {
		fmt.Fprintf(&b, "  %-18s %+.4f\n", s, c.Weights[i])
	}
	fmt.Fprintf(&b, "  %-18s %+.4f\n", "bias", c.Bias)
	if c.Shipped {
		fmt.Fprintf(&b, "threshold %.2f (the shipped default)\n", c.Threshold)
	} else {
		fmt.Fprintf(&b, "threshold %.2f (highest mean utility over %d sets)\n", c.Threshold, len(c.Sets))
		if c.HeldOutThreshold > 0 {
			fmt.Fprintf(&b, "shipped threshold %.2f (highest mean utility over the domains, each scored by the model fitted without it)\n", c.HeldOutThreshold)
		}
	}
	writeSeparation(&b, c)
	for _, s := range c.Sets {
		fmt.Fprintf(&b, "\n%s: %d questions, %d answerable, %d answers with signals, AURC %.4f\n", s.Name, s.Questions, s.Answerable, s.Samples, s.AURC)
		fmt.Fprintf(&b, "  threshold  answered  accuracy  answerable_correct  utility\n")
		for _, p := range s.Points {
			mark := ""
			if p.Threshold == c.Threshold {
				mark = "  <"
			}
			fmt.Fprintf(&b, "  %9.2f  %8d  %8.3f  %18.3f  %7.3f%s\n", p.Threshold, p.Answered, p.AnsweredAccuracy, p.AnswerableCorrect, p.Utility, mark)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// writeSeparation prints each signal's separation of right and wrong
// answers per set (CalibrationSetReport.Separation), the model's
// confidence last: a signal near 0.5 on a set tells nothing there,
// whatever its weight.
func writeSeparation(b *bytes.Buffer, c *Calibration) {
	var sets []CalibrationSetReport
	for _, s := range c.Sets {
		if s.Separation != nil {
			sets = append(sets, s)
		}
	}
	if len(sets) == 0 {
		return
	}
	fmt.Fprintf(b, "\nseparation of right and wrong answers (ROC area; 0.5 tells nothing, under 0.5 marks wrong answers):\n  %-22s", "signal")
	for _, s := range sets {
		fmt.Fprintf(b, " %10s", clipName(s.Name, 10))
	}
	b.WriteString("\n")
	for _, name := range append(slices.Clone(c.Signals), "confidence") {
		fmt.Fprintf(b, "  %-22s", name)
		for _, s := range sets {
			fmt.Fprintf(b, " %10.2f", s.Separation[name])
		}
		b.WriteString("\n")
	}
}

func clipName(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
