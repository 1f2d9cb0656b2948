package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

func (a *app) runsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List, inspect, replay and export the runs saved in the run ledger",
		Long: `Every question asked with ask --thread, ask --review or chat is a run in the
ledger (runs.db in the data directory), with the state after each pipeline
node. The newest 200 runs keep every step; older runs keep their final state
(see docmind gc).`,
		Args: exactArgs(0, "a subcommand (ls, show, replay, export)"),
	}
	cmd.AddCommand(a.runsLsCmd(), a.runsShowCmd(), a.runsReplayCmd(), a.runsExportCmd())
	return cmd
}

func (a *app) runsLsCmd() *cobra.Command {
	var (
		tf     threadFlags
		limit  int
		status string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "ls",
		Short: "List runs: id, thread, time, question, outcome, retries, tokens",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			if limit < 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--limit must be 0 (all) or more, got %d", limit)}
			}
			var want checkpoint.Status
			if status != "" {
				st, err := checkpoint.ParseStatus(status)
				if err != nil {
					return usageError{cmd: "runs ls", err: fmt.Errorf("--status: %w", err)}
				}
				want = st
			}
			store, err := a.openStore(c.Context(), &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			runs, err := store.Runs(c.Context(), checkpoint.RunFilter{Thread: tf.thread, Status: want, Limit: limit})
			if err != nil {
				return err
			}
			if asJSON {
				if runs == nil {
					runs = []checkpoint.Run{}
				}
				return writeJSON(a.stdout, runs)
			}
			printRuns(a.stdout, runs)
			return nil
		},
	}
	tf.registerData(cmd)
	cmd.Flags().StringVar(&tf.thread, "thread", "", "only this thread's runs")
	cmd.Flags().StringVar(&status, "status", "", "only runs with this status: running, interrupted (its process ended mid-run: docmind resume RUN finishes it), awaiting_review, done or failed")
	cmd.Flags().IntVar(&limit, "limit", 0, "only the newest N runs (0: all)")
	addJSONFlag(cmd, &asJSON, "the runs (an array)")
	return cmd
}

// printRuns prints the run table, oldest first.
func printRuns(w io.Writer, runs []checkpoint.Run) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "No runs yet. Ask with: docmind ask --thread NAME --docs DIR \"question\"")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTHREAD\tTIME\tSTATUS\tOUTCOME\tRETRIES\tTOKENS\tQUESTION")
	for _, r := range runs {
		outcome := string(r.Outcome)
		if r.ReviewDecision != "" {
			outcome += " (" + r.ReviewDecision + ")"
		}
		if outcome == "" {
			outcome = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.ID, r.Thread, r.Created.Local().Format("2006-01-02 15:04:05"),
			r.Status, outcome, r.Retries, r.Tokens, shorten(r.Question, 60))
	}
	tw.Flush()
}

func (a *app) runsShowCmd() *cobra.Command {
	var (
		tf     threadFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Show a run: the state after each step, timings, tokens and prompt versions",
		Args:  exactArgs(1, "a run id"),
		RunE: func(c *cobra.Command, args []string) error {
			store, err := a.openStore(c.Context(), &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			m, err := threads.New(threads.Config{Store: store})
			if err != nil {
				return err
			}
			run, cps, err := m.History(c.Context(), args[0])
			if err != nil {
				return notFound(args[0], err)
			}
			if asJSON {
				if cps == nil {
					cps = []checkpoint.Checkpoint{}
				}
				return writeJSON(a.stdout, threads.RunRecord{Run: run, Steps: cps})
			}
			printRun(a.stdout, run, cps)
			return nil
		},
	}
	tf.registerData(cmd)
	addJSONFlag(cmd, &asJSON, "the run and every step's state")
	return cmd
}

// printRun prints a run and what each step wrote.
func printRun(w io.Writer, r checkpoint.Run, cps []checkpoint.Checkpoint) {
	fmt.Fprintf(w, "Run %s in thread %s, %s\n", r.ID, r.Thread, r.Created.Local().Format(time.DateTime))
	fmt.Fprintf(w, "Question: %s\n", r.Question)
	if r.Query != r.Question {
		fmt.Fprintf(w, "Standalone question: %s\n", r.Query)
	}
	status := string(r.Status)
	if r.Outcome != "" {
		status += ", " + string(r.Outcome)
	}
	fmt.Fprintf(w, "Status: %s; %d retries; %d tokens\n", status, r.Retries, r.Tokens)
	if r.Parent != "" {
		fmt.Fprintf(w, "Replayed from run %s at step %d\n", r.Parent, r.ForkStep)
	}
	if r.ReviewDecision != "" {
		fmt.Fprintf(w, "Review: %s %s\n", r.ReviewDecision, r.ReviewNote)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "Error: %s\n", oneLineText(r.Error))
	}
	if r.Pruned {
		fmt.Fprintln(w, "(older run: retention kept only its final state)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tNODE\tTIME\tTOKENS\tWROTE")
	var last *schema.State
	for _, cp := range cps {
		node := cp.Node
		if node == "" {
			node = "(start)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\n", cp.Step, node, cp.Duration.Round(time.Microsecond), cp.Usage.TotalTokens, wrote(cp))
		last = cp.State
	}
	tw.Flush()
	if last != nil && len(last.PromptVersions) > 0 {
		names := make([]string, 0, len(last.PromptVersions))
		for k := range last.PromptVersions {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = k + "=" + last.PromptVersions[k]
		}
		fmt.Fprintf(w, "\nPrompt versions: %s\n", strings.Join(parts, ", "))
	}
	if last != nil && last.FinalOutput != nil {
		fmt.Fprintf(w, "\nAnswer:\n%s\n", last.Answer())
	}
}

// wrote summarises the field a step's node wrote.
func wrote(cp checkpoint.Checkpoint) string {
	st := cp.State
	switch cp.Node {
	case "":
		return "query: " + shorten(st.Query, 70)
	case schema.NodeDecompose:
		if d := st.Decomposition; d != nil {
			out := fmt.Sprintf("intent %s; %d sub-queries; entities %v", d.Intent, len(d.SubQueries), d.Entities)
			if len(d.SearchTerms) > 0 {
				out += fmt.Sprintf("; search terms %v", d.SearchTerms)
			}
			return out
		}
	case schema.NodeRetrieve:
		cites := make([]string, len(st.RetrievedSections))
		for i, s := range st.RetrievedSections {
			cites[i] = fmt.Sprintf("%s (%.2f)", s.Citation(), s.RelevanceScore)
		}
		if len(cites) == 0 {
			return "no sections"
		}
		return shorten(strings.Join(cites, "; "), 90)
	case schema.NodeGenerate:
		return shorten(st.Response(), 90)
	case schema.NodeJudge:
		if v := st.JudgeVerdict; v != nil {
			verdict := "grounded"
			if v.IsHallucinated {
				verdict = "hallucinated"
			}
			return fmt.Sprintf("%s, confidence %.2f: %s", verdict, v.ConfidenceScore, shorten(v.Reasoning, 60))
		}
	case schema.NodeOutput:
		return shorten(st.Answer(), 90)
	}
	return ""
}

func (a *app) runsReplayCmd() *cobra.Command {
	var (
		pf     pipelineFlags
		tf     threadFlags
		from   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "replay RUN --from NODE|STEP",
		Short: "Run a saved run again from one of its steps, e.g. with another judge model",
		Long: `replay copies the run's steps before NODE (its first occurrence, e.g. judge) or
step number STEP into a new run in the same thread and runs the pipeline from
there; the original run is unchanged. Give the same --docs; --judge-model
replays with another judge model (LLM mode).`,
		Example: `  docmind runs replay 3fa9c2 --from judge --judge-model gpt-4.1 --docs examples/contract`,
		Args:    exactArgs(1, "a run id"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if from == "" {
				return usageError{cmd: cmdPath(c), err: errors.New("replay needs --from NODE (decompose, retrieve, generate, judge, output) or a step number")}
			}
			if pf.judgeModel != "" {
				models, err := providers.FromEnv(a.getenv, pf.llmConfig())
				if err != nil {
					return err
				}
				if models.Offline() {
					return usageError{cmd: cmdPath(c), err: errors.New("--judge-model needs an LLM: set OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST, or pass --provider")}
				}
			}
			store, err := a.openStore(ctx, &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			// the run first: building the pipeline opens the index, whose
			// absence would hide that there is no such run
			if _, err := store.Run(ctx, args[0]); err != nil {
				return notFound(args[0], err)
			}
			m, err := a.manager(ctx, c, &pf, nil, store, &tf)
			if err != nil {
				return err
			}
			res, err := m.Fork(ctx, args[0], from, threads.ForkOptions{})
			if err != nil {
				return notFound(args[0], err)
			}
			return a.printResult(res, asJSON, false)
		},
	}
	pf.register(cmd)
	tf.registerData(cmd)
	cmd.Flags().StringVar(&from, "from", "", "node (first occurrence) or step number to replay from")
	addJSONFlag(cmd, &asJSON, "the new run and its final state")
	return cmd
}

func (a *app) runsExportCmd() *cobra.Command {
	var (
		tf           threadFlags
		jsonl, asArr bool
	)
	cmd := &cobra.Command{
		Use:   "export --jsonl",
		Short: "Write every run with its steps as JSON lines",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			if asArr {
				// --json means one JSON document everywhere else.
				return usageError{cmd: cmdPath(c), err: errors.New("export writes JSON lines, one run per line, not one JSON document: pass --jsonl")}
			}
			if !jsonl {
				return usageError{cmd: cmdPath(c), err: errors.New("export writes JSON lines: pass --jsonl")}
			}
			store, err := a.openStore(c.Context(), &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			return threads.Export(c.Context(), store, a.stdout, checkpoint.RunFilter{Thread: tf.thread})
		},
	}
	tf.registerData(cmd)
	cmd.Flags().StringVar(&tf.thread, "thread", "", "only this thread's runs")
	addJSONLinesFlag(cmd, &jsonl, "each run with its steps")
	cmd.Flags().BoolVar(&asArr, "json", false, "not supported: export writes JSON lines (--jsonl)")
	cmd.Flags().MarkHidden("json")
	return cmd
}
