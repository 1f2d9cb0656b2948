package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/eval"
	"github.com/docmind/docmind/internal/eval/splits"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

// ruleSetSpec is one of the sets `docmind eval rules` knows: its documents,
// its questions (and gold file), relative to the repository (the shared
// data under --shared), and the subset it reads by default.
type ruleSetSpec struct {
	name, docs, qa, gold string
	every                int // every n-th row, from the first
	match                eval.MatchRule
	split                splits.Split
}

func ruleSetSpecs(shared string) []ruleSetSpec {
	d := filepath.Join(shared, "data")
	return []ruleSetSpec{
		{name: "contract", docs: "examples/contract", qa: "internal/eval/testdata/qa/contract.jsonl", every: 1},
		{name: "contract-heldout", docs: "examples/contract", qa: "internal/eval/testdata/qa/contract_heldout.jsonl", every: 1},
		{name: "filings", docs: filepath.Join(shared, "fixtures", "filings"), qa: filepath.Join(d, "filings", "qa.jsonl"), every: 1},
		{name: "squad2", docs: filepath.Join(d, "squad2", "docs"), qa: filepath.Join(d, "squad2", "qa.jsonl"), gold: filepath.Join(d, "squad2", "gold.jsonl"), every: 32},
		{name: "cuad", docs: filepath.Join(d, "cuad", "docs"), qa: filepath.Join(d, "cuad", "qa.jsonl"), every: 2, match: eval.MatchJaccard},
		{name: "policyqa", docs: filepath.Join(d, "policyqa", "docs"), qa: filepath.Join(d, "policyqa", "qa.jsonl"), every: 3},
	}
}

func (a *app) evalRulesCmd() *cobra.Command {
	var (
		asJSON bool
		shared string
		only   []string
		rules  []string
		off    []string
		every  map[string]int
		split  string
	)
	cmd := &cobra.Command{
		Use:   "rules [flags]",
		Short: "What each rule is worth: how often it fires on each set, and each set's figures without it",
		Long: `Measures every rule of "docmind rules" on the evaluation sets, offline at the
default threshold. Each set is asked once with every rule on, noting which
rules fire on each question (on a candidate sentence or in a verdict); then,
rule by rule, the questions on which it fired are asked again with it
switched off (a question on which a rule never fired cannot change without
it).

Sets (skipped with a line on stderr when their files are absent):
  contract          examples/contract, internal/eval/testdata/qa/contract.jsonl
  contract-heldout  examples/contract, internal/eval/testdata/qa/contract_heldout.jsonl
  filings           SHARED/fixtures/filings, SHARED/data/filings/qa.jsonl
  squad2            SHARED/data/squad2 docs, qa.jsonl and gold.jsonl; every 32nd row
  cuad              SHARED/data/cuad; every 2nd row
  policyqa          SHARED/data/policyqa; every 3rd row
--every SET=N reads every N-th row of a set instead (1: all). cuad is scored
as "eval qa --match jaccard" scores it.
--split dev|test keeps the questions of one frozen split of each set before
sampling (internal/eval/splits; the contract set is dev, contract-heldout
test, so the other is skipped with a line on stderr); all (the default)
keeps every question.

Per rule and set: fires (questions it fired on; fires_answerable of them
answerable), changed (questions whose outcome, a right answer, a wrong one or
a refusal, differs without it), prevented_wrong (of those, wrong answers
without it), gained_right (right outcomes with it that are refusals without
it), cost_right (right outcomes, answers or refusals, lost to it),
caused_wrong (wrong answers with it that are not without it),
answers_changed (questions whose final text differs without it, whatever
their outcome: a rule may keep an off-scope sentence out of a right answer),
precision =
prevented_wrong / changed, off (the set's figures without it) and delta (off
minus the figures with every rule on), and verdict: pays (prevented_wrong +
gained_right > cost_right + caused_wrong), costs, even or idle. A rule is kept ("keep") when it pays on at least two sets and costs on
none. weight is the rule's weight in the decision model (judge/calibration.go):
what firing on every claim adds to the log-odds that the answer is right
(null: a veto, or a rule that is not one of the model's inputs).

--json prints {sets: [{set, questions, answered, answered_accuracy,
answerable_correct, unanswerable_refused, wrong_answers}], rules: [{rule,
doc, weight, sets: [{set, fires, fires_answerable, changed, prevented_wrong,
gained_right, cost_right, caused_wrong, answers_changed, precision, off,
delta, verdict}],
pays, costs, keep, totals}]}.

--off RULES switches rules off for the whole run, so that the figures of
each set are those without them: measure a group of rules together (single
ablations miss rules that stand in for each other).`,
		Example: `  docmind eval rules --json > rules.json
  docmind eval rules --sets contract,filings --rules period.unstated,scope.row-group`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			sp, err := splits.Parse(split)
			if err != nil {
				return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--split: %w", err)}
			}
			var names []string
			for _, spec := range ruleSetSpecs(shared) {
				names = append(names, spec.name)
			}
			for _, name := range only {
				if !containsString(names, name) {
					return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--sets: no set %q (use %s)", name, strings.Join(names, ", "))}
				}
			}
			for name := range every {
				if !containsString(names, name) {
					return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--every: no set %q (use %s)", name, strings.Join(names, ", "))}
				}
			}
			// before the sets load: an unknown rule is a mistake in the
			// command line, not a failure of the run
			for _, f := range []struct {
				flag  string
				names []string
			}{{"--rules", rules}, {"--off", off}} {
				for _, name := range f.names {
					if relevance.Lookup(name) == nil {
						return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("%s: no rule %q (docmind rules lists them)", f.flag, name)}
					}
				}
			}
			var sets []eval.RuleSet
			for _, spec := range ruleSetSpecs(shared) {
				if len(only) > 0 && !containsString(only, spec.name) {
					continue
				}
				if n, ok := every[spec.name]; ok {
					spec.every = max(n, 1)
				}
				spec.split = sp
				set, ok, err := a.ruleSet(ctx, cmd, spec)
				if err != nil {
					return err
				}
				if ok {
					sets = append(sets, set)
				}
			}
			if len(sets) == 0 {
				return fmt.Errorf("eval rules: no set to measure (see --sets and --shared)")
			}
			var opts eval.RulesOptions
			opts.Rules, opts.Off = rules, off
			progress := isTerminal(a.stderr) && !asJSON
			opts.Progress = func(set, rule string, done, total int) {
				if rule == "" {
					rule = "all rules on"
				}
				switch {
				case progress:
					fmt.Fprintf(a.stderr, "\r%-10s %-30s %d/%d   ", set, rule, done, total)
				case done == total:
					fmt.Fprintf(a.stderr, "eval rules: %s, %s: %d questions\n", set, rule, total)
				}
			}
			rep, err := eval.RunRules(ctx, sets, opts)
			if progress {
				fmt.Fprintf(a.stderr, "\r%-60s\r", "")
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, rep)
			}
			return writeRulesTable(a.stdout, rep)
		},
	}
	f := cmd.Flags()
	// a plain flag until docs/json.md lists this command (addJSONFlag
	// requires a golden file): the shape is in --help
	f.BoolVar(&asJSON, "json", false, "print the figures as JSON (shape in --help)")
	f.StringVar(&shared, "shared", "../shared", "`DIR` of the shared data (data/ and fixtures/)")
	f.StringSliceVar(&only, "sets", nil, "measure only these sets (contract, contract-heldout, filings, squad2, cuad, policyqa)")
	f.StringSliceVar(&rules, "rules", nil, "measure only these rules (default: every rule)")
	f.StringToIntVar(&every, "every", nil, "read every N-th row of a set (SET=N)")
	splitFlag(cmd, &split)
	f.StringSliceVar(&off, "off", nil, "switch these rules off for the whole run: the figures of every set without them (what a group of rules is worth together)")
	return cmd
}

// ruleSet loads a set's rows and builds its offline pipeline; ok is false
// (with a line on stderr) when its files are absent.
func (a *app) ruleSet(ctx context.Context, cmd *cobra.Command, spec ruleSetSpec) (eval.RuleSet, bool, error) {
	for _, p := range []string{spec.docs, spec.qa, spec.gold} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			fmt.Fprintf(a.stderr, "eval rules: %s absent (%s): set %s skipped\n", p, err, spec.name)
			return eval.RuleSet{}, false, nil
		}
	}
	rows, err := eval.LoadQA(spec.qa)
	if err != nil {
		return eval.RuleSet{}, false, err
	}
	if spec.gold != "" {
		gold, err := eval.LoadGold(spec.gold)
		if err != nil {
			return eval.RuleSet{}, false, err
		}
		if err := eval.MergeGold(rows, gold); err != nil {
			return eval.RuleSet{}, false, fmt.Errorf("%w (%s against %s)", err, spec.qa, spec.gold)
		}
	}
	if rows, err = eval.SelectSplit(rows, spec.split); err != nil {
		if empty := (*eval.EmptySplitError)(nil); errors.As(err, &empty) {
			fmt.Fprintf(a.stderr, "eval rules: set %s has no question in the %s split: skipped\n", spec.name, spec.split)
			return eval.RuleSet{}, false, nil
		}
		return eval.RuleSet{}, false, fmt.Errorf("set %s: %w", spec.name, err)
	}
	var sub []eval.QARow
	for i, r := range rows {
		if i%spec.every == 0 {
			r.Match = spec.match
			sub = append(sub, r)
		}
	}
	pf := pipelineFlags{docs: spec.docs, maxRetries: 2, minConf: judge.DefaultMinConfidence, provider: "offline"}
	p, err := a.buildPipeline(ctx, cmd, &pf, nil)
	if err != nil {
		return eval.RuleSet{}, false, fmt.Errorf("set %s: %w", spec.name, err)
	}
	ask := func(ctx context.Context, q string) (*schema.State, error) {
		rctx, cancel := pf.runContext(ctx)
		defer cancel()
		st, err := p.Run(rctx, q)
		return st, runError(rctx, err)
	}
	return eval.RuleSet{Name: spec.name, Rows: sub, Ask: ask}, true, nil
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// writeRulesTable prints the sets' figures, then one line per rule: per
// set, fires/changed with the wrong answers it prevents (+) and the right
// outcomes it costs (−).
func writeRulesTable(w io.Writer, rep *eval.RulesReport) error {
	fmt.Fprintln(w, "set               questions answered acc(answered) answerable-right unanswerable-refused wrong")
	for _, s := range rep.Sets {
		fmt.Fprintf(w, "%-17s %9d %8d %13.3f %16.3f %20.3f %5d\n", s.Set, s.Questions, s.Answered, s.AnsweredAccuracy, s.AnswerableCorrect, s.UnanswerableRefused, s.WrongAnswers)
	}
	fmt.Fprintln(w, "\nrule: per set fires/changed (+wrong prevented or right gained −right lost or wrong caused); keep = pays on 2+ sets, costs on none")
	for _, r := range rep.Rules {
		var parts []string
		for _, s := range r.Sets {
			parts = append(parts, fmt.Sprintf("%s %d/%d (+%d −%d)", s.Set, s.Fires, s.Changed, s.PreventedWrong+s.GainedRight, s.CostRight+s.CausedWrong))
		}
		keep := "drop"
		if r.Keep {
			keep = "keep"
		}
		fmt.Fprintf(w, "%-28s %s  %s\n", r.Rule, keep, strings.Join(parts, "; "))
	}
	return nil
}
