package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/mcpserver"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/threads"
)

// contractConfig indexes examples/contract and builds the offline pipeline
// and run ledger over it, as docmind mcp does.
func contractConfig(t *testing.T) (mcpserver.Config, *checkpoint.Memory) {
	t.Helper()
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	l, closeLoader := docmind.NewLoader()
	defer closeLoader()
	if _, err := ingest.Run(ctx, ix, []string{filepath.Join(testenv.RepoRoot(t), "examples", "contract")}, ingest.Options{Parser: ingest.LoaderParser(l)}); err != nil {
		t.Fatal(err)
	}
	p, err := docmind.New(docmind.WithRetriever(ix.Retriever()), docmind.WithCorpus(ix.Corpus()))
	if err != nil {
		t.Fatal(err)
	}
	store := checkpoint.NewMemory()
	m, err := threads.New(threads.Config{Store: store, Runner: p.Runner(), Rewriter: threads.Offline{}})
	if err != nil {
		t.Fatal(err)
	}
	return mcpserver.Config{Threads: m, Index: ix, RunTimeout: time.Minute}, store
}

func TestNewNeedsThreadsAndIndex(t *testing.T) {
	if _, err := mcpserver.New(context.Background(), mcpserver.Config{}); err == nil {
		t.Fatal("New without a run ledger and an index should fail")
	}
}

// The SDK's client against the streamable HTTP handler, served by
// httptest: an answer with its run recorded in the ledger, a follow-up in
// the same thread, a search and a bad call.
func TestStreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, store := contractConfig(t)
	h, err := mcpserver.NewHTTPHandler(ctx, cfg, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var out mcpserver.AskOutput
	call(ctx, t, cs, "ask", map[string]any{"question": "What are the late payment penalties?"}, &out)
	if !out.Answered || !strings.Contains(out.Answer, "1.5%") || len(out.Citations) == 0 || out.Citations[0].Page != 8 {
		t.Fatalf("want the 1.5%% late fee cited on page 8, got %+v", out)
	}
	run, err := store.Run(ctx, out.RunID)
	if err != nil || run.Thread != out.Thread || run.Question != "What are the late payment penalties?" || run.Status != checkpoint.StatusDone {
		t.Fatalf("run %s in the ledger: %+v, %v", out.RunID, run, err)
	}

	var follow mcpserver.AskOutput
	call(ctx, t, cs, "ask", map[string]any{"question": "What is the warranty period?", "thread": out.Thread}, &follow)
	if follow.Answered || follow.Answer != schema.FallbackMessage || follow.Thread != out.Thread || follow.RunID == out.RunID {
		t.Fatalf("want the fallback in thread %s, got %+v", out.Thread, follow)
	}
	// the refusal names the rules that decided
	if len(follow.Verdict.Findings) == 0 || follow.Verdict.Findings[0].Rule == "" {
		t.Errorf("refusal without the rules that decided: %+v", follow.Verdict)
	}

	var found mcpserver.SearchOutput
	call(ctx, t, cs, "search", map[string]any{"query": "termination notice"}, &found)
	if len(found.Results) == 0 || len(found.Results) > mcpserver.DefaultSearchLimit {
		t.Fatalf("search: %+v", found)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_section", Arguments: map[string]any{"id": "missing"}})
	if err != nil || !res.IsError {
		t.Fatalf("get_section of an unknown id: want a tool error, got %+v, %v", res, err)
	}
}

// call calls a tool, fails on any error and decodes its structured content.
func call(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %+v", name, res.Content)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
}

// TestResourcesFollowTheIndex: a document indexed after the server was
// built (as docmind serve's uploads are) is listed as a resource and
// readable, one deleted is no longer listed, and the client is told the
// list changed.
func TestResourcesFollowTheIndex(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, _ := contractConfig(t)
	h, err := mcpserver.NewHTTPHandler(ctx, cfg, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func() map[string]string {
		t.Helper()
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range list.Resources {
			out[filepath.Base(r.Name)] = r.URI
		}
		return out
	}
	if got := names(); len(got) != 2 {
		t.Fatalf("resources %v, want the 2 contract documents", got)
	}

	file := filepath.Join(t.TempDir(), "holiday-policy.md")
	if err := os.WriteFile(file, []byte("# Holiday Policy\n\nStaff receive twenty-five days of paid holiday a year.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, closeLoader := docmind.NewLoader()
	defer closeLoader()
	if _, err := ingest.Run(ctx, cfg.Index, []string{file}, ingest.Options{Parser: ingest.LoaderParser(l)}); err != nil {
		t.Fatal(err)
	}
	got := names()
	uri, ok := got["holiday-policy.md"]
	if len(got) != 3 || !ok {
		t.Fatalf("resources after indexing a file %v, want it listed", got)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "twenty-five days of paid holiday") {
		t.Fatalf("read %s: %+v, %v", uri, read, err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/resources/list_changed after the index changed")
	}
	// (the SDK sends one notification for changes close together)
	time.Sleep(200 * time.Millisecond)
	for len(changed) > 0 {
		<-changed
	}

	if _, err := cfg.Index.DeleteDocument(ctx, file); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) != 2 || got["holiday-policy.md"] != "" {
		t.Fatalf("resources after deleting the file %v, want it gone", got)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no notifications/resources/list_changed after the deletion")
	}
	// An unchanged index changes nothing.
	names()
	select {
	case <-changed:
		t.Fatal("list_changed sent although the index did not change")
	case <-time.After(500 * time.Millisecond):
	}
}
