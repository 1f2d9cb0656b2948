package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/mcpserver"
	"github.com/docmind/docmind/schema"
)

// The SDK's own client runs `docmind mcp` as a subprocess and speaks the
// protocol to it over stdin/stdout, as an assistant would.
func TestMCPStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.Command(binPath, "mcp", "--docs", "examples/contract")
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t), "DOCMIND_DATA_DIR=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to docmind mcp: %v; stderr:\n%s", err, stderr.String())
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if !strings.Contains(stderr.String(), "docmind: serving MCP on stdio") {
			t.Errorf("diagnostics should go to stderr, got:\n%s", stderr.String())
		}
	}()
	if got := cs.InitializeResult().ServerInfo.Name; got != "docmind" {
		t.Errorf("server name %q, want docmind", got)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"ask", "search", "get_section"} {
		if byName[name] == nil {
			t.Fatalf("tool %s not listed; got %v", name, tools.Tools)
		}
	}
	if d := byName["ask"].Description; !strings.Contains(d, "judge") || !strings.Contains(d, schema.FallbackMessage) {
		t.Errorf("ask's description should say answers are judged and may be refused: %q", d)
	}

	t.Run("ask answers with a citation", func(t *testing.T) {
		res, out := callAsk(ctx, t, cs, map[string]any{"question": "What are the late payment penalties?"})
		if !out.Answered || !out.Verdict.Grounded || !strings.Contains(out.Answer, "1.5%") {
			t.Fatalf("want a grounded answer citing the 1.5%% late fee, got %+v", out)
		}
		cited := false
		for _, c := range out.Citations {
			if c.Page == 8 && strings.Contains(c.Quote, "1.5%") && strings.HasSuffix(c.Document, "master-services-agreement.md") {
				cited = true
			}
		}
		if !cited {
			t.Errorf("no citation of page 8 quoting the 1.5%% fee: %+v", out.Citations)
		}
		if out.RunID == "" || out.Thread == "" || out.Verdict.Confidence <= 0 {
			t.Errorf("run id, thread and confidence should be set: %+v", out)
		}
		if text := textOf(t, res); !strings.Contains(text, "1.5%") || !strings.Contains(text, "page 8") || !strings.Contains(text, out.RunID) {
			t.Errorf("text content should carry the answer, its page and the run id:\n%s", text)
		}
	})

	t.Run("ask falls back", func(t *testing.T) {
		res, out := callAsk(ctx, t, cs, map[string]any{"question": "What is the warranty period?"})
		if out.Answered || out.Answer != schema.FallbackMessage || len(out.Citations) != 0 || out.RunID == "" {
			t.Fatalf("want the fallback message with a run id and no citations, got %+v", out)
		}
		if text := textOf(t, res); !strings.HasPrefix(text, schema.FallbackMessage) {
			t.Errorf("text should start with the fallback message:\n%s", text)
		}
	})

	t.Run("a refusal names the closest passages, not verified", func(t *testing.T) {
		res, out := callAsk(ctx, t, cs, map[string]any{"question": "How many days notice is needed to terminate for convenience in 2019?"})
		if out.Answered || len(out.Closest) == 0 || out.Closest[0].Title == "" || out.Closest[0].PageRef == "" {
			t.Fatalf("want a refusal with closest passages, got %+v", out)
		}
		if !strings.Contains(out.Closest[0].Excerpt, "ninety (90) days") {
			t.Errorf("the first closest passage's excerpt %q: want the sentence that meets the question", out.Closest[0].Excerpt)
		}
		if text := textOf(t, res); !strings.Contains(text, "Closest passages found (not verified)") || !strings.Contains(text, out.Closest[0].Title) || !strings.Contains(text, out.Closest[0].Excerpt) {
			t.Errorf("text should name the closest passages as not verified:\n%s", text)
		}
	})

	var firstID string
	t.Run("search", func(t *testing.T) {
		res := callTool(ctx, t, cs, "search", map[string]any{"query": "late fee overdue", "limit": 3})
		var out mcpserver.SearchOutput
		decodeStructured(t, res, &out)
		if len(out.Results) == 0 || len(out.Results) > 3 {
			t.Fatalf("want 1 to 3 results, got %+v", out.Results)
		}
		top := out.Results[0]
		if top.Title != "Late Payment Penalties" || top.Page != 8 || top.Pages != "page 8" || top.Score <= 0 || top.ID == "" ||
			!strings.HasSuffix(top.Document, "master-services-agreement.md") {
			t.Errorf("top result %+v, want Late Payment Penalties on page 8 with a score", top)
		}
		firstID = top.ID
	})

	t.Run("get_section", func(t *testing.T) {
		if firstID == "" {
			t.Skip("search found no section")
		}
		res := callTool(ctx, t, cs, "get_section", map[string]any{"id": firstID})
		var out mcpserver.SectionOutput
		decodeStructured(t, res, &out)
		if out.ID != firstID || out.Title != "Late Payment Penalties" || out.Page != 8 || !strings.Contains(out.Text, "1.5% per month") {
			t.Errorf("section %s: %+v", firstID, out)
		}
	})

	t.Run("bad calls are one-line tool errors", func(t *testing.T) {
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"get_section", map[string]any{"id": "no-such-section"}, `no section with id "no-such-section"`},
			{"search", map[string]any{"query": "fee", "limit": 500}, "limit must be between 1 and 50"},
			{"ask", map[string]any{"question": "  "}, "question is empty"},
		} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatalf("%s %v: protocol error %v, want a tool error", c.tool, c.args, err)
			}
			text := textOf(t, res)
			if !res.IsError || !strings.Contains(text, c.want) || strings.Contains(strings.TrimSpace(text), "\n") {
				t.Errorf("%s %v: want one-line tool error containing %q, got isError=%v %q", c.tool, c.args, c.want, res.IsError, text)
			}
		}
	})

	t.Run("documents are resources", func(t *testing.T) {
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var msa *mcp.Resource
		for _, r := range list.Resources {
			if !strings.HasPrefix(r.URI, mcpserver.DocumentURIPrefix) {
				t.Errorf("resource URI %q does not start with %s", r.URI, mcpserver.DocumentURIPrefix)
			}
			if strings.HasSuffix(r.Name, "master-services-agreement.md") {
				msa = r
			}
		}
		if len(list.Resources) != 2 || msa == nil {
			t.Fatalf("want the 2 contract documents, got %+v", list.Resources)
		}
		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: msa.URI})
		if err != nil {
			t.Fatal(err)
		}
		if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "## Late Payment Penalties (page 8") ||
			!strings.Contains(read.Contents[0].Text, "1.5% per month") {
			t.Errorf("reading %s: %+v", msa.URI, read.Contents)
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.DocumentURIPrefix + "999999"}); err == nil {
			t.Error("reading an unknown document should fail")
		}
	})
}

// callTool calls a tool and fails the test on a protocol or tool error.
func callTool(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, textOf(t, res))
	}
	return res
}

func callAsk(ctx context.Context, t *testing.T, cs *mcp.ClientSession, args map[string]any) (*mcp.CallToolResult, mcpserver.AskOutput) {
	t.Helper()
	res := callTool(ctx, t, cs, "ask", args)
	var out mcpserver.AskOutput
	decodeStructured(t, res, &out)
	return res, out
}

// decodeStructured decodes a tool result's structured content into v.
func decodeStructured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// textOf is the text of a tool result's content.
func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		b.WriteString(tc.Text)
	}
	return b.String()
}

// The MCP section of docs/serving.md has a client configuration that
// parses and starts docmind mcp --docs.
func TestDocsMCPConfig(t *testing.T) {
	section := docSection(t, "docs/serving.md", "MCP")
	start := strings.Index(section, "```json\n")
	if start < 0 {
		t.Fatal("the MCP section of docs/serving.md has no JSON configuration")
	}
	block := section[start+len("```json\n"):]
	block = block[:strings.Index(block, "```")]
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(block), &cfg); err != nil {
		t.Fatalf("the MCP configuration of docs/serving.md is not JSON: %v\n%s", err, block)
	}
	s := cfg.MCPServers["docmind"]
	if s.Command != "docmind" || strings.Join(s.Args, " ") != "mcp --docs /path/to/folder" {
		t.Errorf("configuration should run docmind mcp --docs /path/to/folder, got %+v", s)
	}
}

// A line that is not a JSON-RPC message gets JSON-RPC's error with a null
// id (parse error for a line that is not JSON, invalid request for one
// that is), one line on stderr, and the session goes on: it ended at the
// first such line, unanswered.
func TestMCPStdioSurvivesBadLines(t *testing.T) {
	cmd := exec.Command(binPath, "mcp", "--docs", "examples/contract")
	cmd.Dir = testenv.RepoRoot(t)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "XDG_CACHE_HOME=" + cacheDir(t), "DOCMIND_DATA_DIR=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(stdin, "{bad\n"+
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		"{}\n\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	type reply struct {
		ID    any `json:"id"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	var got []reply
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(got) < 4 && lines.Scan() {
			var r reply
			if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
				t.Errorf("stdout line is not JSON: %q", lines.Text())
			}
			got = append(got, r)
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("no four replies in time; stderr:\n%s", stderr.String())
	}
	if len(got) != 4 {
		t.Fatalf("%d replies, want 4; stderr:\n%s", len(got), stderr.String())
	}
	// The bad lines are answered by the filter and the good ones by the
	// SDK, concurrently: JSON-RPC does not order replies, so neither does
	// this test, beyond the bad lines' own order (one writer, in turn).
	var bad, good []reply
	for _, r := range got {
		if r.ID == nil {
			bad = append(bad, r)
		} else {
			good = append(good, r)
		}
	}
	sort.Slice(good, func(i, j int) bool { return fmt.Sprint(good[i].ID) < fmt.Sprint(good[j].ID) })
	if len(bad) != 2 || bad[0].Error == nil || bad[0].Error.Code != -32700 ||
		bad[1].Error == nil || bad[1].Error.Code != -32600 {
		t.Errorf("the bad lines' replies: %+v", bad)
	}
	if len(good) != 2 || good[0].ID != float64(1) || good[0].Result == nil || good[1].ID != float64(2) || !strings.Contains(string(good[1].Result), `"ask"`) {
		t.Errorf("the session did not go on: %+v", good)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v; stderr:\n%s", err, stderr.String())
	}
	if n := strings.Count(stderr.String(), "docmind: mcp: line "); n != 2 {
		t.Errorf("%d stderr lines about ignored lines, want 2:\n%s", n, stderr.String())
	}
}

// A script that writes its requests and closes stdin gets every answer
// (the SDK ended the session at the end of input, dropping them); a
// request it cancels is not waited for.
func TestMCPStdioAnswersBeforeTheInputEnds(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"late","method":"tools/call","params":{"name":"ask","arguments":{"question":"What are the late payment penalties?"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{"question":"What is the governing law?"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n"
	start := time.Now()
	r := runCLIInput(t, []string{"DOCMIND_DATA_DIR=" + t.TempDir()}, in, "mcp", "--docs", "examples/contract")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `"id":1,"result"`) || !strings.Contains(r.stdout, `"id":"late","result"`) || !strings.Contains(r.stdout, "1.5%") {
		t.Errorf("answers missing:\n%s", r.stdout)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("took %s: waited for the cancelled request", d)
	}
}
