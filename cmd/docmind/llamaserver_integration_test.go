package main

import (
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/internal/testenv"
)

// The tests below run `docmind ask` in LLM mode against a real llama.cpp
// llama-server (named by DOCMIND_LLAMA_SERVER; skipped without it) serving
// the tiny random-weight model of scripts/llama-server.sh: every free-text
// reply is noise that runs on to its token limit. They check the protocol
// end to end (schema requests accepted, a cut-off verdict never passing,
// the run's deadline), never an answer. The limits are small (--max-tokens
// 64 per stage: llama-server takes a request's max_tokens over its own
// -n) so that a run takes seconds.

// llamaEnv points the CLI at the server as a user points it at any
// OpenAI-compatible endpoint.
func llamaEnv(t *testing.T) []string {
	return []string{"OPENAI_BASE_URL=" + testenv.LlamaServer(t) + "/v1", "OPENAI_API_KEY=none", "DOCMIND_MODEL=tiny-qwen2"}
}

// llamaMaxTokens keeps every stage's reply short.
const llamaMaxTokens = "decompose=64,generate=64,judge=64"

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

// The judge's verdict, a json_schema reply the random model never ends,
// is cut off at 64 tokens and again at 128 (the retry with twice the
// room), so it is unverified: the answer is withheld with exit 3 and the
// output names the truncation. The decomposition request, also a
// json_schema one, is accepted (a cut-off decomposition falls back to the
// rule-based one, said on stderr).
func TestLlamaServerAskTruncatedVerdict(t *testing.T) {
	env := llamaEnv(t)
	start := time.Now()
	r := runCLITimeout(t, 5*time.Minute, env, "ask", "--docs", "examples/contract", "--max-retries", "0", "--max-tokens", llamaMaxTokens,
		"What are the late payment penalties?")
	t.Logf("ask took %v, exit %d\nstdout:\n%s\nstderr:\n%s", time.Since(start), r.code, r.stdout, r.stderr)
	if l := rejected(r.stderr); l != "" {
		t.Fatalf("the server rejected a request: %s", l)
	}
	if r.code != exitFallback {
		t.Fatalf("exit %d, want %d (no confident answer)", r.code, exitFallback)
	}
	if !strings.Contains(r.stdout, "unverified: the model's reply was cut off at 128 tokens") {
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
