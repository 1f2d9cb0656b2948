package index

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// listCache keeps the postings lists that lexical search read, per query
// term (a text or context term): its df and its lists in every segment,
// with their bounds and skip points. Reading them is the SQL part of a
// search — a statement that looks up, for every segment and term, the
// block that would hold the term, and copies the block out of SQLite —
// and it was 39% of a search's CPU time at 100,000 sections (the profile
// in docs/notes/lexical.md); a process that answers many questions reads
// the same common terms again and again.
//
// The lists are valid for one set of segments, named by its generation:
// the newest segment's id, the number of segments and the number of
// deleted sections. Segments are immutable, and their ids only grow
// (AUTOINCREMENT): a write adds a segment (a higher id), deletes sections
// (more tombstones), or merges segments into a new one (a higher id) or,
// when all their postings are dead, into none (fewer segments with the
// same newest id: the segments up to a given id can only go away, so their
// count tells the sets apart). So a write by this process or another
// changes the generation and empties the cache. The
// generation, the corpus statistics and any list not cached are read in
// the search's read transaction, so a search sees one snapshot. Memory is
// bounded by listCacheBytes; past it, terms go in CLOCK order (the
// "second chance" approximation of least recently used): the oldest term
// goes unless a search used it since the hand last passed, in which case
// it stays for another round. (The cache started over when full; at 1M
// sections it then dropped the common terms' decoded lists soon after
// decoding them, and a search took 1.08× as long as without the cache.)
type listCache struct {
	mu    sync.Mutex
	gen   [3]int64
	terms map[string]cachedTerm
	clock []string // the cached terms, oldest first: the eviction order
	bytes int
	max   int // bytes; 0 is listCacheBytes
}

// cachedTerm is one term's lists as read (shared by every search that
// uses them: never modified).
type cachedTerm struct {
	df     int
	lists  []termList
	packed bool // lists are decoded (termList.pack)
	size   int  // bytes held, estimated
	used   bool // a search used it since the clock hand last passed
}

// listCacheBytes bounds the cached lists (about 4 bytes a posting as
// stored, 8 decoded).
const listCacheBytes = 64 << 20

// listCacheShare is the share of the budget one term's lists may take:
// a larger term (a common word at 1M sections: megabytes of postings) is
// read from the index at each search and never kept or decoded. Kept, it
// would push out dozens of others, and decoding it costs more than the
// few searches it serves before it goes save (MaxScore reads about a
// tenth of such a list): at 1M sections the cache that kept every term
// made a search 1.17× as long as no cache (as written).
const listCacheShare = 64

// termLimit is the most bytes one term's entry may hold.
func (lc *listCache) termLimit() int { return cmp.Or(lc.max, listCacheBytes) / listCacheShare }

// lexStats is the corpus statistics and generation of one snapshot.
type lexStats struct {
	n, totalLen int64
	deleted     bool     // sections deleted whose postings are still in their segments
	gen         [3]int64 // newest segment id, segments, deleted sections
}

// lexStatsSQL reads a lexStats: n, total_len and the generation.
const lexStatsSQL = `SELECT n, total_len, (SELECT coalesce(max(id), 0) FROM lex_segments), (SELECT count(*) FROM lex_segments), (SELECT count(*) FROM lex_deleted)
		FROM lex_stats WHERE id = 1`

// fill sets the df and lists of every term of qts (sorted by term,
// distinct) from the cache, reading the others (with their bounds, which
// the index must have) and keeping them, and returns the snapshot's
// statistics. With useCache false it reads every term, with bounds if
// withBounds, and keeps nothing (as a search did before the cache: the
// measurements compare both).
func (lc *listCache) fill(ctx context.Context, q *reader, qts []queryTerm, withBounds, useCache bool) (lexStats, error) {
	if !useCache {
		var st lexStats
		var err error
		st.n, st.totalLen, st.deleted, err = q.lists(ctx, qts, withBounds, appendLists(qts))
		return st, err
	}
	st, err := q.stats(ctx)
	if err != nil {
		return st, err
	}
	var missing []queryTerm
	var at, again []int // index in qts of each missing term, of each term to pack
	lc.mu.Lock()
	if lc.gen != st.gen || lc.terms == nil {
		lc.gen, lc.terms, lc.clock, lc.bytes = st.gen, map[string]cachedTerm{}, nil, 0
	}
	for i := range qts {
		if ct, ok := lc.terms[qts[i].term]; ok {
			if !ct.used {
				ct.used = true
				lc.terms[qts[i].term] = ct
			}
			qts[i].df, qts[i].lists = ct.df, ct.lists
			// decoded, 8 bytes a posting: kept only within the limit
			if !ct.packed && 8*ct.df <= lc.termLimit() {
				again = append(again, i)
			}
			continue
		}
		missing = append(missing, queryTerm{term: qts[i].term})
		at = append(at, i)
	}
	lc.mu.Unlock()
	if len(missing) == 0 && len(again) == 0 {
		return st, nil
	}
	if len(missing) > 0 {
		if _, _, _, err := q.lists(ctx, missing, true, appendLists(missing)); err != nil {
			return st, err
		}
	}
	// A term read for the second time is kept decoded: a search walks and
	// seeks it without decoding. Not the first time: decoding a whole list
	// costs more than the one search that prunes most of it (a one-shot
	// search over the index as written took twice as long).
	for _, i := range again {
		lists := slices.Clone(qts[i].lists)
		for j, l := range lists {
			if lists[j], err = l.pack(); err != nil {
				return st, fmt.Errorf("term %q: %w", qts[i].term, err)
			}
		}
		qts[i].lists = lists
	}
	lc.mu.Lock()
	defer lc.mu.Unlock()
	for j, m := range missing {
		qts[at[j]].df, qts[at[j]].lists = m.df, m.lists
		lc.put(st.gen, m.term, cachedTerm{df: m.df, lists: m.lists})
	}
	for _, i := range again {
		lc.put(st.gen, qts[i].term, cachedTerm{df: qts[i].df, lists: qts[i].lists, packed: true})
	}
	return st, nil
}

// put keeps a term's lists read at generation gen (lc.mu held), within
// the budget.
func (lc *listCache) put(gen [3]int64, term string, ct cachedTerm) {
	if lc.gen != gen || lc.terms == nil {
		return // the index changed, or the cache was emptied, meanwhile: keep nothing
	}
	ct.size = len(term) + termOverhead
	for _, l := range ct.lists {
		ct.size += len(l.data) + 8*len(l.packed) + 8*len(l.bounds) + 16*len(l.skips) + 128
	}
	limit := cmp.Or(lc.max, listCacheBytes)
	if ct.size > lc.termLimit() {
		return
	}
	old, ok := lc.terms[term]
	if ok {
		lc.bytes -= old.size
		ct.used = old.used
	}
	lc.terms[term] = ct // in the clock already when ok
	lc.bytes += ct.size
	if !ok {
		lc.clock = append(lc.clock, term)
	}
	lc.evict(limit, term)
}

// evict drops terms in clock order until the cache holds at most limit
// bytes, never keep (the term just put). Each term is passed over at most
// once (its used mark cleared) before it goes, so it ends.
func (lc *listCache) evict(limit int, keep string) {
	for lc.bytes > limit && len(lc.clock) > 1 {
		t := lc.clock[0]
		lc.clock = lc.clock[1:]
		ct := lc.terms[t]
		if ct.used || t == keep {
			ct.used = false
			if t != keep {
				lc.terms[t] = ct
			}
			lc.clock = append(lc.clock, t)
			continue
		}
		delete(lc.terms, t)
		lc.bytes -= ct.size
	}
}

// appendLists is a readLists callback that appends a copy of each list to
// its term's lists in qts.
func appendLists(qts []queryTerm) listFunc {
	return func(i int, seg int64, postings []byte, lb *listBounds) error {
		qts[i].lists = append(qts[i].lists, newTermList(seg, postings, lb))
		return nil
	}
}

// newTermList copies one list as readLists passes it (valid only during
// the call).
func newTermList(seg int64, postings []byte, lb *listBounds) termList {
	l := termList{seg: seg, first: firstID(postings), data: bytes.Clone(postings)}
	if lb != nil {
		l.bounds = slices.Clone(lb.front)
		if l.bounds == nil {
			l.bounds = []tfLen{} // bounds stored: an empty list scores nothing
		}
		l.skips = slices.Clone(lb.skips)
	}
	return l
}
