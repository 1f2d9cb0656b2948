// Package openai is a langchaingo llms.Model for OpenAI and every
// OpenAI-compatible chat completions endpoint (Ollama's /v1, vLLM,
// LM Studio, OpenRouter, Groq, …), built on github.com/sashabaranov/go-openai.
//
// Compared with langchaingo's own openai client it keeps chat roles
// (system/user/assistant/tool) as they are, sends temperature only when the
// caller set it (reasoning models reject it), sends top_p, takes a JSON
// schema per call (llm.WithJSONSchema → response_format json_schema),
// streams through llms.WithStreamingFunc with usage from the last chunk,
// and returns typed errors: an *llm.StatusError carrying the HTTP status
// and Retry-After and wrapping go-openai's *openai.APIError or
// *openai.RequestError; a cancelled context satisfies
// errors.Is(err, context.Canceled).
//
// A Model makes one attempt per call; wrap it with llm.WithRetry for
// retries (llm/providers does).
//
// A Model is also a langchaingo embeddings client (CreateEmbedding over
// POST /embeddings, model set with WithEmbeddingModel), so
// embeddings.NewEmbedder(m) gives an embeddings.Embedder.
//
// Temperature 0: go-openai omits a zero temperature from the request
// (omitempty), which would leave the server's default (usually 1). An
// explicit llms.WithTemperature(0) is therefore sent as ZeroTemperature, a
// tiny positive value that is greedy decoding in practice.
package openai

import (
	"context"
	b64 "encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/sashabaranov/go-openai"
	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/schema"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// ZeroTemperature is what an explicit temperature of 0 is sent as.
const ZeroTemperature = 1e-6

// Model is an llms.Model over an OpenAI-compatible endpoint. It is safe for
// concurrent use.
type Model struct {
	client   *sdk.Client
	model    string
	endpoint string
	legacy   bool
	noUsage  bool
	embed    string

	mu      sync.Mutex
	adapted map[string]*adaptation // by model name; see adapt.go
}

type options struct {
	apiKey, baseURL, model, org, endpoint string
	embedModel                            string
	httpClient                            *http.Client
	legacy                                *bool
	noStreamUsage                         bool
}

// Option configures New.
type Option func(*options)

// WithAPIKey sets the API key (sent as a Bearer token). Local servers that
// need none accept any value.
func WithAPIKey(key string) Option { return func(o *options) { o.apiKey = key } }

// WithBaseURL sets the endpoint, for example "http://localhost:11434/v1".
func WithBaseURL(u string) Option { return func(o *options) { o.baseURL = u } }

// WithModel sets the default model; llms.WithModel overrides it per call.
func WithModel(m string) Option { return func(o *options) { o.model = m } }

// WithEmbeddingModel sets the model CreateEmbedding uses (for example
// "text-embedding-3-small" or, on Ollama's /v1, "nomic-embed-text").
func WithEmbeddingModel(m string) Option { return func(o *options) { o.embedModel = m } }

// WithOrganization sets the OpenAI-Organization header.
func WithOrganization(org string) Option { return func(o *options) { o.org = org } }

// WithHTTPClient sets the HTTP client (for proxies or tests).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithEndpointName overrides the name used in error messages (default
// "OpenAI" for OpenAI's API, otherwise the base URL's host).
func WithEndpointName(name string) Option { return func(o *options) { o.endpoint = name } }

// WithLegacyMaxTokens chooses how llms.WithMaxTokens is sent: true sends
// max_tokens (what most OpenAI-compatible servers understand), false sends
// max_completion_tokens (what OpenAI's reasoning models require). The
// default is false for OpenAI's API and true for any other base URL.
func WithLegacyMaxTokens(legacy bool) Option { return func(o *options) { o.legacy = &legacy } }

// WithoutStreamUsage stops asking for usage in the last streamed chunk
// (stream_options.include_usage), for servers that reject the option.
func WithoutStreamUsage() Option { return func(o *options) { o.noStreamUsage = true } }

// New returns a Model. The base URL defaults to DefaultBaseURL; the model
// must be given here or per call.
func New(opts ...Option) (*Model, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.baseURL == "" {
		o.baseURL = DefaultBaseURL
	}
	u, err := url.Parse(o.baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an absolute URL", o.baseURL)
	}
	official := u.Host == "api.openai.com"
	if o.endpoint == "" {
		o.endpoint = u.Host
		if official {
			o.endpoint = "OpenAI"
		}
	}
	legacy := !official
	if o.legacy != nil {
		legacy = *o.legacy
	}
	redact.Add(o.apiKey) // never shown in errors, logs or saved runs
	cfg := sdk.DefaultConfig(o.apiKey)
	cfg.BaseURL = strings.TrimSuffix(o.baseURL, "/")
	cfg.OrgID = o.org
	hc := o.httpClient
	if hc == nil {
		hc = &http.Client{}
	}
	cfg.HTTPClient = headerDoer{hc}
	return &Model{
		client:   sdk.NewClientWithConfig(cfg),
		model:    o.model,
		endpoint: o.endpoint,
		legacy:   legacy,
		noUsage:  o.noStreamUsage,
		embed:    o.embedModel,
	}, nil
}

// Endpoint returns the name used in error messages.
func (m *Model) Endpoint() string { return m.endpoint }

// ModelName returns the default model.
func (m *Model) ModelName() string { return m.model }

// EmbeddingModelName returns the model CreateEmbedding uses.
func (m *Model) EmbeddingModelName() string { return m.embed }

var (
	_ llms.Model                = (*Model)(nil)
	_ embeddings.EmbedderClient = (*Model)(nil)
)

// CreateEmbedding implements langchaingo's embeddings.EmbedderClient over
// POST /embeddings with the model of WithEmbeddingModel, so
// embeddings.NewEmbedder(m) works. It makes one attempt; errors are typed
// as GenerateContent's are (wrap with llm.WithEmbeddingRetry for
// retries). The tokens the endpoint reports are recorded with
// schema.RecordUsage as one call.
func (m *Model) CreateEmbedding(ctx context.Context, texts []string) ([][]float32, error) {
	if m.embed == "" {
		return nil, errors.New("openai: no embedding model configured (set --embed-model or DOCMIND_EMBED_MODEL)")
	}
	if len(texts) == 0 {
		return nil, nil
	}
	info := &respInfo{}
	ctx = context.WithValue(ctx, respInfoKey{}, info)
	resp, err := m.client.CreateEmbeddings(ctx, sdk.EmbeddingRequestStrings{Input: texts, Model: sdk.EmbeddingModel(m.embed)})
	if err != nil {
		return nil, m.wrapErr(ctx, err, info)
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("%s returned %d embeddings for %d texts", m.endpoint, len(resp.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for i, d := range resp.Data {
		// Servers send the vectors in input order with their index; trust
		// the index when it is usable.
		j := d.Index
		if j < 0 || j >= len(out) || out[j] != nil {
			j = i
		}
		if out[j] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("%s returned a malformed embeddings reply (empty or repeated vector at %d)", m.endpoint, i)
		}
		out[j] = d.Embedding
	}
	u := schema.Usage{Calls: 1, PromptTokens: resp.Usage.PromptTokens, TotalTokens: resp.Usage.TotalTokens}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens
	}
	schema.RecordUsage(ctx, u)
	return out, nil
}

// Call implements llms.Model.
func (m *Model) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// GenerateContent implements llms.Model. With llms.WithStreamingFunc it
// streams; the returned response then holds the whole text and the usage.
//
// A request the endpoint rejects for one of the optional parameters it
// carries (a temperature or top_p a reasoning model does not take,
// max_tokens where max_completion_tokens is wanted or the reverse, a
// json_schema response format, stream_options) is sent again without
// that parameter, or with what the endpoint asks for instead; the model
// remembers it for later calls, and the run's notes say what changed
// (see adapt.go).
func (m *Model) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	opts := llms.CallOptions{Temperature: math.NaN()}
	for _, o := range options {
		o(&opts)
	}
	req, err := m.request(messages, &opts)
	if err != nil {
		return nil, err
	}
	streaming := opts.StreamingFunc != nil || opts.StreamingReasoningFunc != nil
	if streaming && !m.noUsage {
		req.StreamOptions = &sdk.StreamOptions{IncludeUsage: true}
	}
	asked := req
	m.adaptations(req.Model).apply(&req)
	for tries := 0; ; tries++ {
		resp, usage, err := m.generate(ctx, req, &opts, streaming)
		if err == nil {
			if note := m.learnReasoning(req.Model, usage); note != "" {
				schema.RecordNote(ctx, note)
			}
			if note := m.checkWindow(req, usage); note != "" {
				schema.RecordNote(ctx, note)
			}
			return resp, nil
		}
		if tries >= maxAdaptations {
			return nil, err
		}
		a, note := m.adapt(&req, err)
		if note == "" {
			return nil, err
		}
		sent := req
		req = asked
		a.apply(&req)
		if sameRequest(sent, req) {
			return nil, err
		}
		m.remember(req.Model, a)
		schema.RecordNote(ctx, note)
	}
}

// generate sends req once, and returns the reply and the usage the
// endpoint reported (nil when none).
func (m *Model) generate(ctx context.Context, req sdk.ChatCompletionRequest, opts *llms.CallOptions, streaming bool) (*llms.ContentResponse, *sdk.Usage, error) {
	info := &respInfo{limit: replyLimit(tokenLimit(req), max(req.N, 1), streaming)}
	ctx = context.WithValue(ctx, respInfoKey{}, info)
	if streaming {
		return m.stream(ctx, req, opts, info)
	}
	resp, err := m.client.CreateChatCompletion(ctx, req)
	if err != nil {
		if bad := info.badReply(ctx, err); bad != nil {
			return nil, nil, bad
		}
		return nil, nil, m.wrapErr(ctx, err, info)
	}
	if len(resp.Choices) == 0 {
		return nil, nil, fmt.Errorf("%s returned no choices", m.endpoint)
	}
	out := &llms.ContentResponse{}
	for _, c := range resp.Choices {
		choice := &llms.ContentChoice{
			Content:          c.Message.Content,
			StopReason:       string(c.FinishReason),
			ReasoningContent: c.Message.ReasoningContent,
			GenerationInfo:   generationInfo(resp.Model, &resp.Usage),
		}
		for _, tc := range c.Message.ToolCalls {
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{
				ID: tc.ID, Type: string(tc.Type),
				FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
			})
		}
		if len(choice.ToolCalls) > 0 {
			choice.FuncCall = choice.ToolCalls[0].FunctionCall
		}
		out.Choices = append(out.Choices, choice)
	}
	return out, &resp.Usage, nil
}

// GenerateContentStream streams the reply's text as a channel of partial
// responses (one per chunk); the channel closes at the end. An error ends
// the stream early and is not reported; use GenerateContent with
// llms.WithStreamingFunc when errors matter.
func (m *Model) GenerateContentStream(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (<-chan llms.ContentResponse, error) {
	ch := make(chan llms.ContentResponse)
	opts := append(append([]llms.CallOption(nil), options...), llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
		select {
		case ch <- llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: string(chunk)}}}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}))
	go func() {
		defer close(ch)
		_, _ = m.GenerateContent(ctx, messages, opts...)
	}()
	return ch, nil
}

func (m *Model) request(messages []llms.MessageContent, o *llms.CallOptions) (sdk.ChatCompletionRequest, error) {
	req := sdk.ChatCompletionRequest{Model: m.model}
	if o.Model != "" {
		req.Model = o.Model
	}
	if req.Model == "" {
		return req, errors.New("openai: no model configured (set --model or DOCMIND_MODEL)")
	}
	for i, mc := range messages {
		msg, err := convertMessage(mc)
		if err != nil {
			return req, fmt.Errorf("openai: message %d: %w", i+1, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	if !math.IsNaN(o.Temperature) {
		t := float32(o.Temperature)
		if t == 0 {
			t = ZeroTemperature
		}
		req.Temperature = t
	}
	if o.TopP > 0 {
		req.TopP = float32(o.TopP)
	}
	if o.MaxTokens > 0 {
		if m.legacy {
			req.MaxTokens = o.MaxTokens
		} else {
			req.MaxCompletionTokens = o.MaxTokens
		}
	}
	req.Stop = o.StopWords
	if o.Seed != 0 {
		seed := o.Seed
		req.Seed = &seed
	}
	if n := max(o.N, o.CandidateCount); n > 1 {
		req.N = n
	}
	req.FrequencyPenalty = float32(o.FrequencyPenalty)
	req.PresencePenalty = float32(o.PresencePenalty)
	for _, t := range o.Tools {
		if t.Function == nil {
			continue
		}
		req.Tools = append(req.Tools, sdk.Tool{Type: sdk.ToolTypeFunction, Function: &sdk.FunctionDefinition{
			Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters, Strict: t.Function.Strict,
		}})
	}
	if o.ToolChoice != nil {
		req.ToolChoice = o.ToolChoice
	}
	if s := llm.JSONSchemaOf(o); s != nil {
		req.ResponseFormat = &sdk.ChatCompletionResponseFormat{
			Type: sdk.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &sdk.ChatCompletionResponseFormatJSONSchema{
				Name: s.Name, Description: s.Description, Schema: rawSchema(s.Schema), Strict: s.Strict,
			},
		}
	} else if o.JSONMode {
		req.ResponseFormat = &sdk.ChatCompletionResponseFormat{Type: sdk.ChatCompletionResponseFormatTypeJSONObject}
	}
	if effort, ok := o.Metadata["reasoning_effort"].(string); ok {
		req.ReasoningEffort = effort
	}
	return req, nil
}

// rawSchema is a JSON Schema passed through unchanged.
type rawSchema json.RawMessage

// MarshalJSON returns the schema, or {} when empty.
func (r rawSchema) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("{}"), nil
	}
	return r, nil
}

func convertMessage(mc llms.MessageContent) (sdk.ChatCompletionMessage, error) {
	var msg sdk.ChatCompletionMessage
	switch mc.Role {
	case llms.ChatMessageTypeSystem:
		msg.Role = sdk.ChatMessageRoleSystem
	case llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric:
		msg.Role = sdk.ChatMessageRoleUser
	case llms.ChatMessageTypeAI:
		msg.Role = sdk.ChatMessageRoleAssistant
	case llms.ChatMessageTypeTool:
		msg.Role = sdk.ChatMessageRoleTool
	case llms.ChatMessageTypeFunction:
		msg.Role = sdk.ChatMessageRoleFunction
	default:
		return msg, fmt.Errorf("unsupported role %q", mc.Role)
	}
	var texts []string
	var multi []sdk.ChatMessagePart
	for _, p := range mc.Parts {
		switch p := p.(type) {
		case llms.TextContent:
			texts = append(texts, p.Text)
			multi = append(multi, sdk.ChatMessagePart{Type: sdk.ChatMessagePartTypeText, Text: p.Text})
		case llms.ImageURLContent:
			multi = append(multi, sdk.ChatMessagePart{Type: sdk.ChatMessagePartTypeImageURL,
				ImageURL: &sdk.ChatMessageImageURL{URL: p.URL, Detail: sdk.ImageURLDetail(p.Detail)}})
		case llms.BinaryContent:
			multi = append(multi, sdk.ChatMessagePart{Type: sdk.ChatMessagePartTypeImageURL,
				ImageURL: &sdk.ChatMessageImageURL{URL: "data:" + p.MIMEType + ";base64," + base64(p.Data)}})
		case llms.ToolCall:
			fc := sdk.FunctionCall{}
			if p.FunctionCall != nil {
				fc = sdk.FunctionCall{Name: p.FunctionCall.Name, Arguments: p.FunctionCall.Arguments}
			}
			msg.ToolCalls = append(msg.ToolCalls, sdk.ToolCall{ID: p.ID, Type: sdk.ToolTypeFunction, Function: fc})
		case llms.ToolCallResponse:
			msg.ToolCallID = p.ToolCallID
			msg.Name = p.Name
			texts = append(texts, p.Content)
		default:
			return msg, fmt.Errorf("unsupported content part %T", p)
		}
	}
	if len(multi) > len(texts) {
		msg.MultiContent = multi
	} else {
		msg.Content = strings.Join(texts, "")
	}
	return msg, nil
}

func (m *Model) stream(ctx context.Context, req sdk.ChatCompletionRequest, o *llms.CallOptions, info *respInfo) (*llms.ContentResponse, *sdk.Usage, error) {
	req.Stream = true
	st, err := m.client.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return nil, nil, m.wrapErr(ctx, err, info)
	}
	defer st.Close()
	var text, reasoning strings.Builder
	var usage *sdk.Usage
	var model, finish string
	tools := map[int]*llms.ToolCall{}
	var order []int
	// the streamed text stops at the token limit's bytes too, before the
	// receiver prints more of it
	textCap := 0
	limit := tokenLimit(req)
	if limit > 0 {
		textCap = limit*ReplyBytesPerToken + replyOverhead
	}
	for {
		chunk, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, m.wrapErr(ctx, err, info)
		}
		if chunk.Model != "" {
			model = chunk.Model
		}
		if chunk.Usage != nil {
			usage = chunk.Usage
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			if c.FinishReason != "" {
				finish = string(c.FinishReason)
			}
			if textCap > 0 && text.Len()+reasoning.Len()+len(c.Delta.Content)+len(c.Delta.ReasoningContent) > textCap {
				return nil, nil, m.wrapErr(ctx, fmt.Errorf("%w (%d bytes of text for max_tokens %d)", ErrReplyTooLarge, textCap, limit), info)
			}
			if d := c.Delta.ReasoningContent; d != "" {
				reasoning.WriteString(d)
				if o.StreamingReasoningFunc != nil {
					if err := o.StreamingReasoningFunc(ctx, []byte(d), nil); err != nil {
						return nil, nil, fmt.Errorf("streaming stopped by the receiver: %w", err)
					}
				}
			}
			if d := c.Delta.Content; d != "" {
				text.WriteString(d)
				if o.StreamingFunc != nil {
					if err := o.StreamingFunc(ctx, []byte(d)); err != nil {
						return nil, nil, fmt.Errorf("streaming stopped by the receiver: %w", err)
					}
				}
			}
			for _, tc := range c.Delta.ToolCalls {
				idx := 0
				if tc.Index != nil {
					idx = *tc.Index
				}
				cur, ok := tools[idx]
				if !ok {
					cur = &llms.ToolCall{Type: string(sdk.ToolTypeFunction), FunctionCall: &llms.FunctionCall{}}
					tools[idx] = cur
					order = append(order, idx)
				}
				if tc.ID != "" {
					cur.ID = tc.ID
				}
				cur.FunctionCall.Name += tc.Function.Name
				cur.FunctionCall.Arguments += tc.Function.Arguments
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, m.wrapErr(ctx, err, info)
	}
	choice := &llms.ContentChoice{
		Content:          text.String(),
		StopReason:       finish,
		ReasoningContent: reasoning.String(),
		GenerationInfo:   generationInfo(model, usage),
	}
	for _, idx := range order {
		choice.ToolCalls = append(choice.ToolCalls, *tools[idx])
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}, usage, nil
}

func generationInfo(model string, u *sdk.Usage) map[string]any {
	gi := map[string]any{llm.InfoModel: model}
	if u == nil {
		return gi
	}
	gi[llm.InfoPromptTokens] = u.PromptTokens
	gi[llm.InfoCompletionTokens] = u.CompletionTokens
	gi[llm.InfoTotalTokens] = u.TotalTokens
	if d := u.CompletionTokensDetails; d != nil {
		gi[llm.InfoReasoningTokens] = d.ReasoningTokens
		if d.ReasoningTokens > 0 {
			gi["ThinkingTokens"] = d.ReasoningTokens
		}
	}
	if d := u.PromptTokensDetails; d != nil {
		gi[llm.InfoCachedTokens] = d.CachedTokens
	}
	return gi
}

// wrapErr keeps go-openai's typed error reachable and adds status and
// Retry-After; a cancelled context always shows through errors.Is.
func (m *Model) wrapErr(ctx context.Context, err error, info *respInfo) error {
	if cerr := ctx.Err(); cerr != nil {
		if !errors.Is(err, cerr) {
			err = errors.Join(cerr, err)
		}
		return fmt.Errorf("%s: %w", m.endpoint, err)
	}
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0 {
		return &llm.StatusError{StatusCode: apiErr.HTTPStatusCode, RetryAfter: info.get(), Message: apiErr.Message, Err: err}
	}
	var reqErr *sdk.RequestError
	if errors.As(err, &reqErr) && reqErr.HTTPStatusCode > 0 {
		return &llm.StatusError{StatusCode: reqErr.HTTPStatusCode, RetryAfter: info.get(), Message: llm.ErrorMessage(reqErr.Body), Err: err}
	}
	return fmt.Errorf("%s: %w", m.endpoint, err)
}

// respInfo carries what go-openai's errors drop (the Retry-After header)
// from the HTTP layer to wrapErr, and the cap on a reply's bytes from the
// call to the HTTP layer, through the request's context.
type respInfo struct {
	mu         sync.Mutex
	retryAfter time.Duration
	// limit caps the bytes read of a successful reply (0: no cap).
	limit int64
	// status and contentType are those of a successful (2xx) reply.
	status      int
	contentType string
}

// badReply returns the error for a successful (2xx) reply whose body is
// empty or not JSON, or nil when err is not that. go-openai returns the
// JSON decoder's error as it is: "invalid character 'h' in literal true",
// or io.EOF for an empty body, which read as a connection closed before
// any reply and was retried. A server answering so is most likely not the
// API (a web page at a base URL without /v1), so it is not retried.
func (r *respInfo) badReply(ctx context.Context, err error) error {
	r.mu.Lock()
	status, ct := r.status, r.contentType
	r.mu.Unlock()
	if status == 0 || ctx.Err() != nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	what := ""
	switch {
	case err == io.EOF: // the decoder's own: nothing came
		what = "an empty body"
	case errors.As(err, &syn):
		what = "a body that is not JSON"
	case errors.As(err, &typ):
		what = "JSON that is not a chat completion"
	default:
		return nil
	}
	if ct != "" {
		what += " (" + ct + ")"
	}
	return fmt.Errorf("the server replied HTTP %d with %s: is the base URL the API's (it usually ends in /v1)?", status, what)
}

// Reply caps: a server that ignores max_tokens (or a broken one) could
// send an endless reply; reading stops at a multiple of the token limit
// with ErrReplyTooLarge, rather than after minutes and megabytes.
const (
	// ReplyBytesPerToken is the bytes of reply text allowed per token of
	// the limit: a token is about 4 bytes of English, escaped JSON and
	// other scripts take more.
	ReplyBytesPerToken = 16
	// streamBytesPerToken is the same for a stream's body, where each
	// token may come in its own chunk of JSON (about 200 bytes).
	streamBytesPerToken = 512
	// replyOverhead is allowed beyond the reply text: the JSON around it.
	replyOverhead = 64 << 10
	// DefaultMaxReplyBytes caps a reply when the call sets no token limit.
	DefaultMaxReplyBytes = 16 << 20
)

// ErrReplyTooLarge is returned (wrapped) when a reply runs past its cap:
// the server sent more than the token limit allows.
var ErrReplyTooLarge = errors.New("reply larger than its token limit allows (the server ignores max_tokens?); stopped reading")

// replyLimit returns the cap on a reply's body for a call limited to
// maxTokens tokens (0: none) with n choices.
func replyLimit(maxTokens, n int, streaming bool) int64 {
	if maxTokens <= 0 {
		return DefaultMaxReplyBytes
	}
	per := int64(ReplyBytesPerToken)
	if streaming {
		per = streamBytesPerToken
	}
	return int64(maxTokens)*int64(n)*per + replyOverhead
}

// cappedBody reads a reply's body up to limit bytes, then fails with
// ErrReplyTooLarge (and stops reading).
type cappedBody struct {
	io.ReadCloser
	left, limit int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("%w (%d bytes)", ErrReplyTooLarge, b.limit)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

type respInfoKey struct{}

func (r *respInfo) get() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retryAfter
}

// headerDoer records Retry-After of error responses into the request's
// respInfo.
type headerDoer struct{ c *http.Client }

func (d headerDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(req)
	if err != nil {
		return resp, err
	}
	info, ok := req.Context().Value(respInfoKey{}).(*respInfo)
	if ok && resp.StatusCode < http.StatusMultipleChoices {
		info.mu.Lock()
		info.status, info.contentType = resp.StatusCode, resp.Header.Get("Content-Type")
		info.mu.Unlock()
	}
	switch {
	case !ok:
	case resp.StatusCode >= http.StatusBadRequest:
		info.mu.Lock()
		info.retryAfter = llm.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		info.mu.Unlock()
	case info.limit > 0:
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: info.limit, limit: info.limit}
	}
	return resp, err
}

func base64(b []byte) string { return b64.StdEncoding.EncodeToString(b) }
