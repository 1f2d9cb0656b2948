// Package llm holds DocMind's provider-neutral LLM plumbing, used by the LLM
// stages (decomposer, generator, judge, query rewriter) with any langchaingo
// llms.Model:
//
//   - WithJSONSchema, a call option asking for output that follows a named
//     JSON schema (json_schema response format on OpenAI-compatible
//     endpoints, JSON mode elsewhere);
//   - ExtractJSON and GenerateStructured: tolerant JSON parsing (code
//     fences, leading prose, trailing text), validation and one repair
//     retry;
//   - Retry, a wrapper that retries transient failures (429, 5xx,
//     timeouts, connection resets) with exponential backoff and jitter,
//     honouring Retry-After, and turns every failure into one clear line
//     (*Error);
//   - Transport, an http.RoundTripper that turns HTTP error statuses into
//     typed *StatusError values for clients that only return strings;
//   - UsageOf and RecordUsage, which normalise token counts across
//     providers and add a cost estimate from a small price table.
//
// Providers live in subpackages: llm/openai (OpenAI and every
// OpenAI-compatible endpoint, over github.com/sashabaranov/go-openai) and
// llm/providers (configuration from the environment, Anthropic and Ollama
// through langchaingo). llm/openaitest is a scripted OpenAI-compatible
// server for tests.
package llm
