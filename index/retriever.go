package index

import (
	"context"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/vectorstores"

	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

// Retriever defaults.
const (
	DefaultTopK = 5
	// DefaultMinRelevance is the relevance floor of NewRetriever: sections
	// scoring below it are never returned. It is low because it must suit
	// any store's scores.
	DefaultMinRelevance = 0.1
	// LexicalMinRelevance is the floor of Index.Retriever for an index
	// without embeddings, where RelevanceScore is BM25's score over that of
	// an average section with every question term once. It is as low as
	// DefaultMinRelevance: the judge's relevance check and calibrated
	// confidence decide whether a weakly matching section answers (0.3, the
	// floor before them, dropped the only section answering "What happens
	// if payment is still unpaid after 60 days?" over examples/contract;
	// 0.1 answers the same development questions of the contract, the
	// filings and SQuAD 2.0 with the guards alone).
	LexicalMinRelevance = 0.1
	// widenRatio: on a retry, a section scoring at least widenRatio times
	// the floor may join a set that would otherwise repeat the rejected one.
	widenRatio = 0.5
	// DefaultTableRows is Retriever.TableRows of NewRetriever.
	DefaultTableRows = 40
)

// Retriever implements schema.Retriever over any langchaingo
// vectorstores.VectorStore (this package's Store or another). It reads
// section fields from document metadata (see SectionFromDocument) and the
// relevance from Document.Score.
type Retriever struct {
	store vectorstores.VectorStore
	// TopK is the number of sections returned at most (default 5).
	TopK int
	// MinRelevance is the relevance floor (default DefaultMinRelevance).
	MinRelevance float64
	// Options are passed to every SimilaritySearch call.
	Options []vectorstores.Option
	// Widen makes each retry return TopK more sections than the pass
	// before (TopK × (1 + attempt)): when the judge found that the best
	// sections do not answer, the answer may sit further down the
	// ranking (a company's total in a table that ranks below its
	// segments' prose). Off by default: on the development sets it
	// answered one more filings question correctly and two more wrongly
	// (BENCHMARKS.md, "A segment's row is not the company's total").
	Widen bool
	// TableRows is how deep in the ranking to look for a table row that
	// states the figure a question asks for (relevance.Frame.TableRow:
	// "Total revenues 49,954 …" for "What were Oracle's total revenues in
	// fiscal 2023?") when none of the best TopK sections holds one; the
	// best such section then takes the last place. BM25 ranks such a
	// table below prose that repeats the measure's name, and a statement
	// cut from its caption by the sectioning lower still (eBay's income
	// statement, 26th for its general and administrative expenses). 0
	// turns it off;
	// NewRetriever sets DefaultTableRows.
	TableRows int
}

var _ schema.Retriever = (*Retriever)(nil)

// NewRetriever returns a retriever over store with the defaults.
func NewRetriever(store vectorstores.VectorStore) *Retriever {
	return &Retriever{store: store, TopK: DefaultTopK, MinRelevance: DefaultMinRelevance, TableRows: DefaultTableRows}
}

// Retriever returns a retriever over the index with the relevance floor
// that suits its scores: LexicalMinRelevance for BM25 alone; with
// embeddings a section's relevance is the larger of its BM25 relevance and
// its cosine similarity, and the floor stays DefaultMinRelevance, since
// cosine scales differ from one embedding model to the next.
func (ix *Index) Retriever() *Retriever {
	r := NewRetriever(NewStore(ix))
	if ix.embedder == nil {
		r.MinRelevance = LexicalMinRelevance
	}
	return r
}

// Retrieve searches the store with the question and each of its
// sub-queries when the decomposition split it; it fuses the rankings
// (reciprocal rank fusion), drops excluded sections and those under the
// relevance floor, and returns the best TopK. On a retry it never hands
// back exactly the set of Feedback.Previous: the best other section (down
// to half the floor) replaces the weakest, or, when there is none, it
// returns nothing. A depth set with schema.WithRetrieveDepth replaces
// TopK. Stores cannot be asked to exclude keys in general, so
// it over-fetches by the number of excluded and previous keys.
func (r *Retriever) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	k := r.TopK
	if k <= 0 {
		k = DefaultTopK
	}
	if d := schema.RetrieveDepth(ctx); d > 0 {
		k = d // an evaluation reading deeper (schema.WithRetrieveDepth)
	}
	if r.Widen && req.Attempt > 0 {
		k *= 1 + req.Attempt
	}
	excluded := map[string]bool{}
	if req.Feedback != nil {
		for _, key := range req.Feedback.Excluded {
			excluded[key] = true
		}
	}
	// On a retry the pass must not hand back exactly the set just
	// rejected (schema.Feedback.Previous): candidates down to half the
	// floor may widen it.
	prev := map[string]bool{}
	if req.Attempt > 0 && req.Feedback != nil {
		for _, key := range req.Feedback.Previous {
			prev[key] = true
		}
	}
	floor, widenFloor := r.MinRelevance, r.MinRelevance
	if len(prev) > 0 {
		widenFloor = r.MinRelevance * widenRatio
	}
	queries := retrievalQueries(req)
	fetch := k + len(excluded) + len(prev)
	var lists [][]Hit
	for _, q := range queries {
		docs, err := r.store.SimilaritySearch(ctx, q, fetch, r.Options...)
		if err != nil {
			return nil, fmt.Errorf("retrieve sections for %q: %w", q, err)
		}
		var hits []Hit
		for _, d := range docs {
			s := SectionFromDocument(d)
			if excluded[s.Key()] || s.RelevanceScore < widenFloor {
				continue
			}
			hits = append(hits, Hit{Section: s})
		}
		lists = append(lists, hits)
	}
	fused := Fuse(fetch, lists...)
	var out, extra []schema.Section
	for _, h := range fused {
		switch {
		case h.Section.RelevanceScore >= floor && len(out) < k:
			out = append(out, h.Section)
		case !prev[h.Section.Key()]:
			extra = append(extra, h.Section)
		}
	}
	if r.TableRows > 0 {
		var err error
		if out, err = r.withTableRow(ctx, req.Query, out, k, floor, excluded, prev); err != nil {
			return nil, err
		}
	}
	if len(prev) == 0 {
		return out, nil
	}
	for _, s := range out {
		if !prev[s.Key()] {
			return out, nil // already a different set
		}
	}
	if len(extra) == 0 {
		return nil, nil // nothing new to show: better no evidence than the same
	}
	if len(out) >= k {
		out = out[:k-1]
	}
	return append(out, extra[0]), nil
}

// withTableRow returns out with the best section of the first r.TableRows
// of the ranking for query that holds a table row naming the figure the
// question asks for (relevance.Frame.TableRow) in its last place, when no
// section of out holds one; out unchanged otherwise, or when the question
// does not ask what a measure was. A section whose title states its
// figures on another basis ("Unaudited Pro Forma Financial Information")
// holds no such row (relevance.Frame.SectionRow). Excluded sections, those of the
// previous pass and those under the floor are not taken.
func (r *Retriever) withTableRow(ctx context.Context, query string, out []schema.Section, k int, floor float64,
	excluded, prev map[string]bool) ([]schema.Section, error) {
	frame := relevance.Analyze(query)
	if !frame.AsksFigure() {
		return out, nil
	}
	in := map[string]bool{}
	for _, s := range out {
		if frame.SectionRow(s) != "" {
			return out, nil
		}
		in[s.Key()] = true
	}
	docs, err := r.store.SimilaritySearch(ctx, query, r.TableRows+len(excluded)+len(prev), r.Options...)
	if err != nil {
		return nil, fmt.Errorf("retrieve sections for %q: %w", query, err)
	}
	for _, d := range docs {
		s := SectionFromDocument(d)
		key := s.Key()
		if in[key] || excluded[key] || prev[key] || s.RelevanceScore < floor || frame.SectionRow(s) == "" {
			continue
		}
		if len(out) >= k {
			out = out[:k-1]
		}
		return append(out, s), nil
	}
	return out, nil
}

// retrievalQueries lists the distinct queries for a request: the question
// and its sub-queries when there are several. (Retries differ by the
// excluded sections, not by the query.)
func retrievalQueries(req schema.RetrieveRequest) []string {
	var qs []string
	seen := map[string]bool{}
	add := func(q string) {
		q = strings.TrimSpace(q)
		if q == "" || seen[strings.ToLower(q)] {
			return
		}
		seen[strings.ToLower(q)] = true
		qs = append(qs, q)
	}
	add(req.Query)
	if d := req.Decomposition; d != nil && len(d.SubQueries) > 1 {
		for _, q := range d.SubQueries {
			add(q)
		}
	}
	return qs
}
