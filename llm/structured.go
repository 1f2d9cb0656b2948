package llm

import (
	"context"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// ErrUnparseable is wrapped by the error GenerateStructured returns when the
// model's output could not be parsed or validated, even after the repair
// attempt.
var ErrUnparseable = errors.New("model output could not be parsed")

// ParseError says why structured output was rejected.
type ParseError struct {
	// Schema is the name of the requested schema.
	Schema string
	// Raw is the model's last output.
	Raw string
	// Attempts is the number of model calls made.
	Attempts int
	Err      error
}

// Error renders one line.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s: %v after %d attempts: %v", e.Schema, ErrUnparseable, e.Attempts, e.Err)
}

// Unwrap returns both ErrUnparseable and the cause.
func (e *ParseError) Unwrap() []error { return []error{ErrUnparseable, e.Err} }

// TruncatedError is a reply the model stopped because it reached its
// token limit (finish_reason "length", Anthropic's "max_tokens"): the JSON
// it holds is cut off and must not be parsed.
type TruncatedError struct {
	// MaxTokens is the limit the reply reached: the max_tokens sent, or,
	// when none was sent, the completion tokens the endpoint reported (0
	// when unknown).
	MaxTokens int
}

// Error renders "the model's reply was cut off at 2048 tokens".
func (e *TruncatedError) Error() string {
	if e.MaxTokens <= 0 {
		return "the model's reply was cut off at its token limit"
	}
	return fmt.Sprintf("the model's reply was cut off at %d tokens", e.MaxTokens)
}

// Truncated reports whether a choice stopped at its token limit.
func Truncated(c *llms.ContentChoice) bool {
	if c == nil {
		return false
	}
	switch c.StopReason {
	case "length", "max_tokens", "MAX_TOKENS":
		return true
	}
	return false
}

// CutOff returns the *TruncatedError of a response whose first choice
// stopped at its token limit, or nil. maxTokens is the max_tokens the
// request sent; when it is 0 the completion tokens the endpoint reported
// name the limit instead.
func CutOff(resp *llms.ContentResponse, maxTokens int) *TruncatedError {
	if resp == nil || len(resp.Choices) == 0 || !Truncated(resp.Choices[0]) {
		return nil
	}
	if maxTokens <= 0 {
		maxTokens = UsageOf(resp, "").CompletionTokens
	}
	return &TruncatedError{MaxTokens: maxTokens}
}

// MaxTokensOf returns the max_tokens that opts set (0 when none).
func MaxTokensOf(opts []llms.CallOption) int {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	return o.MaxTokens
}

// StructuredCall describes a call whose answer must be a JSON document.
type StructuredCall struct {
	Messages []llms.MessageContent
	Schema   JSONSchema
	// Options are added to every call (temperature, max tokens, …).
	Options []llms.CallOption
	// ModelName prices the usage when the response does not name its
	// model.
	ModelName string
	// Repair renders the follow-up instruction sent after an output that
	// failed to parse or validate. Nil disables the repair attempt.
	Repair func(raw string, problem error) string
}

// GenerateStructured asks m for a JSON document following call.Schema,
// extracts it with ExtractJSON and hands it to decode, which unmarshals and
// validates it. When that fails, it replays the conversation with the bad
// output as the assistant's turn and call.Repair's instruction, once. A
// reply cut off at its token limit is never parsed (its JSON is
// incomplete): the same request is sent once more with twice the room, and
// a reply cut off again is a *ParseError wrapping a *TruncatedError. Usage
// of every call is recorded with RecordUsage. Model errors are returned as
// they are; parse failures as a *ParseError (errors.Is ErrUnparseable).
func GenerateStructured(ctx context.Context, m llms.Model, call StructuredCall, decode func(jsonText string) error) (string, error) {
	msgs := append([]llms.MessageContent(nil), call.Messages...)
	opts := append(append([]llms.CallOption(nil), call.Options...), WithJSONSchema(call.Schema))
	attempts := 1
	if call.Repair != nil {
		attempts = 2
	}
	maxTokens, widened := MaxTokensOf(opts), false
	calls := 0
	var raw string
	var problem error
	for i := 1; i <= attempts; i++ {
		if i > 1 {
			msgs = append(msgs,
				llms.TextParts(llms.ChatMessageTypeAI, raw),
				llms.TextParts(llms.ChatMessageTypeHuman, call.Repair(raw, problem)))
		}
		resp, err := m.GenerateContent(ctx, msgs, opts...)
		calls++
		if err != nil {
			return "", err
		}
		RecordUsage(ctx, resp, call.ModelName)
		if Truncated(resp.Choices[0]) && !widened && maxTokens > 0 {
			// Cut off: the same request again with twice the room.
			widened, maxTokens = true, 2*maxTokens
			opts = append(opts, llms.WithMaxTokens(maxTokens))
			if resp, err = m.GenerateContent(ctx, msgs, opts...); err != nil {
				return "", err
			}
			calls++
			RecordUsage(ctx, resp, call.ModelName)
		}
		raw = resp.Choices[0].Content
		if te := CutOff(resp, maxTokens); te != nil {
			return raw, &ParseError{Schema: call.Schema.Name, Raw: raw, Attempts: calls, Err: te}
		}
		problem = decodeSafely(raw, decode)
		if problem == nil {
			return raw, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	return raw, &ParseError{Schema: call.Schema.Name, Raw: raw, Attempts: calls, Err: problem}
}

// decodeSafely extracts the JSON and runs decode, turning a panic in
// decode into an error.
func decodeSafely(raw string, decode func(string) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decoding panicked: %v", r)
		}
	}()
	js, err := ExtractJSON(raw)
	if err != nil {
		return err
	}
	return decode(js)
}
