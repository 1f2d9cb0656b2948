package index

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestPrunedTopKEqualsExhaustive: MaxScore's top k (ids, order, scores and
// relevance) are exhaustive scoring's, query by query, on a corpus like
// the benchmark's (Zipf words, documents whose titles share the query
// vocabulary so that the context field counts), through the index's
// life: written in transactions of every size (several segments and
// merge levels), documents replaced and deleted (postings of dead sections
// still in their segments), after Optimize (one segment, long lists in
// chunks), and with blocks whose bounds a DocMind without them wrote.
func TestPrunedTopKEqualsExhaustive(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	s := newSynth(21)
	title := func() string {
		return s.words[20+s.rng.IntN(2000)] + " " + s.words[20+s.rng.IntN(200)]
	}
	docs, nq := 160, 150 // 8,000 sections
	if raceEnabled {
		// ten times slower: a smaller corpus (still several segments,
		// chunked lists and tombstones) and fewer queries
		docs, nq = 50, 60
	}
	for d := 0; d < docs; {
		var batch []DocumentSections
		for range 1 + s.rng.IntN(12) {
			ds := s.doc(d)
			ds.Doc.Title = title()
			batch = append(batch, ds)
			d++
		}
		if err := ix.PutDocuments(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < docs; i += 9 { // replace some documents, delete others
		if i%2 == 0 {
			ds := s.doc(i)
			ds.Doc.Title = title()
			if err := ix.PutDocument(ctx, ds.Doc, ds.Sections); err != nil {
				t.Fatal(err)
			}
		} else if _, err := ix.DeleteDocument(ctx, s.doc(i).Doc.Path); err != nil {
			t.Fatal(err)
		}
	}
	queries := make([]string, nq)
	for i := range queries {
		queries[i] = s.query()
		if i%3 == 0 { // a common word too: long lists, in chunks
			queries[i] += " " + s.words[2+s.rng.IntN(40)]
		}
		if i%4 == 0 { // a title word: the context field
			queries[i] += " " + title()
		}
	}
	var st searchStats
	compare := func(stage string) {
		t.Helper()
		for i, q := range queries {
			k := []int{10, 1, 50}[i%3]
			want, err := ix.SearchWith(ctx, q, k, SearchOptions{exhaustive: true, noCache: true})
			if err != nil {
				t.Fatal(err)
			}
			// pruned, with lists read from the index and from the cache
			// (read by the search before, or by this one)
			for _, opt := range []SearchOptions{{stats: &st, noCache: true}, {}, {}} {
				got, err := ix.SearchWith(ctx, q, k, opt)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameHits(got, want); err != nil {
					t.Fatalf("%s: query %q, top %d (cache %v): pruned differs from exhaustive: %v", stage, q, k, !opt.noCache, err)
				}
			}
		}
	}
	compare("as written")
	written := st
	if err := ix.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	compare("optimized")
	if _, err := ix.DB().ExecContext(ctx, `UPDATE lex_blocks SET bounds = NULL WHERE id % 2 = 0`); err != nil {
		t.Fatal(err)
	}
	ix.lists = listCache{} // holds the bounds the statement removed
	compare("half the blocks without bounds")
	if written.scored*2 > written.postings {
		t.Errorf("pruning scored %d of %d postings as written, want at most half", written.scored, written.postings)
	}
	t.Logf("as written, pruning scored %.1f%% of the query terms' postings", 100*float64(written.scored)/float64(written.postings))
}

func sameHits(got, want []Hit) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d hits, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.rowid != w.rowid || g.Score != w.Score || g.Section.RelevanceScore != w.Section.RelevanceScore || g.Section.ID != w.Section.ID {
			return fmt.Errorf("hit %d: section %d score %v relevance %v, want section %d score %v relevance %v",
				i, g.rowid, g.Score, g.Section.RelevanceScore, w.rowid, w.Score, w.Section.RelevanceScore)
		}
	}
	return nil
}

// TestFrontierBoundsEveryPosting: a list's bound is at least the score of
// each of its postings for any BM25 parameters, and is reached by one of
// them (exact) unless the frontier was folded; bounds read back as written.
func TestFrontierBoundsEveryPosting(t *testing.T) {
	s := newSynth(5)
	for trial := range 200 {
		var w listWriter
		var ps []posting
		for i := range 1 + s.rng.IntN(200) {
			p := posting{id: int64(i*3 + 1), tf: uint32(1 + s.rng.IntN(1+trial%20)), length: uint32(1 + s.rng.IntN(300))}
			w.add(p)
			ps = append(ps, p)
		}
		enc := appendBounds(nil, w.front, w.skips)
		var lb listBounds
		rest, err := nextBounds(enc, &lb, len(w.buf))
		if err != nil || len(rest) != 0 || len(lb.front) != len(foldFrontier(w.front)) || len(lb.skips) != len(w.skips) {
			t.Fatalf("bounds %v %v decode as %+v (rest %d), %v", w.front, w.skips, lb, len(rest), err)
		}
		for _, par := range [][3]float64{{1.2, 0.75, 120}, {0.9, 0.4, 40}, {2, 1, 300}, {1.2, 0, 1}} {
			k1, b, avgdl := par[0], par[1], par[2]
			c1, c2 := k1*(1-b), k1*b/avgdl
			ub := textBound(lb.front, 1, c1, c2)
			best := 0.0
			for _, p := range ps {
				tf := float64(p.tf)
				best = max(best, tf/(tf+c1+c2*float64(p.length)))
			}
			if ub < best || (len(w.front) <= maxFrontier && math.Abs(ub-best) > 1e-12) {
				t.Fatalf("frontier %v: bound %v, best posting %v (k1 %v b %v avgdl %v)", w.front, ub, best, k1, b, avgdl)
			}
		}
	}
}

// TestSeekWithSkipPoints: seeking through lists in chunks, with skip
// points, lands where a posting-by-posting scan does.
func TestSeekWithSkipPoints(t *testing.T) {
	s := newSynth(8)
	for range 50 {
		var ids []int64
		var w listWriter
		id := int64(0)
		for range 1 + s.rng.IntN(3000) {
			id += 1 + int64(s.rng.IntN(9))
			ids = append(ids, id)
			w.add(posting{id: id, tf: 1, length: 10})
		}
		var lists, packed []termList
		for _, e := range chunkPostings(w.entry("t")) {
			l := termList{first: firstID(e.data), data: e.data, skips: e.skips}
			lists = append(lists, l)
			p, err := l.pack()
			if err != nil || p.packed == nil {
				t.Fatalf("pack: %v", err)
			}
			packed = append(packed, p)
		}
		seed := s.rng.Uint64()
		for _, ls := range [][]termList{lists, packed} {
			c := &listCursor{lists: ls}
			if err := c.start(0); err != nil {
				t.Fatal(err)
			}
			steps := newSynth(seed) // the same targets for both
			at := 0
			for target := int64(1); ; target += 1 + int64(steps.rng.IntN(400)) {
				if steps.rng.IntN(4) == 0 { // and single steps
					if err := c.next(); err != nil {
						t.Fatal(err)
					}
					target = c.id
				}
				if err := c.seek(target); err != nil {
					t.Fatal(err)
				}
				for at < len(ids) && ids[at] < target {
					at++
				}
				want := int64(math.MaxInt64)
				if at < len(ids) {
					want = ids[at]
				}
				if c.id != want {
					t.Fatalf("packed %v: seek(%d) = %d, want %d", ls[0].packed != nil, target, c.id, want)
				}
				if at == len(ids) {
					break
				}
			}
		}
	}
}

// FuzzFindInBlock: a corrupt block or bounds blob gives an error or a
// result, never a panic, and a found entry lies inside the block.
//
//	go test ./index -run '^$' -fuzz FuzzFindInBlock -fuzztime 30s
func FuzzFindInBlock(f *testing.F) {
	var w listWriter
	for i := range 200 {
		w.add(posting{id: int64(2*i + 1), tf: uint32(1 + i%5), length: uint32(10 + i%70)})
	}
	e := w.entry("fee")
	block := encodeBlock([]blockEntry{{term: "ann", df: 1, data: []byte{1, 1, 1}}, e})
	bounds, err := encodeBounds([]blockEntry{{term: "ann", df: 1, data: []byte{1, 1, 1}}, e})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(block, bounds, "fee")
	f.Add(block, bounds, "ann")
	f.Add([]byte{}, []byte{}, "x")
	f.Fuzz(func(t *testing.T, block, bounds []byte, term string) {
		postings, _, pos, ok, err := findInBlock(block, term)
		if err != nil || !ok {
			return
		}
		if len(postings) > len(block) {
			t.Fatalf("entry of %d bytes in a %d-byte block", len(postings), len(block))
		}
		var lb listBounds
		rest := bounds
		for j := 0; j <= pos && err == nil; j++ {
			size := math.MaxInt
			if j == pos {
				size = len(postings)
			}
			rest, err = nextBounds(rest, &lb, size)
		}
		if err != nil {
			return
		}
		for _, sp := range lb.skips {
			if sp.off <= 0 || sp.off >= len(postings) {
				t.Fatalf("skip offset %d in a %d-byte list", sp.off, len(postings))
			}
		}
		c := &listCursor{lists: []termList{{first: firstID(postings), data: postings, skips: lb.skips}}}
		if c.start(0) != nil {
			return
		}
		for d := int64(0); d < 50 && c.id != math.MaxInt64; d += 7 {
			if c.seek(d) != nil {
				return
			}
		}
	})
}
