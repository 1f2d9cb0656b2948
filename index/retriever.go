package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/vectorstores"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/question"
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
	// Lister, when set, lists a document's sections: a section that
	// points to a numbered part of its document ("see Note 11") brings
	// that part along (followPointers). Index.Retriever sets it.
	Lister SectionLister
	// Resolver, when set, reads which documents a question names
	// (Index.Resolve): passages are then ranked inside those documents by
	// the rest of the question, and sections of the kinds that identify a
	// document (preamble, signature block, …) only lead where they match
	// the rest of the question better than any body text. Index.Retriever
	// sets it.
	Resolver Resolver
}

// Resolver reads which documents a question names.
type Resolver interface {
	Resolve(ctx context.Context, question string) (Resolution, error)
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
	r.Resolver, r.Lister = ix, ix
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
	// the question asked: a courtesy's capital ("Thanks!") names no
	// document, and its words are no search terms
	req.Query = question.Asked(req.Query)
	res, err := r.resolve(ctx, req)
	if err != nil {
		return nil, err
	}
	out, err := r.retrieve(ctx, req, res)
	if err != nil {
		return out, err
	}
	if len(res.Documents) == 0 {
		// the names every document states: each passage's document
		// names those its profile holds
		if len(res.NamesIn) > 0 {
			frame := relevance.Analyze(req.Query)
			for i := range out {
				out[i].NamedBy = res.NamesBy(frame.Entities, out[i].Source)
			}
		}
		return out, nil
	}
	// the words that chose the documents, and the names they state, are
	// stated wherever in them the passage is: a clause need not repeat
	// the parties its preamble names for an answer from it to be about
	// them
	frame := relevance.Analyze(req.Query)
	words := res.NamedBy(req.Query, frame.Entities, frame.Periods)
	if len(words) == 0 {
		return out, nil
	}
	named := map[string]bool{}
	for _, d := range res.Documents {
		named[d] = true
	}
	for i := range out {
		if named[out[i].Source] {
			out[i].NamedBy = words
		}
	}
	return out, nil
}

// retrieve is Retrieve once the question's documents are resolved.
func (r *Retriever) retrieve(ctx context.Context, req schema.RetrieveRequest, res Resolution) ([]schema.Section, error) {
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
	asksWhen := relevance.Analyze(req.Query).Type == relevance.TypeTime
	fetch := k + len(excluded) + len(prev)
	if req.Report != nil {
		req.Report.Documents = res.Documents
		req.Report.Missing = res.Missing
	}
	if len(res.Missing) > 0 {
		// the question names what no document mentions: better no
		// evidence than another subject's
		return nil, nil
	}
	// every section of the named documents, when they are few: read for
	// the meaning of their words, so that a passage that shares no word
	// with the question ("we may share your information" for "do you
	// allow your affiliates to access my data?") can still rank
	var whole []schema.Section
	if len(res.Documents) > 0 && res.Sections <= wholeDocSections {
		whole = r.wholeDocuments(ctx, res.Documents)
	}
	// byMeaning are the sections that rank by the meaning of their words
	// alone, under the relevance floor
	byMeaning := map[string]bool{}
	search := func(opts []vectorstores.Option, rerank bool) ([]Hit, error) {
		var lists [][]Hit
		var qs []string
		for _, q := range queries {
			pq := PassageQuery(q, res.Naming)
			qs = append(qs, pq)
			if pq != q && rerank {
				// the whole question too: a passage may state the
				// names as part of its fact ("the 40,275 McDonald's
				// restaurants at year-end 2022")
				qs = append(qs, q)
			}
		}
		for _, q := range qs {
			n := fetch
			if rerank {
				n = max(fetch, softCandidates)
			}
			docs, err := r.store.SimilaritySearch(ctx, q, n, opts...)
			if err != nil {
				return nil, fmt.Errorf("retrieve sections for %q: %w", q, err)
			}
			var hits []Hit
			seen := map[string]bool{}
			for _, d := range docs {
				s := SectionFromDocument(d)
				if excluded[s.Key()] || s.RelevanceScore < widenFloor {
					continue
				}
				raw, _ := d.Metadata[MetaScore].(float64)
				hits = append(hits, Hit{Section: s, Score: raw})
				seen[s.Key()] = true
			}
			if rerank {
				for _, s := range whole {
					if key := s.Key(); !seen[key] && !excluded[key] {
						s.RelevanceScore = 0
						hits = append(hits, Hit{Section: s})
						byMeaning[key] = true
					}
				}
				hits = softRerank(q, hits)
			}
			lists = append(lists, hits)
		}
		return demoteIdentifying(Fuse(fetch, lists...), asksWhen), nil
	}
	var fused []Hit
	var err error
	if len(res.Documents) > 0 {
		// only the documents the question names; inside them a passage
		// needs to match less of the question, whose names are gone
		floor *= widenRatio
		widenFloor = min(widenFloor, floor)
		if fused, err = search(append(slices.Clip(r.Options), vectorstores.WithFilters(Filter{Where: Where{Documents: res.Documents}})), true); err != nil {
			return nil, err
		}
	} else {
		if fused, err = search(r.Options, false); err != nil {
			return nil, err
		}
	}
	var out, extra []schema.Section
	for _, h := range fused {
		switch {
		case (h.Section.RelevanceScore >= floor || byMeaning[h.Section.Key()]) && len(out) < k:
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
	out = followPointers(ctx, r.Lister, out, k, excluded)
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

// resolve reads which documents the request's question names, when the
// retriever has a Resolver.
func (r *Retriever) resolve(ctx context.Context, req schema.RetrieveRequest) (Resolution, error) {
	if r.Resolver == nil {
		return Resolution{}, nil
	}
	res, err := r.Resolver.Resolve(ctx, req.Query)
	if err != nil {
		return Resolution{}, fmt.Errorf("retrieve: %w", err)
	}
	return res, nil
}

// wholeDocSections is the most sections the named documents may have
// together for every one of them to be read for meaning (softRerank), not
// only those BM25 finds.
const wholeDocSections = 200

// wholeDocuments lists every section of the documents at paths, or none
// when they have more than wholeDocSections together, or the retriever
// cannot list them.
func (r *Retriever) wholeDocuments(ctx context.Context, paths []string) []schema.Section {
	if r.Lister == nil {
		return nil
	}
	var out []schema.Section
	for _, p := range paths {
		secs, err := r.Lister.Sections(ctx, p)
		if err != nil || len(out)+len(secs) > wholeDocSections {
			return nil
		}
		out = append(out, secs...)
	}
	return out
}

// softCandidates is how many of a named document's best passages by BM25
// are read again for the meaning of their words (softRerank).
const softCandidates = 40

// identifyingMargin is how much better than the best body section (in
// relevance) a section of an identifying kind must match to keep its
// place in the ranking.
const identifyingMargin = 0.25

// demoteIdentifying moves the sections of identifying kinds (preamble,
// signature block, cover page, …) after the body sections, unless one
// matches the question clearly better than any body section does: they
// repeat the document's names, which is why they rank, and they answer
// only questions about those names ("Who signed …?", "When was it
// dated?"), which their other words then match. When the question asks
// when (asksWhen), an identifying section that states a date keeps its
// place: a document's date ("made this 23rd day of September 1998") is
// stated there, in words the question need not share ("When does the
// agreement take effect?"). A signature block's date does not keep it:
// it is when someone signed, and a question about the signing matches
// the block by its words.
func demoteIdentifying(hits []Hit, asksWhen bool) []Hit {
	bestBody := -1.0
	for _, h := range hits {
		if !h.Section.Kind.Identifying() {
			bestBody = max(bestBody, h.Section.RelevanceScore)
		}
	}
	if bestBody < 0 {
		return hits
	}
	out := make([]Hit, 0, len(hits))
	var later []Hit
	for _, h := range hits {
		if h.Section.Kind.Identifying() && h.Section.RelevanceScore < bestBody+identifyingMargin && !(asksWhen && h.Section.Kind != schema.KindSignature && statesDate(h.Section.Content)) {
			later = append(later, h)
			continue
		}
		out = append(out, h)
	}
	return append(out, later...)
}

// retrievalQueries lists the distinct queries for a request: the question
// and its sub-queries when there are several, and the question with the
// decomposition's search terms (a model's words for what the question
// asks in the documents' wording), whose ranking is fused with the
// question's: a passage that says "repurchase" for the question's
// "buyback" ranks, and one a wrong search term brings has only that
// list's vote. (Retries differ by the excluded sections, not by the
// query.)
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
	if d := req.Decomposition; d != nil && len(d.SearchTerms) > 0 {
		add(req.Query + " " + strings.Join(d.SearchTerms, " "))
	}
	return qs
}

// statesDate reports whether text states a calendar date (package facts).
func statesDate(text string) bool {
	return slices.ContainsFunc(facts.Extract(text), func(f facts.Fact) bool { return f.Kind == facts.Date })
}
