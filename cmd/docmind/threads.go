package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// threadFlags are the flags of the commands that use the run ledger.
type threadFlags struct {
	dataDir       string
	thread        string
	review        bool
	minConfidence float64
}

// registerData adds --data-dir.
func (tf *threadFlags) registerData(cmd *cobra.Command) {
	cmd.Flags().StringVar(&tf.dataDir, "data-dir", "", "directory of the run database runs.db (default: $DOCMIND_DATA_DIR, then $XDG_STATE_HOME/docmind or ~/.local/state/docmind)")
}

// registerAsk adds the flags of asking in a thread (ask and chat).
func (tf *threadFlags) registerAsk(cmd *cobra.Command, threadHelp string) {
	tf.registerData(cmd)
	cmd.Flags().StringVar(&tf.thread, "thread", "", threadHelp)
	cmd.Flags().BoolVar(&tf.review, "review", false, "pause answers the judge is not confident about for human review (finish with docmind resume RUN --approve|--reject)")
	cmd.Flags().Float64Var(&tf.minConfidence, "review-below", threads.DefaultMinConfidence, "with --review, the judge confidence under which an answer is reviewed")
}

// threaded reports whether ask should run through the ledger.
func (tf *threadFlags) threaded() bool { return tf.thread != "" || tf.review }

// dataDir resolves the run database directory.
func (a *app) dataDir(flag string) (string, error) {
	switch {
	case flag != "":
		return flag, nil
	case a.getenv("DOCMIND_DATA_DIR") != "":
		return a.getenv("DOCMIND_DATA_DIR"), nil
	case a.getenv("XDG_STATE_HOME") != "":
		return filepath.Join(a.getenv("XDG_STATE_HOME"), "docmind"), nil
	case a.getenv("HOME") != "" && runtime.GOOS != "windows":
		return filepath.Join(a.getenv("HOME"), ".local", "state", "docmind"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: pass --data-dir or set DOCMIND_DATA_DIR (%w)", err)
	}
	return filepath.Join(d, "docmind"), nil
}

// openStore opens the run database.
func (a *app) openStore(ctx context.Context, tf *threadFlags) (*checkpoint.SQLite, error) {
	dir, err := a.dataDir(tf.dataDir)
	if err != nil {
		return nil, err
	}
	return checkpoint.OpenSQLite(ctx, checkpoint.PathInDir(dir))
}

// manager builds a thread manager. With pf nil it has no pipeline and
// can only read the ledger and finish reviews.
func (a *app) manager(ctx context.Context, c *cobra.Command, pf *pipelineFlags, obs schema.Observer, store checkpoint.Store, tf *threadFlags) (*threads.Manager, error) {
	var p *docmind.Pipeline
	if pf != nil {
		var err error
		if p, err = a.buildPipeline(ctx, c, pf, obs); err != nil {
			return nil, err
		}
	}
	return a.managerFor(p, pf, store, tf)
}

// managerFor builds a thread manager running p (built from pf); with p nil
// it only reads the ledger and finishes reviews.
func (a *app) managerFor(p *docmind.Pipeline, pf *pipelineFlags, store checkpoint.Store, tf *threadFlags) (*threads.Manager, error) {
	cfg := threads.Config{Store: store, Review: tf.review, MinConfidence: tf.minConfidence, Logger: a.logger()}
	if p != nil {
		cfg.Runner = p.Runner()
		cfg.Rewriter = threads.Offline{}
		if p.Mode() != docmind.ModeOffline {
			models, err := providers.FromEnv(a.getenv, pf.llmConfig())
			if err != nil {
				return nil, err
			}
			cfg.Rewriter = &threads.LLM{Model: models.Main, Fallback: threads.Offline{}, ModelName: models.Name}
		}
	}
	return threads.New(cfg)
}

// runOutput is the JSON form (stateOutput) of a run in the ledger and the
// state it reached, with err, if any, that stopped it; res may be nil when
// the run did not start.
func runOutput(res *threads.Result, err error) stateOutput {
	errText := ""
	if err != nil {
		errText = oneLine(err)
	}
	return threads.OutcomeOf(res, errText)
}

// askInThread runs ask --thread/--review: the question goes through the
// ledger, a follow-up is rewritten, and every node is checkpointed.
func (a *app) askInThread(c *cobra.Command, pf *pipelineFlags, tf *threadFlags, question string, asJSON bool) error {
	ctx := c.Context()
	stream := !asJSON && !pf.noStream && isTerminal(a.stdout)
	var obs schema.Observer
	if stream {
		obs = &draftPrinter{w: a.stdout}
	}
	store, err := a.openStore(ctx, tf)
	if err != nil {
		return err
	}
	defer store.Close()
	m, err := a.manager(ctx, c, pf, obs, store, tf)
	if err != nil {
		return err
	}
	thread := tf.thread
	if thread == "" {
		thread = "ask-" + threads.NewRunID()[:8]
	}
	rctx, cancel := pf.runContext(ctx)
	defer cancel()
	res, err := m.Ask(rctx, thread, question)
	if err != nil {
		err = runError(rctx, err)
		if asJSON {
			// the run and the state it reached, and why it stopped
			if jerr := writeJSON(a.stdout, runOutput(res, err)); jerr != nil {
				return errors.Join(err, jerr)
			}
		}
		return err
	}
	return a.printResult(res, asJSON, stream)
}

// printResult prints a run's outcome (as ask does) and sets the exit code.
func (a *app) printResult(res *threads.Result, asJSON, streamed bool) error {
	switch {
	case asJSON:
		if err := writeJSON(a.stdout, runOutput(res, nil)); err != nil {
			return err
		}
	case res.Run.Status == checkpoint.StatusAwaitingReview:
		printPaused(a.stdout, res)
	default:
		if res.Run.Query != res.Run.Question && res.Run.Query != "" {
			line := "Question understood as: " + res.Run.Query
			if isTerminal(a.stdout) {
				line = dim(line)
			}
			fmt.Fprintln(a.stdout, line)
		}
		printAnswer(a.stdout, res.State, streamed)
	}
	fmt.Fprintf(a.stderr, "docmind: run %s in thread %s (%s)\n", res.Run.ID, res.Run.Thread, res.Run.Status)
	switch {
	case res.Run.Status == checkpoint.StatusAwaitingReview:
		a.exitCode = exitReview
	case !res.State.Answered():
		a.exitCode = exitFallback
	default:
		a.exitCode = exitOK
	}
	return nil
}

// printPaused explains a run waiting for review.
func printPaused(w io.Writer, res *threads.Result) {
	fmt.Fprintln(w, "Paused for review: the judge is not confident in this answer.")
	if v := res.State.JudgeVerdict; v != nil {
		fmt.Fprintf(w, "Verdict: confidence %.2f — %s\n", v.ConfidenceScore, oneLineText(v.Reasoning))
		printConflicts(w, v)
	}
	fmt.Fprintf(w, "\nDraft answer:\n%s\n\n", res.State.Response())
	fmt.Fprintf(w, "Approve: docmind resume %s --approve [--note TEXT]\nReject:  docmind resume %s --reject [--note TEXT]\n", res.Run.ID, res.Run.ID)
}

// notFound turns a missing run into a one-line error that names the id.
func notFound(id string, err error) error {
	if errors.Is(err, checkpoint.ErrNotFound) {
		return fmt.Errorf("no run %q in the run database (list runs with docmind runs ls)", id)
	}
	return err
}

// shorten cuts s to n runes on one line.
func shorten(s string, n int) string {
	s = oneLineText(s)
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}

// cmdPath names a command for the usage hint ("runs replay").
func cmdPath(c *cobra.Command) string {
	if !c.HasParent() {
		return "" // the root: its hint is "docmind --help"
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}
