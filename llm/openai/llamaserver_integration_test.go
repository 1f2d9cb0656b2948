package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/internal/testenv"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/prompts"
)

// The tests below talk to a real llama.cpp llama-server (named by
// DOCMIND_LLAMA_SERVER; skipped without it) serving the tiny random-weight
// model of scripts/llama-server.sh, whose replies are noise: they check
// the protocol (what the server accepts, how it stops, what it reports),
// never the content of an answer.

// llamaModel is the llm/openai client pointed at the server the way
// OPENAI_BASE_URL points the CLI at it.
func llamaModel(t *testing.T) *openai.Model {
	t.Helper()
	m, err := openai.New(openai.WithBaseURL(testenv.LlamaServer(t)+"/v1"), openai.WithAPIKey("none"), openai.WithModel("tiny-qwen2"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func llamaCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

var llamaQuestion = []llms.MessageContent{
	llms.TextParts(llms.ChatMessageTypeSystem, "You answer questions about contracts."),
	llms.TextParts(llms.ChatMessageTypeHuman, "Is a late fee charged on overdue invoices? Answer in JSON."),
}

// A json_schema response format is turned into a grammar by the server:
// a schema whose documents are short (one boolean) gives a reply that
// stops by itself and parses, even from a model that knows nothing.
func TestLlamaServerSchemaReplyParses(t *testing.T) {
	m := llamaModel(t)
	schema := llm.JSONSchema{Name: "docmind_probe", Strict: true, Schema: json.RawMessage(
		`{"type":"object","properties":{"supported":{"type":"boolean"}},"required":["supported"],"additionalProperties":false}`)}
	var got struct {
		Supported *bool `json:"supported"`
	}
	raw, err := llm.GenerateStructured(llamaCtx(t), m, llm.StructuredCall{
		Messages: llamaQuestion, Schema: schema,
		Options: []llms.CallOption{llms.WithTemperature(0), llms.WithMaxTokens(64)},
	}, func(s string) error { return json.Unmarshal([]byte(s), &got) })
	if err != nil {
		t.Fatalf("schema reply: %v (raw %q)", err, raw)
	}
	if got.Supported == nil {
		t.Errorf("reply %q parsed without the required field", raw)
	}
	t.Logf("reply %q", raw)
}

// DocMind's own schemas (the judge's verdict, the decomposer's
// decomposition) are accepted by the server: no 4xx or 5xx. Their
// documents hold free text, which a random model need not end, so a reply
// either parses or is cut off at its limit (a *TruncatedError, never
// parsed); both are the protocol working. (With scripts/llama-server.sh's
// --logit-bias the decomposition, about 87 tokens, parses and the
// verdict, about 190, is cut off at 48 and again at 96.)
func TestLlamaServerAcceptsDocMindSchemas(t *testing.T) {
	m := llamaModel(t)
	for _, s := range []llm.JSONSchema{
		{Name: prompts.SchemaVerdict, Schema: prompts.VerdictSchema(), Strict: true},
		{Name: prompts.SchemaDecomposition, Schema: prompts.DecompositionSchema(), Strict: true},
	} {
		raw, err := llm.GenerateStructured(llamaCtx(t), m, llm.StructuredCall{
			Messages: llamaQuestion, Schema: s,
			Options: []llms.CallOption{llms.WithTemperature(0), llms.WithMaxTokens(48)},
		}, func(text string) error {
			var v map[string]any
			return json.Unmarshal([]byte(text), &v)
		})
		var te *llm.TruncatedError
		switch {
		case err == nil:
			t.Logf("%s: parsed %q", s.Name, raw)
		case errors.As(err, &te):
			if !strings.HasPrefix(strings.TrimSpace(raw), "{") {
				t.Errorf("%s: cut-off reply %q does not start a JSON object (was the schema ignored?)", s.Name, raw)
			}
			t.Logf("%s: %v (raw %q)", s.Name, err, raw)
		default:
			t.Errorf("%s: %v (raw %q)", s.Name, err, raw)
		}
	}
}

// A reply stopped by max_tokens reports finish_reason "length", and its
// usage counts exactly the tokens allowed; without max_tokens the server's
// own -n (64 from scripts/llama-server.sh; a request's max_tokens takes
// priority over it) stops it the same way.
func TestLlamaServerTruncationIsReported(t *testing.T) {
	m := llamaModel(t)
	for _, limit := range []int{8, 0} {
		opts := []llms.CallOption{llms.WithTemperature(0)}
		if limit > 0 {
			opts = append(opts, llms.WithMaxTokens(limit))
		}
		resp, err := m.GenerateContent(llamaCtx(t), llamaQuestion, opts...)
		if err != nil {
			t.Fatalf("max_tokens %d: %v", limit, err)
		}
		c := resp.Choices[0]
		u := llm.UsageOf(resp, "")
		if !llm.Truncated(c) {
			t.Errorf("max_tokens %d: stop reason %q after %d tokens, want \"length\"", limit, c.StopReason, u.CompletionTokens)
			continue
		}
		if limit > 0 && u.CompletionTokens != limit {
			t.Errorf("max_tokens %d: usage says %d completion tokens", limit, u.CompletionTokens)
		}
		t.Logf("max_tokens %d: finish_reason %q, usage %+v", limit, c.StopReason, u)
	}
}

// A streamed reply delivers its text in chunks and reports usage in its
// last chunk (stream_options.include_usage).
func TestLlamaServerStreamingReportsUsage(t *testing.T) {
	m := llamaModel(t)
	var chunks []string
	resp, err := m.GenerateContent(llamaCtx(t), llamaQuestion, llms.WithTemperature(0), llms.WithMaxTokens(16),
		llms.WithStreamingFunc(func(_ context.Context, c []byte) error { chunks = append(chunks, string(c)); return nil }))
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Choices[0]
	if len(chunks) < 2 {
		t.Errorf("%d chunks, want the reply streamed", len(chunks))
	}
	if got := strings.Join(chunks, ""); got != c.Content {
		t.Errorf("chunks add up to %q, content is %q", got, c.Content)
	}
	u := llm.UsageOf(resp, "")
	if u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("streamed usage = %+v, want prompt and completion tokens", u)
	}
	if c.StopReason == "" {
		t.Errorf("streamed reply has no finish_reason")
	}
	t.Logf("%d chunks, finish_reason %q, usage %+v", len(chunks), c.StopReason, u)
}
