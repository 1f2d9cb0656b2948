package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/testing/llmtest"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

func newModel(t *testing.T, srv *openaitest.Server, opts ...openai.Option) *openai.Model {
	t.Helper()
	m, err := openai.New(append([]openai.Option{openai.WithBaseURL(srv.URL), openai.WithAPIKey("sk-test"), openai.WithModel("gpt-4o-mini")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// conformanceResponder answers the prompts of langchaingo's llmtest suite
// the way a real model would.
func conformanceResponder(req openaitest.Request) openaitest.Reply {
	last := req.Body.Messages[len(req.Body.Messages)-1].Content
	switch {
	case strings.Contains(last, "'Hello'"):
		return openaitest.Reply{Content: "Hello"}
	case strings.Contains(last, "Count"):
		return openaitest.Reply{Content: "1, 2, 3"}
	case strings.Contains(last, "25 + 17"):
		return openaitest.Reply{Content: "25 + 17 = 42"}
	default:
		return openaitest.Reply{Content: "OK"}
	}
}

func TestConformance(t *testing.T) {
	srv := openaitest.New(t)
	srv.Respond(conformanceResponder)
	llmtest.TestLLM(t, newModel(t, srv))
}

func TestRolesAndOptionsOnTheWire(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "fine"})
	m := newModel(t, srv)
	ctx := context.Background()
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "you are terse"),
		llms.TextParts(llms.ChatMessageTypeHuman, "q1"),
		llms.TextParts(llms.ChatMessageTypeAI, "a1"),
		llms.TextParts(llms.ChatMessageTypeHuman, "q2"),
	}
	tests := []struct {
		name     string
		opts     []llms.CallOption
		temp     float32
		hasTemp  bool
		topP     float32
		maxField string
	}{
		{name: "no temperature unless set", opts: nil},
		{name: "explicit zero temperature survives omitempty", opts: []llms.CallOption{llms.WithTemperature(0)}, temp: openai.ZeroTemperature, hasTemp: true},
		{name: "temperature and top_p", opts: []llms.CallOption{llms.WithTemperature(0.3), llms.WithTopP(0.9)}, temp: 0.3, hasTemp: true, topP: 0.9},
		{name: "max tokens uses max_tokens on compatible servers", opts: []llms.CallOption{llms.WithMaxTokens(77)}, maxField: "max_tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.GenerateContent(ctx, msgs, tc.opts...); err != nil {
				t.Fatal(err)
			}
			req, _ := srv.Last("")
			var roles []string
			for _, msg := range req.Body.Messages {
				roles = append(roles, msg.Role+"="+msg.Content)
			}
			if got := strings.Join(roles, ","); got != "system=you are terse,user=q1,assistant=a1,user=q2" {
				t.Errorf("messages on the wire = %s", got)
			}
			if req.HasKey("temperature") != tc.hasTemp || req.Body.Temperature != tc.temp {
				t.Errorf("temperature sent=%v value=%v, want sent=%v value=%v", req.HasKey("temperature"), req.Body.Temperature, tc.hasTemp, tc.temp)
			}
			if req.Body.TopP != tc.topP {
				t.Errorf("top_p = %v, want %v", req.Body.TopP, tc.topP)
			}
			if tc.maxField != "" && (!req.HasKey(tc.maxField) || req.Body.MaxTokens != 77) {
				t.Errorf("max tokens not sent as %s: %s", tc.maxField, req.Raw)
			}
		})
	}
}

func TestOfficialEndpointUsesMaxCompletionTokens(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "x"})
	m := newModel(t, srv, openai.WithLegacyMaxTokens(false))
	if _, err := m.Call(context.Background(), "hi", llms.WithMaxTokens(5)); err != nil {
		t.Fatal(err)
	}
	req, _ := srv.Last("")
	if req.HasKey("max_tokens") || req.Body.MaxCompletionTokens != 5 {
		t.Errorf("want max_completion_tokens=5 only, got %s", req.Raw)
	}
}

func TestJSONSchemaPerCall(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: `{"ok":true}`})
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: `{"mode":"json"}`})
	m := newModel(t, srv)
	ctx := context.Background()
	schemaDoc := []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`)
	out, err := m.Call(ctx, "judge", llm.WithJSONSchema(llm.JSONSchema{Name: "docmind_verdict", Schema: schemaDoc, Strict: true}))
	if err != nil || out != `{"ok":true}` {
		t.Fatalf("schema call = %q, %v", out, err)
	}
	req, _ := srv.Last(openaitest.RouteVerdict)
	rf := req.Body.ResponseFormat
	if rf == nil || rf.Type != sdk.ChatCompletionResponseFormatTypeJSONSchema || !rf.JSONSchema.Strict {
		t.Fatalf("response_format = %+v", rf)
	}
	if !strings.Contains(string(req.Raw), `"additionalProperties":false`) {
		t.Errorf("schema not passed through: %s", req.Raw)
	}
	if _, err := m.Call(ctx, "json please", llms.WithJSONMode()); err != nil {
		t.Fatal(err)
	}
	req, _ = srv.Last(openaitest.RouteGenerate)
	if req.Body.ResponseFormat == nil || req.Body.ResponseFormat.Type != sdk.ChatCompletionResponseFormatTypeJSONObject {
		t.Errorf("JSON mode not sent as json_object: %s", req.Raw)
	}
}

func TestStreamingDeliversChunksAndUsage(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "late fee of 1.5% per month",
		Usage: &sdk.Usage{PromptTokens: 11, CompletionTokens: 7, TotalTokens: 18}})
	m := newModel(t, srv)
	var chunks []string
	resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "fee?")},
		llms.WithStreamingFunc(func(_ context.Context, c []byte) error { chunks = append(chunks, string(c)); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 6 || strings.Join(chunks, "") != "late fee of 1.5% per month" {
		t.Errorf("chunks = %q", chunks)
	}
	if resp.Choices[0].Content != "late fee of 1.5% per month" {
		t.Errorf("content = %q", resp.Choices[0].Content)
	}
	u := llm.UsageOf(resp, "")
	if u.PromptTokens != 11 || u.CompletionTokens != 7 || u.TotalTokens != 18 || u.CostUSD <= 0 {
		t.Errorf("usage = %+v (want 11/7/18 with a gpt-4o-mini cost)", u)
	}
	req, _ := srv.Last("")
	if !req.Body.Stream || req.Body.StreamOptions == nil || !req.Body.StreamOptions.IncludeUsage {
		t.Errorf("stream request lacks include_usage: %s", req.Raw)
	}
}

func TestTypedErrors(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate,
		openaitest.Reply{Status: 401, Message: "Incorrect API key provided"},
		openaitest.Reply{Status: 429, Header: openaitest.RetryAfter("3"), Message: "rate"},
		openaitest.Reply{Status: 502, Body: "<html>bad gateway</html>"})
	m := newModel(t, srv)
	ctx := context.Background()

	_, err := m.Call(ctx, "hi")
	var apiErr *sdk.APIError
	var se *llm.StatusError
	if !errors.As(err, &apiErr) || apiErr.HTTPStatusCode != 401 || !errors.As(err, &se) || se.StatusCode != 401 {
		t.Errorf("401: err = %#v", err)
	}
	_, err = m.Call(ctx, "hi")
	if !errors.As(err, &se) || se.StatusCode != 429 || se.RetryAfter != 3*time.Second {
		t.Errorf("429: err = %v (RetryAfter %v)", err, se.RetryAfter)
	}
	_, err = m.Call(ctx, "hi")
	var reqErr *sdk.RequestError
	if !errors.As(err, &reqErr) || !errors.As(err, &se) || se.StatusCode != 502 {
		t.Errorf("502: err = %v", err)
	}
}

func TestCancelDuringStreaming(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: strings.Repeat("word ", 50), ChunkDelay: 20 * time.Millisecond})
	m := newModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	n := 0
	_, err := llm.WithRetry(m, llm.RetryPolicy{Endpoint: m.Endpoint()}).GenerateContent(ctx,
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")},
		llms.WithStreamingFunc(func(_ context.Context, _ []byte) error {
			mu.Lock()
			defer mu.Unlock()
			n++
			if n == 3 {
				cancel()
			}
			return nil
		}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n >= 50 {
		t.Errorf("stream ran to the end (%d chunks) despite cancel", n)
	}
	if srv.Calls("") != 1 {
		t.Errorf("a cancelled stream was retried: %d calls", srv.Calls(""))
	}
	if !strings.Contains(err.Error(), "canceled") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error text = %q", err)
	}
}

func TestUnknownHostIsNetworkError(t *testing.T) {
	srv := openaitest.New(t)
	url := srv.URL
	srv.Close()
	m, err := openai.New(openai.WithBaseURL(url), openai.WithModel("m"), openai.WithHTTPClient(&http.Client{}))
	if err != nil {
		t.Fatal(err)
	}
	rec := &openaitest.SleepRecorder{}
	r := llm.WithRetry(m, llm.RetryPolicy{Endpoint: m.Endpoint(), MaxAttempts: 2, Sleep: rec.Sleep})
	_, err = r.Call(context.Background(), "hi")
	var le *llm.Error
	if !errors.As(err, &le) || le.Kind != llm.KindNetwork || le.Attempts != 2 || len(rec.Slept()) != 1 {
		t.Fatalf("err = %v (%#v), slept %v", err, le, rec.Slept())
	}
	if !strings.HasPrefix(err.Error(), "cannot reach 127.0.0.1:") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("message = %q", err)
	}
}

func TestUsageRecordedThroughMeter(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate, openaitest.Reply{Content: "x", Usage: &sdk.Usage{PromptTokens: 1000, CompletionTokens: 500, TotalTokens: 1500}})
	m := newModel(t, srv)
	meter := &schema.Meter{}
	ctx := schema.ContextWithMeter(context.Background(), meter)
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "x")})
	if err != nil {
		t.Fatal(err)
	}
	llm.RecordUsage(ctx, resp, "")
	got := meter.Usage()
	// gpt-4o-mini: 0.15 $/M in, 0.60 $/M out.
	want := (1000*0.15 + 500*0.60) / 1e6
	if got.Calls != 1 || got.TotalTokens != 1500 || got.CostUSD < want*0.999 || got.CostUSD > want*1.001 {
		t.Errorf("meter = %+v, want 1 call, 1500 tokens, $%.6f", got, want)
	}
}

// A 2xx reply that is empty or not JSON (a web page where the API was
// expected) says so in one line and is not retried. go-openai's decoder
// error read "invalid character 'h' in literal true (expecting 'r')", and
// an empty body, io.EOF, read as a connection closed before any reply and
// was retried as one.
func TestReplyThatIsNotAChatCompletion(t *testing.T) {
	for _, c := range []struct{ name, ctype, body, want string }{
		{"html", "text/html", "<html><body>Welcome</body></html>", "the server replied HTTP 200 with a body that is not JSON (text/html): is the base URL the API's (it usually ends in /v1)?"},
		{"text", "text/plain", "this is not json", "the server replied HTTP 200 with a body that is not JSON (text/plain)"},
		{"empty", "application/json", "", "the server replied HTTP 200 with an empty body (application/json)"},
		{"wrong JSON", "application/json", `{"choices": "none"}`, "the server replied HTTP 200 with JSON that is not a chat completion (application/json)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", c.ctype)
				_, _ = io.WriteString(w, c.body)
			}))
			defer srv.Close()
			m, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPIKey("sk-test"), openai.WithModel("gpt-4o-mini"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = llm.WithRetry(m, llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond}).Call(context.Background(), "hi")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if k, _, _ := llm.Classify(err); k == llm.KindNetwork {
				t.Errorf("classified as a network failure: %v", err)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d calls, want 1 (not retried)", n)
			}
		})
	}
}

// A failed call names the endpoint once. A 2xx reply without choices read
// "call to HOST failed: HOST returned no choices" through llm.WithRetry
// (the policy names the endpoint, and so did the adapter's error).
func TestErrorNamesTheEndpointOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"gpt-4o-mini","choices":[]}`)
	}))
	defer srv.Close()
	m, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPIKey("sk-test"), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	host := m.Endpoint()
	_, err = llm.WithRetry(m, llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, Endpoint: host}).Call(context.Background(), "hi")
	if err == nil || err.Error() != host+" returned no choices" {
		t.Fatalf("err = %v, want %q", err, host+" returned no choices")
	}
}
