package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/mcpserver"
	"github.com/docmind/docmind/server"
)

// serveFlags are the flags of docmind serve beyond the pipeline's.
type serveFlags struct {
	addr     string
	token    string
	noAuth   bool
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
		Use:   "serve [--addr 127.0.0.1:8080] [--docs DIR | --index DIR] [--token T | --no-auth] [--cors ORIGIN]",
		Short: "Answer questions over HTTP: a web page, a JSON API, an OpenAI-compatible chat API and MCP",
		Long: `serve answers questions over HTTP with the same pipeline, index and run
ledger as the other commands: a web page at / (ask, see the judged answer
and open each citation at its page), a JSON API under /api/v1/ (ask, with
server-sent events on request; runs; resume; documents, their uploads,
deletions and PDF pages; sections), an OpenAI-compatible API under /v1/
(chat/completions and models; the model is "docmind") and MCP at /mcp
(streamable HTTP; the tools of docmind mcp). Every question is a run in
the ledger (docmind runs ls).

It binds to the loopback interface and requires a token: on first start
a random one is stored (mode 0600) in serve-token beside the index, and
each start prints the URL with it (http://127.0.0.1:8080/#token=...):
open that URL for the web page, and send "Authorization: Bearer TOKEN"
to the APIs and MCP. --token T (or $DOCMIND_TOKEN) sets it instead.
--no-auth turns the token off on a single-user machine: any local user
and program can then read every document and run. Another --addr needs a
token; --cors ORIGIN (browsers on another origin) needs one too. At most
--max-runs questions run at once and --max-queue more wait; the rest get
429. On Ctrl-C or SIGTERM it stops accepting requests and lets those in
flight finish, for at most --shutdown-timeout. docs/security.md says what
is refused and why.`,
		Example: `  docmind serve --docs examples/contract    # then open the URL it prints: http://127.0.0.1:8080/#token=...
  curl -s localhost:8080/api/v1/ask -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"question":"What are the late payment penalties?"}'
  docmind serve --no-auth --docs examples/contract    # single-user machine: no token (see docs/security.md)`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			if sf.token == "" && !sf.noAuth {
				sf.token = a.getenv("DOCMIND_TOKEN")
			}
			switch {
			case sf.noAuth && c.Flags().Changed("token"):
				return usageError{cmd: cmdPath(c), err: errors.New("--no-auth and --token contradict each other: pass one")}
			case sf.noAuth && !server.IsLoopbackAddr(sf.addr):
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--addr %s is not a loopback address: it needs a token, so drop --no-auth", sf.addr)}
			case sf.noAuth && sf.cors != "":
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--cors %s without a token would let any page from that origin read and delete the documents: drop --no-auth", sf.cors)}
			}
			if sf.maxRuns < 1 || sf.maxQueue < 0 {
				return usageError{cmd: cmdPath(c), err: errors.New("--max-runs must be 1 or more and --max-queue 0 or more")}
			}
			return a.serve(c, &pf, &tf, &sf)
		},
	}
	pf.register(cmd)
	hideStoreFlag(cmd)
	tf.registerData(cmd)
	f := cmd.Flags()
	f.StringVar(&sf.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port); a non-loopback host needs a token (not --no-auth)")
	f.StringVar(&sf.token, "token", "", "bearer token every request must send (default: $DOCMIND_TOKEN, else one generated and kept in serve-token beside the index)")
	f.BoolVar(&sf.noAuth, "no-auth", false, "no token: any local user or program may use the server (single-user machines only; not with --cors or another --addr)")
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
	dir, err := a.dataDir(tf.dataDir)
	if err != nil {
		return err
	}
	if !sf.noAuth && sf.token == "" {
		// beside the index, or in the data folder for a --store
		beside := dir
		if src.index != nil {
			beside = filepath.Dir(src.index.Path())
		}
		if sf.token, err = serveToken(filepath.Join(beside, serveTokenFile)); err != nil {
			return err
		}
	}
	uploads := uploadDir(dir, src.index, a.getenv)
	queue := sf.maxQueue
	if queue == 0 {
		queue = -1 // none wait
	}
	// /mcp: the same tools as docmind mcp, over MCP's streamable HTTP,
	// built on the server below (its paths, its run slots)
	var mcpHandler http.Handler
	h, err := server.New(server.Config{
		Manager: m, Index: src.index, ShowSource: relativeTo(ctx, src),
		MCP:       http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mcpHandler.ServeHTTP(w, r) }),
		UploadDir: uploads,
		Token:     sf.token, CORSOrigin: sf.cors,
		MaxRuns: sf.maxRuns, MaxQueue: queue, RunTimeout: pf.timeout,
		Logger:             a.logger(),
		NoSourcesInContent: sf.noSources,
	})
	if err != nil {
		return err
	}
	defer h.Close()
	mcpCfg := a.mcpConfig(pf, m, src)
	mcpCfg.Display = h.Show
	mcpCfg.RunSlot = h.RunSlot
	if mcpHandler, err = mcpserver.NewHTTPHandler(ctx, mcpCfg, 30*time.Minute); err != nil {
		return err
	}
	// an upload cut off by a crash is in the upload folder and the index
	// or in neither
	if n, err := h.ReconcileUploads(ctx); err != nil {
		return fmt.Errorf("reconcile the uploads with the index: %w", err)
	} else if n > 0 {
		fmt.Fprintf(a.stderr, "docmind: removed %d incomplete upload(s) left by an earlier run\n", n)
	}
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
	// The process may outlive a signal by the shutdown's wait, with the
	// time Shutdown then gives the interrupted runs to answer their
	// clients.
	shutdownGrace.Store(int64(sf.grace + server.RunsStopWait + time.Second))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if sf.token != "" {
		fmt.Fprintf(a.stderr, "docmind: serving on http://%s/#token=%s (open it in a browser for the web page; JSON API /api/v1/, OpenAI-compatible /v1/, MCP /mcp with Authorization: Bearer TOKEN; Ctrl-C stops)\n", ln.Addr(), sf.token)
	} else {
		fmt.Fprintf(a.stderr, "docmind: serving on http://%s/ without a token (--no-auth: any local user may use it; open it in a browser for the web page; JSON API /api/v1/, OpenAI-compatible /v1/, MCP /mcp; Ctrl-C stops)\n", ln.Addr())
	}
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

// serveTokenFile is the file beside the index that keeps serve's token.
const serveTokenFile = "serve-token"

// serveToken returns the token kept at path, generating a random one (32
// bytes, hex) on first use. The file is mode 0600 in a 0700 folder; one
// readable by others is refused rather than trusted.
func serveToken(path string) (string, error) {
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("%s is not a private regular file (mode %s): remove it and start again for a new token", path, fi.Mode())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read the token: %w", err)
		}
		if tok := strings.TrimSpace(string(b)); len(tok) >= 16 {
			return tok, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw[:])
	tmp, err := os.CreateTemp(filepath.Dir(path), ".serve-token-*")
	if err != nil {
		return "", fmt.Errorf("store the token: %w", err)
	}
	_, err = tmp.WriteString(tok + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("store the token: %w", err)
	}
	return tok, nil
}

// relativeTo returns how serve's replies show a document's path: as the
// source shows it when that is relative (--docs as typed), otherwise
// relative to the folder holding the index's documents when it started,
// so that replies do not reveal where the files are.
func relativeTo(ctx context.Context, src docSource) func(string) string {
	root := ""
	if src.index != nil {
		if docs, err := src.index.Documents(ctx); err == nil {
			paths := make([]string, len(docs))
			for i, d := range docs {
				paths[i] = d.Path
			}
			root = docmind.SourceRoot(paths...)
		}
	}
	return func(p string) string {
		shown := src.display(p)
		if !filepath.IsAbs(shown) || root == "" {
			return shown
		}
		if rel, err := filepath.Rel(root, shown); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
		return shown
	}
}

// uploadDir is where a server on ix keeps its uploads: DATA_DIR/uploads
// for the default index, DATA_DIR/uploads/ID for another (a served --docs
// folder's cache, whose folder name is ID, or an --index elsewhere, ID
// from its path), so that starting a server on one index never
// reconciles away another's uploads.
func uploadDir(data string, ix *index.Index, getenv func(string) string) string {
	uploads := filepath.Join(data, "uploads")
	if ix == nil {
		return uploads
	}
	dir, err := filepath.Abs(filepath.Dir(ix.Path()))
	if err != nil {
		return uploads
	}
	if def, err := index.DefaultDirIn(getenv); err == nil {
		if abs, err := filepath.Abs(def); err == nil && abs == dir {
			return uploads
		}
	}
	if folders, err := index.CacheDirForIn(".", getenv); err == nil && filepath.Dir(dir) == filepath.Dir(folders) {
		return filepath.Join(uploads, filepath.Base(dir))
	}
	return filepath.Join(uploads, index.StableID(dir, "uploads", 0, 0))
}
