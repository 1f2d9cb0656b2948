package decomposer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// DefaultMaxTokens bounds the decomposer's reply when LLMOptions.MaxTokens
// is 0; a decomposition is a short JSON object.
const DefaultMaxTokens = 512

// LLMOptions tunes the LLM decomposer. The zero value is usable: it sends
// max_tokens DefaultMaxTokens and temperature 0 (a decomposition should not
// vary from run to run) unless Settings says otherwise.
type LLMOptions struct {
	llm.Settings
	// Fallback decomposes the question when the model's reply cannot be
	// parsed even after the repair attempt, or was cut off at its token
	// limit twice (for example the rule-based decomposer,
	// decomposer.NewOffline()). Nil yields a minimal decomposition: intent
	// "general", the question as its only sub-query. Either way the
	// decomposition's Fallback field says so, and an intent outside
	// Intents becomes "general".
	Fallback schema.Decomposer
}

// LLM is a schema.Decomposer that asks a model for a structured reading of
// the question, as JSON following the docmind_decomposition schema.
type LLM struct {
	model llms.Model
	opts  LLMOptions
}

// NewLLM returns a decomposer over model.
func NewLLM(model llms.Model, opts LLMOptions) *LLM {
	opts.Settings = opts.Settings.Or(llm.Settings{MaxTokens: DefaultMaxTokens, Temperature: llm.Temperature(0)})
	return &LLM{model: model, opts: opts}
}

var _ schema.Decomposer = (*LLM)(nil)

// Decompose implements schema.Decomposer. Model failures (after retries)
// are returned as errors; an unparseable reply falls back (see
// LLMOptions.Fallback).
func (d *LLM) Decompose(ctx context.Context, query string) (*schema.Decomposition, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, fmt.Errorf("decompose: %w", schema.ErrEmptyQuery)
	}
	msgs, err := prompts.MustGet(prompts.NameDecompose).Messages(ctx, prompts.DecomposeData{Query: query})
	if err != nil {
		return nil, err
	}
	var out *schema.Decomposition
	_, err = llm.GenerateStructured(ctx, d.model, llm.StructuredCall{
		Messages:  msgs,
		Schema:    llm.JSONSchema{Name: prompts.SchemaDecomposition, Schema: prompts.DecompositionSchema(), Strict: true},
		Options:   d.opts.CallOptions(),
		ModelName: d.opts.ModelName,
		Repair:    prompts.RepairInstruction(prompts.SchemaDecomposition),
	}, func(js string) error {
		dec, err := parseDecomposition(js, query)
		out = dec
		return err
	})
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, llm.ErrUnparseable):
		return d.fallback(ctx, query, err)
	default:
		return nil, err // the pipeline names the stage
	}
}

// fallback decomposes query without the model, whose reply failed with
// err, and records why in the decomposition.
func (d *LLM) fallback(ctx context.Context, query string, err error) (*schema.Decomposition, error) {
	why := "the model's reply could not be parsed after a repair attempt"
	var pe *llm.ParseError
	if errors.As(err, &pe) {
		why += ": " + oneLine(pe.Err.Error())
		var te *llm.TruncatedError
		if errors.As(pe.Err, &te) {
			why = te.Error() + ", twice"
		}
	}
	dec := &schema.Decomposition{Intent: question.IntentGeneral, SubQueries: []string{query},
		Entities: []string{}, Constraints: []string{}, Temporals: []string{}}
	by := "the question as its only sub-query"
	if d.opts.Fallback != nil {
		fb, ferr := d.opts.Fallback.Decompose(ctx, query)
		if ferr != nil {
			return nil, fmt.Errorf("%s, and the fallback decomposer failed: %w", why, ferr)
		}
		dec, by = fb, "the fallback decomposer's reading"
		if _, ok := d.opts.Fallback.(*Offline); ok {
			by = "the rule-based decomposition"
		}
	}
	if !question.IsIntent(dec.Intent) {
		dec.Intent = question.IntentGeneral
	}
	dec.Fallback = "decomposition: " + why + "; used " + by + " instead"
	return dec, nil
}

// oneLine collapses whitespace and shortens s to 200 runes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// parseDecomposition decodes and validates a reply. Lists may come as a
// single string; unknown intents become "general".
func parseDecomposition(js, query string) (*schema.Decomposition, error) {
	var raw struct {
		Intent      string    `json:"intent"`
		SubQueries  stringish `json:"sub_queries"`
		Entities    stringish `json:"entities"`
		Constraints stringish `json:"constraints"`
		Temporals   stringish `json:"temporals"`
		KeyTerms    stringish `json:"key_terms"`
		SearchTerms stringish `json:"search_terms"`
	}
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		return nil, fmt.Errorf("decomposition JSON: %w", err)
	}
	if raw.Intent == "" && len(raw.SubQueries) == 0 && len(raw.KeyTerms) == 0 {
		return nil, errors.New(`decomposition has neither "intent" nor "sub_queries"`)
	}
	intent := strings.ToLower(strings.TrimSpace(raw.Intent))
	if !question.IsIntent(intent) {
		intent = question.IntentGeneral
	}
	d := &schema.Decomposition{
		Intent:      intent,
		SubQueries:  clean(raw.SubQueries),
		Entities:    clean(raw.Entities),
		Constraints: clean(raw.Constraints),
		Temporals:   clean(raw.Temporals),
		KeyTerms:    clean(raw.KeyTerms),
	}
	if len(d.SubQueries) == 0 {
		d.SubQueries = []string{query}
	}
	if len(d.KeyTerms) == 0 {
		d.KeyTerms = nil
	}
	d.SearchTerms = searchTerms(raw.SearchTerms, query)
	return d, nil
}

// maxSearchTerms bounds the search terms kept from a reply, and
// maxSearchTermWords the words of one: they are words and short phrases,
// not another question.
const (
	maxSearchTerms     = 8
	maxSearchTermWords = 4
)

// searchTerms returns the model's search terms that add a content word
// to the question (by stem), lower case, at most maxSearchTerms of them;
// nil when none does. A term of more than maxSearchTermWords words is not
// a search term, and numbers are the question's to state.
func searchTerms(in []string, query string) []string {
	stated := map[string]bool{}
	for _, st := range textproc.Terms(query) {
		stated[st] = true
	}
	var out []string
	for _, t := range clean(in) {
		words := textproc.Tokens(t)
		if len(words) == 0 || len(words) > maxSearchTermWords {
			continue
		}
		adds := false
		for _, st := range textproc.Terms(t) {
			if !stated[st] && textproc.HasLetter(st) {
				adds = true
			}
		}
		if adds {
			out = append(out, strings.Join(words, " "))
		}
		if len(out) == maxSearchTerms {
			break
		}
	}
	return out
}

// stringish accepts a JSON array of strings, a single string or null.
type stringish []string

func (s *stringish) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = stringish{one}
		return nil
	}
	var many []any
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a list of strings, got %s", strings.TrimSpace(string(b)))
	}
	out := make(stringish, 0, len(many))
	for _, v := range many {
		if v != nil {
			out = append(out, fmt.Sprint(v))
		}
	}
	*s = out
	return nil
}

func clean(in []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s != "" && !seen[strings.ToLower(s)] {
			seen[strings.ToLower(s)] = true
			out = append(out, s)
		}
	}
	return out
}
