package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
)

// The tests below run `docmind ask` in LLM mode end to end: the real
// binary, configured only through the environment a user would set,
// talking HTTP to an in-process scripted OpenAI-compatible server.

// llmEnv points the CLI at srv the way a user points it at any
// OpenAI-compatible endpoint.
func llmEnv(srv *openaitest.Server) []string {
	return []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=test", "DOCMIND_MODEL=gpt-4o-mini"}
}

var docIDRE = regexp.MustCompile(`<document id="(S\d+)" title="([^"]*)"`)

// promptSectionID returns the [Sk] id the prompt gave the section whose
// title contains title, or "".
func promptSectionID(prompt, title string) string {
	for _, m := range docIDRE.FindAllStringSubmatch(prompt, -1) {
		if strings.Contains(m[2], title) {
			return m[1]
		}
	}
	return ""
}

// contractModel scripts a model answering the late-payment question over
// examples/contract. The decomposer always succeeds; each generation
// cites the late-payment section by the id the prompt gave it, stating
// the rate rates[n] on the n-th generation (the last rate from then on);
// a query-rewrite request gets a plain query; the judge always says
// "grounded", quoting the section, so only the deterministic guards can
// catch a wrong rate. It returns the number of generations so far.
//
// The counter is the test's own: the server's Calls must not be read
// inside a Respond callback (it holds the server's lock).
func contractModel(t *testing.T, srv *openaitest.Server, rates ...string) *atomic.Int32 {
	t.Helper()
	return editedContractModel(t, srv, nil, rates...)
}

// editedContractModel is contractModel whose every reply edit may change
// (edit nil changes none).
func editedContractModel(t *testing.T, srv *openaitest.Server, edit func(openaitest.Request, *openaitest.Reply), rates ...string) *atomic.Int32 {
	t.Helper()
	dec, err := json.Marshal(map[string]any{
		"intent": "amount", "sub_queries": []string{"What are the penalties?"}, "entities": []string{},
		"constraints": []string{}, "temporals": []string{}, "key_terms": []string{"penalties"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var generations atomic.Int32
	respond := func(req openaitest.Request) openaitest.Reply {
		text := req.Text()
		id := promptSectionID(text, "Late Payment Penalties")
		route := req.Route
		if route == openaitest.RouteGenerate { // no schema's name: the stage is read from the prompt
			switch {
			case strings.Contains(text, "You are a strict fact checker"):
				route = openaitest.RouteVerdict
			case strings.Contains(text, "describe what each question asks for"):
				route = openaitest.RouteDecomposition
			}
		}
		switch route {
		case openaitest.RouteDecomposition:
			return openaitest.Reply{Content: string(dec)}
		case openaitest.RouteGenerate:
			if !strings.Contains(text, "<documents>") {
				return openaitest.Reply{Content: "late payment penalties late fee overdue amount"}
			}
			if id == "" {
				return openaitest.Reply{Content: "The provided documents do not address this question."}
			}
			n := int(generations.Add(1))
			rate := rates[min(n, len(rates))-1]
			return openaitest.Reply{Content: fmt.Sprintf("If payment is not received within thirty (30) days, Client shall be assessed a late fee of %s per month [%s].", rate, id)}
		case openaitest.RouteVerdict:
			if id == "" {
				id = "S1"
			}
			v, _ := json.Marshal(map[string]any{
				"claims": []map[string]any{{"claim": "Client shall be assessed a late fee per month", "section_id": id,
					"quote": "Client shall be assessed a late fee", "supported": true, "contradiction": "", "reason": ""}},
				"is_hallucinated": false, "confidence_score": 0.95, "reasoning": "the answer restates the cited section",
				"irrelevant_sections": []string{},
			})
			return openaitest.Reply{Content: string(v)}
		}
		return openaitest.Reply{Status: 500, Message: "unscripted route " + req.Route}
	}
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		r := respond(req)
		if edit != nil {
			edit(req, &r)
		}
		return r
	})
	return &generations
}

// schemaRequests checks that every request of route asked for the
// json_schema response format of that name, and returns how many there
// were.
func schemaRequests(t *testing.T, srv *openaitest.Server, route string) int {
	t.Helper()
	n := 0
	for _, r := range srv.Requests() {
		if r.Route != route {
			continue
		}
		n++
		rf := r.Body.ResponseFormat
		if rf == nil || rf.Type != openai.ChatCompletionResponseFormatTypeJSONSchema || rf.JSONSchema == nil || rf.JSONSchema.Name != route {
			t.Errorf("%s request response_format = %+v, want json_schema %q", route, rf, route)
		}
	}
	return n
}

func TestAskLLMModeRetriesHallucinatedAnswer(t *testing.T) {
	srv := openaitest.New(t)
	generations := contractModel(t, srv, "5%", "1.5%")
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	host := strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1")
	if !strings.Contains(r.stderr, "LLM mode") || !strings.Contains(r.stderr, host) {
		t.Errorf("stderr does not announce LLM mode at %s:\n%s", host, r.stderr)
	}
	for _, want := range []string{"1.5% per month", "(See Late Payment Penalties, page 8)", "\nVerdict: grounded", "(1 rejected pass)", "\nTokens: "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "of 5% per month") {
		t.Errorf("the rejected 5%% answer was printed:\n%s", r.stdout)
	}
	if got := generations.Load(); got != 2 {
		t.Errorf("generations = %d, want 2 (the 5%% answer, rejected, then 1.5%%)", got)
	}
	if got := schemaRequests(t, srv, openaitest.RouteDecomposition); got < 1 {
		t.Errorf("decomposition requests = %d, want at least 1", got)
	}
	if got := schemaRequests(t, srv, openaitest.RouteVerdict); got != 2 {
		t.Errorf("verdict requests = %d, want 2 (one per answer)", got)
	}
	for _, req := range srv.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer test" {
			t.Errorf("%s request Authorization = %q, want the key from OPENAI_API_KEY", req.Route, got)
		}
		if req.Body.Model != "gpt-4o-mini" {
			t.Errorf("%s request model = %q, want DOCMIND_MODEL's", req.Route, req.Body.Model)
		}
	}
}

func TestAskLLMModeJSON(t *testing.T) {
	srv := openaitest.New(t)
	contractModel(t, srv, "5%", "1.5%")
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--json", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	st := decodeState(t, r.stdout)
	if st.RetryCount != 1 {
		t.Errorf("retry_count = %d, want 1", st.RetryCount)
	}
	if !strings.Contains(st.Answer(), "1.5% per month") || !strings.Contains(st.Answer(), "(See Late Payment Penalties, page 8)") {
		t.Errorf("final_output = %q", st.Answer())
	}
	if v := st.JudgeVerdict; v == nil || v.IsHallucinated || v.JudgedBy != "llm+guards" {
		t.Errorf("judge_verdict = %+v", v)
	}
	u := st.Usage
	if u == nil {
		t.Fatalf("JSON has no usage:\n%s", r.stdout)
	}
	if u.Total.Calls != srv.Calls("") || u.Total.PromptTokens <= 0 || u.Total.CompletionTokens <= 0 {
		t.Errorf("usage total = %+v, server saw %d calls", u.Total, srv.Calls(""))
	}
	if got := u.ByNode["judge"].Calls; got != 2 {
		t.Errorf("judge calls in usage = %d, want 2", got)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["usage"]; !ok {
		t.Error(`JSON lacks "usage"`)
	}
}

func TestAskLLMModeRejectedKey(t *testing.T) {
	srv := openaitest.New(t)
	var calls atomic.Int32
	srv.Respond(func(openaitest.Request) openaitest.Reply {
		calls.Add(1)
		return openaitest.Reply{Status: 401, Message: "Incorrect API key provided: test."}
	})
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "What are the penalties?")
	if r.code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitError, r.stderr)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic") {
		t.Fatalf("stderr shows a crash:\n%s", r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "LLM mode") ||
		!strings.HasPrefix(lines[1], "docmind: ") || !strings.Contains(lines[1], "rejected the API key (401)") {
		t.Errorf("stderr = %q, want the mode line and one 'docmind: ... rejected the API key (401)' line", r.stderr)
	}
	if calls.Load() != 1 {
		t.Errorf("the server got %d requests; a 401 must not be retried", calls.Load())
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
}

func TestAskLLMModeRateLimitedThenAnswers(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteDecomposition, openaitest.Reply{Status: 429, Header: openaitest.RetryAfter("0"), Message: "Rate limit reached"})
	contractModel(t, srv, "1.5%")
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--json", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	st := decodeState(t, r.stdout)
	if !st.Answered() || st.RetryCount != 0 || !strings.Contains(st.Answer(), "1.5% per month") {
		t.Errorf("answered=%v retry_count=%d final_output=%q", st.Answered(), st.RetryCount, st.Answer())
	}
	if got := srv.Calls(openaitest.RouteDecomposition); got != 2 {
		t.Errorf("decomposition requests = %d, want 2 (the 429, then the retry)", got)
	}
	if n := len(strings.Split(strings.TrimSpace(r.stderr), "\n")); n != 1 {
		t.Errorf("stderr has %d lines, want only the mode line:\n%s", n, r.stderr)
	}
}

// Every LLM call of a run bounds its reply (max_tokens), --max-tokens
// changes a stage's bound, and the decomposer and judge send temperature 0
// explicitly.
func TestAskLLMModeSendsMaxTokensAndTemperature(t *testing.T) {
	srv := openaitest.New(t)
	srv.Check(openaitest.RequireMaxTokens)
	contractModel(t, srv, "5%", "1.5%")
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--max-tokens", "judge=4321", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	want := map[string]int{openaitest.RouteDecomposition: 512, openaitest.RouteVerdict: 4321}
	for _, req := range srv.Requests() {
		if n, ok := want[req.Route]; ok && req.MaxTokens() != n {
			t.Errorf("%s request max tokens = %d, want %d", req.Route, req.MaxTokens(), n)
		}
		if _, ok := want[req.Route]; ok && (!req.HasKey("temperature") || req.Body.Temperature > 1e-3) {
			t.Errorf("%s request does not send temperature 0: %s", req.Route, req.Raw)
		}
	}
	r = runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--max-tokens", "judge=0", "q?")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--max-tokens judge=0") {
		t.Errorf("--max-tokens judge=0: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// A judge whose verdict is cut off at its token limit gives an unverified
// verdict that names the truncation (exit 3), after one retry with twice
// the room; the cut-off JSON is never parsed.
func TestAskLLMModeTruncatedVerdict(t *testing.T) {
	srv := openaitest.New(t)
	contractModel(t, srv, "1.5%")
	cut := `{"claims": [{"claim": "Client shall be assessed a late fee per month", "section_id": "S1", "quote": "late fee", "supported": true, "contradiction": "", "reason": ""}, {"claim": "The fee is`
	srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: cut, FinishReason: "length"})
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--max-retries", "0", "--max-tokens", "judge=300", "What are the penalties?")
	if r.code != exitFallback {
		t.Fatalf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", r.code, exitFallback, r.stderr, r.stdout)
	}
	if !strings.Contains(r.stdout, "unverified: the model's reply was cut off at 600 tokens") {
		t.Errorf("stdout does not name the truncation:\n%s", r.stdout)
	}
	if got := maxTokensSent(srv, openaitest.RouteVerdict); got != "[300 600]" {
		t.Errorf("verdict requests' max tokens = %s, want [300 600] (once more with twice the room)", got)
	}
}

// maxTokensSent lists the max tokens of the route's requests, "[300 600]".
func maxTokensSent(srv *openaitest.Server, route string) string {
	var maxTokens []int
	for _, req := range srv.Requests() {
		if req.Route == route {
			maxTokens = append(maxTokens, req.MaxTokens())
		}
	}
	return fmt.Sprint(maxTokens)
}

// An answer cut off at its token limit twice (once more with twice the
// room) is kept as it stands and judged, and the run says so: the state's
// notes in ask --json, and stderr.
func TestAskLLMModeAnswerCutOffTwice(t *testing.T) {
	srv := openaitest.New(t)
	editedContractModel(t, srv, func(req openaitest.Request, r *openaitest.Reply) {
		if req.Route == openaitest.RouteGenerate && strings.Contains(req.Text(), "<documents>") {
			r.Content = strings.TrimSuffix(r.Content, ".") + " and the Provider may"
			r.FinishReason = "length"
		}
	}, "1.5%")
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--json", "--max-retries", "0", "--max-tokens", "generate=300", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	st := decodeState(t, r.stdout)
	const note = "the model's reply was cut off at 600 tokens (sent again with twice the room and cut off again), so the answer is incomplete"
	if got := st.Notes[schema.NodeGenerate]; got != note {
		t.Errorf("state notes %v, want generate: %q", st.Notes, note)
	}
	if !strings.HasSuffix(st.Response(), "and the Provider may") {
		t.Errorf("generated response %q, want the cut-off answer kept", st.Response())
	}
	if !strings.Contains(r.stdout, `"notes": {`) {
		t.Errorf("ask --json does not print the notes:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "docmind: generate: "+note) {
		t.Errorf("stderr does not say the answer was cut off:\n%s", r.stderr)
	}
	if got := maxTokensSent(srv, openaitest.RouteGenerate); got != "[300 600]" {
		t.Errorf("answer requests' max tokens = %s, want [300 600] (once more with twice the room)", got)
	}
}

// A follow-up whose rewrite is cut off at its token limit is rewritten by
// the rules instead, and stderr says so, as for the decomposition.
func TestChatLLMModeRewriteCutOff(t *testing.T) {
	srv := openaitest.New(t)
	editedContractModel(t, srv, func(req openaitest.Request, r *openaitest.Reply) {
		if req.Route == openaitest.RouteGenerate && strings.Contains(req.Text(), "Follow-up question:") {
			*r = openaitest.Reply{Content: "What are the late payment penalties after", FinishReason: "length"}
		}
	}, "1.5%")
	r := runCLIInput(t, llmEnv(srv), "What are the late payment penalties?\nAnd after 60 days?\n",
		"chat", "--docs", "examples/contract", "--json", "--thread", "t")
	if r.code != exitOK && r.code != exitFallback {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 JSON lines, got:\n%s", r.stdout)
	}
	st := decodeState(t, lines[1])
	if st.Query == "What are the late payment penalties after" || !strings.Contains(st.Notes["rewrite"], "cut off at") {
		t.Errorf("query %q, notes %v: the cut-off rewrite was used or not noted", st.Query, st.Notes)
	}
	if !strings.Contains(r.stderr, "docmind: rewrite: the model's reply was cut off at") ||
		!strings.Contains(r.stderr, "used the rule-based rewrite instead") {
		t.Errorf("stderr does not say the rewrite fell back:\n%s", r.stderr)
	}
}

// When the model's decomposition cannot be parsed twice, the rule-based one
// is used: the state records it, stderr says it, and the intent is one of
// the schema's enum.
func TestAskLLMModeDecompositionFallback(t *testing.T) {
	srv := openaitest.New(t)
	contractModel(t, srv, "1.5%")
	srv.Script(openaitest.RouteDecomposition, openaitest.Reply{Content: "I think it is about fees"}, openaitest.Reply{Content: "fees, really"})
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--json", "What are the late payment penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	st := decodeState(t, r.stdout)
	d := st.Decomposition
	if d == nil || !strings.Contains(d.Fallback, "used the rule-based decomposition") {
		t.Fatalf("decomposition = %+v, want the fallback recorded", d)
	}
	if !question.IsIntent(d.Intent) {
		t.Errorf("intent %q is outside the schema's enum %v", d.Intent, question.Intents)
	}
	if !strings.Contains(r.stderr, "docmind: decomposition: the model's reply could not be parsed after a repair attempt") {
		t.Errorf("stderr does not say the decomposition fell back:\n%s", r.stderr)
	}
}

// A hung server is bounded by --timeout, the deadline of the whole run:
// the calls share it (each attempt gets its share of what is left) and the
// error is one line naming the deadline.
func TestAskLLMModeHungServerMeetsTheRunDeadline(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: "{}", Delay: time.Hour})
	start := time.Now()
	// 6 s: loading the folder comes out of the run's time too, and took
	// over 2 s under -race on a loaded machine, leaving no time to retry
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--timeout", "6s", "What are the penalties?")
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v with --timeout 6s", took)
	}
	if r.code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitError, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if last := lines[len(lines)-1]; last != "docmind: the run did not finish within --timeout 6s" {
		t.Errorf("stderr = %q, want the deadline named on one line", r.stderr)
	}
	if got := srv.Calls(openaitest.RouteDecomposition); got < 2 {
		t.Errorf("decomposition requests = %d, want the call retried within the deadline", got)
	}
}

// ask --json prints the state the run reached and the error when the run
// fails, in and out of a thread; stderr keeps its one error line.
func TestAskLLMModeJSONOnError(t *testing.T) {
	for _, thread := range []bool{false, true} {
		srv := openaitest.New(t)
		contractModel(t, srv, "1.5%")
		srv.Always(openaitest.RouteGenerate, openaitest.Reply{Status: 400, Message: "context length exceeded"})
		args := []string{"ask", "--docs", "examples/contract", "--json", "What are the penalties?"}
		if thread {
			args = append(args, "--thread", "t1")
		}
		r := runCLI(t, llmEnv(srv), args...)
		if r.code != exitError {
			t.Fatalf("thread=%v: exit %d, want %d; stderr:\n%s", thread, r.code, exitError, r.stderr)
		}
		// One shape in and out of a thread: the state's fields at the
		// top level, "run" beside them in a thread.
		var out struct {
			schema.State
			Error string    `json:"error"`
			Run   *struct{} `json:"run"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("thread=%v: stdout is not one JSON object: %v\n%s", thread, err, r.stdout)
		}
		st := &out.State
		if thread != (out.Run != nil) {
			t.Fatalf("thread=%v: run present = %v in %s", thread, out.Run != nil, r.stdout)
		}
		if !strings.Contains(out.Error, "rejected the request (400): context length exceeded") {
			t.Errorf("thread=%v: error = %q", thread, out.Error)
		}
		if st.Decomposition == nil || len(st.RetrievedSections) == 0 || strings.Join(st.NodeHistory, ",") != "decompose,retrieve" {
			t.Errorf("thread=%v: state reached = %+v, want decompose and retrieve done", thread, st)
		}
		if !strings.Contains(r.stderr, "generate: ") || !strings.Contains(r.stderr, "rejected the request (400)") {
			t.Errorf("thread=%v: stderr lacks the error line:\n%s", thread, r.stderr)
		}
	}
}

// A server that echoes the API key in its error messages never gets the
// key printed or stored: not on stderr, not in runs.db, not in runs show or
// runs export (nor the sk-… and bearer tokens it quotes).
func TestAskLLMModeRedactsEchoedKey(t *testing.T) {
	const key = "docmind-secret-key-0123456789"
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Status: 500,
		Message: "upstream failed for key " + key + " (Authorization: Bearer " + key + "; fallback key sk-proj-abcdefghijklmnop)"})
	dataDir := t.TempDir()
	env := []string{"OPENAI_BASE_URL=" + srv.URL, "OPENAI_API_KEY=" + key, "DOCMIND_MODEL=gpt-4o-mini", "DOCMIND_DATA_DIR=" + dataDir}
	r := runCLI(t, env, "ask", "--docs", "examples/contract", "--thread", "t1", "-v", "What are the penalties?")
	if r.code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitError, r.stderr)
	}
	if !strings.Contains(r.stderr, "server error") || !strings.Contains(r.stderr, "[redacted]") {
		t.Errorf("stderr does not show the redacted server error:\n%s", r.stderr)
	}
	leaks := func(where, s string) {
		t.Helper()
		for _, secret := range []string{key, "sk-proj-abcdefghijklmnop"} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows the secret %q:\n%s", where, secret, s)
			}
		}
	}
	leaks("stderr", r.stderr)
	leaks("stdout", r.stdout)
	files, _ := filepath.Glob(filepath.Join(dataDir, "runs.db*"))
	if len(files) == 0 {
		t.Fatalf("no runs.db in %s", dataDir)
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			continue // runs.db.running: the lock files of live runs
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		leaks(f, string(b))
	}
	ls := runCLI(t, env, "runs", "ls", "--json")
	m := regexp.MustCompile(`"id": ?"([0-9a-f]+)"`).FindStringSubmatch(ls.stdout)
	if m == nil {
		t.Fatalf("runs ls --json lists no run:\n%s\n%s", ls.stdout, ls.stderr)
	}
	show := runCLI(t, env, "runs", "show", m[1])
	if !strings.Contains(show.stdout+show.stderr, "[redacted]") {
		t.Errorf("runs show lacks the redacted error:\n%s", show.stdout)
	}
	leaks("runs show", show.stdout+show.stderr)
	export := runCLI(t, env, "runs", "export", "--jsonl")
	leaks("runs export", export.stdout+export.stderr)
}

// Prompts show the documents' paths relative to the documents folder (or
// the folder an index was built from), never the absolute path.
func TestAskLLMModePromptsCarryRelativePaths(t *testing.T) {
	root := testenv.RepoRoot(t)
	docs := filepath.Join(root, "examples", "contract")
	for _, mode := range []string{"docs", "index"} {
		srv := openaitest.New(t)
		contractModel(t, srv, "1.5%")
		env := llmEnv(srv)
		args := []string{"ask", "--docs", docs, "What are the penalties?"}
		if mode == "index" {
			ix := filepath.Join(t.TempDir(), "ix")
			if r := runCLI(t, nil, "ingest", "--index", ix, docs); r.code != exitOK {
				t.Fatalf("ingest: exit %d\n%s", r.code, r.stderr)
			}
			args = []string{"ask", "--index", ix, "What are the penalties?"}
		}
		if r := runCLI(t, env, args...); r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s", mode, r.code, r.stderr)
		}
		prompts := 0
		for _, req := range srv.Requests() {
			text := req.Text()
			if !strings.Contains(text, "<documents>") {
				continue
			}
			prompts++
			if strings.Contains(text, root) {
				t.Errorf("%s: %s prompt shows an absolute path (%s)", mode, req.Route, root)
			}
			srcs := regexp.MustCompile(`source="([^"]*)"`).FindAllStringSubmatch(text, -1)
			for _, m := range srcs {
				if m[1] != "master-services-agreement.md" && m[1] != "data-processing-addendum.md" {
					t.Errorf("%s: %s prompt has source=%q, want the path relative to %s", mode, req.Route, m[1], docs)
				}
			}
			if len(srcs) == 0 {
				t.Errorf("%s: %s prompt names no source", mode, req.Route)
			}
		}
		if prompts < 2 {
			t.Errorf("%s: %d prompts with documents, want the generator's and the judge's", mode, prompts)
		}
	}
}

var (
	questionRE = regexp.MustCompile(`Question: ([^\n<]*)`)
	answerRE   = regexp.MustCompile(`<answer>\s*([^<]*?)\s*\(See `)
)

// TestEvalRelevanceLLMMode measures an LLM judge with `eval relevance`:
// the scripted model finds every sentence quoted right and says whether
// each answers its question. A model that tells the distractors apart
// scores 1.000; one that takes every sentence as an answer accepts the
// distractors the deterministic checks on top do not read either (the
// other dam, both dams), and the figure shows it. Only the judge is
// called.
func TestEvalRelevanceLLMMode(t *testing.T) {
	docs := filepath.Join("internal", "eval", "testdata", "tinysquad", "docs")
	gold := filepath.Join("internal", "eval", "testdata", "tinysquad", "gold.jsonl")
	distractors := []string{"upper dam", "never mapped", "northern hills", "two dams"}
	run := func(discerning bool) map[string]bool {
		t.Helper()
		srv := openaitest.New(t)
		srv.Respond(func(req openaitest.Request) openaitest.Reply {
			if req.Route != openaitest.RouteVerdict {
				return openaitest.Reply{Status: 500, Message: "unscripted route " + req.Route}
			}
			// the user message ends with the question and the answer
			text := req.Text()
			qs := questionRE.FindAllStringSubmatch(text, -1)
			as := answerRE.FindAllStringSubmatch(text, -1)
			if len(qs) == 0 || len(as) == 0 {
				return openaitest.Reply{Status: 500, Message: "no question or answer in the prompt"}
			}
			q, m := qs[len(qs)-1][1], as[len(as)-1]
			addresses := true
			for _, d := range distractors {
				if discerning && strings.Contains(q, d) {
					addresses = false
				}
			}
			v, _ := json.Marshal(map[string]any{
				"claims": []map[string]any{{"claim": m[1], "section_id": promptSectionID(text, "Paragraph"), "quote": m[1],
					"supported": true, "contradiction": "", "reason": "", "addresses_question": addresses,
					"about": map[string]any{"entity": "Elm River", "period": ""}}},
				"is_hallucinated": false, "confidence_score": 0.9, "reasoning": "quoted from the paragraph",
				"irrelevant_sections": []string{}, "answers_question": addresses, "relevance_reason": "",
			})
			return openaitest.Reply{Content: string(v)}
		})
		r := runCLI(t, llmEnv(srv), "eval", "relevance", "--docs", docs, "--gold", gold, "--json")
		if r.code != exitOK {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		var rep struct {
			Results []struct {
				ID       string `json:"id"`
				Accepted bool   `json:"accepted"`
				Error    string `json:"error"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		accepted := map[string]bool{}
		for _, res := range rep.Results {
			if res.Error != "" {
				t.Errorf("%s: %s", res.ID, res.Error)
			}
			accepted[res.ID] = res.Accepted
		}
		for _, req := range srv.Requests() {
			if req.Route != openaitest.RouteVerdict {
				t.Errorf("eval relevance called %s", req.Route)
			}
		}
		return accepted
	}
	got := run(true)
	for id, want := range map[string]bool{"a1": true, "a2": true, "a3": true, "u1": false, "u2": false, "u5": false, "u6": false} {
		if got[id] != want {
			t.Errorf("discerning model: %s accepted = %v, want %v", id, got[id], want)
		}
	}
	got = run(false)
	if !got["u1"] || !got["u6"] || !got["a1"] {
		t.Errorf("a model that accepts everything: accepted %v; u1 and u6 should pass the deterministic checks", got)
	}
}

// eval judge with a key the server rejects: every verdict failed, so the
// command fails with one line naming the failure instead of reporting the
// figures of a judge that called every response hallucinated (exit 0).
func TestEvalJudgeRejectedKey(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteVerdict, openaitest.Reply{Status: 401, Message: "invalid key"})
	for _, asJSON := range []bool{false, true} {
		args := []string{"eval", "judge", "--ragtruth", filepath.Join("internal", "eval", "testdata", "ragtruth_tiny.jsonl")}
		if asJSON {
			args = append(args, "--json")
		}
		r := runCLI(t, llmEnv(srv), args...)
		if r.code != exitError || r.stdout != "" {
			t.Fatalf("--json=%v: exit %d, stdout %q; want exit 1 and no report\nstderr:\n%s", asJSON, r.code, r.stdout, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "docmind: eval judge: the judge failed on every response (4 of 4): ") || !strings.HasSuffix(last, "rejected the API key (401)") {
			t.Errorf("--json=%v: stderr:\n%s", asJSON, r.stderr)
		}
	}
}

// eval qa and eval evidence with a key the server rejects: every run
// failed, so the command fails with one line naming the failure instead of
// reporting the figures of a pipeline that missed every question (exit 0).
func TestEvalQARejectedKey(t *testing.T) {
	srv := openaitest.New(t)
	for _, route := range []string{openaitest.RouteGenerate, openaitest.RouteDecomposition, openaitest.RouteVerdict} {
		srv.Always(route, openaitest.Reply{Status: 401, Message: "invalid key"})
	}
	evidence := filepath.Join("internal", "eval", "testdata", "evidence")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "qa", "--docs", "examples/contract", filepath.Join("internal", "eval", "testdata", "qa", "contract_heldout.jsonl")}, "eval qa: every question failed (20 of 20): "},
		{[]string{"eval", "evidence", "--docs", filepath.Join(evidence, "docs"), filepath.Join(evidence, "qa.jsonl")}, "eval evidence: every question failed (2 of 2): "},
	} {
		for _, asJSON := range []bool{false, true} {
			args := tc.args
			if asJSON {
				args = append(append([]string(nil), args...), "--json")
			}
			r := runCLI(t, llmEnv(srv), args...)
			if r.code != exitError || r.stdout != "" {
				t.Fatalf("%v: exit %d, stdout %q; want exit 1 and no report\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "docmind: "+tc.want) || !strings.HasSuffix(last, "rejected the API key (401)") {
				t.Errorf("%v: stderr:\n%s", args, r.stderr)
			}
		}
	}
}

// A reasoning model (gpt-5-mini) takes no temperature and wants
// max_completion_tokens; an endpoint like DeepSeek's takes no json_schema
// response format. Either answers the question: the requests are sent as
// the model takes them, and stderr says what changed, once.
func TestAskLLMModeEndpointsThatRejectParameters(t *testing.T) {
	t.Run("reasoning model", func(t *testing.T) {
		srv := openaitest.New(t)
		contractModel(t, srv, "1.5%")
		env := append(llmEnv(srv), "DOCMIND_MODEL=gpt-5-mini")
		r := runCLI(t, env, "ask", "--docs", "examples/contract", "What are the penalties?")
		if r.code != exitOK || !strings.Contains(r.stdout, "1.5% per month") {
			t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		for _, req := range srv.Requests() {
			if req.HasKey("temperature") || req.HasKey("max_tokens") || req.Body.MaxCompletionTokens == 0 {
				t.Errorf("%s request sent %s", req.Route, req.Raw)
			}
		}
		if n := strings.Count(r.stderr, "(gpt-5-mini) does not take a temperature"); n != 1 {
			t.Errorf("stderr says %d times that the temperature was left out, want once:\n%s", n, r.stderr)
		}
	})
	t.Run("no json_schema", func(t *testing.T) {
		srv := openaitest.New(t)
		editedContractModel(t, srv, func(req openaitest.Request, r *openaitest.Reply) {
			if rf := req.Body.ResponseFormat; rf != nil && rf.Type == openai.ChatCompletionResponseFormatTypeJSONSchema {
				*r = openaitest.Reply{Status: 400, Message: "This response_format type is unavailable now"}
			}
		}, "1.5%")
		r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "What are the penalties?")
		if r.code != exitOK || !strings.Contains(r.stdout, "1.5% per month") {
			t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "does not take a JSON schema as the response format") {
			t.Errorf("stderr does not say the response format changed:\n%s", r.stderr)
		}
		rejected := 0
		for _, req := range srv.Requests() {
			if rf := req.Body.ResponseFormat; rf != nil && rf.Type == openai.ChatCompletionResponseFormatTypeJSONSchema {
				rejected++
			}
		}
		if rejected != 1 {
			t.Errorf("%d requests asked for a JSON schema, want 1 (the first, rejected)", rejected)
		}
	})
}

// A reasoning model served without a reasoning parser (DeepSeek-R1 on
// vLLM or llama.cpp) thinks inside <think>…</think> before every reply,
// quoting JSON it then does not give. The stages read the replies after
// the thinking, and the user never sees it.
func TestAskLLMModeInlineThinking(t *testing.T) {
	srv := openaitest.New(t)
	editedContractModel(t, srv, func(req openaitest.Request, r *openaitest.Reply) {
		if r.Status == 0 {
			r.Content = "<think>Let me think. A reply like {\"is_hallucinated\": true} or [\"S9\"] would be wrong here.</think>\n\n" + r.Content
		}
	}, "1.5%")
	r := runCLI(t, llmEnv(srv), "ask", "--json", "--docs", "examples/contract", "What are the penalties?")
	if r.code != exitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var st schema.State
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatal(err)
	}
	if st.FinalOutput == nil || !strings.Contains(*st.FinalOutput, "1.5% per month") || strings.Contains(r.stdout, "Let me think") || strings.Contains(r.stderr, "Let me think") {
		t.Errorf("the answer is not given or the thinking shows:\n%s\n%s", r.stdout, r.stderr)
	}
}

// Each call is bounded by --call-timeout (2m by default): a model slower
// than that is tried again, and the error says which flag gives it more
// time.
func TestAskLLMModeCallTimeout(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteDecomposition, openaitest.Reply{Content: "{}", Delay: time.Hour})
	r := runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--call-timeout", "300ms", "--timeout", "1m", "What are the penalties?")
	if r.code != exitError {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, exitError, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "timed out after 300ms") || !strings.HasSuffix(last, "(a slow model may need a longer --call-timeout than 300ms)") {
		t.Errorf("last line %q", last)
	}
	if got := srv.Calls(openaitest.RouteDecomposition); got < 2 {
		t.Errorf("decomposition requests = %d, want the call tried again", got)
	}
	r = runCLI(t, llmEnv(srv), "ask", "--docs", "examples/contract", "--call-timeout", "-1s", "q?")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--call-timeout must be a positive duration") {
		t.Errorf("--call-timeout -1s: exit %d\n%s", r.code, r.stderr)
	}
}
