package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/relevance"
)

// RuleSet is one evaluation set `docmind eval rules` measures the rules
// on: its rows (already subset and merged with their gold answers) and the
// pipeline that answers them.
type RuleSet struct {
	Name string
	Rows []QARow
	Ask  AskFunc
}

// SetFigures are a set's end-to-end figures (see QAReport).
type SetFigures struct {
	Questions           int     `json:"questions"`
	Answered            int     `json:"answered"`
	AnsweredAccuracy    float64 `json:"answered_accuracy"`
	AnswerableCorrect   float64 `json:"answerable_correct"`
	UnanswerableRefused float64 `json:"unanswerable_refused"`
	WrongAnswers        int     `json:"wrong_answers"`
}

func figuresOf(rep *QAReport) SetFigures {
	f := SetFigures{Questions: rep.Questions, Answered: rep.Answered, AnsweredAccuracy: rep.AnsweredAccuracy,
		AnswerableCorrect: rep.AnswerableCorrect, WrongAnswers: rep.WrongAnswers}
	if rep.Unanswerable > 0 {
		f.UnanswerableRefused = float64(rep.Abstention.TP) / float64(rep.Unanswerable)
	}
	return f
}

// minus returns f − g, figure by figure.
func (f SetFigures) minus(g SetFigures) SetFigures {
	return SetFigures{Questions: f.Questions, Answered: f.Answered - g.Answered,
		AnsweredAccuracy:    math.Round((f.AnsweredAccuracy-g.AnsweredAccuracy)*1000) / 1000,
		AnswerableCorrect:   math.Round((f.AnswerableCorrect-g.AnswerableCorrect)*1000) / 1000,
		UnanswerableRefused: math.Round((f.UnanswerableRefused-g.UnanswerableRefused)*1000) / 1000,
		WrongAnswers:        f.WrongAnswers - g.WrongAnswers}
}

// RuleOnSet is what one rule is worth on one set.
type RuleOnSet struct {
	Set string `json:"set"`
	// Fires counts the questions on which the rule fired at least once
	// (on a candidate, or in a verdict), of them FiresAnswerable on
	// answerable questions.
	Fires           int `json:"fires"`
	FiresAnswerable int `json:"fires_answerable"`
	// Changed counts the questions whose outcome (right answer, wrong
	// answer, refusal) differs with the rule switched off. Of them,
	// PreventedWrong are wrong answers without the rule (the rule refused
	// them, or had a right answer given instead); GainedRight right
	// outcomes with the rule that are refusals without it (passing over a
	// candidate let a right one be chosen); CostRight right outcomes
	// without it (a right answer, or a right refusal of an unanswerable
	// question, that the rule lost); CausedWrong wrong answers with the
	// rule that are not without it.
	Changed        int `json:"changed"`
	PreventedWrong int `json:"prevented_wrong"`
	GainedRight    int `json:"gained_right"`
	CostRight      int `json:"cost_right"`
	CausedWrong    int `json:"caused_wrong"`
	// AnswersChanged counts the questions whose final text differs
	// without the rule, whatever their outcome: a rule that keeps an
	// off-scope sentence out of a right answer changes no outcome, but
	// changes the answer.
	AnswersChanged int `json:"answers_changed"`
	// Precision is PreventedWrong / Changed: of the outcomes the rule
	// changes, the share where what it removes is a wrong answer. Null
	// when it changes none.
	Precision *float64 `json:"precision"`
	// Off are the set's figures with the rule switched off, and Delta
	// Off minus the figures with every rule on.
	Off   SetFigures `json:"off"`
	Delta SetFigures `json:"delta"`
	// Verdict is "pays" (PreventedWrong + GainedRight > CostRight +
	// CausedWrong), "costs" (the other way), "even" (they cancel out) or
	// "idle" (changes nothing on the set).
	Verdict string `json:"verdict"`
}

// RuleWorth is what one rule is worth on every set.
type RuleWorth struct {
	Rule string `json:"rule"`
	Doc  string `json:"doc"`
	// Weight is the rule's weight in the decision model
	// (judge.RuleWeight); null for a veto or a rule that is not an input
	// of the model.
	Weight *float64     `json:"weight"`
	Sets   []RuleOnSet  `json:"sets"`
	Pays   int          `json:"pays"`  // sets on which it pays
	Costs  int          `json:"costs"` // sets on which it costs
	Keep   bool         `json:"keep"`  // pays on at least two sets and costs on none
	Totals RuleOnSetSum `json:"totals"`
}

// RuleOnSetSum sums a rule's counts over the sets.
type RuleOnSetSum struct {
	Fires          int `json:"fires"`
	Changed        int `json:"changed"`
	PreventedWrong int `json:"prevented_wrong"`
	GainedRight    int `json:"gained_right"`
	CostRight      int `json:"cost_right"`
	CausedWrong    int `json:"caused_wrong"`
	AnswersChanged int `json:"answers_changed"`
}

// RulesReport is the output of `docmind eval rules --json`.
type RulesReport struct {
	// Sets are the figures of each set with every rule on.
	Sets []NamedFigures `json:"sets"`
	// Rules are the rules, most questions changed first.
	Rules []RuleWorth `json:"rules"`
}

// NamedFigures are one set's figures.
type NamedFigures struct {
	Set string `json:"set"`
	SetFigures
}

// RulesOptions tunes RunRules.
type RulesOptions struct {
	// Rules are the IDs of the rules to measure; empty means every rule
	// registered (relevance.Detectors).
	Rules []string
	// Off are the IDs of rules switched off for the whole run (the
	// figures "with every rule on" are then without them): what a group
	// of rules is worth together.
	Off []string
	// Progress, when set, is called after each question asked: the set,
	// the rule switched off ("" for the run with every rule on), and how
	// many of the questions of that run are done.
	Progress func(set, rule string, done, total int)
}

// qaOutcome is a question's outcome: a right answer, a wrong one, or a
// refusal (right for an unanswerable question).
type qaOutcome int

const (
	refused qaOutcome = iota
	rightAnswer
	wrongAnswer
)

func outcomeOf(r QAResult) qaOutcome {
	switch {
	case !r.Answered:
		return refused
	case r.Correct:
		return rightAnswer
	}
	return wrongAnswer
}

// rightOutcome reports whether o is right for the question: a right
// answer, or a refusal of an unanswerable question.
func rightOutcome(o qaOutcome, answerable bool) bool {
	return o == rightAnswer || o == refused && !answerable
}

// RunRules measures every rule on every set: it asks each set's questions
// with every rule on, noting which rules fire on each question
// (relevance.OnFire), then, for each rule, asks again with the rule
// switched off (relevance.Disable) the questions on which it fired; a
// question on which a rule never fired cannot change without it. The runs
// are sequential: switching a rule off holds for the whole process.
func RunRules(ctx context.Context, sets []RuleSet, opts RulesOptions) (*RulesReport, error) {
	rules := opts.Rules
	if len(rules) == 0 {
		for _, d := range relevance.Detectors() {
			rules = append(rules, d.Name)
		}
	}
	for _, r := range rules {
		if relevance.Lookup(r) == nil {
			return nil, fmt.Errorf("eval rules: no rule %q (see docmind rules)", r)
		}
	}
	restoreOff, err := relevance.Disable(opts.Off...)
	if err != nil {
		return nil, fmt.Errorf("eval rules: %w", err)
	}
	defer restoreOff()
	var mu sync.Mutex
	var fired map[string]bool
	relevance.OnFire(func(rule string) {
		mu.Lock()
		if fired != nil {
			fired[rule] = true
		}
		mu.Unlock()
	})
	defer relevance.OnFire(nil)
	ask := func(set RuleSet, rule string, rows []QARow) ([]QAResult, []map[string]bool, error) {
		out := make([]QAResult, len(rows))
		fires := make([]map[string]bool, len(rows))
		for i, row := range rows {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("eval rules stopped on %s: %w", set.Name, err)
			}
			mu.Lock()
			fired = map[string]bool{}
			mu.Unlock()
			st, err := set.Ask(ctx, row.Question)
			if err != nil && ctx.Err() != nil {
				return nil, nil, fmt.Errorf("eval rules stopped on %s: %w", set.Name, ctx.Err())
			}
			mu.Lock()
			fires[i], fired = fired, nil
			mu.Unlock()
			out[i] = ScoreQA(row, st, err)
			if opts.Progress != nil {
				opts.Progress(set.Name, rule, i+1, len(rows))
			}
		}
		return out, fires, nil
	}
	worth := make(map[string]*RuleWorth, len(rules))
	for _, r := range rules {
		worth[r] = &RuleWorth{Rule: r, Doc: relevance.Lookup(r).Doc}
		if slices.Contains(judge.ModelRules(), r) {
			w := judge.RuleWeight(r)
			worth[r].Weight = &w
		}
	}
	rep := &RulesReport{}
	for _, set := range sets {
		if set.Ask == nil || len(set.Rows) == 0 {
			return nil, errors.New("eval rules: set " + set.Name + " has no questions or no pipeline")
		}
		base, fires, err := ask(set, "", set.Rows)
		if err != nil {
			return nil, err
		}
		on := figuresOf(summarizeQA(base))
		rep.Sets = append(rep.Sets, NamedFigures{set.Name, on})
		for _, r := range rules {
			var idx []int
			var rows []QARow
			answerable := 0
			for i, f := range fires {
				if f[r] {
					idx = append(idx, i)
					rows = append(rows, set.Rows[i])
					if set.Rows[i].IsAnswerable() {
						answerable++
					}
				}
			}
			ros := RuleOnSet{Set: set.Name, Fires: len(idx), FiresAnswerable: answerable, Off: on, Verdict: "idle"}
			if len(idx) > 0 {
				restore, err := relevance.Disable(append(slices.Clone(opts.Off), r)...)
				if err != nil {
					return nil, err
				}
				off, _, err := ask(set, r, rows)
				restore()
				if err != nil {
					return nil, err
				}
				merged := slices.Clone(base)
				for j, i := range idx {
					was, now := outcomeOf(base[i]), outcomeOf(off[j])
					merged[i] = off[j]
					if base[i].Answer != off[j].Answer {
						ros.AnswersChanged++
					}
					if was == now {
						continue
					}
					ros.Changed++
					// was: with the rule; now: without it
					ans := set.Rows[i].IsAnswerable()
					if now == wrongAnswer {
						ros.PreventedWrong++
					}
					if rightOutcome(was, ans) && !rightOutcome(now, ans) && now != wrongAnswer {
						ros.GainedRight++
					}
					if rightOutcome(now, ans) && !rightOutcome(was, ans) {
						ros.CostRight++
					}
					if was == wrongAnswer {
						ros.CausedWrong++
					}
				}
				ros.Off = figuresOf(summarizeQA(merged))
			}
			ros.Delta = ros.Off.minus(on)
			if ros.Changed > 0 {
				p := round3(float64(ros.PreventedWrong) / float64(ros.Changed))
				ros.Precision = &p
				gain, loss := ros.PreventedWrong+ros.GainedRight, ros.CostRight+ros.CausedWrong
				switch {
				case gain > loss:
					ros.Verdict = "pays"
				case loss > gain:
					ros.Verdict = "costs"
				default:
					ros.Verdict = "even"
				}
			}
			w := worth[r]
			w.Sets = append(w.Sets, ros)
			switch ros.Verdict {
			case "pays":
				w.Pays++
			case "costs":
				w.Costs++
			}
			w.Totals.Fires += ros.Fires
			w.Totals.Changed += ros.Changed
			w.Totals.PreventedWrong += ros.PreventedWrong
			w.Totals.GainedRight += ros.GainedRight
			w.Totals.CostRight += ros.CostRight
			w.Totals.CausedWrong += ros.CausedWrong
			w.Totals.AnswersChanged += ros.AnswersChanged
		}
	}
	for _, r := range rules {
		w := worth[r]
		w.Keep = w.Pays >= 2 && w.Costs == 0
		rep.Rules = append(rep.Rules, *w)
	}
	sort.SliceStable(rep.Rules, func(i, j int) bool { return rep.Rules[i].Totals.Changed > rep.Rules[j].Totals.Changed })
	return rep, nil
}
