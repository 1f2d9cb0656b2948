package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	sdk "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/schema"
)

// rejection is an endpoint's 400 in OpenAI's error envelope; param may be
// empty (many compatible servers give none).
func rejection(msg, param string) openaitest.Reply {
	e := map[string]any{"message": msg, "type": "invalid_request_error"}
	if param != "" {
		e["param"] = param
		e["code"] = "unsupported_parameter"
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return openaitest.Reply{Status: 400, Body: string(b)}
}

// An OpenAI reasoning model reached through a compatible base URL (a
// gateway, Azure): it takes no temperature other than its default, and
// wants max_completion_tokens. The words are OpenAI's.
func reasoningModel(req openaitest.Request) openaitest.Reply {
	switch {
	case req.HasKey("temperature"):
		return rejection("Unsupported value: 'temperature' does not support 1e-06 with this model. Only the default (1) value is supported.", "temperature")
	case req.HasKey("max_tokens"):
		return rejection("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "max_tokens")
	}
	return openaitest.Reply{Content: `{"ok":true}`}
}

func withMeter() (context.Context, *schema.Meter) {
	m := &schema.Meter{}
	return schema.ContextWithMeter(context.Background(), m), m
}

// A reasoning model is sent the parameters it takes. go-openai refuses,
// before sending anything, a temperature or max_tokens for the model names
// it knows (gpt-5-mini); a gateway's or Azure deployment's name it does
// not know is refused by the endpoint, one parameter at a time.
func TestReasoningModelGetsTheParametersItTakes(t *testing.T) {
	for _, c := range []struct {
		model    string
		requests int // of the first call
	}{
		{"gpt-5-mini", 1},
		{"reasoning-deployment", 3},
	} {
		t.Run(c.model, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Respond(reasoningModel)
			m := newModel(t, srv)
			ctx, meter := withMeter()
			opts := []llms.CallOption{llms.WithModel(c.model), llms.WithTemperature(0), llms.WithMaxTokens(64)}
			out, err := m.Call(ctx, "judge this", opts...)
			if err != nil || out != `{"ok":true}` {
				t.Fatalf("call = %q, %v", out, err)
			}
			if n := len(srv.Requests()); n != c.requests {
				t.Errorf("%d requests, want %d", n, c.requests)
			}
			notes := meter.Notes()
			for _, want := range []string{"(" + c.model + ") does not take a temperature", "max_tokens: the token limit sent as max_completion_tokens"} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes %q lack %q", notes, want)
				}
			}
			last, _ := srv.Last("")
			if last.HasKey("temperature") || last.HasKey("max_tokens") || last.Body.MaxCompletionTokens != 64+openai.ReasoningAllowance {
				t.Errorf("last request %s", last.Raw)
			}

			// Remembered: the next call is sent as the endpoint takes it
			// at once, and says nothing more.
			ctx2, meter2 := withMeter()
			if _, err := m.Call(ctx2, "again", opts...); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != c.requests+1 {
				t.Errorf("the second call made %d requests, want 1", n-c.requests)
			}
			if meter2.Notes() != "" {
				t.Errorf("second call's notes %q, want none", meter2.Notes())
			}

			// Another model of the same endpoint is sent what it is asked.
			srv.Respond(func(req openaitest.Request) openaitest.Reply { return openaitest.Reply{Content: "fine"} })
			if _, err := m.Call(context.Background(), "other", llms.WithModel("gpt-4o-mini"), llms.WithTemperature(0), llms.WithMaxTokens(64)); err != nil {
				t.Fatal(err)
			}
			last, _ = srv.Last("")
			if !last.HasKey("temperature") || !last.HasKey("max_tokens") {
				t.Errorf("gpt-4o-mini's request lost its parameters: %s", last.Raw)
			}
		})
	}
}

// DeepSeek takes json_object but not json_schema; another server takes
// neither. The structured call still gets its JSON, checked as before.
func TestResponseFormatFallsBack(t *testing.T) {
	for _, c := range []struct {
		name   string
		reject func(rf *sdk.ChatCompletionResponseFormat) string
		want   string // the format of the request that succeeded
		calls  int
	}{
		{"json_schema unavailable", func(rf *sdk.ChatCompletionResponseFormat) string {
			if rf.Type == sdk.ChatCompletionResponseFormatTypeJSONSchema {
				return "This response_format type is unavailable now"
			}
			return ""
		}, "json_object", 2},
		{"no response format at all", func(rf *sdk.ChatCompletionResponseFormat) string {
			return "This model does not support response format `" + string(rf.Type) + "`"
		}, "", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Respond(func(req openaitest.Request) openaitest.Reply {
				if rf := req.Body.ResponseFormat; rf != nil {
					if msg := c.reject(rf); msg != "" {
						return rejection(msg, "")
					}
				}
				return openaitest.Reply{Content: `{"ok": true}`}
			})
			m := newModel(t, srv)
			ctx, meter := withMeter()
			var got struct{ OK bool }
			call := llm.StructuredCall{
				Messages: []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Return one JSON object with the field ok.")},
				Schema:   llm.JSONSchema{Name: "docmind_verdict", Schema: []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)},
			}
			if _, err := llm.GenerateStructured(ctx, m, call, func(s string) error { return json.Unmarshal([]byte(s), &got) }); err != nil || !got.OK {
				t.Fatalf("structured call: ok=%v, %v", got.OK, err)
			}
			if n := len(srv.Requests()); n != c.calls {
				t.Errorf("%d requests, want %d", n, c.calls)
			}
			last := srv.Requests()[c.calls-1]
			format := ""
			if rf := last.Body.ResponseFormat; rf != nil {
				format = string(rf.Type)
			}
			if format != c.want {
				t.Errorf("the request that succeeded asked for %q, want %q: %s", format, c.want, last.Raw)
			}
			if !strings.Contains(meter.Notes(), "does not take a JSON schema as the response format") {
				t.Errorf("notes %q", meter.Notes())
			}
			if _, err := llm.GenerateStructured(context.Background(), m, call, func(s string) error { return json.Unmarshal([]byte(s), &got) }); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != c.calls+1 {
				t.Errorf("the second call made %d requests, want 1", n-c.calls)
			}
		})
	}
}

// A server that rejects stream_options still streams the answer: Azure's
// older API versions (400, OpenAI's envelope) and servers that validate
// the request's fields (422, FastAPI's or Mistral's shape, with no
// message of OpenAI's).
func TestStreamOptionsRejected(t *testing.T) {
	for _, rej := range []openaitest.Reply{
		rejection("Unrecognized request argument supplied: stream_options", ""),
		{Status: 422, Body: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted","input":{"include_usage":true}}]},"type":"invalid_request_error","param":null,"code":null}`},
		{Status: 422, Body: `{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]}`},
	} {
		srv := openaitest.New(t)
		srv.Respond(func(req openaitest.Request) openaitest.Reply {
			if req.HasKey("stream_options") {
				return rej
			}
			return openaitest.Reply{Content: "late fee of 1.5% per month"}
		})
		m := newModel(t, srv)
		var streamed strings.Builder
		resp, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "fee?")},
			llms.WithStreamingFunc(func(_ context.Context, b []byte) error { streamed.Write(b); return nil }))
		if err != nil {
			t.Errorf("%s: %v", rej.Body, err)
			continue
		}
		if resp.Choices[0].Content != "late fee of 1.5% per month" || streamed.String() != resp.Choices[0].Content {
			t.Errorf("reply %q, streamed %q", resp.Choices[0].Content, streamed.String())
		}
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%s: %d requests, want 2", rej.Body, n)
		}
	}
}

// A 400 about anything else is returned as it is, after one request: the
// parameters are not guessed at.
func TestOtherBadRequestsAreNotAdapted(t *testing.T) {
	for _, rej := range []openaitest.Reply{
		rejection("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "messages"),
		rejection("Invalid 'messages[1].content': string too long.", ""),
		// names a parameter the request did not send
		rejection("Unsupported parameter: 'top_p' is not supported with this model.", "top_p"),
	} {
		srv := openaitest.New(t)
		srv.Always(openaitest.RouteGenerate, rej)
		m := newModel(t, srv)
		_, err := m.Call(context.Background(), "hi", llms.WithTemperature(0), llms.WithMaxTokens(10))
		var se *llm.StatusError
		if !errors.As(err, &se) || se.StatusCode != 400 {
			t.Errorf("err = %v, want the 400", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%s: %d requests, want 1", rej.Body, n)
		}
	}
}

// A model whose limit counts its hidden reasoning (usage reports
// reasoning tokens) can spend all of a small limit on reasoning and reply
// with nothing. Once its usage says it reasons, its requests get room for
// that beside the reply's.
func TestReasoningTokensGetTheirOwnRoom(t *testing.T) {
	srv := openaitest.New(t)
	srv.Script(openaitest.RouteGenerate,
		openaitest.Reply{Content: "", FinishReason: "length", Usage: &sdk.Usage{PromptTokens: 50, CompletionTokens: 512, TotalTokens: 562,
			CompletionTokensDetails: &sdk.CompletionTokensDetails{ReasoningTokens: 512}}},
		openaitest.Reply{Content: `{"intent":"amount"}`})
	m := newModel(t, srv)
	ctx, meter := withMeter()
	opts := []llms.CallOption{llms.WithModel("gateway/thinker"), llms.WithMaxTokens(512)}
	resp, err := m.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "decompose")}, opts...)
	if err != nil || resp.Choices[0].Content != "" {
		t.Fatalf("first call: %v, %v", resp, err)
	}
	if !strings.Contains(meter.Notes(), "(gateway/thinker) reasons before it replies (512 reasoning tokens)") {
		t.Errorf("notes %q", meter.Notes())
	}
	if _, err := m.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "decompose")}, opts...); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if got := []int{reqs[0].MaxTokens(), reqs[1].MaxTokens()}; got[0] != 512 || got[1] != 512+openai.ReasoningAllowance {
		t.Errorf("token limits sent %v, want [512 %d]", got, 512+openai.ReasoningAllowance)
	}
}

// Ollama's OpenAI-compatible endpoint keeps the last window's worth of a
// longer prompt (2,048 or 4,096 tokens) and drops the rest, instructions
// first, without an error; its usage shows the tokens it kept. The run
// says so, once.
func TestPromptCutToTheWindowIsNoted(t *testing.T) {
	long := strings.Repeat("The Client shall pay a late fee of 1.5% per month on overdue amounts. ", 400) // ~28 KB, ~7,000 tokens
	for _, c := range []struct {
		name   string
		prompt int
		noted  bool
	}{
		{"kept a 4096-token window", 4096, true},
		{"kept a 2048-token window", 2048, true},
		{"read about half", 3000, true},
		{"read it all", 6900, false},
		{"a count the server did not give", 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "ok", Usage: &sdk.Usage{PromptTokens: c.prompt, CompletionTokens: 1, TotalTokens: c.prompt + 1}})
			m := newModel(t, srv)
			for i := 0; i < 2; i++ {
				ctx, meter := withMeter()
				if _, err := m.Call(ctx, long, llms.WithModel("llama3.2")); err != nil {
					t.Fatal(err)
				}
				noted := strings.Contains(meter.Notes(), "(llama3.2) reported reading")
				if want := c.noted && i == 0; noted != want {
					t.Errorf("call %d: noted %v, want %v (notes %q)", i+1, noted, want, meter.Notes())
				}
			}
		})
	}
	// A short prompt is never read as cut.
	srv := openaitest.New(t)
	srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: "ok", Usage: &sdk.Usage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11}})
	ctx, meter := withMeter()
	if _, err := newModel(t, srv).Call(ctx, "What is the late fee? "+strings.Repeat("x ", 500)); err != nil || meter.Notes() != "" {
		t.Errorf("short prompt: %v, notes %q", err, meter.Notes())
	}
}
