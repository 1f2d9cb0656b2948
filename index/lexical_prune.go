package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// Dynamic pruning of lexical search: MaxScore (Turtle and Flood), document
// at a time, over each segment's postings lists in turn, with the lists'
// exact score upper bounds (lexical_bounds.go).
//
// Within a segment, the text lists of the query terms are ordered by
// bound; the longest prefix of them whose bounds, plus the context
// field's, sum below the score of the k-th section found so far is
// non-essential: a section in none of the other lists cannot enter the
// top k, so only the essential lists are walked, and a non-essential list
// is read only at the sections they find, and only while the section's
// score so far plus the bounds of the lists not yet read can still beat
// the k-th. The context field's lists never bring a section (a context
// match alone scores nothing) and are read last. The top k found is that
// of exhaustive scoring: each section's score is summed in the same order
// and precision (float32, terms by name, text then context), ties go to
// the lower id, and bounds are compared with a margin far above float32
// rounding.

// termList is one postings list of a query term: its postings in one
// segment, or one chunk of a long list.
type termList struct {
	seg    int64
	first  int64 // id of the first posting
	data   []byte
	bounds []tfLen // the list's frontier; nil: none stored
	skips  []skipPoint
	// packed is the list decoded, when listCache keeps it so (data is
	// then nil): walking and seeking it decodes nothing
	packed []packedPosting
}

// packedPosting is a decoded posting: its id's offset from the list's
// first id, tf and length (lists whose values do not fit stay encoded).
type packedPosting struct {
	off        uint32
	tf, length uint16
}

// pack returns l with its postings decoded into packed, or l as it is when
// a value does not fit a packedPosting.
func (l termList) pack() (termList, error) {
	out := make([]packedPosting, 0, len(l.data)/3)
	fits := true
	err := decodePostings(l.data, func(p posting) {
		off := p.id - l.first
		if off > math.MaxUint32 || p.tf > math.MaxUint16 || p.length > math.MaxUint16 {
			fits = false
		}
		out = append(out, packedPosting{off: uint32(off), tf: uint16(p.tf), length: uint16(p.length)})
	})
	if err != nil || !fits {
		return l, err
	}
	l.packed, l.data = slices.Clip(out), nil
	return l, nil
}

// each calls fn with every posting of the list, in id order.
func (l *termList) each(fn func(p posting)) error {
	if l.packed != nil {
		for _, p := range l.packed {
			fn(posting{id: l.first + int64(p.off), tf: uint32(p.tf), length: uint32(p.length)})
		}
		return nil
	}
	return decodePostings(l.data, fn)
}

// boundSlack is the relative margin of every bound comparison.
const boundSlack = 1e-5

// listCursor walks a term's lists of one segment in id order, decoding
// one posting at a time.
type listCursor struct {
	term  int // index in the query's terms (the order scores are summed in)
	ctx   bool
	wk    float64 // idf·qtf·(k1+1), times the context weight for the context field
	ub    float64
	lists []termList
	li    int    // current list
	rest  []byte // its postings after the current one
	// a packed list: its postings, and the current one's index
	packed []packedPosting
	pos    int
	base   int64 // the list's first id
	// the current posting; id is math.MaxInt64 at the end
	id         int64
	tf, length uint32
}

// start moves to the first posting of lists[li].
func (c *listCursor) start(li int) error {
	c.li, c.id = li, 0
	if li == len(c.lists) {
		c.id = math.MaxInt64
		return nil
	}
	l := &c.lists[li]
	c.rest, c.packed, c.base = l.data, l.packed, l.first
	if c.packed != nil {
		c.pos = 0
		c.setPacked()
		return nil
	}
	return c.next()
}

// setPacked makes packed[pos] the current posting (packed is not empty).
func (c *listCursor) setPacked() {
	p := c.packed[c.pos]
	c.id, c.tf, c.length = c.base+int64(p.off), uint32(p.tf), uint32(p.length)
}

// next moves to the next posting.
func (c *listCursor) next() error {
	if c.packed != nil {
		if c.pos++; c.pos < len(c.packed) {
			c.setPacked()
			return nil
		}
		return c.start(c.li + 1)
	}
	if len(c.rest) == 0 {
		return c.start(c.li + 1)
	}
	d, tf, l, n := nextPosting(c.rest)
	if n <= 0 {
		return errCorruptPostings
	}
	c.rest = c.rest[n:]
	c.id += int64(d)
	c.tf, c.length = uint32(tf), uint32(l)
	return nil
}

// seek moves to the first posting with id ≥ d, skipping whole lists
// (chunks) without decoding them.
func (c *listCursor) seek(d int64) error {
	if c.id >= d {
		return nil
	}
	j := c.li
	for j+1 < len(c.lists) && c.lists[j+1].first <= d {
		j++
	}
	if j != c.li {
		if err := c.start(j); err != nil {
			return err
		}
	}
	if c.packed != nil {
		if c.id < d {
			// galloping, then binary search, from the current posting
			rest := c.packed[c.pos:]
			target := d - c.base // > 0: the current posting is below d
			hi := 1
			for hi < len(rest) && int64(rest[hi].off) < target {
				hi *= 2
			}
			lo := hi / 2
			hi = min(hi, len(rest))
			k := lo + sort.Search(hi-lo, func(i int) bool { return int64(rest[lo+i].off) >= target })
			if c.pos += k; c.pos == len(c.packed) {
				return c.start(c.li + 1) // the next list starts above d
			}
			c.setPacked()
		}
		return nil
	}
	if l := &c.lists[c.li]; len(l.skips) > 0 && c.id < d {
		// the last skip point whose base is below d, if ahead
		k := sort.Search(len(l.skips), func(k int) bool { return l.skips[k].base >= d }) - 1
		if k >= 0 && l.skips[k].off > len(l.data)-len(c.rest) {
			c.rest, c.id = l.data[l.skips[k].off:], l.skips[k].base
			if err := c.next(); err != nil {
				return err
			}
		}
	}
	for c.id < d {
		if err := c.next(); err != nil {
			return err
		}
	}
	return nil
}

// firstID returns the id of a list's first posting (lists are
// delta-encoded from zero).
func firstID(data []byte) int64 {
	d, n := binary.Uvarint(data)
	if n <= 0 {
		return 0
	}
	return int64(d)
}

// scored is one section of the running top k.
type scored struct {
	id             int64
	score, content float32
}

// ranksBefore reports whether a ranks before b: higher score, then lower
// id (as topN).
func (a scored) ranksBefore(b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// topK is a min-heap of the best k sections (root: the worst kept).
type topK struct {
	k int
	h []scored
}

func (t *topK) full() bool { return len(t.h) == t.k }

// threshold is the score a section must beat to enter (-inf until full).
func (t *topK) threshold() float64 {
	if !t.full() {
		return math.Inf(-1)
	}
	return float64(t.h[0].score)
}

func (t *topK) push(s scored) {
	h := t.h
	if len(h) < t.k {
		h = append(h, s)
		for i := len(h) - 1; i > 0; {
			p := (i - 1) / 2
			if !h[p].ranksBefore(h[i]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
		t.h = h
		return
	}
	if !s.ranksBefore(h[0]) {
		return
	}
	h[0] = s
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		w := l
		if r := l + 1; r < len(h) && h[l].ranksBefore(h[r]) {
			w = r
		}
		if !h[i].ranksBefore(h[w]) {
			break
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// sorted returns the kept sections best first.
func (t *topK) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int {
		if a.ranksBefore(b) {
			return -1
		}
		if b.ranksBefore(a) {
			return 1
		}
		return 0
	})
	return out
}

// pruneQuery is one query's scoring parameters.
type pruneQuery struct {
	k1, c1, c2 float64
	cw         float64        // context field weight
	n          int64          // sections
	deleted    map[int64]bool // sections deleted, their postings not yet merged away
	stats      *searchStats
}

// pruned returns the top k of qts (read with their lists) by MaxScore;
// ok is false when a section it found could not be loaded (the caller
// then scores exhaustively).
func (ix *Index) pruned(ctx context.Context, conn *reader, q *pruneQuery, qts []queryTerm, k int, unit float64) (hits []Hit, ok bool, err error) {
	type segCursors struct{ text, ctx []*listCursor }
	segs := map[int64]*segCursors{}
	isCtx := make([]bool, len(qts))
	for i, qt := range qts {
		isCtx[i] = strings.HasPrefix(qt.term, contextPrefix)
		if qt.df == 0 {
			continue
		}
		var wk float64
		if isCtx[i] {
			wk = contextWeight(qt, q.n, q.cw) * (q.k1 + 1)
		} else {
			wk = termWeight(qt, q.n) * (q.k1 + 1)
		}
		lists := slices.Clone(qt.lists)
		slices.SortFunc(lists, func(a, b termList) int {
			return cmp.Or(cmp.Compare(a.seg, b.seg), cmp.Compare(a.first, b.first))
		})
		for len(lists) > 0 {
			j := 1
			for j < len(lists) && lists[j].seg == lists[0].seg {
				j++
			}
			c := &listCursor{term: i, ctx: isCtx[i], wk: wk, lists: lists[:j]}
			if err := c.start(0); err != nil {
				return nil, false, fmt.Errorf("term %q: %w", qt.term, err)
			}
			for _, l := range c.lists {
				if c.ctx {
					c.ub = max(c.ub, contextBound(l.bounds, wk, q.k1))
				} else {
					c.ub = max(c.ub, textBound(l.bounds, wk, q.c1, q.c2))
				}
			}
			sc := segs[lists[0].seg]
			if sc == nil {
				sc = &segCursors{}
				segs[lists[0].seg] = sc
			}
			if c.ctx {
				sc.ctx = append(sc.ctx, c)
			} else {
				sc.text = append(sc.text, c)
			}
			lists = lists[j:]
		}
	}
	top := &topK{k: k}
	for _, seg := range slices.Sorted(maps.Keys(segs)) {
		if err := q.maxScore(segs[seg].text, segs[seg].ctx, isCtx, top); err != nil {
			return nil, false, err
		}
	}
	best := top.sorted()
	if len(best) == 0 {
		return nil, true, nil
	}
	ids := make([]int64, len(best))
	for i, s := range best {
		ids[i] = s.id
	}
	secs, err := conn.sections(ctx, ids)
	if err != nil {
		return nil, false, err
	}
	for _, s := range best {
		sec, found := secs[s.id]
		if !found {
			return nil, false, nil
		}
		sec.RelevanceScore = min(1, float64(s.content)/unit)
		raw := float64(s.score)
		hits = append(hits, Hit{Section: sec, Score: raw, Lexical: raw, rowid: s.id})
	}
	return hits, true, nil
}

// maxScore runs MaxScore over one segment's cursors (text and context),
// adding the sections it finds to top. isCtx tells, for each query term
// (cursor.term), whether it is a context field term.
func (q *pruneQuery) maxScore(text, ctxs []*listCursor, isCtx []bool, top *topK) error {
	nterms := len(isCtx)
	if len(text) == 0 {
		return nil
	}
	slices.SortFunc(text, func(a, b *listCursor) int { return cmp.Compare(a.ub, b.ub) })
	ctxSum := 0.0
	for _, c := range ctxs {
		ctxSum += c.ub
	}
	// prefix[i]: the bounds of text[0..i] and of the context lists
	prefix := make([]float64, len(text))
	sum := ctxSum
	for i, c := range text {
		sum += c.ub
		prefix[i] = sum
	}
	below := func(bound, theta float64) bool { return bound*(1+boundSlack) < theta }
	ess := 0
	partition := func() {
		theta := top.threshold()
		for ess < len(text) && below(prefix[ess], theta) {
			ess++
		}
	}
	partition()
	contrib := make([]float32, nterms)
	has := make([]bool, nterms)
	var touched []int
	var nscored int64
	defer func() {
		if q.stats != nil {
			q.stats.scored += nscored
		}
	}()
	add := func(c *listCursor) float64 {
		tf := float64(c.tf)
		var s float32
		if c.ctx {
			s = float32(c.wk * tf / (tf + q.k1))
		} else {
			s = float32(c.wk * tf / (tf + q.c1 + q.c2*float64(c.length)))
		}
		contrib[c.term], has[c.term] = s, true
		touched = append(touched, c.term)
		nscored++
		return float64(s)
	}
	for ess < len(text) {
		d := int64(math.MaxInt64)
		for _, c := range text[ess:] {
			d = min(d, c.id)
		}
		if d == math.MaxInt64 {
			return nil
		}
		for _, t := range touched {
			has[t] = false
		}
		touched = touched[:0]
		score := 0.0
		dead := q.deleted[d]
		for _, c := range text[ess:] {
			if c.id == d {
				if !dead {
					score += add(c)
				}
				if err := c.next(); err != nil {
					return err
				}
			}
		}
		if dead {
			continue
		}
		theta := top.threshold()
		pruned := false
		for i := ess - 1; i >= 0; i-- {
			if below(score+prefix[i], theta) {
				pruned = true
				break
			}
			c := text[i]
			if err := c.seek(d); err != nil {
				return err
			}
			if c.id == d {
				score += add(c)
			}
		}
		if pruned {
			continue
		}
		rest := ctxSum
		for _, c := range ctxs {
			if below(score+rest, theta) {
				pruned = true
				break
			}
			if err := c.seek(d); err != nil {
				return err
			}
			if c.id == d {
				score += add(c)
			}
			rest -= c.ub
		}
		if pruned {
			continue
		}
		// the score as exhaustive scoring sums it
		var s scored
		s.id = d
		for t := range nterms {
			if has[t] && !isCtx[t] {
				s.score += contrib[t]
				s.content += contrib[t]
			}
		}
		for t := range nterms {
			if has[t] && isCtx[t] {
				s.score += contrib[t]
			}
		}
		top.push(s)
		if top.full() {
			partition()
		}
	}
	return nil
}
