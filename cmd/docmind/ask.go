package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/docmind/docmind/formats"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/schema"
)

func (a *app) askCmd() *cobra.Command {
	var pf pipelineFlags
	var tf threadFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ask [flags] QUESTION",
		Short: "Answer a question from your documents, with citations",
		Example: `  docmind ask --docs examples/contract "What are the late payment penalties?"
  docmind ask --docs ~/contracts --json "What is the termination notice period?"`,
		Args: func(c *cobra.Command, args []string) error {
			q := joinArgs(args)
			if q == "" {
				return usageError{cmd: cmdPath(c), err: errors.New("ask needs a question, e.g. docmind ask --docs DIR \"What are the late payment penalties?\"")}
			}
			if len(q) > maxQuestionBytes {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("the question is %d bytes: a question may have at most %d KiB (as in chat and serve)", len(q), maxQuestionBytes>>10)}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if tf.threaded() {
				return a.askInThread(c, &pf, &tf, joinArgs(args), asJSON)
			}
			ctx := c.Context()
			stream := !asJSON && !pf.noStream && isTerminal(a.stdout)
			var obs schema.Observer
			printer := &draftPrinter{w: a.stdout}
			if stream {
				obs = printer
			}
			pf.question = joinArgs(args)
			p, err := a.buildPipeline(ctx, c, &pf, obs)
			if err != nil {
				return err
			}
			if p.Mode() != docmind.ModeLLM {
				// Offline answers are extracted whole: nothing to stream.
				printer.off, stream = true, false
			}
			rctx, cancel := pf.runContext(ctx)
			defer cancel()
			st, err := p.Run(rctx, joinArgs(args))
			if err != nil {
				if errors.Is(err, docmind.ErrEmptyQuery) {
					return usageError{cmd: cmdPath(c), err: err}
				}
				err = runError(rctx, err)
				if asJSON {
					// the state the run reached, and why it stopped
					if jerr := writeJSON(a.stdout, stateOutput{State: st, Error: oneLine(err)}); jerr != nil {
						return errors.Join(err, jerr)
					}
				}
				return err
			}
			if asJSON {
				if err := writeJSON(a.stdout, st); err != nil {
					return err
				}
			} else {
				printAnswer(a.stdout, st, stream)
			}
			if !st.Answered() {
				a.exitCode = exitFallback
			}
			return nil
		},
	}
	pf.register(cmd)
	tf.registerAsk(cmd, "ask within this conversation: follow-ups are rewritten from its earlier questions and every step is saved")
	addJSONFlag(cmd, &asJSON, "the final state (with --thread/--review, its run beside the state's fields)")
	return cmd
}

// printAnswer prints the human form of a finished run: the answer (unless
// it was already streamed and accepted), its sources, the verdict and the
// node path.
func printAnswer(w io.Writer, st *schema.State, streamed bool) {
	if !streamed || !st.Answered() {
		// an index written before the loader took them out may hold
		// the terminal's control characters
		fmt.Fprintln(w, formats.StripControls(st.Answer()))
	}
	if st.Answered() {
		if cited := st.CitedSections(); len(cited) > 0 {
			fmt.Fprintln(w, "\nSources:")
			// parts of one section on one page are one source
			seen := map[string]bool{}
			for _, s := range cited {
				line := fmt.Sprintf("%s — %s, %s", shown(s.Title), shown(s.Source), s.SourceRef())
				if !seen[line] {
					seen[line] = true
					fmt.Fprintf(w, "  [%d] %s\n", len(seen), line)
				}
			}
		}
	}
	if !st.Answered() && len(st.ClosestPassages) > 0 {
		fmt.Fprintln(w, "\nClosest passages found (not verified: the judge accepted no answer from them):")
		for i, p := range st.ClosestPassages {
			fmt.Fprintf(w, "  [%d] %s — %s, %s\n", i+1, shown(p.Title), shown(p.Source), p.PageRef)
			if p.Excerpt != "" {
				fmt.Fprintf(w, "      %q\n", p.Excerpt)
			}
		}
	}
	fmt.Fprintln(w)
	if v := st.JudgeVerdict; v != nil {
		status := "grounded"
		if v.IsHallucinated || !v.ShouldReturn {
			status = "not grounded"
		}
		fmt.Fprintf(w, "Verdict: %s (confidence %.2f) — %s\n", status, v.ConfidenceScore, v.Summary())
		printConflicts(w, v)
	}
	path := st.Path()
	if st.RetryCount > 0 {
		path += fmt.Sprintf(" (%d %s)", st.RetryCount, plural(st.RetryCount, "rejected pass", "rejected passes"))
	}
	fmt.Fprintf(w, "Path: %s\n", path)
	if u := st.Usage; u != nil && u.Total.Calls > 0 {
		line := fmt.Sprintf("Tokens: %d prompt + %d completion in %d LLM %s",
			u.Total.PromptTokens, u.Total.CompletionTokens, u.Total.Calls, plural(u.Total.Calls, "call", "calls"))
		if u.Total.CostUSD > 0 {
			line += fmt.Sprintf(", est. $%.4f", u.Total.CostUSD)
		}
		fmt.Fprintln(w, line)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// draftPrinter streams the generator's draft to a terminal and says when
// the judge rejected it. Whatever follows a draft (the answer, a retry
// notice, an error on stderr, which shares the terminal) starts on a line
// of its own, also when the stream broke off mid-line.
type draftPrinter struct {
	w       io.Writer
	started bool
	off     bool
	// midLine is set while the last thing printed was draft text not
	// ending in a newline.
	midLine bool
}

// OnEvent implements schema.Observer.
func (d *draftPrinter) OnEvent(_ context.Context, ev schema.Event) {
	if d.off {
		return
	}
	switch ev.Type {
	case schema.EventToken:
		if !d.started {
			fmt.Fprint(d.w, dim("draft: "))
			d.started, d.midLine = true, true
		}
		if ev.Token != "" {
			fmt.Fprint(d.w, ev.Token)
			d.midLine = !strings.HasSuffix(ev.Token, "\n")
		}
	case schema.EventNodeEnd, schema.EventNodeError:
		if ev.Node == schema.NodeGenerate {
			d.endLine()
		}
	case schema.EventRetry:
		d.endLine()
		reason := ""
		if v := ev.State.JudgeVerdict; v != nil {
			reason = oneLineText(v.Reasoning)
		}
		fmt.Fprintf(d.w, "%s\n", dim(fmt.Sprintf("draft rejected by the judge: %s — retrying retrieval (%d/%d)", reason, ev.Attempt, ev.MaxRetries)))
		d.started = false
	}
}

// endLine ends a draft line left open.
func (d *draftPrinter) endLine() {
	if d.midLine {
		fmt.Fprintln(d.w)
		d.midLine = false
	}
}

func dim(s string) string { return "\x1b[2m" + s + "\x1b[0m" }
