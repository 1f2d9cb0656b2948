// Command docmind answers questions over a folder of documents with cited,
// judge-checked answers, and says so when it cannot.
//
// Exit codes: 0 answered, 1 error, 2 usage error, 3 the fallback message was
// returned (the documents did not support a confident answer), 4 the run is
// waiting for review (ask --review; finish it with docmind resume RUN
// --approve or --reject).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	// PDF support registers itself with the loader (see docmind.NewLoader).
	"github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/threads"
)

// Exit codes.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitFallback = 3
	exitReview   = 4 // a run paused for human review (ask --review)
)

// interruptGrace is how long a command may take to wind down after Ctrl-C
// (SIGINT) or SIGTERM before the process exits anyway: work that does not
// watch the context (parsing a large file, say) must not keep the user
// waiting. Every database write is one SQLite transaction, so exiting in
// the middle of one leaves the files as they were before it.
const interruptGrace = 200 * time.Millisecond

// shutdownGrace, when a command sets it (docmind serve: the time it lets
// requests in flight finish), is how long the process may wind down
// after a signal instead of interruptGrace.
var shutdownGrace atomic.Int64

// graceAfterSignal is how long the process may wind down after a signal.
func graceAfterSignal() time.Duration {
	if g := time.Duration(shutdownGrace.Load()); g > interruptGrace {
		return g
	}
	return interruptGrace
}

func main() {
	// the first PDF read on a machine waits for PDFium to compile: say so
	pdf.Notice = func(msg string) { fmt.Fprintln(os.Stderr, "docmind: "+msg) }
	// The cause tells the run ledger that the run was interrupted, not
	// failed: it stays resumable and is listed as interrupted.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var exiting sync.Mutex
	go func() {
		<-sigs
		cancel(threads.ErrInterrupted)
		select {
		case <-sigs: // a second Ctrl-C: exit now
		case <-time.After(graceAfterSignal()):
		}
		exiting.Lock()
		fmt.Fprintln(os.Stderr, "docmind: interrupted")
		os.Exit(exitError)
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	exiting.Lock()
	os.Exit(code)
}

// run executes the command line and returns the exit code. Errors are
// printed as one line on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (code int) {
	// Nothing on stderr shows an API key, even one a server echoed.
	stderr = redact.Writer(stderr)
	defer func() {
		// A bug must not show the user a stack trace; say what happened.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "docmind: internal error: %v (please report this)\n", r)
			code = exitError
		}
	}()
	app := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	root := app.rootCmd()
	root.SetArgs(args)
	err := unknownSubcommand(root, args)
	if err == nil {
		err = root.ExecuteContext(ctx)
	}
	for _, c := range app.closers {
		c()
	}
	if err == nil {
		return app.exitCode
	}
	return reportError(ctx, err, stderr)
}

// reportError prints the one line a failed command ends with and returns
// its exit code.
func reportError(ctx context.Context, err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "docmind: %s\n", oneLine(err))
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", strings.TrimSpace("docmind "+ue.cmd))
		return exitUsage
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		// Once the run is cancelled, whatever error it ended with (SQLite
		// says "interrupted (9)" mid-statement) is the interruption.
		fmt.Fprintln(stderr, "docmind: interrupted")
		return exitError
	default:
		line := oneLine(err)
		var le *llm.Error
		if errors.As(err, &le) && le.Kind == llm.KindTimeout && le.Timeout > 0 {
			line += fmt.Sprintf(" (a slow model may need a longer --call-timeout than %s)", le.Timeout)
		}
		fmt.Fprintf(stderr, "docmind: %s\n", line)
		return exitError
	}
}

// usageError marks a mistake in how the command was called (exit 2).
type usageError struct {
	cmd string // the command's path below docmind ("" for docmind itself)
	err error
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// oneLine folds an error message onto one line, without secrets.
func oneLine(err error) string {
	return redact.String(strings.Join(strings.Fields(err.Error()), " "))
}
