package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/mcpserver"
	"github.com/docmind/docmind/server"
)

// serveFlags are the flags of docmind serve beyond the pipeline's.
type serveFlags struct {
	addr     string
	token    string
	cors     string
	maxRuns  int
	maxQueue int
	grace    time.Duration
	// noSources leaves the "Sources:" list out of chat completions.
	noSources bool
}

// Timeouts of the HTTP server: reading a request's headers and body, and
// an idle keep-alive connection. Writing is bounded by the run timeout
// (--timeout), so that event streams may last as long as their run.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = time.Minute
	idleTimeout       = 2 * time.Minute
)

func (a *app) serveCmd() *cobra.Command {
	var (
		pf pipelineFlags
		tf threadFlags
		sf serveFlags
	)
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--docs DIR | --index DIR] [--token T] [--cors ORIGIN]",
		Short: "Answer questions over HTTP: a web page, a JSON API, an OpenAI-compatible chat API and MCP",
		Long: `serve answers questions over HTTP with the same pipeline, index and run
ledger as the other commands: a web page at / (ask, see the judged answer
and open each citation at its page), a JSON API under /api/v1/ (ask, with
server-sent events on request; runs; resume; documents, their uploads,
deletions and PDF pages; sections), an OpenAI-compatible API under /v1/
(chat/completions and models; the model is "docmind") and MCP at /mcp
(streamable HTTP; the tools of docmind mcp). Every question is a run in
the ledger (docmind runs ls).

It binds to the loopback interface. Another --addr needs --token (or
$DOCMIND_TOKEN), and every request must then send "Authorization: Bearer T".
Browsers may call it from another origin only with --cors ORIGIN. At most
--max-runs questions run at once and --max-queue more wait; the rest get
429. On Ctrl-C or SIGTERM it stops accepting requests and lets those in
flight finish, for at most --shutdown-timeout.`,
		Example: `  docmind serve --docs examples/contract    # then open http://127.0.0.1:8080
  curl -s localhost:8080/api/v1/ask -H 'Content-Type: application/json' -d '{"question":"What are the late payment penalties?"}'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			if sf.token == "" {
				sf.token = a.getenv("DOCMIND_TOKEN")
			}
			if !server.IsLoopbackAddr(sf.addr) && sf.token == "" {
				return usageError{cmd: c.Name(), err: fmt.Errorf("--addr %s is not a loopback address: pass --token T (or set DOCMIND_TOKEN) to serve beyond this machine", sf.addr)}
			}
			if sf.maxRuns < 1 || sf.maxQueue < 0 {
				return usageError{cmd: c.Name(), err: errors.New("--max-runs must be 1 or more and --max-queue 0 or more")}
			}
			return a.serve(c, &pf, &tf, &sf)
		},
	}
	pf.register(cmd)
	tf.registerData(cmd)
	f := cmd.Flags()
	f.StringVar(&sf.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port); a non-loopback host needs --token")
	f.StringVar(&sf.token, "token", "", "bearer token every request must send (default: $DOCMIND_TOKEN; required for a non-loopback --addr)")
	f.StringVar(&sf.cors, "cors", "", "origin browsers may call the API from, e.g. http://localhost:3000 (default: none)")
	f.IntVar(&sf.maxRuns, "max-runs", server.DefaultMaxRuns(), "questions answered at once: one per CPU by default; raise it for an LLM, whose runs wait on the network")
	f.IntVar(&sf.maxQueue, "max-queue", server.DefaultMaxQueue, "questions waiting for a run beyond --max-runs before requests get 429")
	f.BoolVar(&sf.noSources, "no-sources-in-content", false, "leave the \"Sources:\" list out of the OpenAI endpoint's assistant messages (the docmind field keeps the citations)")
	f.DurationVar(&sf.grace, "shutdown-timeout", 30*time.Second, "how long Ctrl-C or SIGTERM waits for requests in flight")
	return cmd
}

// serve builds the pipeline, the thread manager and the handler, and
// serves until the command's context ends, then shuts down gracefully.
func (a *app) serve(c *cobra.Command, pf *pipelineFlags, tf *threadFlags, sf *serveFlags) error {
	ctx := c.Context()
	store, err := a.openStore(ctx, tf)
	if err != nil {
		return err
	}
	defer store.Close()
	// with no index yet, serve starts on an empty one: documents can be
	// uploaded
	pf.createIndex = true
	p, src, err := a.openPipeline(ctx, c, pf, server.Observer())
	if err != nil {
		return err
	}
	m, err := a.managerFor(p, pf, store, tf)
	if err != nil {
		return err
	}
	// /mcp: the same tools as docmind mcp, over MCP's streamable HTTP
	mcpHandler, err := mcpserver.NewHTTPHandler(ctx, a.mcpConfig(pf, m, src), 30*time.Minute)
	if err != nil {
		return err
	}
	dir, err := a.dataDir(tf.dataDir)
	if err != nil {
		return err
	}
	queue := sf.maxQueue
	if queue == 0 {
		queue = -1 // none wait
	}
	h, err := server.New(server.Config{
		Manager: m, Index: src.index, ShowSource: src.display, MCP: mcpHandler,
		UploadDir: filepath.Join(dir, "uploads"),
		Token:     sf.token, CORSOrigin: sf.cors,
		MaxRuns: sf.maxRuns, MaxQueue: queue, RunTimeout: pf.timeout,
		Logger:             a.logger(),
		NoSourcesInContent: sf.noSources,
	})
	if err != nil {
		return err
	}
	defer h.Close()
	ln, err := net.Listen("tcp", sf.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", sf.addr, err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(a.logger().Handler(), slog.LevelWarn),
	}
	// The process may outlive a signal by the shutdown's wait.
	shutdownGrace.Store(int64(sf.grace + time.Second))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(a.stderr, "docmind: serving on http://%s (open it in a browser for the web page; JSON API /api/v1/, OpenAI-compatible /v1/, MCP /mcp; Ctrl-C stops)\n", ln.Addr())
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintf(a.stderr, "docmind: shutting down: waiting up to %s for requests in flight\n", sf.grace)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sf.grace)
	defer cancel()
	if err := h.Shutdown(sctx, srv); err != nil {
		return fmt.Errorf("requests still running after --shutdown-timeout %s were cut off (their runs can be resumed: docmind runs ls --status interrupted)", sf.grace)
	}
	fmt.Fprintln(a.stderr, "docmind: stopped")
	return nil
}
