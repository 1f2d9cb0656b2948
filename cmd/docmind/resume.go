package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/threads"
)

func (a *app) resumeCmd() *cobra.Command {
	var (
		pf              pipelineFlags
		tf              threadFlags
		approve, reject bool
		note            string
		asJSON          bool
	)
	cmd := &cobra.Command{
		Use:   "resume RUN [--approve | --reject [--note TEXT]]",
		Short: "Finish an interrupted run, or approve or reject a run paused for review",
		Long: `resume continues a run from its last completed node; nodes that completed
(and their LLM calls) are not run again. An interrupted or failed run needs
the same --docs (and model flags) it was asked with.

A run paused for review (ask --review) is finished with --approve (the draft
answer is returned) or --reject (the fallback message is returned); --note
records why. Neither needs --docs: only the output node runs.

RUN is a run id or a unique prefix of one (see docmind runs ls).`,
		Example: `  docmind resume 3fa9c2d1e0b4 --docs examples/contract
  docmind resume 3fa9c2 --approve --note "checked clause 9.3"`,
		Args: exactArgs(1, "a run id"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if approve && reject {
				return usageError{cmd: cmdPath(c), err: errors.New("--approve and --reject exclude each other")}
			}
			if note != "" && !approve && !reject {
				return usageError{cmd: cmdPath(c), err: errors.New("--note goes with --approve or --reject")}
			}
			store, err := a.openStore(ctx, &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			run, err := store.Run(ctx, args[0])
			if err != nil {
				return notFound(args[0], err)
			}
			// Only an interrupted or failed run runs stages again.
			var pipe *pipelineFlags
			if !approve && !reject && (run.Status == checkpoint.StatusRunning || run.Status == checkpoint.StatusInterrupted || run.Status == checkpoint.StatusFailed) {
				pipe = &pf
			}
			m, err := a.manager(ctx, c, pipe, nil, store, &tf)
			if err != nil {
				return err
			}
			var res *threads.Result
			switch {
			case approve:
				res, err = m.Approve(ctx, run.ID, note)
			case reject:
				res, err = m.Reject(ctx, run.ID, note)
			default:
				res, err = m.Resume(ctx, run.ID)
			}
			if errors.Is(err, threads.ErrAwaitingReview) {
				return usageError{cmd: cmdPath(c), err: errors.New("the run is waiting for review: pass --approve or --reject")}
			}
			if err != nil {
				return notFound(args[0], err)
			}
			return a.printResult(res, asJSON, false)
		},
	}
	pf.register(cmd)
	tf.registerData(cmd)
	cmd.Flags().BoolVar(&approve, "approve", false, "approve a run paused for review: return its draft answer")
	cmd.Flags().BoolVar(&reject, "reject", false, "reject a run paused for review: return the fallback message")
	cmd.Flags().StringVar(&note, "note", "", "reviewer's note, recorded with the run")
	addJSONFlag(cmd, &asJSON, "the run and its final state")
	return cmd
}
