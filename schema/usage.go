package schema

import (
	"context"
	"strings"
	"sync"
)

// Usage counts LLM calls and tokens.
type Usage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CostUSD is an estimate from a price table; 0 when the model is unknown.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Add returns u plus o.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		Calls:            u.Calls + o.Calls,
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
		CostUSD:          u.CostUSD + o.CostUSD,
	}
}

// RunUsage is the usage of a run, per node and in total.
type RunUsage struct {
	Total  Usage            `json:"total"`
	ByNode map[string]Usage `json:"by_node"`
}

// Clone returns a copy of u.
func (u *RunUsage) Clone() *RunUsage {
	if u == nil {
		return nil
	}
	c := &RunUsage{Total: u.Total, ByNode: make(map[string]Usage, len(u.ByNode))}
	for k, v := range u.ByNode {
		c.ByNode[k] = v
	}
	return c
}

// Meter collects the usage reported by LLM-backed stages during one node.
// The pipeline puts a Meter in the context of every node; stages report
// with RecordUsage. A Meter is safe for concurrent use.
type Meter struct {
	mu      sync.Mutex
	usage   Usage
	prompts map[string]string
	notes   []string
	passed  []string
	docs    []string
}

// Add records u.
func (m *Meter) Add(u Usage) {
	m.mu.Lock()
	m.usage = m.usage.Add(u)
	m.mu.Unlock()
}

// Usage returns what was recorded.
func (m *Meter) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage
}

type meterKey struct{}

// ContextWithMeter returns a context whose stages report usage to m.
func ContextWithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// RecordUsage reports u to the Meter in ctx, if any.
func RecordUsage(ctx context.Context, u Usage) {
	if m, ok := ctx.Value(meterKey{}).(*Meter); ok && m != nil {
		m.Add(u)
	}
}

// RecordPromptVersion reports that the running node used prompt name at
// version; the pipeline stores it in State.PromptVersions.
func RecordPromptVersion(ctx context.Context, name, version string) {
	if m, ok := ctx.Value(meterKey{}).(*Meter); ok && m != nil {
		m.mu.Lock()
		if m.prompts == nil {
			m.prompts = map[string]string{}
		}
		m.prompts[name] = version
		m.mu.Unlock()
	}
}

// PromptVersions returns the prompt versions recorded.
func (m *Meter) PromptVersions() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.prompts))
	for k, v := range m.prompts {
		out[k] = v
	}
	return out
}

// RecordNote reports what the reader of a run should know about the
// running node's output that its fields do not show, such as an answer
// cut off at its token limit; the pipeline stores the node's notes in
// State.Notes.
func RecordNote(ctx context.Context, note string) {
	record(ctx, note, func(m *Meter) *[]string { return &m.notes })
}

// record appends note to the list of the context's meter that list
// returns; a blank note or a context without a meter records nothing.
func record(ctx context.Context, note string, list func(*Meter) *[]string) {
	if m, ok := ctx.Value(meterKey{}).(*Meter); ok && m != nil && note != "" {
		m.mu.Lock()
		l := list(m)
		*l = append(*l, note)
		m.mu.Unlock()
	}
}

// joined returns a list of the meter joined by "; ".
func (m *Meter) joined(l *[]string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Join(*l, "; ")
}

// Notes returns the notes recorded, in order, joined by "; " ("" when
// none).
func (m *Meter) Notes() string { return m.joined(&m.notes) }

// PassedOverSuffix ends the key of State.Notes under which a node's
// passed-over candidates are recorded ("generate.passed_over").
const PassedOverSuffix = ".passed_over"

// RecordPassedOver reports a candidate answer the running node passed
// over, with the IDs of the rules that passed it over; the pipeline stores
// them in State.Notes under the node's name and PassedOverSuffix, so that
// no candidate is dropped without a trace.
func RecordPassedOver(ctx context.Context, note string) {
	record(ctx, note, func(m *Meter) *[]string { return &m.passed })
}

// PassedOver returns the passed-over candidates recorded, in order,
// joined by "; " ("" when none).
func (m *Meter) PassedOver() string { return m.joined(&m.passed) }

// DocumentsSuffix ends the key of State.Notes under which the retrieve
// node records the documents a question was resolved to
// ("retrieve.documents"): shown in --json, not said on a terminal.
const DocumentsSuffix = ".documents"

// RecordDocuments reports which documents the running node resolved the
// question to; the pipeline stores it in State.Notes under the node's
// name and DocumentsSuffix.
func RecordDocuments(ctx context.Context, note string) {
	record(ctx, note, func(m *Meter) *[]string { return &m.docs })
}

// Documents returns what RecordDocuments recorded, joined by "; ".
func (m *Meter) Documents() string { return m.joined(&m.docs) }
