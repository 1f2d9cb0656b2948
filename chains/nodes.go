// Package chains holds the pipeline's five nodes, each a langchaingo
// chains.Chain (decompose, retrieve, generate, judge, output), and Runner,
// the plain Go loop that runs them with the judge's conditional retry edge.
//
// Every node chain takes the input key "state" (a *schema.State) and returns
// the output key "state" holding a new *schema.State: nodes copy, never
// mutate, the state they are given, and write only the fields they own.
package chains

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/callbacks"
	lcchains "github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/memory"
	lcschema "github.com/tmc/langchaingo/schema"

	"github.com/docmind/docmind/schema"
)

// StateKey is the input and output key of every node chain.
const StateKey = "state"

var (
	_ lcchains.Chain         = (*NodeChain)(nil)
	_ callbacks.HandlerHaver = (*NodeChain)(nil)
)

// NodeChain is a pipeline node exposed as a langchaingo chain.
type NodeChain struct {
	name     string
	callback callbacks.Handler
	// apply does the node's work on st, a private copy it may modify.
	apply func(ctx context.Context, st *schema.State) error
}

// Name returns the node's name as it appears in node_history.
func (c *NodeChain) Name() string { return c.name }

// Call runs the node. inputs["state"] must be a *schema.State; it is not
// modified. The output "state" is a new state with the node's fields
// written and its name appended to node_history.
func (c *NodeChain) Call(ctx context.Context, inputs map[string]any, _ ...lcchains.ChainCallOption) (map[string]any, error) {
	in, ok := inputs[StateKey].(*schema.State)
	if !ok || in == nil {
		return nil, fmt.Errorf("%s node: input %q must be a *schema.State, got %T", c.name, StateKey, inputs[StateKey])
	}
	st := in.Clone()
	if err := c.apply(ctx, st); err != nil {
		return nil, err
	}
	st.NodeHistory = append(st.NodeHistory, c.name)
	return map[string]any{StateKey: st}, nil
}

// GetMemory returns an empty memory: nodes keep no memory of their own.
func (c *NodeChain) GetMemory() lcschema.Memory { return memory.NewSimple() }

// GetInputKeys returns ["state"].
func (c *NodeChain) GetInputKeys() []string { return []string{StateKey} }

// GetOutputKeys returns ["state"].
func (c *NodeChain) GetOutputKeys() []string { return []string{StateKey} }

// GetCallbackHandler returns the langchaingo callbacks handler, if any.
func (c *NodeChain) GetCallbackHandler() callbacks.Handler { return c.callback }

// NewDecompose returns the decompose node: it writes state.decomposition.
// With a speller (nil for none) it first corrects the question's misspelt
// words, writes the corrected question to state.query and notes the
// corrections ("read \"Carslbad\" as \"Carlsbad\"").
func NewDecompose(d schema.Decomposer, sp schema.Speller) *NodeChain {
	return &NodeChain{name: schema.NodeDecompose, apply: func(ctx context.Context, st *schema.State) error {
		if sp != nil {
			q, fixes, err := sp.Correct(ctx, st.Query)
			if err != nil {
				return fmt.Errorf("decompose: %w", err)
			}
			if len(fixes) > 0 {
				st.Query = q
				schema.RecordNote(ctx, spellingNote(fixes))
			}
		}
		dec, err := d.Decompose(ctx, st.Query)
		if err != nil {
			return fmt.Errorf("decompose: %w", err)
		}
		if dec == nil {
			dec = &schema.Decomposition{Intent: "general", SubQueries: []string{st.Query}}
		}
		dec.SubQueries = nonNil(dec.SubQueries)
		dec.Entities = nonNil(dec.Entities)
		dec.Constraints = nonNil(dec.Constraints)
		dec.Temporals = nonNil(dec.Temporals)
		st.Decomposition = dec
		return nil
	}}
}

// NewRetrieve returns the retrieve node: it writes state.retrieved_sections.
// On a retry (retry_count > 0) it passes the judge's feedback: the
// unsupported claims, the reasoning, the sections the judge rejected (never
// returned again) and the sections of the rejected pass (not to be handed
// back as the same set).
func NewRetrieve(r schema.Retriever) *NodeChain {
	return &NodeChain{name: schema.NodeRetrieve, apply: func(ctx context.Context, st *schema.State) error {
		req := schema.RetrieveRequest{Query: st.Query, Decomposition: st.Decomposition, Attempt: st.RetryCount}
		if st.RetryCount > 0 {
			fb := &schema.Feedback{Excluded: st.ExcludedSections, Previous: keysOf(st.RetrievedSections)}
			if v := st.JudgeVerdict; v != nil {
				fb.UnsupportedClaims = v.UnsupportedClaims()
				fb.Reasoning = v.Reasoning
			}
			req.Feedback = fb
		}
		report := &schema.RetrieveReport{}
		req.Report = report
		secs, err := r.Retrieve(ctx, req)
		if err != nil {
			return fmt.Errorf("retrieve: %w", err)
		}
		switch note := report.Note(); {
		case len(report.Missing) > 0:
			// said on a terminal: the refusal's reason
			schema.RecordNote(ctx, note)
		case note != "":
			schema.RecordDocuments(ctx, note)
		}
		excluded := make(map[string]bool, len(st.ExcludedSections))
		for _, k := range st.ExcludedSections {
			excluded[k] = true
		}
		kept := make([]schema.Section, 0, len(secs))
		for _, s := range secs {
			if !excluded[s.Key()] {
				kept = append(kept, s)
			}
		}
		st.RetrievedSections = kept
		// what a refusal will point at: the first pass's best, which
		// retrieval found for the question as asked, then what later
		// passes add (a retry excludes the sections the judge rejected,
		// so its own best are the next best, not the best); within a
		// pass, the sections whose sentences meet the question first
		// (closestPassages)
		st.ClosestPassages = schema.MergePassages(st.ClosestPassages, closestPassages(kept, st.Query, ClosestOnRefusal), ClosestOnRefusal)
		return nil
	}}
}

// NewGenerate returns the generate node: it writes state.generated_response.
// onToken, when not nil, receives the streamed draft.
func NewGenerate(g schema.Generator, onToken func(ctx context.Context, chunk string)) *NodeChain {
	return &NodeChain{name: schema.NodeGenerate, apply: func(ctx context.Context, st *schema.State) error {
		if nothingNew(st) && st.GeneratedResponse != nil {
			return nil // nothing new to read: the draft stays the last pass's
		}
		req := schema.GenerateRequest{
			Query:         st.Query,
			Decomposition: st.Decomposition,
			Sections:      st.RetrievedSections,
			Attempt:       st.RetryCount,
		}
		if onToken != nil {
			req.OnToken = func(chunk string) { onToken(ctx, chunk) }
		}
		text, err := g.Generate(ctx, req)
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		st.GeneratedResponse = &text
		return nil
	}}
}

// NewJudge returns the judge node: it writes state.judge_verdict and
// increments state.retry_count when the verdict is hallucinated. The
// sections the judge rejected as irrelevant are added to
// state.excluded_sections, so that no retry returns them. Sections that
// merely contradict the answer are not rejected: they may hold the right
// figure the answer misread.
func NewJudge(j schema.Judge) *NodeChain {
	return &NodeChain{name: schema.NodeJudge, apply: func(ctx context.Context, st *schema.State) error {
		if prev := st.JudgeVerdict; nothingNew(st) && prev != nil {
			// the verdict stays the last pass's, whose reasons are about
			// passages: "no section was retrieved" would hide them
			v := *prev
			if !strings.HasSuffix(v.Reasoning, NothingNewReason) {
				v.Reasoning = strings.TrimSpace(v.Reasoning + " " + NothingNewReason)
			}
			st.JudgeVerdict = &v
			if v.IsHallucinated {
				st.RetryCount++
			}
			return nil
		}
		v, err := j.Judge(ctx, schema.JudgeRequest{
			Query:         st.Query,
			Decomposition: st.Decomposition,
			Response:      st.Response(),
			Sections:      st.RetrievedSections,
		})
		if err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		if v == nil {
			return errors.New("judge: returned no verdict")
		}
		if v.Unverified {
			// An unverified verdict never passes as grounded.
			v.IsHallucinated, v.ShouldReturn = true, false
		}
		st.JudgeVerdict = v
		if v.IsHallucinated {
			st.RetryCount++
			st.ExcludedSections = appendNew(st.ExcludedSections, v.RejectedSections)
		}
		return nil
	}}
}

// NothingNewReason ends the reasoning of a verdict kept from an earlier
// pass because a retry found no passage beyond those already judged.
const NothingNewReason = "A retry found no other passage."

// nothingNew reports whether st is a retry whose retrieval found no
// passage beyond those already judged (the retriever hands back no
// section rather than the same ones): its generate and judge nodes keep
// the last pass's draft and verdict, so that a refusal says what was
// wrong with the passages it read, and no model is asked about none.
func nothingNew(st *schema.State) bool {
	return st.RetryCount > 0 && len(st.RetrievedSections) == 0
}

// ClosestOnRefusal is how many passages a refusal points at
// (State.ClosestPassages).
const ClosestOnRefusal = 3

// NewOutput returns the output node: final_output is the generated response
// when the verdict says should_return, else schema.FallbackMessage, and
// then closest_passages names the best passages retrieval found (the
// first pass's first; closestPassages), not verified, so that a refusal
// still says where to look. An answer clears them.
func NewOutput() *NodeChain {
	return &NodeChain{name: schema.NodeOutput, apply: func(_ context.Context, st *schema.State) error {
		out := schema.FallbackMessage
		if v := st.JudgeVerdict; v != nil && v.ShouldReturn && !v.Unverified && st.GeneratedResponse != nil {
			out = *st.GeneratedResponse
		}
		st.FinalOutput = &out
		switch {
		case out != schema.FallbackMessage:
			st.ClosestPassages = nil
		case len(st.ClosestPassages) == 0:
			// a state checkpointed before the retrieve node kept them
			st.ClosestPassages = closestPassages(st.RetrievedSections, st.Query, ClosestOnRefusal)
		}
		return nil
	}}
}

// keysOf returns the keys of secs.
func keysOf(secs []schema.Section) []string {
	keys := make([]string, len(secs))
	for i, s := range secs {
		keys[i] = s.Key()
	}
	return keys
}

// appendNew appends the keys of add not already in list.
func appendNew(list, add []string) []string {
	seen := make(map[string]bool, len(list)+len(add))
	for _, k := range list {
		seen[k] = true
	}
	for _, k := range add {
		if !seen[k] {
			seen[k] = true
			list = append(list, k)
		}
	}
	return list
}

// nonNil returns s, or an empty slice for nil, so that JSON shows [] as the
// seed contract does.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// spellingNote says how the question was read: `read "Carslbad" as
// "Carlsbad": no document has the word as asked`.
func spellingNote(fixes []schema.SpellingFix) string {
	parts := make([]string, len(fixes))
	for i, f := range fixes {
		parts[i] = fmt.Sprintf("%q as %q", f.From, f.To)
	}
	return "read " + strings.Join(parts, ", ") + ": no document has the word as asked"
}
