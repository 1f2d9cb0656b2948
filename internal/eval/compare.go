package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
)

// Outcome is what became of one question in an eval qa run.
type Outcome string

// The outcomes. A refusal is the fallback message; for an unanswerable
// question it is the right reply, and an answer is wrong.
const (
	OutcomeRight   Outcome = "right"
	OutcomeWrong   Outcome = "wrong"
	OutcomeRefused Outcome = "refused"
	OutcomeError   Outcome = "error"
)

// OutcomeOf is r's outcome: an error, a right or a wrong answer, or a
// refusal.
func OutcomeOf(r QAResult) Outcome {
	switch {
	case r.Err != "":
		return OutcomeError
	case r.Answered && r.Correct:
		return OutcomeRight
	case r.Answered:
		return OutcomeWrong
	}
	return OutcomeRefused
}

// HighConfidence is the confidence at or above which a wrong answer is
// counted apart (CompareFigures.WrongHigh): a confident wrong answer is
// the failure that costs a user most.
const HighConfidence = 0.8

// CompareFigures are one report's figures as eval compare shows them.
type CompareFigures struct {
	File         string `json:"file"`
	Match        string `json:"match"`
	Questions    int    `json:"questions"`
	Answerable   int    `json:"answerable"`
	Unanswerable int    `json:"unanswerable"`
	// Right and Wrong count answers; RefusedAnswerable and
	// RefusedUnanswerable the fallback replies (the second are right).
	Right               int `json:"right"`
	Wrong               int `json:"wrong"`
	RefusedAnswerable   int `json:"refused_answerable"`
	RefusedUnanswerable int `json:"refused_unanswerable"`
	Errors              int `json:"errors"`
	// WrongHigh counts wrong answers at confidence >= HighConfidence.
	WrongHigh         int     `json:"wrong_high"`
	AnsweredAccuracy  float64 `json:"answered_accuracy"`
	AnswerableCorrect float64 `json:"answerable_correct"`
	AURC              float64 `json:"aurc"`
}

// ComparedQuestion is one question whose outcome or confidence differs
// between the two reports.
type ComparedQuestion struct {
	ID         string `json:"id"`
	Question   string `json:"question"`
	Answerable bool   `json:"answerable"`
	// Change is "better" (a right reply gained, or a wrong answer
	// refused), "worse" (the opposite), "other" (another outcome change,
	// an error on either side) or "confidence" (the same outcome at
	// another confidence).
	Change           string  `json:"change"`
	Before           Outcome `json:"before"`
	After            Outcome `json:"after"`
	BeforeConfidence float64 `json:"before_confidence"`
	AfterConfidence  float64 `json:"after_confidence"`
}

// Comparison is eval compare's report: both reports' figures, the
// questions whose outcome changed (Changed, worse first) and those whose
// confidence alone moved (Moved, largest move first).
type Comparison struct {
	Before  CompareFigures     `json:"before"`
	After   CompareFigures     `json:"after"`
	Better  int                `json:"better"`
	Worse   int                `json:"worse"`
	Changed []ComparedQuestion `json:"changed"`
	Moved   []ComparedQuestion `json:"moved"`
}

// confidenceEpsilon is the smallest confidence move Compare reports:
// reports print confidences rounded to three decimals.
const confidenceEpsilon = 0.0005

// LoadQAReport reads an "eval qa --json" report.
func LoadQAReport(path string) (*QAReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err // names the path
	}
	var rep QAReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: not an eval qa --json report: %v", path, err)
	}
	if len(rep.Results) == 0 {
		return nil, fmt.Errorf("%s: not an eval qa --json report: no results", path)
	}
	return &rep, nil
}

// Compare compares two eval qa reports of the same questions, question
// by question: before and after a change. The reports must hold the same
// question ids, each once, scored by the same match rule.
func Compare(beforeFile string, before *QAReport, afterFile string, after *QAReport) (*Comparison, error) {
	if matchName(before.Match) != matchName(after.Match) {
		return nil, fmt.Errorf("%s is scored by the %s rule and %s by %s: compare reports scored alike (eval qa --match)", beforeFile, matchName(before.Match), afterFile, matchName(after.Match))
	}
	byID := map[string]QAResult{}
	for _, r := range before.Results {
		if _, dup := byID[r.ID]; dup {
			return nil, fmt.Errorf("%s: question %q appears twice", beforeFile, r.ID)
		}
		byID[r.ID] = r
	}
	c := &Comparison{Before: compareFigures(beforeFile, before), After: compareFigures(afterFile, after), Changed: []ComparedQuestion{}, Moved: []ComparedQuestion{}}
	seen := map[string]bool{}
	for _, a := range after.Results {
		if seen[a.ID] {
			return nil, fmt.Errorf("%s: question %q appears twice", afterFile, a.ID)
		}
		seen[a.ID] = true
		b, ok := byID[a.ID]
		if !ok {
			return nil, fmt.Errorf("question %q is in %s but not in %s: compare reports of the same questions", a.ID, afterFile, beforeFile)
		}
		q := ComparedQuestion{ID: a.ID, Question: a.Question, Answerable: a.Answerable, Before: OutcomeOf(b), After: OutcomeOf(a), BeforeConfidence: b.Confidence, AfterConfidence: a.Confidence}
		switch {
		case q.Before != q.After:
			q.Change = changeOf(q.Before, q.After, a.Answerable)
			switch q.Change {
			case "better":
				c.Better++
			case "worse":
				c.Worse++
			}
			c.Changed = append(c.Changed, q)
		case math.Abs(a.Confidence-b.Confidence) >= confidenceEpsilon:
			q.Change = "confidence"
			c.Moved = append(c.Moved, q)
		}
	}
	for _, r := range before.Results {
		if !seen[r.ID] {
			return nil, fmt.Errorf("question %q is in %s but not in %s: compare reports of the same questions", r.ID, beforeFile, afterFile)
		}
	}
	rank := map[string]int{"worse": 0, "other": 1, "better": 2}
	slices.SortStableFunc(c.Changed, func(x, y ComparedQuestion) int { return cmp.Compare(rank[x.Change], rank[y.Change]) })
	slices.SortStableFunc(c.Moved, func(x, y ComparedQuestion) int {
		return cmp.Compare(math.Abs(y.AfterConfidence-y.BeforeConfidence), math.Abs(x.AfterConfidence-x.BeforeConfidence))
	})
	return c, nil
}

// changeOf tells whether going from outcome b to a is better or worse
// for the user: a right answer is worth most, a refusal less, a wrong
// answer least (an unanswerable question's refusal is its right reply).
// An error on either side is "other".
func changeOf(b, a Outcome, answerable bool) string {
	worth := func(o Outcome) int {
		switch o {
		case OutcomeRight:
			return 2
		case OutcomeRefused:
			if !answerable {
				return 2
			}
			return 1
		case OutcomeWrong:
			return 0
		}
		return -1
	}
	wb, wa := worth(b), worth(a)
	switch {
	case wb < 0 || wa < 0 || wb == wa:
		return "other"
	case wa > wb:
		return "better"
	}
	return "worse"
}

func compareFigures(file string, rep *QAReport) CompareFigures {
	f := CompareFigures{File: file, Match: matchName(rep.Match), Questions: len(rep.Results)}
	for _, r := range rep.Results {
		if r.Answerable {
			f.Answerable++
		} else {
			f.Unanswerable++
		}
		switch OutcomeOf(r) {
		case OutcomeRight:
			f.Right++
		case OutcomeWrong:
			f.Wrong++
			if r.Confidence >= HighConfidence {
				f.WrongHigh++
			}
		case OutcomeRefused:
			if r.Answerable {
				f.RefusedAnswerable++
			} else {
				f.RefusedUnanswerable++
			}
		case OutcomeError:
			f.Errors++
		}
	}
	f.AnsweredAccuracy = ratio(f.Right, f.Right+f.Wrong)
	f.AnswerableCorrect = ratio(f.Right, f.Answerable)
	f.AURC = AURC(RiskCoverage(rep.Results), len(rep.Results))
	return f
}

// matchName is a report's match rule as eval qa --match spells it (a
// report of a build before the rule was recorded has none: lead).
func matchName(m MatchRule) string {
	return string(cmp.Or(m, MatchLead))
}
