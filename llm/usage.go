package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/schema"
)

// Normalised GenerationInfo keys. llm/openai sets them; UsageOf also reads
// the names other providers use (Anthropic's InputTokens/OutputTokens).
const (
	InfoPromptTokens     = "PromptTokens"
	InfoCompletionTokens = "CompletionTokens"
	InfoTotalTokens      = "TotalTokens"
	InfoReasoningTokens  = "ReasoningTokens"
	InfoCachedTokens     = "CachedTokens"
	InfoModel            = "Model"
)

// UsageOf returns the token usage of one call, normalised across
// providers, with Calls = 1 and a cost estimate when the model is in the
// price table. model names the model when the response does not (the
// response's own model name wins).
func UsageOf(resp *llms.ContentResponse, model string) schema.Usage {
	u := schema.Usage{Calls: 1}
	if resp == nil || len(resp.Choices) == 0 {
		return u
	}
	// Providers repeat the same usage on every choice; read the first
	// choice that has any.
	for _, c := range resp.Choices {
		if c == nil || c.GenerationInfo == nil {
			continue
		}
		gi := c.GenerationInfo
		u.PromptTokens = firstInt(gi, InfoPromptTokens, "InputTokens", "prompt_tokens", "input_tokens")
		u.CompletionTokens = firstInt(gi, InfoCompletionTokens, "OutputTokens", "completion_tokens", "output_tokens")
		u.TotalTokens = firstInt(gi, InfoTotalTokens, "total_tokens")
		if m, ok := gi[InfoModel].(string); ok && m != "" {
			model = m
		}
		if u.PromptTokens+u.CompletionTokens+u.TotalTokens > 0 {
			break
		}
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	if cost, ok := EstimateCost(model, u.PromptTokens, u.CompletionTokens); ok {
		u.CostUSD = cost
	}
	return u
}

// RecordUsage reports the usage of resp to the run's meter in ctx (see
// schema.RecordUsage). LLM stages call it after every model call, so usage
// is counted for any llms.Model, including a library user's own.
func RecordUsage(ctx context.Context, resp *llms.ContentResponse, model string) schema.Usage {
	u := UsageOf(resp, model)
	schema.RecordUsage(ctx, u)
	return u
}

func firstInt(m map[string]any, keys ...string) int {
	for _, k := range keys {
		switch v := m[k].(type) {
		case int:
			return v
		case int32:
			return int(v)
		case int64:
			return int(v)
		case float64:
			return int(v)
		case float32:
			return int(v)
		}
	}
	return 0
}

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	Input, Output float64
}

// prices are list prices (USD per 1M tokens) as published by the
// providers in 2025; estimates only. Keys are model-name prefixes; the
// longest matching prefix wins, so dated snapshots
// ("gpt-4o-2024-08-06") find their family.
var prices = map[string]Price{
	"gpt-5":             {1.25, 10},
	"gpt-5-mini":        {0.25, 2},
	"gpt-5-nano":        {0.05, 0.40},
	"gpt-4.1":           {2, 8},
	"gpt-4.1-mini":      {0.40, 1.60},
	"gpt-4.1-nano":      {0.10, 0.40},
	"gpt-4o":            {2.50, 10},
	"gpt-4o-mini":       {0.15, 0.60},
	"gpt-4-turbo":       {10, 30},
	"gpt-3.5-turbo":     {0.50, 1.50},
	"o1":                {15, 60},
	"o1-mini":           {1.10, 4.40},
	"o3":                {2, 8},
	"o3-mini":           {1.10, 4.40},
	"o4-mini":           {1.10, 4.40},
	"claude-opus-4":     {15, 75},
	"claude-sonnet-4":   {3, 15},
	"claude-3-7-sonnet": {3, 15},
	"claude-3-5-sonnet": {3, 15},
	"claude-3-5-haiku":  {0.80, 4},
	"claude-haiku-4":    {1, 5},
	"claude-3-haiku":    {0.25, 1.25},
	"claude-3-opus":     {15, 75},
}

// PriceOf returns the list price of model and whether it is known. The
// provider prefix of names like "openai/gpt-4o-mini" is ignored.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, bestLen := Price{}, 0
	for prefix, p := range prices {
		if len(prefix) > bestLen && strings.HasPrefix(m, prefix) &&
			(len(m) == len(prefix) || m[len(prefix)] == '-' || m[len(prefix)] == ':' || m[len(prefix)] == '@') {
			best, bestLen = p, len(prefix)
		}
	}
	return best, bestLen > 0
}

// EstimateCost returns the estimated cost in USD of a call and whether the
// model's price is known.
func EstimateCost(model string, promptTokens, completionTokens int) (float64, bool) {
	p, ok := PriceOf(model)
	if !ok {
		return 0, false
	}
	return (float64(promptTokens)*p.Input + float64(completionTokens)*p.Output) / 1e6, true
}

func fmtAny(v any) string { return fmt.Sprint(v) }
