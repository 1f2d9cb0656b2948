package openai

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/sashabaranov/go-openai"

	"github.com/docmind/docmind/llm"
)

// OpenAI-compatible endpoints differ in the optional parameters they
// take, and say so with an HTTP 400 (or 422) naming the parameter:
//
//   - OpenAI's reasoning models (o1, o3, o4-mini, gpt-5 …) take no
//     temperature or top_p other than the default: "Unsupported value:
//     'temperature' does not support 1e-06 with this model. Only the
//     default (1) value is supported." (param "temperature");
//   - they want max_completion_tokens, and a proxy of them (Azure, a
//     gateway) is sent max_tokens: "Unsupported parameter: 'max_tokens'
//     is not supported with this model. Use 'max_completion_tokens'
//     instead."; older servers know only max_tokens;
//   - DeepSeek, and some models on Groq and OpenRouter, take no
//     json_schema response format: "This response_format type is
//     unavailable now", "This model does not support response format
//     `json_schema`";
//   - some servers reject stream_options: "Unrecognized request argument
//     supplied: stream_options".
//
// A model refused a temperature reasons before it replies, as does one
// whose replies report reasoning tokens: its token limit counts the hidden
// reasoning, so its requests get ReasoningAllowance more.
//
// A Model sends such a request again without the parameter (json_schema
// becomes json_object, then no response format: every prompt describes
// its JSON in words, and the reply is parsed and validated as before; a
// temperature left out is the model's default), or with the other token
// limit, remembers the change for the model and records a note in the
// run. Only a parameter the request sent is changed, once per call, so a
// 400 about anything else is returned as it is.

// maxAdaptations bounds the requests sent again for one call.
const maxAdaptations = 6

// Response formats, from what was asked to none.
const (
	formatAsked = iota
	formatJSONObject
	formatNone
)

// adaptation is what a model's endpoint was found not to take.
type adaptation struct {
	noTemperature, noTopP, noStreamOptions bool
	// reasons: the model reasons before it replies; its token limit gets
	// ReasoningAllowance more
	reasons bool
	// cutPrompt: a reply's usage said the model read much less of a
	// prompt than was sent (said once)
	cutPrompt bool
	// tokens: 0 as configured, else the field to send the limit in.
	tokens string
	format int
}

// adaptations returns model's adaptation (a copy; zero when none).
func (m *Model) adaptations(model string) adaptation {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a := m.adapted[model]; a != nil {
		return *a
	}
	return adaptation{}
}

// remember records a for model.
func (m *Model) remember(model string, a adaptation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.adapted == nil {
		m.adapted = map[string]*adaptation{}
	}
	m.adapted[model] = &a
}

// apply changes req as a says.
func (a adaptation) apply(req *sdk.ChatCompletionRequest) {
	if a.noTemperature {
		req.Temperature = 0 // omitted: the model's default
	}
	if a.noTopP {
		req.TopP = 0
	}
	if a.noStreamOptions {
		req.StreamOptions = nil
	}
	if a.reasons {
		switch {
		case req.MaxCompletionTokens > 0:
			req.MaxCompletionTokens += ReasoningAllowance
		case req.MaxTokens > 0:
			req.MaxTokens += ReasoningAllowance
		}
	}
	switch a.tokens {
	case "max_completion_tokens":
		if req.MaxTokens > 0 {
			req.MaxCompletionTokens, req.MaxTokens = req.MaxTokens, 0
		}
	case "max_tokens":
		if req.MaxCompletionTokens > 0 {
			req.MaxTokens, req.MaxCompletionTokens = req.MaxCompletionTokens, 0
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch {
		case a.format >= formatNone:
			req.ResponseFormat = nil
		case a.format == formatJSONObject && rf.Type == sdk.ChatCompletionResponseFormatTypeJSONSchema:
			req.ResponseFormat = &sdk.ChatCompletionResponseFormat{Type: sdk.ChatCompletionResponseFormatTypeJSONObject}
		}
	}
}

// adapt reads a failed call's error. When the endpoint (or go-openai's
// own check of the reasoning models' parameters, made before any request
// is sent) rejected an optional parameter req sent, it returns the
// model's adaptation with that change and a note saying what changed;
// otherwise it returns "" for the note.
func (m *Model) adapt(req *sdk.ChatCompletionRequest, err error) (adaptation, string) {
	a := m.adaptations(req.Model)
	var what string
	if errors.Is(err, sdk.ErrReasoningModelMaxTokensDeprecated) || errors.Is(err, sdk.ErrReasoningModelLimitationsOther) || errors.Is(err, sdk.ErrReasoningSamplingUnsupported) {
		what = a.reasoning(req)
	} else {
		what = a.rejected(req, err)
	}
	if what == "" {
		return a, ""
	}
	return a, fmt.Sprintf("%s (%s) does not take %s", m.endpoint, req.Model, what)
}

// ReasoningAllowance is added to the token limit of a request to a model
// that reasons before it replies (OpenAI's o-series and gpt-5, and any
// model whose replies report reasoning tokens): its limit counts the
// hidden reasoning too, and a reasoning model given only the reply's room
// (512 tokens for a decomposition) spends it all on reasoning and replies
// with nothing. The reply's own limit still caps the text read.
const ReasoningAllowance = 8192

// learnReasoning remembers that model reasons when usage reports
// reasoning tokens, and returns a note the first time.
func (m *Model) learnReasoning(model string, usage *sdk.Usage) string {
	if usage == nil || usage.CompletionTokensDetails == nil || usage.CompletionTokensDetails.ReasoningTokens == 0 {
		return ""
	}
	a := m.adaptations(model)
	if a.reasons {
		return ""
	}
	a.reasons = true
	m.remember(model, a)
	return fmt.Sprintf("%s (%s) reasons before it replies (%d reasoning tokens): its requests get %d more tokens for that", m.endpoint, model, usage.CompletionTokensDetails.ReasoningTokens, ReasoningAllowance)
}

// tokenLimit is the token limit req sends (0 when none).
func tokenLimit(req sdk.ChatCompletionRequest) int {
	return max(req.MaxTokens, req.MaxCompletionTokens)
}

// reasoning sets in a what go-openai's check of a reasoning model's
// request (o1, o3, o4, gpt-5 …) refused, and says what.
func (a *adaptation) reasoning(req *sdk.ChatCompletionRequest) string {
	switch {
	case req.MaxTokens > 0:
		a.tokens = "max_completion_tokens"
		return "max_tokens: the token limit sent as max_completion_tokens"
	case req.Temperature != 0 && req.Temperature != 1:
		a.noTemperature, a.reasons = true, true
		return noTemperature
	case req.TopP != 0 && req.TopP != 1:
		a.noTopP = true
		return "top_p: sent without it"
	}
	return ""
}

// noTemperature is what a model refused a temperature is sent instead: a
// model that takes none reasons.
var noTemperature = fmt.Sprintf("a temperature: sent without one (the model's default), so its replies may vary between runs, "+
	"and with %d more tokens for its reasoning", ReasoningAllowance)

// rejected sets in a the parameter an endpoint's HTTP 400 or 422 names,
// when req sent it, and says what.
func (a *adaptation) rejected(req *sdk.ChatCompletionRequest, err error) string {
	var se *llm.StatusError
	if !errors.As(err, &se) || (se.StatusCode != http.StatusBadRequest && se.StatusCode != http.StatusUnprocessableEntity) {
		return ""
	}
	param := ""
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) && apiErr.Param != nil {
		param = strings.ToLower(*apiErr.Param)
	}
	msg := strings.ToLower(se.Message)
	// names reports whether the error is about field: its param when it
	// gives one, else its message.
	names := func(field string) bool {
		if param != "" {
			return param == field || strings.HasPrefix(param, field+".")
		}
		return strings.Contains(msg, field)
	}
	switch {
	case req.Temperature != 0 && names("temperature"):
		a.noTemperature, a.reasons = true, true
		return noTemperature
	case req.TopP != 0 && names("top_p"):
		a.noTopP = true
		return "top_p: sent without it"
	case req.MaxTokens > 0 && names("max_tokens"):
		a.tokens = "max_completion_tokens"
		return "max_tokens: the token limit sent as max_completion_tokens"
	case req.MaxCompletionTokens > 0 && names("max_completion_tokens"):
		a.tokens = "max_tokens"
		return "max_completion_tokens: the token limit sent as max_tokens"
	case req.ResponseFormat != nil && (names("response_format") || strings.Contains(msg, "json_schema") || strings.Contains(msg, "response format")):
		if req.ResponseFormat.Type == sdk.ChatCompletionResponseFormatTypeJSONSchema {
			a.format = formatJSONObject
			return "a JSON schema as the response format: asked for a JSON object instead (the reply is still checked against the schema)"
		}
		a.format = formatNone
		return "a JSON response format: asked without one (the reply is still checked against the schema)"
	case req.StreamOptions != nil && names("stream_options"):
		a.noStreamOptions = true
		return "stream_options: streamed without it (the reply's token usage goes unreported)"
	}
	return ""
}

// sameRequest reports whether the fields adapt changes are unchanged.
func sameRequest(a, b sdk.ChatCompletionRequest) bool {
	return a.Temperature == b.Temperature && a.TopP == b.TopP && a.MaxTokens == b.MaxTokens &&
		a.MaxCompletionTokens == b.MaxCompletionTokens && a.ResponseFormat == b.ResponseFormat &&
		a.StreamOptions == b.StreamOptions
}

// A server whose context window is smaller than the prompt may drop the
// prompt's start (the instructions) without an error: Ollama's
// OpenAI-compatible endpoint does, at the window the model was loaded
// with (2,048 or 4,096 tokens unless OLLAMA_CONTEXT_LENGTH says more), and
// the reply then goes wrong with no sign of why. Its usage shows it: the
// prompt tokens it reports are the ones it kept.

// BytesPerPromptToken estimates a prompt's tokens from its bytes (English
// text runs at 4 to 5 bytes a token in the common tokenizers).
const BytesPerPromptToken = 4

// checkWindow returns a note, once per model, when usage says the model
// read less of req's prompt than was sent: the prompt tokens it reports
// are a power of two of at least 1,024 (a window's size: Ollama keeps
// exactly that many) under the prompt's estimated tokens, or fewer than
// half of those (a prompt estimated at 1,500 tokens or more). A count of
// 0, which some servers send for a cached prompt, says nothing.
func (m *Model) checkWindow(req sdk.ChatCompletionRequest, usage *sdk.Usage) string {
	if usage == nil || usage.PromptTokens <= 0 {
		return ""
	}
	sent := 0
	for _, msg := range req.Messages {
		sent += len(msg.Content)
		for _, p := range msg.MultiContent {
			sent += len(p.Text)
		}
	}
	est, got := sent/BytesPerPromptToken, usage.PromptTokens
	window := got >= 1024 && got&(got-1) == 0 && 10*est >= 11*got
	if !window && (est < 1500 || est < 2*got) {
		return ""
	}
	a := m.adaptations(req.Model)
	if a.cutPrompt {
		return ""
	}
	a.cutPrompt = true
	m.remember(req.Model, a)
	return fmt.Sprintf("%s (%s) reported reading %d prompt tokens of about %d sent: a context window smaller than the prompt drops its start "+
		"(the instructions), and the replies go wrong. On Ollama, start the server with OLLAMA_CONTEXT_LENGTH=16384, or use OLLAMA_HOST, "+
		"where DocMind asks for a larger window", m.endpoint, req.Model, got, est)
}
