package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// app holds what every command shares: the standard streams, the
// environment and the exit code a command chose.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	exitCode       int
	// closers run when the command has finished (open indexes).
	closers []func()
	verbose int
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "docmind",
		Short: "Answer questions over your documents, with citations and a hallucination judge",
		Long: `DocMind answers a question from a folder of documents with an answer that cites
section titles and page numbers, checks the answer with a judge, retries
retrieval when the judge rejects it, and says "Unable to provide a confident
response. Please rephrase your query." rather than guess.

With OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or OLLAMA_HOST set it
uses that LLM; with nothing set it runs fully offline (BM25 retrieval,
extractive answers, deterministic judge).

Exit codes: 0 answered, 1 error, 2 usage error, 3 no confident answer,
4 waiting for review (ask --review; finish it with docmind resume RUN --approve
or --reject).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetVersionTemplate("docmind {{.Version}}\n")
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.PersistentFlags().CountVarP(&a.verbose, "verbose", "v", "log what the pipeline does on stderr (-vv for debug)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{cmd: cmdPath(c), err: err}
	})
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if err := checkNumberFlags(c); err != nil {
			return usageError{cmd: cmdPath(c), err: err}
		}
		return nil
	}
	root.AddCommand(a.askCmd(), a.ingestCmd(), a.indexCmd(), a.evalCmd())
	root.AddCommand(a.chatCmd(), a.resumeCmd(), a.runsCmd(), a.gcCmd(), a.mcpCmd(), a.serveCmd(), a.checkCmd())
	a.addRules(root)
	return root
}

// logger returns the logger for -v levels: warnings only by default.
func (a *app) logger() *slog.Logger {
	level := slog.LevelWarn
	switch {
	case a.verbose >= 2:
		level = slog.LevelDebug
	case a.verbose == 1:
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
}

// isTerminal reports whether w is a terminal (progress and streaming are
// shown only there).
func isTerminal(w io.Writer) bool {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// exactArgs is cobra.ExactArgs with a usage error and a readable message.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError{cmd: cmdPath(c), err: fmt.Errorf("%s expects %s, got %d argument(s)", c.Name(), what, len(args))}
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs with a usage error and a readable message.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{cmd: cmdPath(c), err: fmt.Errorf("%s expects %s, got %d argument(s)", c.Name(), what, len(args))}
		}
		return nil
	}
}

// unknownSubcommand returns the usage error for a command line that names
// a command group (docmind, index, runs, eval, completion) followed by a
// word that is none of its subcommands, e.g. "docmind index stat". Cobra
// would print the group's help and exit 0 for a group below docmind, and
// fail with exit 1 for docmind itself; either way a script would not learn
// that it called a command that does not exist.
func unknownSubcommand(root *cobra.Command, args []string) error {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return nil // shell completion: cobra answers it
	}
	// cobra adds its help and completion commands when it executes
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd(args...)
	return unknownCommand(root, args)
}

// unknownCommand is unknownSubcommand once cobra's help and completion
// commands are added.
func unknownCommand(root *cobra.Command, args []string) error {
	c, rest, err := root.Find(args)
	if err != nil {
		// docmind WORD: cobra's "unknown command" message, with its
		// suggestions
		return usageError{cmd: "", err: err}
	}
	for _, a := range rest {
		if a == "-h" || a == "--help" || a == "--" {
			return nil
		}
	}
	if c.Name() == "help" && c.Parent() == root {
		// docmind help TOPIC: cobra prints "Unknown help topic" and
		// exits 0 for a topic that names no command
		if unknownCommand(root, rest) != nil {
			var topic []string
			for _, a := range rest {
				if !strings.HasPrefix(a, "-") {
					topic = append(topic, a)
				}
			}
			return usageError{cmd: "", err: fmt.Errorf("unknown help topic %q", strings.Join(topic, " "))}
		}
		return nil
	}
	if c.Runnable() || !c.HasSubCommands() {
		return nil
	}
	// A group's only flags (--help, --verbose) take no value, so any
	// other word is meant as a subcommand.
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			return usageError{cmd: cmdPath(c), err: fmt.Errorf("unknown command %q for %q", a, c.CommandPath())}
		}
	}
	return nil
}

// joinArgs joins arguments into a question, so that unquoted questions work.
func joinArgs(args []string) string { return strings.TrimSpace(strings.Join(args, " ")) }

// checkNumberFlags refuses, before any work, a number flag given NaN or
// an infinity (Go reads both, and every comparison with NaN is false: a
// --min-* gate given NaN never failed), and a --min-* or --max-* share or
// a --min-confidence outside 0 to 1. (--review-below over 1 reviews every
// answer.)
func checkNumberFlags(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "float64" {
			return
		}
		v, perr := strconv.ParseFloat(f.Value.String(), 64)
		switch {
		case perr != nil || math.IsNaN(v) || math.IsInf(v, 0):
			err = fmt.Errorf("--%s must be a number, got %s", f.Name, f.Value.String())
		case isShareFlag(f.Name) && (v < 0 || v > 1):
			err = fmt.Errorf("--%s must be between 0 and 1, got %v", f.Name, v)
		}
	})
	return err
}

// isShareFlag reports whether the float flag name is a share (0 to 1):
// the gates of the eval commands (--min-correct, --max-aurc …) and the
// confidence threshold.
func isShareFlag(name string) bool {
	return strings.HasPrefix(name, "min-") || strings.HasPrefix(name, "max-")
}
