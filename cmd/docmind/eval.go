package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/eval"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/schema"
)

func (a *app) evalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure the judge, the whole pipeline or retrieval on benchmark data",
	}
	cmd.AddCommand(a.evalJudgeCmd(), a.evalQACmd(), a.evalRetrievalCmd())
	return cmd
}

func (a *app) evalJudgeCmd() *cobra.Command {
	var pf pipelineFlags
	c := eval.JudgeCommand{}
	cmd := &cobra.Command{
		Use:   "judge --ragtruth FILE... [flags]",
		Short: "Hallucination detection on RAGTruth-format data: response- and span-level precision, recall, F1",
		Long: `Runs the configured judge (the offline deterministic judge, or an LLM judge
when one is configured) over every response of RAGTruth-format JSONL files and
reports, per task and overall, response-level precision, recall and F1
(hallucinated = positive) and span-level F1 (character overlap).

Offline, the judge's thresholds are chosen by cross-validation split by source
(--cv folds): each fold is scored with settings tuned on the other folds only.`,
		Example: `  docmind eval judge --ragtruth ../shared/data/ragtruth/ragtruth_qa.jsonl --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Files = append(c.Files, args...)
			if len(c.Files) == 0 {
				return usageError{cmd: cmd.Name(), err: errors.New("no data: pass --ragtruth FILE")}
			}
			models, err := a.models(&pf)
			if err != nil {
				return err
			}
			if models.Offline() {
				c.Candidates = eval.OfflineSweep
			} else {
				j := judge.NewLLM(models.Judge, judge.LLMOptions{Settings: llm.Settings{ModelName: models.JudgeName}})
				c.Judges = []eval.NamedJudge{{Name: "llm:" + models.JudgeName, Judge: j}}
				c.CVFolds = 0
			}
			c.Stdout = a.stdout
			if isTerminal(a.stderr) && !c.JSON {
				c.Progress = a.stderr
			}
			_, err = c.Run(cmd.Context())
			return err
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&c.Files, "ragtruth", nil, "RAGTruth-format JSONL file (repeatable)")
	f.BoolVar(&c.JSON, "json", false, "print the figures as JSON")
	f.Float64Var(&c.MinF1, "min-f1", 0, "fail (exit 1) when the overall response-level F1 is lower")
	f.IntVar(&c.CVFolds, "cv", 5, "cross-validation folds for the offline judge's thresholds")
	f.Uint64Var(&c.Seed, "seed", 1, "seed for the cross-validation split")
	f.IntVar(&c.Concurrency, "concurrency", 2, "responses judged at once")
	pf.registerLLM(cmd)
	return cmd
}

func (a *app) evalQACmd() *cobra.Command {
	var pf pipelineFlags
	c := eval.QACommand{}
	cmd := &cobra.Command{
		Use:   "qa --docs DIR FILE.jsonl [flags]",
		Short: "End-to-end answers: correctness, citation pages, abstention, retries, tokens, latency",
		Long: `Runs the whole pipeline on every question of a JSONL file. A row is either
{"id","question","facts":[...],"source","page"} (answerable: every fact must be
in the grounded answer, and the page cited) or {"id","question","answerable":false}
(the fallback message must be returned).`,
		Example: `  docmind eval qa --docs examples/contract eval/testdata/qa/contract.jsonl --json`,
		Args:    exactArgs(1, "one question file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.buildPipeline(cmd.Context(), cmd, &pf, nil)
			if err != nil {
				return err
			}
			c.File = args[0]
			c.Ask = func(ctx context.Context, q string) (*schema.State, error) { return p.Ask(ctx, q) }
			c.Stdout = a.stdout
			if isTerminal(a.stderr) && !c.JSON {
				c.Progress = a.stderr
			}
			_, err = c.Run(cmd.Context())
			return err
		},
	}
	pf.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&c.JSON, "json", false, "print the figures as JSON")
	f.Float64Var(&c.MinCorrect, "min-correct", 0, "fail when the answered-correctly rate is lower")
	f.Float64Var(&c.MinAbstainPrecision, "min-abstain-precision", 0, "fail when abstention precision is lower")
	f.Float64Var(&c.MinAbstainRecall, "min-abstain-recall", 0, "fail when abstention recall is lower")
	return cmd
}
