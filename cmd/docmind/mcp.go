package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/mcpserver"
	"github.com/docmind/docmind/threads"
)

func (a *app) mcpCmd() *cobra.Command {
	var pf pipelineFlags
	var tf threadFlags
	cmd := &cobra.Command{
		Use:   "mcp [--index DIR | --docs DIR]",
		Short: "Serve the documents to an AI assistant over the Model Context Protocol (stdio)",
		Long: `mcp runs an MCP server on standard input and output for an assistant (Claude
Desktop, an IDE, an agent) to start as a subprocess. It offers the tools ask
(a judged, cited answer, or the fallback message), search (ranked sections)
and get_section (a section's text), and the indexed documents as resources
(docmind://documents/ID). Answers are recorded in the run database like
ask --thread. Standard output carries only the protocol; diagnostics go to
standard error.`,
		Example: `  docmind mcp --docs ~/contracts
  docmind mcp --index ~/.cache/docmind/index`,
		Args: exactArgs(0, "no arguments (pass the documents with --docs or --index)"),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			p, src, err := a.openPipeline(ctx, c, &pf, nil)
			if err != nil {
				return err
			}
			store, err := a.openStore(ctx, &tf)
			if err != nil {
				return err
			}
			defer store.Close()
			m, err := a.managerFor(p, &pf, store, &tf)
			if err != nil {
				return err
			}
			srv, err := mcpserver.New(ctx, a.mcpConfig(&pf, m, src))
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stderr, "docmind: serving MCP on stdio")
			err = srv.Run(ctx, guardedStdio(ctx, a.stdin, a.stdout, a.stderr, a.mcpConfig(&pf, m, src).RunTimeout+30*time.Second))
			if errors.Is(err, io.EOF) {
				// the client closed its end: a normal end of the session
				return nil
			}
			return err
		},
	}
	pf.register(cmd)
	hideStoreFlag(cmd)
	tf.registerData(cmd)
	return cmd
}

// version is the module version the binary was built from, or "dev".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionLine is what docmind --version prints after "docmind": the
// module version, and the commit the binary was built from when the build
// recorded it ("dev (commit 3b1416e0d2a1, modified)").
func versionLine() string {
	v := version()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v
	}
	v += " (commit " + rev[:min(12, len(rev))]
	if modified {
		v += ", modified"
	}
	return v + ")"
}

// mcpConfig is the MCP server's configuration for docmind mcp and serve's
// /mcp: the thread manager, the index it answers from and --timeout.
func (a *app) mcpConfig(pf *pipelineFlags, m *threads.Manager, src docSource) mcpserver.Config {
	timeout := pf.timeout
	if timeout <= 0 {
		timeout = defaultRunTimeout
	}
	return mcpserver.Config{
		Threads: m, Index: src.index, Display: src.display,
		RunTimeout: timeout, Version: version(), Logger: a.logger(),
	}
}
