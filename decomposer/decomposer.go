// Package decomposer reads a question into its parts with deterministic
// rules: the kind of answer it asks for (intent, see question.Intent), the
// self-contained sub-questions of a multi-part question (question.Split),
// the entities, constraints and temporal expressions it names, and the key
// terms an answer must address (question.KeyTerms).
//
// It is the offline decomposer of DocMind's pipeline (no model, no
// network). A multi-part question has the intent of its first part.
package decomposer

import (
	"context"
	"fmt"
	"strings"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
)

// Offline is the rule-based decomposer, which needs no model. The zero value is ready to use and
// safe for concurrent use.
type Offline struct{}

// NewOffline returns the rule-based decomposer.
func NewOffline() *Offline { return &Offline{} }

var _ schema.Decomposer = (*Offline)(nil)

// Decompose reads query. An empty or blank query fails with an error that
// wraps schema.ErrEmptyQuery.
func (r *Offline) Decompose(ctx context.Context, query string) (*schema.Decomposition, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := normalizeSpace(query)
	if q == "" {
		return nil, fmt.Errorf("decompose: %w", schema.ErrEmptyQuery)
	}
	// the question it asks, without courtesies and a request around it
	q = question.Asked(q)
	subs := question.Split(q)
	d := &schema.Decomposition{
		Intent:      question.Intent(subs[0]),
		SubQueries:  subs,
		Entities:    Entities(q),
		Constraints: Constraints(q),
		Temporals:   Temporals(q),
		KeyTerms:    question.KeyTerms(q),
	}
	return d, nil
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// clauseStarters open a new question: a wh-word or an auxiliary.
var clauseStarters = wordlists.Set(question.WhWords, question.Auxiliaries)
