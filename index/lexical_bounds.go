package index

import (
	"encoding/binary"
	"fmt"
)

// Score upper bounds for dynamic pruning (MaxScore, lexical_prune.go).
//
// A BM25 term score, w·(k1+1)·tf/(tf + k1·(1-b) + k1·b·len/avgdl), grows
// with the term frequency tf and shrinks with the section length len, for
// every k1 ≥ 0, b in [0,1] and avgdl > 0. So the highest score any posting
// of a list can reach is reached on its Pareto frontier: the postings that
// no other posting beats on both tf (higher) and length (lower). Each
// postings list of a block (a term's postings in one segment, or one chunk
// of a long list) stores that frontier, which gives the list's exact
// maximum score whatever k1, b and the corpus statistics are at query time
// — they are query-time parameters, and avgdl and the idf change with
// every ingest.
//
// Frontiers are written with the block (lex_blocks.bounds), when a segment
// is written: at ingest, at every merge and at Optimize. Segments are
// immutable, so a frontier stays true until its segment is merged: a
// deleted section's postings stay in the list (and are skipped by the
// search) until the merge that drops them writes a new frontier, so the
// bound can only be higher than the live postings' maximum, never lower.
// Blocks written by a DocMind without bounds (NULL) get the saturation
// bound w·(k1+1), which no posting can reach.

// Skip points. Each list's bounds also hold a skip point every skipEvery
// postings: the id of the posting before it (the base its id delta is
// taken from) and its byte offset in the list. A search that seeks past
// many postings of a long list (a non-essential list, probed only at the
// sections the essential ones bring) jumps to the last skip point before
// the id it seeks and decodes at most skipEvery postings from there.

// skipEvery is the number of postings between two skip points.
const skipEvery = 64

// skipPoint is where decoding of a list can resume.
type skipPoint struct {
	base int64 // id of the posting before off
	off  int   // byte offset of a posting in the list
}

// listWriter encodes one postings list with its score frontier and skip
// points.
type listWriter struct {
	buf   []byte
	last  int64
	df    int
	front []tfLen
	skips []skipPoint
}

// add appends a posting; ids must increase.
func (w *listWriter) add(p posting) {
	if w.df > 0 && w.df%skipEvery == 0 {
		w.skips = append(w.skips, skipPoint{base: w.last, off: len(w.buf)})
	}
	w.buf = appendPosting(w.buf, w.last, p)
	w.last = p.id
	w.df++
	w.front = addFrontier(w.front, tfLen{p.tf, p.length})
}

func (w *listWriter) entry(term string) blockEntry {
	return blockEntry{term: term, df: w.df, data: w.buf, front: w.front, skips: w.skips}
}

// listBounds are one list's bounds as read: its frontier (nil when the
// block has no bounds) and skip points.
type listBounds struct {
	front []tfLen
	skips []skipPoint
}

// tfLen is one point of a frontier.
type tfLen struct {
	tf, length uint32
}

// maxFrontier caps a frontier's points; the points past it are folded into
// one (their highest tf, their lowest length), which bounds all of them.
const maxFrontier = 8

// addFrontier adds a point to frontier f: by decreasing tf, each point
// shorter than every point before it. A frontier holds a point per distinct
// tf at most (a few), so adding is a short scan and allocates nothing once
// the frontier has its size.
func addFrontier(f []tfLen, p tfLen) []tfLen {
	for _, q := range f {
		if q.tf >= p.tf && q.length <= p.length {
			return f // dominated
		}
	}
	out := f[:0]
	at := -1
	for _, q := range f {
		if q.tf <= p.tf && q.length >= p.length {
			continue // p dominates q
		}
		if at < 0 && q.tf < p.tf {
			at = len(out)
		}
		out = append(out, q)
	}
	if at < 0 {
		return append(out, p)
	}
	out = append(out, tfLen{})
	copy(out[at+1:], out[at:])
	out[at] = p
	return out
}

// foldFrontier caps f at maxFrontier points: the points past it are
// folded into one (their highest tf, their lowest length), which bounds
// all of them.
func foldFrontier(f []tfLen) []tfLen {
	if len(f) <= maxFrontier {
		return f
	}
	rest := f[maxFrontier-1:]
	fold := tfLen{tf: rest[0].tf, length: rest[len(rest)-1].length}
	return append(f[:maxFrontier-1:maxFrontier-1], fold)
}

// appendBounds appends one list's frontier and skip points to a block's
// bounds: uvarint count, (tf, length) pairs; uvarint count, (base delta,
// offset delta) pairs.
func appendBounds(buf []byte, f []tfLen, skips []skipPoint) []byte {
	f = foldFrontier(f)
	buf = binary.AppendUvarint(buf, uint64(len(f)))
	for _, p := range f {
		buf = binary.AppendUvarint(buf, uint64(p.tf))
		buf = binary.AppendUvarint(buf, uint64(p.length))
	}
	buf = binary.AppendUvarint(buf, uint64(len(skips)))
	var base int64
	off := 0
	for _, sp := range skips {
		buf = binary.AppendUvarint(buf, uint64(sp.base-base))
		buf = binary.AppendUvarint(buf, uint64(sp.off-off))
		base, off = sp.base, sp.off
	}
	return buf
}

// encodeBounds returns the bounds of a block's entries, in order,
// computed from the postings when the writer did not keep them.
func encodeBounds(entries []blockEntry) ([]byte, error) {
	var buf []byte
	for _, e := range entries {
		if e.front == nil && len(e.data) > 0 {
			var w listWriter
			if err := decodePostings(e.data, w.add); err != nil {
				return nil, fmt.Errorf("term %q: %w", e.term, err)
			}
			e.front, e.skips = w.front, w.skips
		}
		buf = appendBounds(buf, e.front, e.skips)
	}
	return buf, nil
}

// nextBounds reads one list's bounds into lb (reusing its slices) and
// returns the rest; dataLen is the list's size, which skip offsets must
// stay within.
func nextBounds(bounds []byte, lb *listBounds, dataLen int) ([]byte, error) {
	bad := fmt.Errorf("corrupt postings bounds")
	uv := func() (uint64, bool) {
		v, k := binary.Uvarint(bounds)
		if k <= 0 {
			return 0, false
		}
		bounds = bounds[k:]
		return v, true
	}
	n, ok := uv()
	if !ok || n > maxFrontier {
		return nil, bad
	}
	lb.front = lb.front[:0]
	for range n {
		tf, ok1 := uv()
		l, ok2 := uv()
		if !ok1 || !ok2 {
			return nil, bad
		}
		lb.front = append(lb.front, tfLen{uint32(tf), uint32(l)})
	}
	ns, ok := uv()
	if !ok || ns > uint64(len(bounds)) {
		return nil, bad
	}
	lb.skips = lb.skips[:0]
	var base int64
	off := 0
	for range ns {
		db, ok1 := uv()
		do, ok2 := uv()
		if !ok1 || !ok2 || do == 0 || do >= uint64(dataLen-off) {
			return nil, bad
		}
		base, off = base+int64(db), off+int(do)
		lb.skips = append(lb.skips, skipPoint{base: base, off: off})
	}
	return bounds, nil
}

// textBound is the highest text score of a list with frontier f for a
// term of weight wk = idf·qtf·(k1+1); nil f (no bounds stored) gives the
// saturation bound wk.
func textBound(f []tfLen, wk, c1, c2 float64) float64 {
	if f == nil {
		return wk
	}
	ub := 0.0
	for _, p := range f {
		tf := float64(p.tf)
		ub = max(ub, wk*tf/(tf+c1+c2*float64(p.length)))
	}
	return ub
}

// contextBound is textBound for the context field (no length
// normalisation): the highest tf decides.
func contextBound(f []tfLen, wk, k1 float64) float64 {
	if f == nil {
		return wk
	}
	ub := 0.0
	for _, p := range f {
		tf := float64(p.tf)
		ub = max(ub, wk*tf/(tf+k1))
	}
	return ub
}
