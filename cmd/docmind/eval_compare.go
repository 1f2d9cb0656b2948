package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/eval"
)

func (a *app) evalCompareCmd() *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "compare BEFORE.json AFTER.json [flags]",
		Short: "Two eval qa reports of the same questions, question by question: what a change gained and lost",
		Long: `Compares two "docmind eval qa --json" reports of the same questions (the
same QA file, before and after a change of documents, settings or build)
question by question.

Each question's outcome is right (a correct answer), wrong (an answer that
is not correct; every answer to an unanswerable question), refused (the
fallback message; the right reply to an unanswerable question) or error. A
change is better when it gains a right reply (refused or wrong to right, a
wrong answer refused, an unanswerable question refused) and worse the other
way; a change to or from an error is other.

Printed: both reports' figures side by side (right and wrong answers, wrong
answers at confidence >= 0.8, refusals of answerable and of unanswerable
questions, errors, correct among answered, answerable answered right, AURC);
the questions whose outcome changed, worse first; and how many kept their
outcome at another confidence (--all lists them, largest move first).

The reports must hold the same question ids, each once, scored by the same
--match rule: anything else is an error. --json prints {before, after (each
{file, match, questions, answerable, unanswerable, right, wrong,
refused_answerable, refused_unanswerable, errors, wrong_high,
answered_accuracy, answerable_correct, aurc}), better, worse, changed
[{id, question, answerable, change, before, after, before_confidence,
after_confidence}], moved [the same, change "confidence"]}.`,
		Example: `  docmind eval qa --docs examples/contract internal/eval/testdata/qa/contract.jsonl --json > before.json
  (change something)
  docmind eval qa --docs examples/contract internal/eval/testdata/qa/contract.jsonl --json > after.json
  docmind eval compare before.json after.json`,
		Args: exactArgs(2, "BEFORE.json and AFTER.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			before, err := eval.LoadQAReport(args[0])
			if err != nil {
				return fmt.Errorf("eval compare: %w", err)
			}
			after, err := eval.LoadQAReport(args[1])
			if err != nil {
				return fmt.Errorf("eval compare: %w", err)
			}
			c, err := eval.Compare(args[0], before, args[1], after)
			if err != nil {
				return fmt.Errorf("eval compare: %w", err)
			}
			if asJSON {
				return writeJSON(a.stdout, c)
			}
			return writeComparison(a.stdout, c, all)
		},
	}
	addJSONFlag(cmd, &asJSON, "the comparison")
	cmd.Flags().BoolVar(&all, "all", false, "also list the questions that kept their outcome at another confidence")
	return cmd
}

// writeComparison prints c as eval compare's table and lists.
func writeComparison(w io.Writer, c *eval.Comparison, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	b, a := c.Before, c.After
	fmt.Fprintf(tw, "\tbefore\tafter\n")
	fmt.Fprintf(tw, "report\t%s\t%s\n", b.File, a.File)
	for _, r := range []struct {
		name string
		b, a int
	}{
		{"questions", b.Questions, a.Questions},
		{"right answers", b.Right, a.Right},
		{"wrong answers", b.Wrong, a.Wrong},
		{fmt.Sprintf("  at confidence >= %.1f", eval.HighConfidence), b.WrongHigh, a.WrongHigh},
		{"answerable refused", b.RefusedAnswerable, a.RefusedAnswerable},
	} {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", r.name, r.b, r.a)
	}
	fmt.Fprintf(tw, "unanswerable refused\t%d of %d\t%d of %d\n", b.RefusedUnanswerable, b.Unanswerable, a.RefusedUnanswerable, a.Unanswerable)
	fmt.Fprintf(tw, "errors\t%d\t%d\n", b.Errors, a.Errors)
	fmt.Fprintf(tw, "correct among answered\t%.3f\t%.3f\n", b.AnsweredAccuracy, a.AnsweredAccuracy)
	fmt.Fprintf(tw, "answerable answered right\t%.3f\t%.3f\n", b.AnswerableCorrect, a.AnswerableCorrect)
	fmt.Fprintf(tw, "AURC (lower is better)\t%.4f\t%.4f\n", b.AURC, a.AURC)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d question(s) changed outcome: %d better, %d worse", len(c.Changed), c.Better, c.Worse)
	if other := len(c.Changed) - c.Better - c.Worse; other > 0 {
		fmt.Fprintf(w, ", %d other", other)
	}
	fmt.Fprintln(w)
	if err := writeCompared(w, c.Changed); err != nil {
		return err
	}
	switch {
	case len(c.Moved) == 0:
		return nil
	case all:
		fmt.Fprintf(w, "\n%d question(s) kept their outcome at another confidence:\n", len(c.Moved))
		return writeCompared(w, c.Moved)
	}
	_, err := fmt.Fprintf(w, "%d more kept their outcome at another confidence (--all lists them)\n", len(c.Moved))
	return err
}

func writeCompared(w io.Writer, qs []eval.ComparedQuestion) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, q := range qs {
		kind := "answerable"
		if !q.Answerable {
			kind = "unanswerable"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s -> %s\t%.3f -> %.3f\t%s\t%s\n", q.Change, q.ID, q.Before, q.After, q.BeforeConfidence, q.AfterConfidence, kind, shorten(q.Question, 70))
	}
	return tw.Flush()
}
