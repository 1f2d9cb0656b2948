package llm

import (
	"encoding/json"

	"github.com/tmc/langchaingo/llms"
)

// MetadataJSONSchema is the llms.CallOptions.Metadata key under which
// WithJSONSchema stores its *JSONSchema.
const MetadataJSONSchema = "docmind:json_schema"

// JSONSchema names and describes the JSON document a call must return.
type JSONSchema struct {
	// Name routes the request (OpenAI's response_format.json_schema.name),
	// for example "docmind_verdict".
	Name string
	// Description is optional.
	Description string
	// Schema is the JSON Schema document.
	Schema json.RawMessage
	// Strict asks the provider to enforce the schema exactly.
	Strict bool
}

// WithJSONSchema asks for output following s. Providers that support
// structured output per call (llm/openai) send it as a json_schema response
// format; it also sets JSONMode, so providers with only a JSON mode
// (langchaingo's ollama client) use that, and providers with neither
// (anthropic) fall back to the prompt, which always describes the format.
func WithJSONSchema(s JSONSchema) llms.CallOption {
	return func(o *llms.CallOptions) {
		md := make(map[string]any, len(o.Metadata)+1)
		for k, v := range o.Metadata {
			md[k] = v
		}
		sc := s
		md[MetadataJSONSchema] = &sc
		o.Metadata = md
		o.JSONMode = true
	}
}

// JSONSchemaOf returns the schema set by WithJSONSchema, or nil.
func JSONSchemaOf(o *llms.CallOptions) *JSONSchema {
	if o == nil || o.Metadata == nil {
		return nil
	}
	s, _ := o.Metadata[MetadataJSONSchema].(*JSONSchema)
	return s
}

// Settings are the model settings every DocMind LLM stage takes (embedded
// in decomposer.LLMOptions, generator.LLMOptions, judge.LLMOptions and
// retriever.LLMRewriterOptions). The zero value sends neither temperature
// nor a token limit.
type Settings struct {
	// ModelName prices the usage when responses do not name their model.
	ModelName string
	// Temperature is sent only when set (reasoning models reject it).
	Temperature *float64
	// MaxTokens bounds the reply; 0 leaves the provider's default.
	MaxTokens int
}

// Temperature returns a pointer to t, for Settings.Temperature.
func Temperature(t float64) *float64 { return &t }

// Or returns s with its unset fields (ModelName, Temperature, MaxTokens)
// taken from def: how a stage applies its defaults.
func (s Settings) Or(def Settings) Settings {
	if s.ModelName == "" {
		s.ModelName = def.ModelName
	}
	if s.Temperature == nil {
		s.Temperature = def.Temperature
	}
	if s.MaxTokens <= 0 {
		s.MaxTokens = def.MaxTokens
	}
	return s
}

// CallOptions returns the call options for s.
func (s Settings) CallOptions() []llms.CallOption {
	var o []llms.CallOption
	if s.Temperature != nil {
		o = append(o, llms.WithTemperature(*s.Temperature))
	}
	if s.MaxTokens > 0 {
		o = append(o, llms.WithMaxTokens(s.MaxTokens))
	}
	return o
}
