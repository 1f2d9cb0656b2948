package mcpserver_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/mcpserver"
)

// toolError calls a tool and returns the text of the tool error it must
// give.
func toolError(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: want a tool error, got %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// ask takes a run slot through Config.RunSlot, as the JSON API's runs do
// (a server's MCP clients used to run any number of asks at once), and
// refuses a question over MaxQuestionBytes and a thread id the run ledger's
// readers refuse before taking one.
func TestAskKeepsTheServersLimits(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, _ := contractConfig(t)
	var taken, released atomic.Int32
	busy := atomic.Bool{}
	cfg.RunSlot = func(ctx context.Context) (context.Context, func(), error) {
		if busy.Load() {
			return nil, nil, errors.New("too many questions at once: try again shortly")
		}
		taken.Add(1)
		return ctx, func() { released.Add(1) }, nil
	}
	h, err := mcpserver.NewHTTPHandler(ctx, cfg, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var out mcpserver.AskOutput
	call(ctx, t, cs, "ask", map[string]any{"question": "What are the late payment penalties?"}, &out)
	if taken.Load() != 1 || released.Load() != 1 {
		t.Fatalf("one ask took %d slots and released %d, want 1 and 1", taken.Load(), released.Load())
	}
	busy.Store(true)
	if msg := toolError(ctx, t, cs, "ask", map[string]any{"question": "What are the late payment penalties?"}); !strings.Contains(msg, "too many questions") {
		t.Errorf("busy: %q", msg)
	}
	busy.Store(false)
	long := strings.Repeat("penalty ", mcpserver.MaxQuestionBytes/8+1)
	if msg := toolError(ctx, t, cs, "ask", map[string]any{"question": long}); !strings.Contains(msg, "question too long") {
		t.Errorf("long question: %q", msg)
	}
	if msg := toolError(ctx, t, cs, "search", map[string]any{"query": long}); !strings.Contains(msg, "query too long") {
		t.Errorf("long query: %q", msg)
	}
	if msg := toolError(ctx, t, cs, "ask", map[string]any{"question": "late fee?", "thread": "../x"}); !strings.Contains(msg, "invalid thread") {
		t.Errorf("thread ../x: %q", msg)
	}
	if taken.Load() != 1 {
		t.Errorf("refused asks took %d slots", taken.Load()-1)
	}
}

// A new session beyond MaxSessions open ones gets 429 (each session
// used to be kept for the idle timeout, without bound: 25,000 initialize
// requests grew the server by 300 MB); one ended makes room.
func TestSessionsAreBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, _ := contractConfig(t)
	h, err := mcpserver.NewHTTPHandler(ctx, cfg, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	// initialize opens a session: its status, session id and Retry-After
	initialize := func() (int, string, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), resp.Header.Get("Retry-After")
	}
	var first string
	for i := range mcpserver.MaxSessions {
		status, id, _ := initialize()
		if status != http.StatusOK {
			t.Fatalf("session %d: %d", i, status)
		}
		if i == 0 {
			first = id
		}
	}
	if status, _, retry := initialize(); status != http.StatusTooManyRequests || retry == "" {
		t.Fatalf("session %d: %d, want 429 with Retry-After", mcpserver.MaxSessions+1, status)
	}
	del, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	del.Header.Set("Mcp-Session-Id", first)
	resp, err := http.DefaultClient.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if status, _, _ := initialize(); status != http.StatusOK {
		t.Fatalf("a session after one ended: %d", status)
	}
}
