package schema

import (
	"context"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Decomposer reads a question into its parts. An error aborts the run.
type Decomposer interface {
	Decompose(ctx context.Context, query string) (*Decomposition, error)
}

// Speller corrects a question's misspelt words against the documents'
// vocabulary before it is read (package spell). It returns the question
// unchanged and no fixes when there is nothing to correct; an error aborts
// the run.
type Speller interface {
	Correct(ctx context.Context, question string) (string, []SpellingFix, error)
}

// SpellingFix is one corrected word: From as the question wrote it, To as
// the pipeline reads it.
type SpellingFix struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Feedback is what the judge tells the retriever on a retry.
type Feedback struct {
	// UnsupportedClaims are the claims of the rejected answer that the
	// sections did not support.
	UnsupportedClaims []string
	// Reasoning is the judge's explanation.
	Reasoning string
	// Excluded holds the keys (Section.Key) of the sections the judge
	// rejected on any earlier pass; a retriever must not return them again.
	Excluded []string
	// Previous holds the keys of the sections handed out on the pass just
	// rejected. A retriever must not hand back exactly the same set: it
	// widens (adds sections not in Previous), uses sub-queries or the
	// unsupported claims, or returns nothing. Previous sections may be kept
	// when they hold the evidence the rejected answer misread.
	Previous []string
}

// RetrieveRequest is the input of a retrieval pass.
type RetrieveRequest struct {
	Query         string
	Decomposition *Decomposition
	// Attempt is 0 on the first pass and n on the n-th retry.
	Attempt int
	// Feedback is nil on the first pass.
	Feedback *Feedback
	// Report, when not nil, is filled by retrievers that resolve which
	// documents the question names.
	Report *RetrieveReport
}

// RetrieveReport is what a retriever read of the question's documents.
type RetrieveReport struct {
	// Documents are the documents the question was resolved to (their
	// paths as stored); empty when it names none.
	Documents []string
	// Missing are names the question gives that no document contains;
	// the retriever then returns no sections.
	Missing []string
}

// Note says what the report holds in one line for State.Notes: the names
// no document mentions, else the documents the question was resolved to
// (by file name); "" when neither.
func (r *RetrieveReport) Note() string {
	quote := func(ss []string) string {
		q := make([]string, len(ss))
		for i, s := range ss {
			q[i] = strconv.Quote(s)
		}
		return strings.Join(q, ", ")
	}
	switch {
	case r == nil:
		return ""
	case len(r.Missing) > 0:
		return "no document mentions " + quote(r.Missing)
	case len(r.Documents) > 0:
		names := make([]string, len(r.Documents))
		for i, d := range r.Documents {
			names[i] = path.Base(filepath.ToSlash(d))
		}
		return "passages ranked inside the documents the question names: " + strings.Join(names, ", ")
	}
	return ""
}

// Retriever finds the sections that best answer a request, best first,
// with RelevanceScore in [0,1]. Returning no sections is not an error.
type Retriever interface {
	Retrieve(ctx context.Context, req RetrieveRequest) ([]Section, error)
}

// GenerateRequest is the input of the generate stage.
type GenerateRequest struct {
	Query         string
	Decomposition *Decomposition
	Sections      []Section
	Attempt       int
	// OnToken, when not nil, receives the answer's text as it is produced.
	// Generators that cannot stream may call it once with the whole text.
	OnToken func(chunk string)
}

// Generator writes an answer from the given sections only, citing each
// statement as (title, page).
type Generator interface {
	Generate(ctx context.Context, req GenerateRequest) (string, error)
}

// JudgeRequest is the input of the judge stage.
type JudgeRequest struct {
	Query         string
	Decomposition *Decomposition
	Response      string
	Sections      []Section
}

// Judge checks a response against the sections it was generated from. It
// returns a verdict even for a bad answer; an error means the judge itself
// failed (the run stops with that error).
type Judge interface {
	Judge(ctx context.Context, req JudgeRequest) (*Verdict, error)
}
