package eval

import (
	"fmt"
	"io"
	"slices"
)

// DomainFigures are a domain's pooled figures (over its sets) under one
// model at that model's threshold.
type DomainFigures struct {
	// Threshold is the model's threshold (Calibration.Threshold).
	Threshold         float64 `json:"threshold"`
	Questions         int     `json:"questions"`
	Answerable        int     `json:"answerable"`
	Answered          int     `json:"answered"`
	Correct           int     `json:"correct"`
	AnsweredAccuracy  float64 `json:"answered_accuracy"`
	AnswerableCorrect float64 `json:"answerable_correct"`
	// AURC is the mean of the domain's sets' AURC under the model.
	AURC float64 `json:"aurc"`
}

// DomainHoldout is one domain scored by a model fitted without it
// (Held), beside the same domain under the model fitted on every set
// (AllSets): the gap says how the model fares on documents of a kind it
// never saw.
type DomainHoldout struct {
	Domain  string        `json:"domain"`
	Sets    []string      `json:"sets"`
	Held    DomainFigures `json:"held_out"`
	AllSets DomainFigures `json:"all_sets"`
}

// LeaveOneDomainOut fits the calibration once per domain on the sets of
// every other domain (opts as FitCalibration) and scores that domain's
// sets with it; all is the fit on every set (FitCalibration's result on
// sets), whose figures stand beside, both at all's threshold. It also
// records in all.HeldOutThreshold the threshold (of
// CalibrationThresholds) with the highest mean over the domains of their
// sets' mean utility under the model fitted without them. domains maps a
// set's name to its domain; a set it does not name is a domain of its
// own. With fewer than two domains there is nothing to hold out: it
// returns nil.
func LeaveOneDomainOut(sets []CalibrationSet, signals []string, opts CalibrationOptions, all *Calibration, domains map[string]string) ([]DomainHoldout, error) {
	domainOf := func(s CalibrationSet) string {
		if d, ok := domains[s.Name]; ok {
			return d
		}
		return s.Name
	}
	var order []string
	for _, s := range sets {
		if d := domainOf(s); !slices.Contains(order, d) {
			order = append(order, d)
		}
	}
	if len(order) < 2 {
		return nil, nil
	}
	var out []DomainHoldout
	var helds [][]CalibrationSetReport
	utility := make([]float64, len(CalibrationThresholds))
	for _, d := range order {
		var in, rest []CalibrationSet
		for _, s := range sets {
			if domainOf(s) == d {
				in = append(in, s)
			} else {
				rest = append(rest, s)
			}
		}
		c, err := FitCalibration(rest, signals, opts)
		if err != nil {
			return nil, fmt.Errorf("calibration without domain %s: %w", d, err)
		}
		var held []CalibrationSetReport
		h := DomainHoldout{Domain: d}
		for _, s := range in {
			xs, _, err := s.samples(signals)
			if err != nil {
				return nil, err
			}
			held = append(held, c.setReport(s, len(xs)))
			h.Sets = append(h.Sets, s.Name)
		}
		for _, r := range held {
			for k, p := range r.Points {
				utility[k] += p.Utility / float64(len(held)*len(order))
			}
		}
		helds = append(helds, held)
		out = append(out, h)
	}
	all.HeldOutThreshold = bestThreshold(utility)
	for i := range out {
		out[i].Held = poolDomain(helds[i], all.Threshold)
		var inAll []CalibrationSetReport
		for j, s := range sets {
			if domainOf(s) == out[i].Domain {
				inAll = append(inAll, all.Sets[j])
			}
		}
		out[i].AllSets = poolDomain(inAll, all.Threshold)
	}
	return out, nil
}

// poolDomain sums a domain's sets' figures at threshold t (one of
// CalibrationThresholds).
func poolDomain(reps []CalibrationSetReport, t float64) DomainFigures {
	f := DomainFigures{Threshold: t}
	for _, r := range reps {
		f.Questions += r.Questions
		f.Answerable += r.Answerable
		f.AURC += r.AURC / float64(len(reps))
		i := slices.IndexFunc(r.Points, func(p ThresholdPoint) bool { return p.Threshold == t })
		if i < 0 {
			continue
		}
		f.Answered += r.Points[i].Answered
		f.Correct += r.Points[i].Correct
	}
	f.AnsweredAccuracy = round3(ratio(f.Correct, f.Answered))
	f.AnswerableCorrect = round3(ratio(f.Correct, f.Answerable))
	f.AURC = round3(f.AURC*10) / 10 // four decimals
	return f
}

// WriteDomainTable prints the leave-one-domain-out figures.
func WriteDomainTable(w io.Writer, hs []DomainHoldout) error {
	if _, err := fmt.Fprintf(w, "\nleave one domain out (each domain scored by a model fitted without it; all sets = the model fitted on every set; both at the in-sample threshold above):\n"); err != nil {
		return err
	}
	fmt.Fprintf(w, "  %-12s %-9s %9s %8s %8s %10s %8s\n", "domain", "model", "threshold", "answered", "accuracy", "answerable", "AURC")
	for _, h := range hs {
		for _, r := range []struct {
			name string
			f    DomainFigures
		}{{"held out", h.Held}, {"all sets", h.AllSets}} {
			_, err := fmt.Fprintf(w, "  %-12s %-9s %9.2f %8d %8.3f %10.3f %8.4f\n", h.Domain, r.name, r.f.Threshold, r.f.Answered, r.f.AnsweredAccuracy, r.f.AnswerableCorrect, r.f.AURC)
			if err != nil {
				return err
			}
		}
	}
	return nil
}
