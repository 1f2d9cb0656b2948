// Package retriever finds the sections of the loaded documents that best
// answer a question. BM25 is an in-memory Okapi BM25 ranker over
// []schema.Section implementing schema.Retriever: text is analysed with
// textproc.Terms (stop words removed, Porter2 stems), matches in a
// section's title count more than matches in its text (BM25F-style field
// weights), and a relevance floor drops sections that do not match the
// question well enough.
//
// # Relevance
//
// A section's RelevanceScore is its BM25 score divided by the score of an
// ideal section for the same question: one whose title and text each
// contain every question term once. Terms that occur in no section count
// in the ideal with the weight of the rarest indexed term, so a question
// about something the documents never mention ("warranty") cannot reach
// the floor on its other, common words ("period") alone. The score is
// clamped to [0,1], comparable across questions, and the floor is
// absolute: with the default floor of 0.3 a section must cover roughly a
// third of the question's weight to be returned.
//
// # Queries and retries
//
// The original question, each sub-query of the decomposition and the
// decomposition's key terms, entities and constraints are used together;
// with several sub-queries the best section of each is kept before the
// rest are ranked, so multi-part questions get a section per part. On a
// retry the sections in Feedback.Excluded are never returned, the floor is
// lowered (by RetryFloorFactor per attempt) and the judge's unsupported
// claims are searched as an extra, down-weighted query.
package retriever

import (
	"context"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Defaults of the BM25 options.
const (
	DefaultK1          = 1.2
	DefaultB           = 0.75
	DefaultTitleWeight = 3.0
	DefaultPathWeight  = 1.0
	DefaultFloor       = 0.3
	DefaultMinResults  = 3
	DefaultMaxResults  = 5
	// DefaultRetryFloorFactor multiplies the floor on each retry.
	DefaultRetryFloorFactor = 0.75
	// DefaultPadRatio: sections scoring at least PadRatio × floor may pad a
	// non-empty result up to MinResults.
	DefaultPadRatio = 0.5
)

// headingB is the length normalisation of the title and path fields:
// milder than the text's, so that one-word titles do not dominate.
const headingB = 0.3

// extraWeight is the weight of key terms, entities and constraints that
// are not already words of the question.
const extraWeight = 0.5

// claimFactor scales the relevance of sections found through the judge's
// unsupported claims on a retry: they name the subject the answer was
// about, but they are not the question.
const claimFactor = 0.75

type options struct {
	k1, b, titleWeight float64
	pathWeight         float64
	floor              float64
	minResults         int
	maxResults         int
	retryFloorFactor   float64
	padRatio           float64
	lex                *lexicon.Thesaurus
	synWeight          float64
}

// Option configures a BM25 retriever.
type Option func(*options)

// WithThesaurus sets the synonym resource used to widen queries: a
// section that lacks a query term but contains one of its synonyms scores
// for it at the synonym weight (see WithSynonymWeight), through the
// synonym's own IDF. The default is lexicon.Default(); nil turns synonyms
// off.
func WithThesaurus(t *lexicon.Thesaurus) Option {
	return func(o *options) { o.lex = t }
}

// WithSynonymWeight sets the weight of a synonym hit relative to an exact
// hit (default lexicon.SynonymWeight). Values outside (0,1] are ignored.
func WithSynonymWeight(w float64) Option {
	return func(o *options) {
		if w > 0 && w <= 1 {
			o.synWeight = w
		}
	}
}

// WithK1 sets BM25's term-frequency saturation k1 (default 1.2).
func WithK1(k1 float64) Option {
	return func(o *options) {
		if k1 > 0 {
			o.k1 = k1
		}
	}
}

// WithB sets BM25's length normalisation b in [0,1] (default 0.75).
func WithB(b float64) Option {
	return func(o *options) {
		if b >= 0 && b <= 1 {
			o.b = b
		}
	}
}

// WithTitleWeight sets how much a match in a section's title counts
// relative to a match in its text (default 3).
func WithTitleWeight(w float64) Option {
	return func(o *options) {
		if w >= 0 {
			o.titleWeight = w
		}
	}
}

// WithPathWeight sets how much a match in the headings above a section
// (Section.Path) counts relative to a match in its text (default 1).
func WithPathWeight(w float64) Option {
	return func(o *options) {
		if w >= 0 {
			o.pathWeight = w
		}
	}
}

// WithFloor sets the relevance floor in [0,1] (default 0.3): sections whose
// RelevanceScore is below it are not returned. 0 returns every match.
func WithFloor(f float64) Option {
	return func(o *options) {
		if f >= 0 && f <= 1 {
			o.floor = f
		}
	}
}

// WithResults sets how many sections a pass returns: at most max, and at
// least min when enough sections score at least half the floor and one
// passes it (defaults 3 and 5).
func WithResults(min, max int) Option {
	return func(o *options) {
		if max > 0 {
			o.maxResults = max
		}
		if min >= 0 {
			o.minResults = min
		}
		if o.minResults > o.maxResults {
			o.minResults = o.maxResults
		}
	}
}

// WithRetryFloorFactor sets the factor in (0,1] the floor is multiplied by
// on each retry (default 0.75).
func WithRetryFloorFactor(f float64) Option {
	return func(o *options) {
		if f > 0 && f <= 1 {
			o.retryFloorFactor = f
		}
	}
}

// fieldStats holds one field's term frequencies and length.
type fieldStats struct {
	tf  map[string]int
	len int
}

func newFieldStats(text string) fieldStats {
	terms := textproc.Terms(text)
	fs := fieldStats{tf: make(map[string]int, len(terms)), len: textproc.BM25Length(terms)}
	for _, t := range terms {
		fs.tf[t]++
	}
	return fs
}

// BM25 ranks sections with Okapi BM25. It is immutable after NewBM25 and
// safe for concurrent use.
type BM25 struct {
	sections []schema.Section
	title    []fieldStats
	parents  []fieldStats // headings above the section's own (Path)
	body     []fieldStats
	df       map[string]int
	// postings lists, for each term, the sections containing it in
	// ascending order.
	postings map[string][]int
	// normT, normP and normB are the per-section length normalisations.
	normT, normP, normB []float64
	avgTitle            float64
	avgPar              float64
	avgBody             float64
	// idfUnseen is the IDF given to a question term no section contains.
	idfUnseen float64
	// profiles holds, per document (Section.Source), the terms of the
	// names it is known by: its title, its organisation and the names
	// its identifying sections (preamble, cover page, signature block)
	// write. A question's name that a passage's document is known by is
	// stated for the passage (Section.NamedBy): a clause need not repeat
	// the parties its preamble names.
	profiles map[string]map[string]bool
	opts     options
}

var _ schema.Retriever = (*BM25)(nil)

// NewBM25 indexes sections (which it copies) for retrieval.
func NewBM25(sections []schema.Section, opts ...Option) *BM25 {
	o := options{
		k1: DefaultK1, b: DefaultB, titleWeight: DefaultTitleWeight, pathWeight: DefaultPathWeight,
		floor:      DefaultFloor,
		minResults: DefaultMinResults, maxResults: DefaultMaxResults,
		retryFloorFactor: DefaultRetryFloorFactor, padRatio: DefaultPadRatio,
		lex: lexicon.Default(), synWeight: lexicon.SynonymWeight,
	}
	for _, opt := range opts {
		opt(&o)
	}
	r := &BM25{
		sections: append([]schema.Section(nil), sections...),
		title:    make([]fieldStats, len(sections)),
		parents:  make([]fieldStats, len(sections)),
		body:     make([]fieldStats, len(sections)),
		df:       map[string]int{},
		postings: map[string][]int{},
		opts:     o,
	}
	var sumT, sumP, sumB int
	r.profiles = map[string]map[string]bool{}
	for _, s := range sections {
		p := r.profiles[s.Source]
		if p == nil {
			p = map[string]bool{}
			r.profiles[s.Source] = p
		}
		text := s.DocTitle + "\n" + s.DocEntity
		if s.Kind.Identifying() {
			text += "\n" + strings.Join(capitalised(s.Content), " ")
		}
		for _, t := range textproc.Terms(text) {
			p[t] = true
		}
	}
	for i, s := range sections {
		r.title[i] = newFieldStats(s.Title)
		if len(s.Path) > 1 {
			r.parents[i] = newFieldStats(strings.Join(s.Path[:len(s.Path)-1], "\n"))
		}
		r.body[i] = newFieldStats(s.Content)
		sumT += r.title[i].len
		sumP += r.parents[i].len
		sumB += r.body[i].len
		seen := make(map[string]bool, len(r.title[i].tf)+len(r.body[i].tf))
		for _, f := range []fieldStats{r.title[i], r.parents[i], r.body[i]} {
			for t := range f.tf {
				seen[t] = true
			}
		}
		for t := range seen {
			r.df[t]++
			r.postings[t] = append(r.postings[t], i)
		}
	}
	if n := len(sections); n > 0 {
		r.avgTitle = math.Max(float64(sumT)/float64(n), 1)
		r.avgPar = math.Max(float64(sumP)/float64(n), 1)
		r.avgBody = math.Max(float64(sumB)/float64(n), 1)
	}
	r.idfUnseen = r.idf(0)
	n := len(sections)
	r.normT, r.normP, r.normB = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range sections {
		r.normT[i] = 1 - headingB + headingB*float64(r.title[i].len)/r.avgTitle
		r.normP[i] = 1 - headingB + headingB*float64(r.parents[i].len)/r.avgPar
		r.normB[i] = 1 - o.b + o.b*float64(r.body[i].len)/r.avgBody
	}
	return r
}

// Len returns the number of indexed sections.
func (r *BM25) Len() int { return len(r.sections) }

// idf is Lucene's BM25 IDF, always positive.
func (r *BM25) idf(df int) float64 {
	n := float64(len(r.sections))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// query is a weighted bag of terms.
type query struct {
	weights map[string]float64
	order   []string // terms in first-seen order, for determinism
	// syn holds, per term, its synonyms that occur in the corpus; they
	// stand in for the term in sections that lack it.
	syn map[string][]string
	// factor scales this query's relevance when results are fused.
	factor float64
	r      *BM25
}

func (q *query) add(text string, w float64) {
	for _, t := range textproc.Terms(textproc.QueryText(text)) {
		if fillerTerms[t] && q.r.df[t] == 0 {
			continue
		}
		if old, ok := q.weights[t]; !ok {
			q.weights[t] = w
			q.order = append(q.order, t)
			q.addSynonyms(t)
		} else if w > old {
			q.weights[t] = w
		}
	}
}

func (q *query) addSynonyms(t string) {
	if q.r.opts.lex == nil || fillerTerms[t] {
		return
	}
	for _, s := range q.r.opts.lex.SynonymStems(t) {
		if q.r.df[s] > 0 {
			q.syn[t] = append(q.syn[t], s)
		}
	}
}

func (r *BM25) newQuery(factor float64) *query {
	return &query{weights: map[string]float64{}, syn: map[string][]string{}, factor: factor, r: r}
}

func (q *query) key() string {
	ts := append([]string(nil), q.order...)
	sort.Strings(ts)
	return strings.Join(ts, " ")
}

// fillerTerms are stems of question words that carry no topic ("how many
// days", "how quickly", "what happens") and are not in textproc's stop
// list. They are ignored when no section contains them; otherwise their
// low IDF already makes them count little. Edit
// internal/wordlists/question_filler.txt.
var fillerTerms = textproc.StemSet(wordlists.Words("question_filler"))

// scored is a section's relevance for one query.
type scored struct {
	idx   int
	score float64
	rel   float64
}

// rank scores every section that shares a term with q.
func (r *BM25) rank(q *query, excluded map[string]bool) []scored {
	if len(q.order) == 0 || len(r.sections) == 0 {
		return nil
	}
	k1, wT, wP := r.opts.k1, r.opts.titleWeight, r.opts.pathWeight
	ideal := 0.0
	idealTF := wT + 1
	for _, t := range q.order {
		idf := r.idfUnseen
		if df := r.df[t]; df > 0 {
			idf = r.idf(df)
		}
		ideal += q.weights[t] * idf * idealTF * (k1 + 1) / (k1 + idealTF)
	}
	scores := map[int]float64{}
	termScore := func(t string, i int) float64 {
		tf := wT*float64(r.title[i].tf[t])/r.normT[i] + wP*float64(r.parents[i].tf[t])/r.normP[i] +
			float64(r.body[i].tf[t])/r.normB[i]
		return r.idf(r.df[t]) * tf * (k1 + 1) / (k1 + tf)
	}
	for _, t := range q.order {
		w := q.weights[t]
		for _, i := range r.postings[t] {
			scores[i] += w * termScore(t, i)
		}
		// synonyms stand in for t, at reduced weight, where t is absent;
		// the best synonym counts, once (they do not raise the ideal)
		alt := map[int]float64{}
		for _, s := range q.syn[t] {
			if _, primary := q.weights[s]; primary {
				continue
			}
			for _, i := range r.postings[s] {
				if r.title[i].tf[t]+r.parents[i].tf[t]+r.body[i].tf[t] > 0 {
					continue
				}
				alt[i] = math.Max(alt[i], w*r.opts.synWeight*termScore(s, i))
			}
		}
		for i, v := range alt {
			scores[i] += v
		}
	}
	for i := range scores {
		if excluded[r.sections[i].Key()] {
			delete(scores, i)
		}
	}
	out := make([]scored, 0, len(scores))
	for i, s := range scores {
		out = append(out, scored{idx: i, score: s, rel: math.Min(1, s/ideal)})
	}
	r.sortScored(out)
	return out
}

// sortScored orders by relevance, then by position in the corpus, so that
// equal scores always come out in the same order.
func (r *BM25) sortScored(s []scored) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].rel != s[j].rel {
			return s[i].rel > s[j].rel
		}
		return s[i].idx < s[j].idx
	})
}

var reCitation = regexp.MustCompile(`\((?i:see\s+)?[^()]*,\s*pages?\s[^()]*\)`)

// Retrieve returns the best sections for the request, best first, with
// RelevanceScore in [0,1]; none when nothing passes the floor. It never
// returns a section whose Key is in req.Feedback.Excluded. A depth set
// with schema.WithRetrieveDepth replaces the most it returns (WithResults).
// The only error is the context's.
func (r *BM25) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	floor := r.floorFor(req.Attempt)
	req.Query = question.Asked(req.Query) // not "Hi," or "Thanks!"
	main, subs := r.questionQueries(req.Query, req.Decomposition)
	queries := append([]*query{main}, subs...)
	if claims := r.claimsQuery(req); claims != nil {
		queries = append(queries, claims)
	}
	best, firsts, err := r.fuse(ctx, queries, len(subs), excludedKeys(req), floor)
	if err != nil {
		return nil, err
	}
	all := make([]scored, 0, len(best))
	for _, s := range best {
		all = append(all, s)
	}
	r.sortScored(all)
	limit := r.opts.maxResults
	if d := schema.RetrieveDepth(ctx); d > 0 {
		limit = d // an evaluation reading deeper (schema.WithRetrieveDepth)
	}
	out := r.pick(best, firsts, all, floor, limit)
	out = r.widen(req, out, all, floor*r.opts.padRatio, limit)
	sort.SliceStable(out, func(i, j int) bool { return out[i].rel > out[j].rel })
	secs := r.sectionsOf(out)
	r.namedBy(req.Query, secs)
	return secs, nil
}

// namedBy adds to each section's NamedBy the names the question gives
// (relevance.Frame's Entities) that its document is known by (profiles).
func (r *BM25) namedBy(q string, secs []schema.Section) {
	if len(secs) == 0 {
		return
	}
	names := relevance.Analyze(q).Entities
	for i := range secs {
		p := r.profiles[secs[i].Source]
		for _, n := range names {
			ts := textproc.Terms(n)
			if len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return !p[t] }) && !slices.Contains(secs[i].NamedBy, n) {
				secs[i].NamedBy = append(slices.Clip(secs[i].NamedBy), n)
			}
		}
	}
}

// capitalised returns the words of text written with a capital, past a
// sentence's first: the names it writes.
func capitalised(text string) []string {
	var out []string
	prev := "."
	for _, w := range strings.Fields(text) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) && !strings.ContainsAny(prev[len(prev)-1:], ".!?:") {
			out = append(out, w)
		}
		prev = w
	}
	return out
}

// excludedKeys returns the keys of the sections the feedback excludes.
func excludedKeys(req schema.RetrieveRequest) map[string]bool {
	excluded := map[string]bool{}
	if req.Feedback != nil {
		for _, k := range req.Feedback.Excluded {
			excluded[k] = true
		}
	}
	return excluded
}

// floorFor returns the relevance floor of an attempt: the configured
// floor, lowered by the retry floor factor on each retry.
func (r *BM25) floorFor(attempt int) float64 {
	floor := r.opts.floor
	if attempt > 0 {
		floor *= math.Pow(r.opts.retryFloorFactor, float64(attempt))
	}
	return floor
}

// questionQueries returns the question, enriched with the
// decomposition's key terms, entities, constraints and search terms, and the
// decomposition's distinct sub-queries. A question left with no terms of
// its own and a single sub-query is replaced by that sub-query.
func (r *BM25) questionQueries(question string, d *schema.Decomposition) (main *query, subs []*query) {
	main = r.newQuery(1)
	main.add(question, 1)
	if d == nil {
		return main, nil
	}
	for _, list := range [][]string{d.KeyTerms, d.Entities, d.Constraints, d.SearchTerms} {
		for _, e := range list {
			main.add(e, extraWeight)
		}
	}
	seen := map[string]bool{main.key(): true}
	for _, sq := range d.SubQueries {
		q := r.newQuery(1)
		q.add(sq, 1)
		if k := q.key(); k != "" && !seen[k] {
			seen[k] = true
			subs = append(subs, q)
		}
	}
	if len(main.order) == 0 && len(subs) == 1 {
		return subs[0], nil
	}
	return main, subs
}

// claimsQuery returns, on a retry with feedback, the judge's unsupported
// claims (citations removed) as one down-weighted query; nil otherwise.
func (r *BM25) claimsQuery(req schema.RetrieveRequest) *query {
	if req.Attempt == 0 || req.Feedback == nil || len(req.Feedback.UnsupportedClaims) == 0 {
		return nil
	}
	claims := r.newQuery(claimFactor)
	for _, c := range req.Feedback.UnsupportedClaims {
		claims.add(reCitation.ReplaceAllString(c, " "), 1)
	}
	return claims
}

// fuse ranks the sections for every query: a section's relevance is its
// best (scaled) relevance for any query. queries holds the question, then
// nsubs sub-queries, then perhaps the claims; firsts are the best section
// of each sub-query that reaches floor, to be picked first.
func (r *BM25) fuse(ctx context.Context, queries []*query, nsubs int, excluded map[string]bool, floor float64) (best map[int]scored, firsts []int, err error) {
	best = map[int]scored{}
	for qi, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for ri, s := range r.rank(q, excluded) {
			s.rel *= q.factor
			if old, ok := best[s.idx]; !ok || s.rel > old.rel {
				best[s.idx] = s
			}
			if ri == 0 && qi > 0 && qi <= nsubs && s.rel >= floor {
				firsts = append(firsts, s.idx)
			}
		}
	}
	return best, firsts, nil
}

// pick chooses up to limit sections: each sub-query's best (firsts),
// then every section of all (sorted, best first) that reaches floor, then,
// when something was picked, sections above PadRatio × floor up to
// MinResults.
func (r *BM25) pick(best map[int]scored, firsts []int, all []scored, floor float64, limit int) []scored {
	picked := map[int]bool{}
	var out []scored
	take := func(s scored) {
		if !picked[s.idx] && len(out) < limit {
			picked[s.idx] = true
			out = append(out, s)
		}
	}
	for _, i := range firsts {
		take(best[i])
	}
	for _, s := range all {
		if s.rel >= floor {
			take(s)
		}
	}
	if len(out) > 0 {
		for _, s := range all {
			if len(out) >= r.opts.minResults {
				break
			}
			if s.rel >= floor*r.opts.padRatio {
				take(s)
			}
		}
	}
	return out
}

// sectionsOf returns the sections of out, in order, with their relevance
// rounded to four decimals as RelevanceScore.
func (r *BM25) sectionsOf(out []scored) []schema.Section {
	res := make([]schema.Section, len(out))
	for i, s := range out {
		sec := r.sections[s.idx]
		sec.RelevanceScore = math.Round(s.rel*10000) / 10000
		res[i] = sec
	}
	return res
}

// widen makes a retry hand out a different set from the rejected pass: when
// every picked section was in req.Feedback.Previous, the best candidate
// that was not (and scores at least min) joins the set, replacing the
// weakest pick when the set is full. Previous sections stay: they may hold
// the evidence the rejected answer misread.
func (r *BM25) widen(req schema.RetrieveRequest, out, all []scored, min float64, limit int) []scored {
	if req.Attempt == 0 || req.Feedback == nil || len(req.Feedback.Previous) == 0 {
		return out
	}
	prev := make(map[string]bool, len(req.Feedback.Previous))
	for _, k := range req.Feedback.Previous {
		prev[k] = true
	}
	picked := make(map[int]bool, len(out))
	for _, s := range out {
		if !prev[r.sections[s.idx].Key()] {
			return out // already different
		}
		picked[s.idx] = true
	}
	for _, s := range all {
		if picked[s.idx] || prev[r.sections[s.idx].Key()] || s.rel < min {
			continue
		}
		if len(out) >= limit {
			out[len(out)-1] = s
		} else {
			out = append(out, s)
		}
		break
	}
	return out
}
