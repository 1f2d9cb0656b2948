package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/docmind/docmind/internal/testenv"
)

// The scripted three-turn conversation over the two Oracle 10-Ks of the
// shared filings: the follow-ups keep the company, the measure and (until
// the last turn names another) the date. The figures are the filings' own
// (pdftotext): 62,000 U.S. employees as of May 31, 2023 in the 2023 10-K,
// 48,000 as of May 31, 2022 in the 2022 10-K.
var followUpTurns = []struct{ question, want, notWant string }{
	{"How many employees did Oracle have as of May 31, 2023?", "164,000", ""},
	{"How many of them were in the U.S.?", "62,000", "48,000"},
	{"And in fiscal 2022?", "48,000", "62,000"},
}

// oracleIndex ingests the two Oracle filings into a fresh index and
// returns its directory.
func oracleIndex(t *testing.T) string {
	t.Helper()
	filings := testenv.SharedPath(t, "fixtures", "filings")
	dir := t.TempDir()
	r := runCLI(t, nil, "ingest", "--index", dir,
		filepath.Join(filings, "ORACLE_2022_10K.pdf"), filepath.Join(filings, "ORACLE_2023_10K.pdf"))
	if r.code != 0 {
		t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
	}
	return dir
}

func TestFollowUpsKeepTheirSubject(t *testing.T) {
	idx := oracleIndex(t)
	check := func(t *testing.T, turn int, answer string) {
		t.Helper()
		tt := followUpTurns[turn]
		if !strings.Contains(answer, tt.want) || (tt.notWant != "" && strings.Contains(answer, tt.notWant)) {
			t.Errorf("turn %d %q: want %s (not %s), got:\n%s", turn+1, tt.question, tt.want, tt.notWant, answer)
		}
	}

	t.Run("cli chat", func(t *testing.T) {
		var in strings.Builder
		for _, tt := range followUpTurns {
			in.WriteString(tt.question + "\n")
		}
		r := runCLIInput(t, []string{"DOCMIND_DATA_DIR=" + t.TempDir()}, in.String(), "chat", "--json", "--index", idx)
		if r.code != 0 {
			t.Fatalf("chat: exit %d\n%s", r.code, r.stderr)
		}
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		for i := range followUpTurns {
			var st struct {
				Query       string            `json:"query"`
				FinalOutput string            `json:"final_output"`
				Notes       map[string]string `json:"notes"`
			}
			if err := dec.Decode(&st); err != nil {
				t.Fatalf("turn %d: %v\n%s", i+1, err, r.stdout)
			}
			check(t, i, st.FinalOutput)
			if i > 0 && (!strings.Contains(st.Query, "Oracle") || !strings.Contains(st.Notes["rewrite"], "carried over")) {
				t.Errorf("turn %d: the state should show the rewritten question and what was carried over: query %q, notes %v", i+1, st.Query, st.Notes)
			}
		}
	})

	base := startServe(t, nil, "--index", idx, "--data-dir", t.TempDir(), "--no-auth").base

	t.Run("mcp thread", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "docmind-test", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		thread := ""
		for i, tt := range followUpTurns {
			args := map[string]any{"question": tt.question}
			if thread != "" {
				args["thread"] = thread
			}
			_, out := callAsk(ctx, t, cs, args)
			thread = out.Thread
			check(t, i, out.Answer)
		}
	})

	t.Run("openai message history", func(t *testing.T) {
		var msgs []map[string]string
		for i, tt := range followUpTurns {
			msgs = append(msgs, map[string]string{"role": "user", "content": tt.question})
			body, _ := json.Marshal(map[string]any{"model": "docmind", "messages": msgs})
			resp, err := http.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Choices []struct {
					Message struct{ Content string } `json:"message"`
				} `json:"choices"`
			}
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || len(out.Choices) != 1 {
				t.Fatalf("turn %d: %d %v %+v", i+1, resp.StatusCode, err, out)
			}
			answer := out.Choices[0].Message.Content
			check(t, i, answer)
			msgs = append(msgs, map[string]string{"role": "assistant", "content": answer})
		}
	})
}
