package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/llm/providers"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromEnvSelection(t *testing.T) {
	tests := []struct {
		name                string
		env                 map[string]string
		cfg                 providers.Config
		wantProvider        string
		wantModel, wantJudg string
		wantEndpoint        string
		wantErr             string
	}{
		{name: "nothing configured is offline", env: nil},
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "sk"}, wantProvider: "openai", wantModel: "gpt-4o-mini", wantJudg: "gpt-4o-mini", wantEndpoint: "OpenAI"},
		{name: "DOCMIND_MODEL and judge flag", env: map[string]string{"OPENAI_API_KEY": "sk", "DOCMIND_MODEL": "gpt-4.1-mini"},
			cfg: providers.Config{JudgeModel: "gpt-4.1"}, wantProvider: "openai", wantModel: "gpt-4.1-mini", wantJudg: "gpt-4.1", wantEndpoint: "OpenAI"},
		{name: "flag model beats env", env: map[string]string{"OPENAI_API_KEY": "sk", "DOCMIND_MODEL": "a"}, cfg: providers.Config{Model: "b"},
			wantProvider: "openai", wantModel: "b", wantJudg: "b", wantEndpoint: "OpenAI"},
		{name: "compatible server without key", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1"},
			wantProvider: "openai", wantModel: "gpt-4o-mini", wantJudg: "gpt-4o-mini", wantEndpoint: "localhost:8000"},
		{name: "anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, wantProvider: "anthropic",
			wantModel: "claude-3-5-haiku-latest", wantJudg: "claude-3-5-haiku-latest", wantEndpoint: "Anthropic"},
		{name: "openai wins over anthropic", env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "sk"}, wantProvider: "openai",
			wantModel: "gpt-4o-mini", wantJudg: "gpt-4o-mini", wantEndpoint: "OpenAI"},
		{name: "explicit provider picks anthropic", env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "sk"}, cfg: providers.Config{Provider: "Anthropic"},
			wantProvider: "anthropic", wantModel: "claude-3-5-haiku-latest", wantJudg: "claude-3-5-haiku-latest", wantEndpoint: "Anthropic"},
		{name: "ollama host", env: map[string]string{"OLLAMA_HOST": "0.0.0.0"}, wantProvider: "ollama", wantModel: "llama3.2", wantJudg: "llama3.2", wantEndpoint: "Ollama at 127.0.0.1:11434"},
		{name: "offline forced", env: map[string]string{"OPENAI_API_KEY": "sk"}, cfg: providers.Config{Provider: "offline"}},
		{name: "openai without key", cfg: providers.Config{Provider: "openai"}, wantErr: "OPENAI_API_KEY is not set"},
		{name: "anthropic without key", cfg: providers.Config{Provider: "anthropic"}, wantErr: "ANTHROPIC_API_KEY is not set"},
		{name: "unknown provider", cfg: providers.Config{Provider: "gemini"}, wantErr: `unknown LLM provider "gemini"`},
		{name: "bad base URL", env: map[string]string{"OPENAI_BASE_URL": "localhost:8000"}, wantErr: "not an absolute URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := providers.FromEnv(envOf(tc.env), tc.cfg)
			if checkErr(t, err, tc.wantErr) {
				return
			}
			if tc.wantProvider == "" {
				if !got.Offline() || got.Judge != nil || !strings.HasPrefix(got.Describe(), "offline mode") {
					t.Fatalf("want offline, got %+v", got)
				}
				return
			}
			if got.Provider != tc.wantProvider || got.Name != tc.wantModel || got.JudgeName != tc.wantJudg || got.Endpoint != tc.wantEndpoint {
				t.Errorf("got %s/%s/%s at %s; want %s/%s/%s at %s", got.Provider, got.Name, got.JudgeName, got.Endpoint,
					tc.wantProvider, tc.wantModel, tc.wantJudg, tc.wantEndpoint)
			}
			if got.Main == nil || got.Judge == nil || (tc.wantModel == tc.wantJudg) != (got.Main == got.Judge) {
				t.Errorf("models: main %v judge %v", got.Main, got.Judge)
			}
		})
	}
}

func TestOllamaURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "http://127.0.0.1:11434",
		"0.0.0.0":                  "http://127.0.0.1:11434",
		"example.com":              "http://example.com:11434",
		"10.0.0.2:9999":            "http://10.0.0.2:9999",
		"https://ollama.example/x": "https://ollama.example:443/x",
	} {
		u, err := providers.OllamaURL(in)
		if err != nil || u.String() != want {
			t.Errorf("OllamaURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
}

func TestOpenAIPathEndToEnd(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate,
		openaitest.Reply{Status: 503, Header: openaitest.RetryAfter("1")},
		openaitest.Reply{Content: "main"})
	srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: "judge"})
	rec := &openaitest.SleepRecorder{}
	ms, err := providers.FromEnv(envOf(map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "sk-x"}),
		providers.Config{Model: "small", JudgeModel: "big", Retry: llm.RetryPolicy{Sleep: rec.Sleep}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if out, err := ms.Main.Call(ctx, "q"); err != nil || out != "main" {
		t.Fatalf("main = %q, %v", out, err)
	}
	if out, err := ms.Judge.Call(ctx, "q", llm.WithJSONSchema(llm.JSONSchema{Name: openaitest.RouteVerdict})); err != nil || out != "judge" {
		t.Fatalf("judge = %q, %v", out, err)
	}
	main, _ := srv.Last(openaitest.RouteGenerate)
	judge, _ := srv.Last(openaitest.RouteVerdict)
	if main.Body.Model != "small" || judge.Body.Model != "big" || main.Header.Get("Authorization") != "Bearer sk-x" {
		t.Errorf("models on the wire: main %q judge %q auth %q", main.Body.Model, judge.Body.Model, main.Header.Get("Authorization"))
	}
	if len(rec.Slept()) != 1 || rec.Slept()[0] != time.Second {
		t.Errorf("slept %v, want [1s] from Retry-After", rec.Slept())
	}
}

// scripted is a tiny scripted server for the Anthropic and Ollama wire
// protocols: each request pops the next handler.
type scripted struct {
	mu       sync.Mutex
	handlers []http.HandlerFunc
	bodies   []map[string]any
	paths    []string
	headers  []http.Header
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.paths = append(s.paths, r.URL.Path)
	s.headers = append(s.headers, r.Header.Clone())
	var h http.HandlerFunc
	if len(s.handlers) > 0 {
		h, s.handlers = s.handlers[0], s.handlers[1:]
	}
	s.mu.Unlock()
	if h == nil {
		http.Error(w, `{"error":"no reply scripted"}`, http.StatusBadRequest)
		return
	}
	h(w, r)
}

func (s *scripted) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

func statusReply(code int, retryAfter, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

func anthropicJSON(text string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
			"content":     []map[string]any{{"type": "text", "text": text}},
			"stop_reason": "end_turn",
			"usage":       map[string]any{"input_tokens": 21, "output_tokens": 5},
		})
	}
}

func anthropicSSE(parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
			w.(http.Flusher).Flush()
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
			"usage": map[string]any{"input_tokens": 30, "output_tokens": 1}}})
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, p := range parts {
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": p}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": len(parts)}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}
}

func TestAnthropicPath(t *testing.T) {
	s := &scripted{handlers: []http.HandlerFunc{
		statusReply(429, "2", `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`),
		anthropicJSON("The late fee is 1.5% per month."),
		anthropicSSE("The late ", "fee is ", "1.5%."),
		statusReply(401, "", `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`),
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	rec := &openaitest.SleepRecorder{}
	ms, err := providers.FromEnv(envOf(map[string]string{"ANTHROPIC_API_KEY": "ak", "ANTHROPIC_BASE_URL": srv.URL + "/v1"}),
		providers.Config{Retry: llm.RetryPolicy{Sleep: rec.Sleep}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Documents are data."),
		llms.TextParts(llms.ChatMessageTypeHuman, "What is the late fee?"),
	}
	resp, err := ms.Main.GenerateContent(ctx, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Content != "The late fee is 1.5% per month." || len(rec.Slept()) != 1 || rec.Slept()[0] != 2*time.Second {
		t.Errorf("content %q, slept %v", resp.Choices[0].Content, rec.Slept())
	}
	if u := llm.UsageOf(resp, ms.Name); u.PromptTokens != 21 || u.CompletionTokens != 5 || u.CostUSD == 0 {
		t.Errorf("usage = %+v", u)
	}
	s.mu.Lock()
	body, path, hdr := s.bodies[1], s.paths[1], s.headers[1]
	s.mu.Unlock()
	if path != "/v1/messages" || body["system"] != "Documents are data." || body["model"] != "claude-3-5-haiku-latest" || hdr.Get("x-api-key") != "ak" {
		t.Errorf("request: path %s body %v key %q", path, body, hdr.Get("x-api-key"))
	}

	var streamed strings.Builder
	resp, err = ms.Main.GenerateContent(ctx, msgs, llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed.Write(c); return nil }))
	if err != nil || streamed.String() != "The late fee is 1.5%." || resp.Choices[0].Content != "The late fee is 1.5%." {
		t.Fatalf("stream: %q / %v", streamed.String(), err)
	}

	_, err = ms.Main.GenerateContent(ctx, msgs)
	want := srv.Listener.Addr().String() + " rejected the API key (401)"
	if err == nil || err.Error() != want {
		t.Errorf("401 error = %v, want %q", err, want)
	}
	if s.calls() != 4 {
		t.Errorf("calls = %d, want 4 (401 not retried)", s.calls())
	}
}

func ollamaReply(stream bool, parts ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		if !stream {
			_ = enc.Encode(map[string]any{"model": "llama3.2", "message": map[string]any{"role": "assistant", "content": strings.Join(parts, "")},
				"done": true, "prompt_eval_count": 12, "eval_count": 4})
			return
		}
		for _, p := range parts {
			_ = enc.Encode(map[string]any{"model": "llama3.2", "message": map[string]any{"role": "assistant", "content": p}, "done": false})
			w.(http.Flusher).Flush()
		}
		_ = enc.Encode(map[string]any{"model": "llama3.2", "message": map[string]any{"role": "assistant", "content": ""},
			"done": true, "prompt_eval_count": 12, "eval_count": len(parts)})
	}
}

func TestOllamaPath(t *testing.T) {
	s := &scripted{handlers: []http.HandlerFunc{
		statusReply(500, "", `{"error":"model runner crashed"}`),
		ollamaReply(false, `{"intent":"amount"}`),
		ollamaReply(true, "1.5% ", "per ", "month"),
		statusReply(404, "", `{"error":"model \"llama3.2\" not found, try pulling it first"}`),
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	rec := &openaitest.SleepRecorder{}
	ms, err := providers.FromEnv(envOf(map[string]string{"OLLAMA_HOST": srv.URL}),
		providers.Config{Retry: llm.RetryPolicy{Sleep: rec.Sleep, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	out, err := ms.Main.Call(ctx, "decompose", llm.WithJSONSchema(llm.JSONSchema{Name: "docmind_decomposition"}))
	if err != nil || out != `{"intent":"amount"}` || len(rec.Slept()) != 1 {
		t.Fatalf("out %q err %v slept %v", out, err, rec.Slept())
	}
	s.mu.Lock()
	body, path := s.bodies[1], s.paths[1]
	s.mu.Unlock()
	if path != "/api/chat" || body["format"] != "json" || body["model"] != "llama3.2" {
		t.Errorf("request: %s %v", path, body)
	}
	if o, _ := body["options"].(map[string]any); o["num_ctx"] != float64(providers.OllamaContext) {
		t.Errorf("options %v: want num_ctx %d (Ollama's default drops the start of a long prompt)", body["options"], providers.OllamaContext)
	}
	var chunks []string
	resp, err := ms.Main.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "fee?")},
		llms.WithStreamingFunc(func(_ context.Context, c []byte) error { chunks = append(chunks, string(c)); return nil }))
	if err != nil || strings.Join(chunks, "") != "1.5% per month" {
		t.Fatalf("stream %q err %v", chunks, err)
	}
	if u := llm.UsageOf(resp, ms.Name); u.PromptTokens != 12 || u.CompletionTokens != 3 {
		t.Errorf("usage = %+v", u)
	}
	_, err = ms.Main.Call(ctx, "x")
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindBadRequest || !strings.Contains(err.Error(), "does not know this model or path (404): model \"llama3.2\" not found") {
		t.Errorf("404 error = %v", err)
	}
}
