// Package mcpserver serves DocMind to AI assistants over the Model Context
// Protocol: the tools ask (a judged, cited answer), search (ranked
// sections, no generation) and get_section (one section's text), and the
// indexed documents as resources (docmind://documents/{id}).
//
// New builds the *mcp.Server from the same run ledger (threads.Manager)
// and index the docmind CLI uses; cmd/docmind serves it over stdio
// (docmind mcp), and NewHTTPHandler serves it over MCP's streamable HTTP
// transport for mounting in an HTTP server.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/threads"
)

// Name is the implementation name the server reports to clients.
const Name = "docmind"

// DefaultSearchLimit is how many sections search returns when the call
// gives no limit; MaxSearchLimit is the most it returns.
const (
	DefaultSearchLimit = 5
	MaxSearchLimit     = 50
)

// Config is what the server answers from.
type Config struct {
	// Threads runs ask through the run ledger, so that every answer has a
	// run id and follow-ups in a thread are understood (required).
	Threads *threads.Manager
	// Index is the index the pipeline retrieves from: search, get_section
	// and the document resources read it (required).
	Index *index.Index
	// Display shows a document path stored in the index as the user
	// should see it (the CLI shows --docs paths under the folder typed);
	// nil shows paths as stored.
	Display func(path string) string
	// RunTimeout bounds one ask, every retry included; 0 means no bound
	// beyond the caller's context.
	RunTimeout time.Duration
	// RunSlot, when set, is called before each ask: it takes one of the
	// server's run slots (waiting its turn, or failing when none is
	// free) and returns the run's context and the slot's release, as
	// server.(*Server).RunSlot does. nil: asks run as they come (docmind
	// mcp over stdio serves one client).
	RunSlot func(ctx context.Context) (context.Context, func(), error)
	// Version is the version reported to clients ("dev" when empty).
	Version string
	// Logger receives diagnostics (nil: none). It must not write to the
	// stdio transport's stdout.
	Logger *slog.Logger
}

// server holds the configuration the handlers share.
type server struct {
	cfg Config
	// mu guards listed: the document resources the server lists, by URI.
	mu     sync.Mutex
	listed map[string]mcp.Resource
}

// New builds the MCP server: the ask, search and get_section tools and a
// resource for each document in the index, kept current as documents are
// indexed or deleted after New (see addResources).
func New(ctx context.Context, cfg Config) (*mcp.Server, error) {
	if cfg.Threads == nil {
		return nil, errors.New("mcpserver: Config.Threads is required")
	}
	if cfg.Index == nil {
		return nil, errors.New("mcpserver: Config.Index is required")
	}
	if cfg.Display == nil {
		cfg.Display = func(p string) string { return p }
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &server{cfg: cfg}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "DocMind", Version: cfg.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       cfg.Logger,
	})
	s.addTools(srv)
	if err := s.addResources(ctx, srv); err != nil {
		return nil, err
	}
	return srv, nil
}

// MaxQuestionBytes is the longest question ask accepts, as on serve's
// JSON API; MaxSessions is how many sessions the HTTP handler keeps open
// at once.
const (
	MaxQuestionBytes = 64 << 10
	MaxSessions      = 256
)

// NewHTTPHandler builds the server as New does and returns the handler of
// MCP's streamable HTTP transport serving it, to be mounted at a path such
// as /mcp. Sessions idle for sessionTimeout are closed (0: never); a new
// session beyond MaxSessions open ones gets 429 until one closes.
func NewHTTPHandler(ctx context.Context, cfg Config, sessionTimeout time.Duration) (http.Handler, error) {
	srv, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger:         cfg.Logger,
		SessionTimeout: sessionTimeout,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
			open := 0
			for range srv.Sessions() {
				open++
			}
			if open >= MaxSessions {
				w.Header().Set("Retry-After", "60")
				http.Error(w, fmt.Sprintf("too many MCP sessions open (%d): end one (DELETE /mcp with its Mcp-Session-Id) or wait for idle ones to close", open), http.StatusTooManyRequests)
				return
			}
		}
		h.ServeHTTP(w, r)
	}), nil
}

// instructions tell the assistant what the server is for.
const instructions = `DocMind answers questions from a fixed folder of documents (contracts, reports, manuals) with cited answers.
Use ask for a question the documents should answer: every answer is checked by a judge against the cited passages, and when the documents do not support a confident answer ask says so ("Unable to provide a confident response. Please rephrase your query.") instead of guessing — report that to the user rather than inventing an answer.
Use search to see which sections mention something (no answer is generated), then get_section to read one in full. The documents themselves are resources (docmind://documents/{id}).`

// errorLine makes err one line without secrets, for a tool error.
func errorLine(err error) error {
	return errors.New(redact.String(strings.Join(strings.Fields(err.Error()), " ")))
}

// toolError is a tool error with one line of text.
func toolError(format string, args ...any) error {
	return errorLine(fmt.Errorf(format, args...))
}
