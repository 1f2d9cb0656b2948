//go:build linux

package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/schema"
)

// The tests below run `docmind ask` in LLM mode against a real llama.cpp
// llama-server (named by DOCMIND_LLAMA_SERVER; skipped without it, failing
// instead with CI_REQUIRE_LLAMA=1) serving the tiny random-weight model of
// scripts/llama-server.sh: every free-text reply is noise that runs on to
// its token limit, and a json_schema reply is the short document the
// schema's grammar and the server's --logit-bias steer it to (every string
// ".", every array of one item, one-digit numbers). They check the
// protocol end to end (schema requests accepted and parsed, a cut-off
// verdict never passing, streaming, the run's deadline), never an answer.
// The limits are small (llama-server takes a request's max_tokens over
// its own -n) so that a run takes seconds.

// llamaEnv points the CLI at the server as a user points it at any
// OpenAI-compatible endpoint.
func llamaEnv(t *testing.T) []string {
	return []string{"OPENAI_BASE_URL=" + testenv.LlamaServer(t) + "/v1", "OPENAI_API_KEY=none", "DOCMIND_MODEL=tiny-qwen2"}
}

// llamaMaxTokens keeps every stage's reply short.
const llamaMaxTokens = "decompose=64,generate=64,judge=64"

// llamaSchemaTokens leaves a schema reply room to end (the verdict and the
// decomposition took about 190 and 87 tokens: the model spells the keys a
// character or two a token) and keeps the free text short.
const llamaSchemaTokens = "decompose=256,generate=32,judge=256,rewrite=16"

// llamaAskLimit bounds one ask against the server (ask's own --timeout
// is 4m): it took 10-12 s on two cores, 80 s when other work loaded them
// (the server's grammar sampling over 151,936 tokens is what is slow).
const llamaAskLimit = 5 * time.Minute

var llamaQuestionArgs = []string{"--docs", "examples/contract", "--max-tokens", llamaSchemaTokens, "--timeout", "4m",
	"What are the late payment penalties?"}

// ask --json in LLM mode runs the whole pipeline against the server and
// ends answered (0) or refused (3), never failed, within its limit. What
// holds whatever the random weights say: stdout is one JSON state of the
// documented shape, the decomposition is the model's (parsed from its
// json_schema reply: no fallback), the judge's replies parsed (a verdict
// is there), every stage's tokens are counted, no request was rejected,
// and a refusal is the fallback text word for word.
func TestLlamaServerAskJSON(t *testing.T) {
	env := llamaEnv(t)
	start := time.Now()
	r := runCLITimeout(t, llamaAskLimit, env, append([]string{"ask", "--json"}, llamaQuestionArgs...)...)
	took := time.Since(start)
	t.Logf("ask --json took %v, exit %d\nstderr:\n%s", took.Round(time.Millisecond), r.code, r.stderr)
	if l := rejected(r.stderr); l != "" {
		t.Fatalf("the server rejected a request: %s", l)
	}
	if r.code != exitOK && r.code != exitFallback {
		t.Fatalf("exit %d, want %d (answered) or %d (refused); stdout:\n%s", r.code, exitOK, exitFallback, r.stdout)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.stdout)
	}
	for _, k := range []string{"query", "decomposition", "retrieved_sections", "generated_response", "judge_verdict", "final_output", "retry_count", "node_history", "usage"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks field %q", k)
		}
	}
	if _, ok := raw["error"]; ok {
		t.Errorf("JSON has an error: %s", raw["error"])
	}
	st := decodeState(t, r.stdout)
	d := st.Decomposition
	switch {
	case d == nil:
		t.Error("no decomposition")
	case d.Fallback != "":
		t.Errorf("the model's decomposition was not used: %s", d.Fallback)
	default:
		t.Logf("decomposition: %s", raw["decomposition"])
	}
	if strings.Contains(r.stdout, "reply could not be parsed") {
		t.Error("a reply of the model could not be parsed (see the JSON)")
	}
	if v := st.JudgeVerdict; v == nil {
		t.Error("no judge verdict")
	} else {
		t.Logf("verdict: judged by %q, hallucinated %v, return %v, confidence %v, unverified %v, reasoning %q",
			v.JudgedBy, v.IsHallucinated, v.ShouldReturn, v.ConfidenceScore, v.Unverified, v.Reasoning)
	}
	u := st.Usage
	if u == nil {
		t.Fatal("no usage in the JSON")
	}
	if u.Total.Calls < 3 || u.Total.PromptTokens <= 0 || u.Total.CompletionTokens <= 0 ||
		u.Total.TotalTokens != u.Total.PromptTokens+u.Total.CompletionTokens {
		t.Errorf("usage total = %+v, want the calls' tokens", u.Total)
	}
	for _, node := range []string{"decompose", "generate", "judge"} {
		if n := u.ByNode[node]; n.Calls == 0 || n.CompletionTokens == 0 {
			t.Errorf("usage of %s = %+v, want its calls and tokens", node, n)
		}
	}
	t.Logf("usage: %+v; by node %+v; node_history %v", u.Total, u.ByNode, st.NodeHistory)
	if r.code == exitFallback && st.Answer() != schema.FallbackMessage {
		t.Errorf("refused with final_output %q, want %q", st.Answer(), schema.FallbackMessage)
	}
	if r.code == exitOK && (!st.Answered() || st.Answer() == "") {
		t.Errorf("exit 0 with final_output %q", st.Answer())
	}
}

// The same question without --json: on a pipe the answer is not streamed
// and stdout starts with the final output (the fallback text when
// refused); on a terminal the draft streams as it comes ("draft: ").
func TestLlamaServerAskStreams(t *testing.T) {
	env := llamaEnv(t)
	args := append([]string{"ask"}, llamaQuestionArgs...)
	start := time.Now()
	r := runCLITimeout(t, llamaAskLimit, env, args...)
	t.Logf("on a pipe: %v, exit %d\nstdout:\n%s\nstderr:\n%s", time.Since(start).Round(time.Millisecond), r.code, r.stdout, r.stderr)
	if r.code != exitOK && r.code != exitFallback {
		t.Fatalf("on a pipe: exit %d, want %d or %d", r.code, exitOK, exitFallback)
	}
	if strings.Contains(r.stdout, "draft: ") {
		t.Errorf("on a pipe the draft was streamed:\n%s", r.stdout)
	}
	if r.code == exitFallback && !strings.HasPrefix(r.stdout, schema.FallbackMessage+"\n") {
		t.Errorf("refused on a pipe: stdout does not start with %q", schema.FallbackMessage)
	}
	start = time.Now()
	screen, code := runOnTerminal(t, env, args...)
	t.Logf("on a terminal: %v, exit %d\n%s", time.Since(start).Round(time.Millisecond), code, screen)
	if code != exitOK && code != exitFallback {
		t.Fatalf("on a terminal: exit %d, want %d or %d", code, exitOK, exitFallback)
	}
	if !strings.Contains(screen, "draft: ") {
		t.Errorf("on a terminal the draft was not streamed")
	}
	if code == exitFallback && !strings.Contains(screen, schema.FallbackMessage) {
		t.Errorf("refused on a terminal without %q", schema.FallbackMessage)
	}
}

// --rerank against the server: the ranking request (json_schema
// docmind_ranking) is accepted and its reply parsed, and the run goes on
// to an answer or a refusal. The random weights' ranking names no passage
// (every string is "."), so retrieval's order stands and the notes say so:
// what this checks is the protocol (the reply parsed, not failed), with
// the ranking's tokens counted under retrieve.
func TestLlamaServerRerank(t *testing.T) {
	env := llamaEnv(t)
	r := runCLITimeout(t, llamaAskLimit, env, "ask", "--json", "--rerank", "8", "--max-retries", "0", "--docs", "examples/contract",
		"--max-tokens", llamaSchemaTokens+",rerank=64", "--timeout", "4m", "What are the late payment penalties?")
	t.Logf("exit %d\nstderr:\n%s", r.code, r.stderr)
	if l := rejected(r.stderr); l != "" {
		t.Fatalf("the server rejected a request: %s", l)
	}
	if r.code != exitOK && r.code != exitFallback {
		t.Fatalf("exit %d, want %d (answered) or %d (refused); stdout:\n%s", r.code, exitOK, exitFallback, r.stdout)
	}
	st := decodeState(t, r.stdout)
	if st.PromptVersions["rerank"] == "" {
		t.Errorf("prompt versions %v: no ranking was asked for", st.PromptVersions)
	}
	if st.Usage == nil || st.Usage.ByNode["retrieve"].Calls == 0 || st.Usage.ByNode["retrieve"].CompletionTokens == 0 {
		t.Errorf("usage %+v, want the ranking's call and tokens under retrieve", st.Usage)
	}
	if strings.Contains(st.Notes["retrieve"], "ranking of") {
		t.Errorf("the ranking's reply was not used: %s", st.Notes["retrieve"])
	}
	t.Logf("notes: %v", st.Notes)
	if len(st.RetrievedSections) == 0 || len(st.RetrievedSections) > 10 {
		t.Errorf("%d sections handed on, want 1 to 10", len(st.RetrievedSections))
	}
}

// rejected reports a line of stderr saying the server refused a request
// (a 4xx: a schema or a parameter it does not take).
func rejected(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "rejected the request") {
			return l
		}
	}
	return ""
}

// The judge's verdict, a json_schema reply whose shortest document is
// longer than 16 tokens, is cut off at 8 tokens and again at 16 (the
// retry with twice the room), so it is unverified: the answer is withheld
// with exit 3 and the output names the truncation. The decomposition
// request, also a json_schema one, is accepted.
func TestLlamaServerAskTruncatedVerdict(t *testing.T) {
	env := llamaEnv(t)
	start := time.Now()
	r := runCLITimeout(t, 5*time.Minute, env, "ask", "--docs", "examples/contract", "--max-retries", "0", "--max-tokens", "decompose=64,generate=64,judge=8",
		"What are the late payment penalties?")
	t.Logf("ask took %v, exit %d\nstdout:\n%s\nstderr:\n%s", time.Since(start), r.code, r.stdout, r.stderr)
	if l := rejected(r.stderr); l != "" {
		t.Fatalf("the server rejected a request: %s", l)
	}
	if r.code != exitFallback {
		t.Fatalf("exit %d, want %d (no confident answer)", r.code, exitFallback)
	}
	if !strings.Contains(r.stdout, "unverified: the model's reply was cut off at 16 tokens") {
		t.Errorf("stdout does not name the truncated verdict:\n%s", r.stdout)
	}
}

// --timeout bounds the run however far it got: a deadline a quarter of
// what an unbounded run took ends the run within it, with exit 1 and one
// line naming the deadline.
func TestLlamaServerAskMeetsTheRunDeadline(t *testing.T) {
	env := llamaEnv(t)
	question := []string{"--docs", "examples/contract", "--max-retries", "0", "--max-tokens", llamaMaxTokens, "What are the late payment penalties?"}
	ask := func(env []string, flags ...string) (result, time.Duration) {
		start := time.Now()
		r := runCLITimeout(t, 5*time.Minute, env, append(append([]string{"ask"}, flags...), question...)...)
		return r, time.Since(start)
	}
	// What a run costs besides its LLM calls (process start, the cached
	// ingest, retrieval): the same question offline.
	ask(nil)
	_, offline := ask(nil)
	r, full := ask(env)
	if r.code != exitFallback && r.code != exitOK {
		t.Fatalf("unbounded run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	deadline := ((full - offline) / 4).Round(time.Millisecond)
	if deadline < 100*time.Millisecond {
		t.Skipf("the LLM calls of an unbounded run took %v: too fast to cut short reliably", full-offline)
	}
	r, took := ask(env, "--timeout", deadline.String())
	t.Logf("offline run %v, unbounded LLM run %v; with --timeout %v: %v, exit %d, stderr:\n%s", offline, full, deadline, took, r.code, r.stderr)
	if r.code != exitError {
		t.Fatalf("exit %d, want %d", r.code, exitError)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if want := "docmind: the run did not finish within --timeout " + deadline.String(); lines[len(lines)-1] != want {
		t.Errorf("last line of stderr = %q, want %q", lines[len(lines)-1], want)
	}
	if limit := deadline + offline + time.Second; took > limit {
		t.Errorf("took %v with --timeout %v, want at most %v (the deadline, what an offline run takes, 1 s)", took, deadline, limit)
	}
}

// docmind check against the server: every stage's request is accepted and
// its reply read (the decomposition is the model's, the verdict parsed);
// what the random weights say decides only ok or warn, never a failure.
func TestLlamaServerCheck(t *testing.T) {
	env := llamaEnv(t)
	r := runCLITimeout(t, llamaAskLimit, env, "check", "--json", "--max-tokens", llamaSchemaTokens, "--timeout", "4m")
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	if r.code != exitOK {
		t.Fatalf("exit %d, want 0 (no check failed)", r.code)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "llm" || len(rep.Checks) != 5 || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range rep.Checks[:4] {
		if c.Name != "verdict" && c.Status != checkOK {
			t.Errorf("%s: %s (%s)", c.Name, c.Status, c.Detail)
		}
	}
}
