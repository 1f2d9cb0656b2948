package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/mcpserver"
	"github.com/docmind/docmind/schema"
)

// TestAskTokenEvents: the draft streams as "token" events inside the
// generate node (between its node_start and node_end), and the tokens
// join to the draft the result reports.
func TestAskTokenEvents(t *testing.T) {
	ts, _ := newServer(t, nil)
	evs := askEvents(t, ts, lateFee)
	var draft strings.Builder
	inGenerate, tokens := false, 0
	for _, e := range evs {
		var n nodeEvent
		switch e.name {
		case "node_start", "node_end":
			json.Unmarshal([]byte(e.data), &n)
			if n.Node == schema.NodeGenerate {
				inGenerate = e.name == "node_start"
			}
		case "token":
			var tok tokenEvent
			if err := json.Unmarshal([]byte(e.data), &tok); err != nil || tok.Token == "" || tok.Attempt != 0 {
				t.Fatalf("token event %s: want a non-empty token of attempt 0", e.data)
			}
			if !inGenerate {
				t.Fatalf("token event %s outside the generate node", e.data)
			}
			tokens++
			draft.WriteString(tok.Token)
		}
	}
	out := decodeOutcome(t, []byte(evs[len(evs)-1].data))
	if tokens == 0 || out.GeneratedResponse == nil || draft.String() != *out.GeneratedResponse || !strings.Contains(draft.String(), "1.5%") {
		t.Fatalf("%d token events joining to %q; the result's draft is %v", tokens, draft.String(), out.GeneratedResponse)
	}
}

// TestChatCompletionsStreamExtension reads a streamed completion raw:
// only its last chunk (finish_reason "stop") carries the docmind
// extension, with the run, the verdict and the citations, and "[DONE]"
// ends the stream.
func TestChatCompletionsStreamExtension(t *testing.T) {
	ts, _ := newServer(t, nil)
	resp, err := ts.Client().Post(ts.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model": "docmind", "stream": true, "messages": [{"role": "user", "content": "`+lateFee+`"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("%d %q %s", resp.StatusCode, ct, b)
	}
	var datas []string
	for _, block := range strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n\n") {
		if strings.HasPrefix(block, ":") {
			continue // keep-alive
		}
		d, ok := strings.CutPrefix(block, "data: ")
		if !ok || strings.Contains(d, "\n") {
			t.Fatalf("event %q: want one data line", block)
		}
		datas = append(datas, d)
	}
	if len(datas) < 3 || datas[len(datas)-1] != "[DONE]" {
		t.Fatalf("stream %q: want chunks then [DONE]", b)
	}
	chunks := datas[:len(datas)-1]
	var text strings.Builder
	for i, d := range chunks {
		var c ChatCompletionChunk
		if err := json.Unmarshal([]byte(d), &c); err != nil || len(c.Choices) != 1 {
			t.Fatalf("chunk %d %s: %v", i, d, err)
		}
		text.WriteString(c.Choices[0].Delta.Content)
		last := i == len(chunks)-1
		if (c.Docmind != nil) != last || (c.Choices[0].FinishReason == "stop") != last {
			t.Fatalf("chunk %d of %d %s: want the extension and finish_reason stop on the last chunk only", i, len(chunks), d)
		}
		if !last {
			continue
		}
		ext := c.Docmind
		if ext.RunID == "" || !ext.Answered || ext.Verdict == nil || !ext.Verdict.ShouldReturn ||
			len(ext.Citations) == 0 || ext.Citations[0].Title != "Late Payment Penalties" || ext.Citations[0].Page != 8 || len(ext.Citations[0].Quotes) == 0 {
			t.Fatalf("extension of the last chunk %s: want the run, the grounded verdict and the cited page 8 with its quote", d)
		}
		status, _, rb := call(t, ts, "GET", "/api/v1/runs/"+ext.RunID, "")
		var rec struct{ Run checkpoint.Run }
		json.Unmarshal(rb, &rec)
		if status != 200 || rec.Run.Status != checkpoint.StatusDone || rec.Run.Outcome != checkpoint.OutcomeAnswered {
			t.Fatalf("run %s of the stream: %d %s", ext.RunID, status, rb)
		}
	}
	if !strings.Contains(text.String(), "1.5%") {
		t.Errorf("streamed text %q", text.String())
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPNeedsTheToken: with a token set, /mcp (the MCP server over
// streamable HTTP) refuses a client without it, with the same 401 as
// the API, and answers the MCP SDK's client that sends it.
func TestMCPNeedsTheToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ts, _ := newServer(t, func(c *Config) {
		c.Token = "s3cret"
		h, err := mcpserver.NewHTTPHandler(ctx, mcpserver.Config{Threads: c.Manager, Index: c.Index}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		c.MCP = h
	})

	init := `{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}`
	status, hdr, b := call(t, ts, "POST", "/mcp", init, "Accept", "application/json, text/event-stream")
	wantError(t, status, b, 401, "missing token")
	if !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("WWW-Authenticate %q", hdr.Get("WWW-Authenticate"))
	}
	status, _, b = call(t, ts, "POST", "/mcp", init, "Accept", "application/json, text/event-stream", "Authorization", "Bearer wrong")
	wantError(t, status, b, 401, "wrong token")

	// the MCP SDK's own errors are plain text; the server's contract is one
	// JSON object {"error": "..."} for every error, /mcp included
	status, _, b = call(t, ts, "POST", "/mcp", `{bad`, "Accept", "application/json, text/event-stream", "Authorization", "Bearer s3cret")
	wantError(t, status, b, 400, "malformed")
	status, _, b = call(t, ts, "PUT", "/mcp", "", "Authorization", "Bearer s3cret")
	wantError(t, status, b, 405, "Method Not Allowed")
	status, _, b = call(t, ts, "GET", "/mcp", "", "Accept", "text/event-stream", "Authorization", "Bearer s3cret")
	wantError(t, status, b, 400, "Mcp-Session-Id")

	client := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, nil)
	if cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Fatal("the MCP client connected without the token")
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}, nil)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": lateFee}})
	if err != nil || res.IsError {
		t.Fatalf("ask over /mcp with the token: %v %+v", err, res)
	}
	var got struct {
		Answer   string `json:"answer"`
		Answered bool   `json:"answered"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &got); err != nil || !got.Answered || !strings.Contains(got.Answer, "1.5%") {
		t.Fatalf("ask over /mcp: %s", raw)
	}
}
