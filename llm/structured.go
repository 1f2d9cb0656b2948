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
// output as the assistant's turn and call.Repair's instruction, once. Usage
// of every call is recorded with RecordUsage. Model errors are returned as
// they are; parse failures as a *ParseError (errors.Is ErrUnparseable).
func GenerateStructured(ctx context.Context, m llms.Model, call StructuredCall, decode func(jsonText string) error) (string, error) {
	msgs := append([]llms.MessageContent(nil), call.Messages...)
	opts := append(append([]llms.CallOption(nil), call.Options...), WithJSONSchema(call.Schema))
	attempts := 1
	if call.Repair != nil {
		attempts = 2
	}
	var raw string
	var problem error
	for i := 1; i <= attempts; i++ {
		if i > 1 {
			msgs = append(msgs,
				llms.TextParts(llms.ChatMessageTypeAI, raw),
				llms.TextParts(llms.ChatMessageTypeHuman, call.Repair(raw, problem)))
		}
		resp, err := m.GenerateContent(ctx, msgs, opts...)
		if err != nil {
			return "", err
		}
		RecordUsage(ctx, resp, call.ModelName)
		raw = resp.Choices[0].Content
		problem = decodeSafely(raw, decode)
		if problem == nil {
			return raw, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	return raw, &ParseError{Schema: call.Schema.Name, Raw: raw, Attempts: attempts, Err: problem}
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
