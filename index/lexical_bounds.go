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

// tfLen is one point of a frontier.
type tfLen struct {
	tf, length uint32
}

// maxFrontier caps a frontier's points; the points past it are folded into
// one (their highest tf, their lowest length), which bounds all of them.
const maxFrontier = 8

// frontier returns the Pareto frontier of a postings list.
func frontier(data []byte) ([]tfLen, error) {
	var f []tfLen
	err := decodePostings(data, func(p posting) {
		f = addFrontier(f, tfLen{p.tf, p.length})
	})
	return f, err
}

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

// appendBounds appends one list's frontier to a block's bounds.
func appendBounds(buf []byte, f []tfLen) []byte {
	f = foldFrontier(f)
	buf = binary.AppendUvarint(buf, uint64(len(f)))
	for _, p := range f {
		buf = binary.AppendUvarint(buf, uint64(p.tf))
		buf = binary.AppendUvarint(buf, uint64(p.length))
	}
	return buf
}

// encodeBounds returns the bounds of a block's entries, in order: their
// frontiers, computed from the postings when the writer did not keep them.
func encodeBounds(entries []blockEntry) ([]byte, error) {
	var buf []byte
	for _, e := range entries {
		f := e.front
		if f == nil {
			var err error
			if f, err = frontier(e.data); err != nil {
				return nil, fmt.Errorf("term %q: %w", e.term, err)
			}
		}
		buf = appendBounds(buf, f)
	}
	return buf, nil
}

// nextBounds reads one list's frontier from bounds into f (reused) and
// returns the rest.
func nextBounds(bounds []byte, f []tfLen) ([]tfLen, []byte, error) {
	bad := fmt.Errorf("corrupt postings bounds")
	n, k := binary.Uvarint(bounds)
	if k <= 0 || n > maxFrontier {
		return nil, nil, bad
	}
	bounds = bounds[k:]
	f = f[:0]
	for range n {
		tf, k1 := binary.Uvarint(bounds)
		if k1 <= 0 {
			return nil, nil, bad
		}
		l, k2 := binary.Uvarint(bounds[k1:])
		if k2 <= 0 {
			return nil, nil, bad
		}
		bounds = bounds[k1+k2:]
		f = append(f, tfLen{uint32(tf), uint32(l)})
	}
	return f, bounds, nil
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
