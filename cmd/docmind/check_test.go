package main

import (
	"encoding/json"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/llm/openaitest"
)

// checkedModel scripts a model that does what `docmind check` asks of it;
// window, when set, edits the reply to the context-window check's long
// prompt.
func checkedModel(srv *openaitest.Server, window func(*openaitest.Reply)) {
	srv.Respond(func(req openaitest.Request) openaitest.Reply {
		text := req.Text()
		switch req.Route {
		case openaitest.RouteDecomposition:
			return openaitest.Reply{Content: `{"intent":"amount","sub_queries":["What late fee applies to overdue invoices?"],"entities":[],"constraints":[],"temporals":["2023"],"key_terms":["late fee"],"search_terms":[]}`}
		case openaitest.RouteVerdict:
			v, _ := json.Marshal(map[string]any{
				"claims": []map[string]any{{"claim": "The Client pays a late fee of 1.5% per month on the overdue amount", "section_id": "S1",
					"quote": "the Client shall pay a late fee of 1.5% per month on the overdue amount", "supported": true, "contradiction": "", "reason": "",
					"addresses_question": true, "about": map[string]string{"entity": "", "period": ""}}},
				"is_hallucinated": false, "answers_question": true, "relevance_reason": "the answer gives the late fee the question asks for",
				"confidence_score": 0.95, "reasoning": "the passage states the fee", "irrelevant_sections": []string{},
			})
			return openaitest.Reply{Content: string(v)}
		}
		switch {
		case strings.Contains(text, "Reply with the word OK"):
			return openaitest.Reply{Content: "OK"}
		case strings.Contains(text, "Count from 1 to 10"):
			return openaitest.Reply{Content: "1 2 3 4 5 6 7 8 9 10"}
		case strings.Contains(text, "What was the code word"):
			r := openaitest.Reply{Content: codeWord}
			if window != nil {
				window(&r)
			}
			return r
		}
		return openaitest.Reply{Status: 500, Message: "unscripted request"}
	})
}

func checkEnv(srv *openaitest.Server) map[string]string {
	return map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "test", "DOCMIND_MODEL": "gpt-4o-mini"}
}

func TestCheckAWorkingModel(t *testing.T) {
	srv := openaitest.New(t)
	checkedModel(srv, nil)
	r := runInProcess(t, checkEnv(srv), "check")
	if r.code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"reply", "decomposition", "verdict", "streaming", "context window"} {
		if !strings.Contains(r.stdout, "ok      "+name) {
			t.Errorf("no ok line for %s:\n%s", name, r.stdout)
		}
	}
	// each stage's request as the pipeline sends it
	if n := schemaRequests(t, srv, openaitest.RouteDecomposition); n != 1 {
		t.Errorf("%d decomposition requests", n)
	}
	if n := schemaRequests(t, srv, openaitest.RouteVerdict); n != 1 {
		t.Errorf("%d verdict requests", n)
	}
	streamed := false
	for _, req := range srv.Requests() {
		streamed = streamed || req.Body.Stream
	}
	if !streamed {
		t.Error("no request was streamed")
	}
}

// Ollama's /v1 endpoint keeps a window's worth of the prompt and drops
// its start: the context-window check fails and says why.
func TestCheckAPromptCutToTheWindow(t *testing.T) {
	srv := openaitest.New(t)
	checkedModel(srv, func(r *openaitest.Reply) {
		r.Content = "Clause 412."
		r.Usage = &openai.Usage{PromptTokens: 4096, CompletionTokens: 3, TotalTokens: 4099}
	})
	r := runInProcess(t, checkEnv(srv), "check", "--json")
	if r.code != exitError || !strings.Contains(r.stderr, "1 of 5 checks failed") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	w := rep.Checks[4]
	if w.Name != "context window" || w.Status != checkFail || len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "OLLAMA_CONTEXT_LENGTH") {
		t.Errorf("context window check %+v", w)
	}
	if rep.Failed != 1 || rep.Checks[0].Status != checkOK {
		t.Errorf("report %+v", rep)
	}
}

// A rejected key fails the first check in one line; the others, which
// need a reply, are skipped.
func TestCheckARejectedKey(t *testing.T) {
	srv := openaitest.New(t)
	srv.Respond(func(openaitest.Request) openaitest.Reply {
		return openaitest.Reply{Status: 401, Message: "Incorrect API key provided: test."}
	})
	r := runInProcess(t, checkEnv(srv), "check")
	if r.code != exitError {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "fail    reply") || !strings.Contains(r.stdout, "401") || strings.Count(r.stdout, "skipped ") != 4 {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after the key was rejected, want 1", n)
	}
}

func TestCheckOffline(t *testing.T) {
	r := runInProcess(t, nil, "check", "--json")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep checkReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Mode != "offline" || len(rep.Checks) != 0 {
		t.Errorf("report %s (%v)", r.stdout, err)
	}
	if r = runInProcess(t, nil, "check"); !strings.Contains(r.stdout, "nothing to check") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}
