package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"bare", `{"a":1}`, `{"a":1}`, false},
		{"fenced", "```json\n{\"a\": [1,2]}\n```", `{"a": [1,2]}`, false},
		{"fence without info", "```\n{\"a\":1}\n```\nDone.", `{"a":1}`, false},
		{"leading prose", `Here is the verdict: {"ok": true} Hope this helps!`, `{"ok": true}`, false},
		{"braces in prose first", `Note {see below}. {"ok": true}`, `{"ok": true}`, false},
		{"braces inside strings", `{"q":"a } b { c","n":2} trailing`, `{"q":"a } b { c","n":2}`, false},
		{"escaped quote", `{"q":"say \"hi\" }"}`, `{"q":"say \"hi\" }"}`, false},
		{"trailing commas", "{\"a\": [1, 2,], }", "{\"a\": [1, 2] }", false},
		{"array", `result: [{"x":1}]`, `[{"x":1}]`, false},
		{"truncated", `{"a": [1, 2`, "", true},
		{"no json", "I cannot answer that.", "", true},
		{"empty", "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := llm.ExtractJSON(tc.in)
			if tc.wantErr {
				if err == nil || !errors.Is(err, llm.ErrNoJSON) {
					t.Fatalf("ExtractJSON(%q) = %q, %v; want ErrNoJSON", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ExtractJSON(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{}\n```", `x {"a":"}"} y`, `[1,2,]`, `{{{`, `"\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := llm.ExtractJSON(s)
		if err == nil && !json.Valid([]byte(got)) {
			t.Fatalf("ExtractJSON(%q) returned invalid JSON %q", s, got)
		}
	})
}

func TestRetryDelay(t *testing.T) {
	p := llm.RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, Rand: func() float64 { return 0 }}
	for n, want := range map[int]time.Duration{1: 50 * time.Millisecond, 2: 100 * time.Millisecond, 3: 200 * time.Millisecond, 10: 500 * time.Millisecond} {
		if got := p.Delay(n, 0); got != want {
			t.Errorf("Delay(%d) = %v, want %v", n, got, want)
		}
	}
	if got := p.Delay(1, 300*time.Millisecond); got != 300*time.Millisecond {
		t.Errorf("Retry-After not honoured: %v", got)
	}
	p.Rand = func() float64 { return 0.999 }
	if got := p.Delay(1, 0); got <= 99*time.Millisecond || got > 100*time.Millisecond {
		t.Errorf("full jitter Delay(1) = %v", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"5":                             5 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-1":                            0,
		"soon":                          0,
		"Wed, 01 Jan 2025 00:00:10 GMT": 10 * time.Second,
		"NaN":                           0,
		"Inf":                           0,
		"1e10":                          math.MaxInt64,
	} {
		if got := llm.ParseRetryAfter(in, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestClassifyStringErrors(t *testing.T) {
	tests := []struct {
		err    error
		kind   llm.Kind
		status int
	}{
		{errors.New("anthropic: failed to create message: API returned unexpected status code: 429: slow"), llm.KindRateLimit, 429},
		{errors.New("error, status code: 503, status: 503 Service Unavailable"), llm.KindServer, 503},
		{errors.New("status code: 404"), llm.KindBadRequest, 404},
		{fmt.Errorf("x: %w", context.Canceled), llm.KindCanceled, 0},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), llm.KindTimeout, 0},
		{&llm.StatusError{StatusCode: 401}, llm.KindAuth, 401},
		{errors.New("something odd"), llm.KindOther, 0},
	}
	for _, tc := range tests {
		kind, status, _ := llm.Classify(tc.err)
		if kind != tc.kind || status != tc.status {
			t.Errorf("Classify(%v) = %v/%d, want %v/%d", tc.err, kind, status, tc.kind, tc.status)
		}
	}
}

func TestTransportTypesHTTPErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "4")
		w.WriteHeader(529)
		_, _ = w.Write([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	}))
	defer srv.Close()
	_, err := llm.HTTPClient(nil).Get(srv.URL)
	var se *llm.StatusError
	if !errors.As(err, &se) || se.StatusCode != 529 || se.RetryAfter != 4*time.Second || se.Message != "Overloaded" {
		t.Fatalf("err = %v", err)
	}
}

func TestPriceOf(t *testing.T) {
	tests := []struct {
		model string
		in    float64
		ok    bool
	}{
		{"gpt-4o-mini", 0.15, true},
		{"gpt-4o-2024-08-06", 2.50, true},
		{"openai/gpt-4o-mini", 0.15, true},
		{"claude-sonnet-4-20250514", 3, true},
		{"o3-mini", 1.10, true},
		{"gpt-4omega", 0, false},
		{"llama3.2", 0, false},
	}
	for _, tc := range tests {
		p, ok := llm.PriceOf(tc.model)
		if ok != tc.ok || p.Input != tc.in {
			t.Errorf("PriceOf(%q) = %+v, %v; want input %v, %v", tc.model, p, ok, tc.in, tc.ok)
		}
	}
}

func TestUsageOfAnthropicNames(t *testing.T) {
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{GenerationInfo: map[string]any{"InputTokens": 10, "OutputTokens": 4}}}}
	u := llm.UsageOf(resp, "claude-3-5-haiku-latest")
	if u.PromptTokens != 10 || u.CompletionTokens != 4 || u.TotalTokens != 14 || u.Calls != 1 || u.CostUSD == 0 {
		t.Errorf("usage = %+v", u)
	}
}

type answer struct {
	Answer string `json:"answer"`
}

func decodeAnswer(into *answer) func(string) error {
	return func(js string) error {
		*into = answer{}
		if err := json.Unmarshal([]byte(js), into); err != nil {
			return err
		}
		if into.Answer == "" {
			return errors.New(`"answer" is empty`)
		}
		return nil
	}
}

func TestGenerateStructuredRepairs(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script("docmind_test",
		openaitest.Reply{Content: "Sure! {answer: 42"},
		openaitest.Reply{Content: "```json\n{\"answer\": \"42\"}\n```"})
	m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("gpt-4o-mini"))
	if err != nil {
		t.Fatal(err)
	}
	meter := &schema.Meter{}
	ctx := schema.ContextWithMeter(context.Background(), meter)
	var got answer
	_, err = llm.GenerateStructured(ctx, m, llm.StructuredCall{
		Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "what is it?")},
		Schema:   llm.JSONSchema{Name: "docmind_test", Schema: []byte(`{"type":"object"}`)},
		Repair:   func(raw string, problem error) string { return "REPAIR: " + problem.Error() },
	}, decodeAnswer(&got))
	if err != nil || got.Answer != "42" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if srv.Calls("docmind_test") != 2 {
		t.Errorf("calls = %d, want 2", srv.Calls("docmind_test"))
	}
	req, _ := srv.Last("docmind_test")
	msgs := req.Body.Messages
	if len(msgs) != 3 || msgs[1].Role != "assistant" || msgs[1].Content != "Sure! {answer: 42" ||
		!strings.HasPrefix(msgs[2].Content, "REPAIR: no JSON object") {
		t.Errorf("repair conversation = %+v", msgs)
	}
	if u := meter.Usage(); u.Calls != 2 {
		t.Errorf("usage calls = %d, want 2", u.Calls)
	}
}

func TestGenerateStructuredGivesUp(t *testing.T) {
	srv := openaitest.New(t)
	srv.Always("docmind_test", openaitest.Reply{Content: `{"answer": ""}`})
	m, _ := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
	var got answer
	raw, err := llm.GenerateStructured(context.Background(), m, llm.StructuredCall{
		Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
		Schema:   llm.JSONSchema{Name: "docmind_test"},
		Repair:   func(string, error) string { return "fix it" },
	}, decodeAnswer(&got))
	var pe *llm.ParseError
	if !errors.Is(err, llm.ErrUnparseable) || !errors.As(err, &pe) || pe.Attempts != 2 || raw != `{"answer": ""}` {
		t.Fatalf("err = %v, raw %q", err, raw)
	}
	if srv.Calls("") != 2 {
		t.Errorf("calls = %d, want 2", srv.Calls(""))
	}
}

// A reply cut off at its token limit is never parsed (its JSON is
// incomplete, and an inner fragment could pass for the answer): it is sent
// again with twice the room, and a second cut-off is reported as such.
func TestGenerateStructuredTruncated(t *testing.T) {
	// The outer object is cut off; {"answer": "inner"} inside it is
	// complete and would be taken for the reply.
	cut := `{"answer": "42", "notes": [{"answer": "inner"}, "and then the`
	tests := []struct {
		name    string
		replies []openaitest.Reply
		want    string
		wantErr string
		calls   int
	}{
		{name: "cut off, then whole with more room", calls: 2, want: "42",
			replies: []openaitest.Reply{{Content: cut, FinishReason: "length"}, {Content: `{"answer": "42"}`}}},
		{name: "cut off twice", calls: 2, wantErr: "the model's reply was cut off at 200 tokens",
			replies: []openaitest.Reply{{Content: cut, FinishReason: "length"}, {Content: cut, FinishReason: "length"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script("docmind_test", tc.replies...)
			m, _ := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("m"))
			var got answer
			_, err := llm.GenerateStructured(context.Background(), m, llm.StructuredCall{
				Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
				Schema:   llm.JSONSchema{Name: "docmind_test"},
				Options:  []llms.CallOption{llms.WithMaxTokens(100)},
				Repair:   func(string, error) string { return "fix it" },
			}, decodeAnswer(&got))
			if srv.Calls("") != tc.calls {
				t.Errorf("calls = %d, want %d", srv.Calls(""), tc.calls)
			}
			reqs := srv.Requests()
			if len(reqs) == 2 && (reqs[1].MaxTokens() != 200 || len(reqs[1].Body.Messages) != 1) {
				t.Errorf("the retry is not the same request with twice the room: max tokens %d, %d messages", reqs[1].MaxTokens(), len(reqs[1].Body.Messages))
			}
			if tc.wantErr != "" {
				var te *llm.TruncatedError
				if !errors.Is(err, llm.ErrUnparseable) || !errors.As(err, &te) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a truncation %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got.Answer != tc.want {
				t.Fatalf("got %+v, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// An error that already names the endpoint is not prefixed with it again
// ("call to HOST failed: HOST: …").
func TestErrorNamesTheEndpointOnce(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"example.com:8080: unexpected end of stream", "call to example.com:8080 failed: unexpected end of stream"},
		{"example.com:8080 returned no choices", "example.com:8080 returned no choices"},
		{"decoder: bad value", "call to example.com:8080 failed: decoder: bad value"},
		{"example.com:80801: other host", "call to example.com:8080 failed: example.com:80801: other host"},
	} {
		e := &llm.Error{Endpoint: "example.com:8080", Kind: llm.KindOther, Err: errors.New(c.err)}
		if got := e.Error(); got != c.want {
			t.Errorf("%q: got %q, want %q", c.err, got, c.want)
		}
	}
}
