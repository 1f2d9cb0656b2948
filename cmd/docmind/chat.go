package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/server"
	"github.com/docmind/docmind/threads"
)

func (a *app) chatCmd() *cobra.Command {
	var (
		pf     pipelineFlags
		tf     threadFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "chat [flags]",
		Short: "Ask questions in a conversation; follow-ups are understood in context",
		Long: `chat reads one question per line: at a prompt on a terminal, or line by line
from a pipe. Follow-up questions ("and for enterprise clients?") are rewritten
into standalone questions from the thread's earlier questions; every answer is
retrieved and judged against the documents again. The thread and every run
are saved, so "docmind chat --thread ID" continues a conversation later.
Type /quit (or end the input) to leave.`,
		Example: `  docmind chat --docs examples/contract
  printf 'What are the late payment penalties?\nAnd what if it is still unpaid after 60 days?\n' | docmind chat --docs examples/contract --thread t1`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			interactive := isTerminal(a.stdout) && isTerminalReader(a.stdin)
			stream := interactive && !asJSON && !pf.noStream
			var obs schema.Observer
			if stream {
				obs = &draftPrinter{w: a.stdout}
			}
			store, err := a.openStore(ctx, &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			m, err := a.manager(ctx, c, &pf, obs, store, &tf)
			if err != nil {
				return err
			}
			thread := tf.thread
			if thread == "" {
				thread = "chat-" + threads.NewRunID()[:8]
			}
			fmt.Fprintf(a.stderr, "docmind: thread %s (continue it later with --thread %s)\n", thread, thread)
			failed := false
			in := bufio.NewReader(a.stdin)
			for {
				if interactive {
					fmt.Fprint(a.stdout, "> ")
				}
				line, size, rerr := readLine(in, maxQuestionBytes)
				if rerr != nil && rerr != io.EOF {
					return fmt.Errorf("reading questions: %w", rerr)
				}
				if size > maxQuestionBytes {
					fmt.Fprintf(a.stderr, "docmind: skipped a question of %d bytes: a question may have at most %d KiB\n", size, maxQuestionBytes>>10)
					failed = true
					continue
				}
				if rerr == io.EOF && line == "" {
					break
				}
				q := strings.TrimSpace(line)
				if q == "" {
					continue
				}
				if q == "/quit" || q == "/exit" {
					break
				}
				rctx, cancel := pf.runContext(ctx)
				res, err := m.Ask(rctx, thread, q)
				err = runError(rctx, err)
				cancel()
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					fmt.Fprintf(a.stderr, "docmind: %s\n", oneLine(err))
					failed = true
					if asJSON {
						b, jerr := json.Marshal(runOutput(res, err))
						if jerr != nil {
							return jerr
						}
						fmt.Fprintf(a.stdout, "%s\n", b)
					}
					continue
				}
				if asJSON {
					b, err := json.Marshal(runOutput(res, nil))
					if err != nil {
						return err
					}
					fmt.Fprintf(a.stdout, "%s\n", b)
					continue
				}
				if err := a.printResult(res, false, stream); err != nil {
					return err
				}
				fmt.Fprintln(a.stdout)
			}
			a.exitCode = exitOK
			if failed {
				a.exitCode = exitError
			}
			return nil
		},
	}
	pf.register(cmd)
	tf.registerAsk(cmd, "conversation to continue (default: a new thread)")
	addJSONFlag(cmd, &asJSON, "each question's outcome (one line each, its run beside the state's fields)")
	return cmd
}

// maxQuestionBytes is the longest question ask and chat accept, as serve
// does (server.MaxQuestionBytes).
const maxQuestionBytes = server.MaxQuestionBytes

// readLine reads one line of any length from r without its line ending. A
// line longer than limit bytes is read to its end and dropped: line is ""
// and size says how long it was. At the end of the input err is io.EOF
// (with the last line, if it had no line ending).
func readLine(r *bufio.Reader, limit int) (line string, size int, err error) {
	var b strings.Builder
	for {
		chunk, isPrefix, rerr := r.ReadLine()
		size += len(chunk)
		if size <= limit {
			b.Write(chunk)
		}
		if rerr != nil {
			if size > limit {
				return "", size, rerr
			}
			return b.String(), size, rerr
		}
		if !isPrefix {
			break
		}
	}
	if size > limit {
		return "", size, nil
	}
	return b.String(), size, nil
}

// isTerminalReader reports whether r is a terminal.
func isTerminalReader(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
