package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/viterin/vek/vek32"
)

// ErrModelMismatch is returned (wrapped) when vectors from one embedding
// model would be added to, or searched in, an index built with another.
var ErrModelMismatch = errors.New("embedding model mismatch")

// ErrNoEmbedder is returned (wrapped) by dense search on an index opened
// without WithEmbedder.
var ErrNoEmbedder = errors.New("no embedder configured")

func encodeVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

func decodeVectorInto(dst []float32, b []byte) {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// Normalize scales v to unit length (a zero vector stays as it is), as
// stored vectors and queries are before their cosine is a dot product.
func Normalize(v []float32) {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// checkModel compares the configured model with the index's. When write
// is set and the index has no model yet, it records this one.
func (ix *Index) checkModel(ctx context.Context, q querier, dim int, write bool) error {
	model, have, err := ix.embeddingMeta(ctx, q)
	if err != nil {
		return err
	}
	if model == "" {
		if !write {
			return nil
		}
		tx, ok := q.(*sql.Tx)
		if !ok {
			return errors.New("record embedding model: not in a transaction")
		}
		if err := setMeta(ctx, tx, "embedding_model", ix.model); err != nil {
			return err
		}
		return setMeta(ctx, tx, "embedding_dim", strconv.Itoa(dim))
	}
	if model != ix.model || (dim > 0 && have != dim) {
		return fmt.Errorf("%w: index %s holds vectors from model %q (dimension %d), not %q (dimension %d); use another index for this model or rebuild this one",
			ErrModelMismatch, ix.path, model, have, ix.model, dim)
	}
	return nil
}

// vectorCache is every stored vector of one generation of the index:
// below denseFileMin sections, in one contiguous float32 array; from it
// up, as the int8 dense file (dense_file.go), mapped, not read.
type vectorCache struct {
	generation string
	dim        int
	ids        []int64
	data       []float32 // len(ids) * dim
	file       *denseFile
}

// len is the number of vectors.
func (vc *vectorCache) len() int {
	if vc.file != nil {
		return len(vc.file.ids)
	}
	return len(vc.ids)
}

// denseFileMin is the number of sections from which dense search scans
// the int8 dense file rather than float32 vectors held in memory. Below
// it the exact scan is as fast and the file is not worth a write (see
// "Dense search" in docs/performance.md for the measurement).
var denseFileMin = 20_000

func (ix *Index) generation(ctx context.Context, q querier) (string, error) {
	g, _, err := getMeta(ctx, q, "generation")
	return g, err
}

// vectors returns the loaded vectors, reloading them when the index
// changed since they were loaded.
func (ix *Index) vectors(ctx context.Context, conn *sql.Conn) (*vectorCache, error) {
	gen, err := ix.generation(ctx, conn)
	if err != nil {
		return nil, err
	}
	ix.vecMu.Lock()
	defer ix.vecMu.Unlock()
	if ix.vecs != nil && ix.vecs.generation == gen {
		return ix.vecs, nil
	}
	model, dim, err := ix.embeddingMeta(ctx, conn)
	if err != nil {
		return nil, err
	}
	vc := &vectorCache{generation: gen, dim: dim}
	if dim > 0 {
		var sections int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sections`).Scan(&sections); err != nil {
			return nil, err
		}
		if sections >= denseFileMin {
			// In a folder that takes no dense file (read-only), the
			// same int8 vectors are built in memory.
			df, err := ix.loadDenseFile(ctx, conn, model, gen, dim)
			if err != nil && ctx.Err() == nil {
				df, err = ix.memDenseFile(ctx, conn, model, dim, sections)
			}
			if err != nil {
				return nil, err
			}
			vc.file = df
			ix.vecs = vc
			return vc, nil
		}
		if err := loadVectors(ctx, conn, vc); err != nil {
			return nil, err
		}
	}
	ix.vecs = vc
	return vc, nil
}

// loadVectors reads every stored vector into vc as float32.
func loadVectors(ctx context.Context, conn *sql.Conn, vc *vectorCache) error {
	dim := vc.dim
	var count int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM vectors`).Scan(&count); err != nil {
		return err
	}
	vc.ids = make([]int64, 0, count)
	vc.data = make([]float32, 0, count*dim)
	rows, err := conn.QueryContext(ctx, `SELECT section, vec FROM vectors ORDER BY section`)
	if err != nil {
		return err
	}
	defer rows.Close()
	return eachVector(rows, dim, func(id int64, b []byte) error {
		n := len(vc.data)
		vc.data = vc.data[:n+dim]
		decodeVectorInto(vc.data[n:], b)
		vc.ids = append(vc.ids, id)
		return nil
	})
}

// eachVector calls f with each row's section id and encoded vector,
// checking the vector's length against dim.
func eachVector(rows *sql.Rows, dim int, f func(id int64, b []byte) error) error {
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return err
		}
		if len(b) != 4*dim {
			return fmt.Errorf("vector of section %d has %d bytes, want %d", id, len(b), 4*dim)
		}
		if err := f(id, b); err != nil {
			return err
		}
	}
	return rows.Err()
}

// SearchDense embeds the query with the configured embedder and returns
// the k sections with the highest cosine similarity.
func (ix *Index) SearchDense(ctx context.Context, query string, k int, opt SearchOptions) ([]Hit, error) {
	if ix.embedder == nil {
		return nil, fmt.Errorf("dense search in index %s: %w", ix.path, ErrNoEmbedder)
	}
	v, err := ix.embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("dense search in index %s: embed query with %s: %w", ix.path, ix.model, err)
	}
	return ix.SearchVector(ctx, v, k, opt)
}

// SearchVector returns the k sections whose vectors have the highest
// cosine similarity with v: by an exact scan of float32 vectors in memory
// below denseFileMin sections; from it up, by a scan of the int8 dense
// file (after a sign-bit pass from signMin vectors, which may miss a
// neighbour) whose best candidates are rescored with the stored float32
// vectors, so the similarities returned are exact. RelevanceScore is the
// similarity clipped to [0,1].
func (ix *Index) SearchVector(ctx context.Context, v []float32, k int, opt SearchOptions) ([]Hit, error) {
	hits, err := ix.searchVector(ctx, v, k, opt)
	if err != nil {
		return nil, fmt.Errorf("dense search in index %s: %w", ix.path, err)
	}
	return hits, nil
}

func (ix *Index) searchVector(ctx context.Context, v []float32, k int, opt SearchOptions) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if ix.embedder != nil {
		if err := ix.checkModel(ctx, conn, len(v), false); err != nil {
			return nil, err
		}
	}
	vc, ids, sims, err := ix.similarities(ctx, conn, v)
	if err != nil || vc == nil {
		return nil, err
	}
	q := slices.Clone(v)
	Normalize(q)
	want := k + len(opt.Exclude) + 8
	var out []Hit
	taken := map[int]bool{}
	for {
		var cand []int
		var exact []float64
		if vc.file != nil {
			var gone []int
			cand, exact, gone, err = rescore(ctx, conn, q, topSims(sims, rescoreDepth(want), taken), ids, want)
			if err != nil {
				return nil, err
			}
			for _, c := range gone {
				taken[c] = true
			}
			if len(cand) == 0 && len(gone) > 0 {
				continue
			}
		} else {
			cand = topSims(sims, want, taken)
			exact = make([]float64, len(cand))
			for i, c := range cand {
				exact[i] = float64(sims[c])
			}
		}
		if len(cand) == 0 {
			return out, nil
		}
		candIDs := make([]int64, len(cand))
		for i, c := range cand {
			candIDs[i] = ids[c]
		}
		secs, err := loadSections(ctx, conn, candIDs)
		if err != nil {
			return nil, err
		}
		for i, c := range cand {
			taken[c] = true
			s, ok := secs[candIDs[i]]
			if !ok || opt.Exclude[s.Key()] || !opt.Where.Match(s) {
				continue
			}
			sim := exact[i]
			s.RelevanceScore = max(0, min(1, sim))
			out = append(out, Hit{Section: s, Score: sim, Dense: sim, rowid: candIDs[i]})
			if len(out) == k {
				return out, nil
			}
		}
		want *= 4
	}
}

// similarities scores every stored vector against v (normalised here):
// exactly, or by the dense file's int8 estimate, in which case the vectors
// are to be rescored. It returns the vectors it used (nil when the index
// has none) and the section id of each similarity. A dense file that
// faults while it is read (truncated under the mapping by another
// program) is dropped and the search runs again on a rebuilt one.
func (ix *Index) similarities(ctx context.Context, conn *sql.Conn, v []float32) (*vectorCache, []int64, []float32, error) {
	q := slices.Clone(v)
	Normalize(q)
	for attempt := 0; ; attempt++ {
		vc, err := ix.vectors(ctx, conn)
		if err != nil {
			return nil, nil, nil, err
		}
		if vc.dim == 0 || vc.len() == 0 {
			return nil, nil, nil, nil
		}
		if len(v) != vc.dim {
			return nil, nil, nil, fmt.Errorf("%w: query vector has dimension %d, index vectors %d", ErrModelMismatch, len(v), vc.dim)
		}
		df := vc.file
		if df == nil {
			return vc, vc.ids, scan(vc.data, q, vc.dim), nil
		}
		qc := make([]int8, vc.dim)
		sims, err := df.scan(qc, quantize(qc, q))
		if err == nil {
			return vc, df.ids, sims, nil
		}
		ix.vecMu.Lock()
		if ix.vecs == vc {
			ix.vecs = nil
		}
		ix.vecMu.Unlock()
		if attempt > 0 {
			return nil, nil, nil, err
		}
	}
}

// scan computes the dot product of q with every row of data, splitting
// the rows over the available cores.
func scan(data, q []float32, dim int) []float32 {
	sims := make([]float32, len(data)/dim)
	eachRowParallel(len(sims), func(i int) {
		sims[i] = vek32.Dot(data[i*dim:(i+1)*dim], q)
	})
	return sims
}

// eachRowParallel calls f(i) for every i in [0, n), splitting the range
// over the available cores (one goroutine below 4096 rows).
func eachRowParallel(n int, f func(i int)) {
	eachRangeParallel(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}

// eachRangeParallel splits [0, n) into one range per available core (one
// range below 4096 rows) and calls f on each in its own goroutine.
func eachRangeParallel(n int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/4096))
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*per, min(n, (w+1)*per)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// topSims returns the indexes of the n highest similarities not in skip,
// best first.
func topSims(sims []float32, n int, skip map[int]bool) []int {
	idx := make([]int, 0, n+1)
	for i, s := range sims {
		if skip[i] {
			continue
		}
		if len(idx) == n && s <= sims[idx[n-1]] {
			continue
		}
		j, _ := slices.BinarySearchFunc(idx, s, func(a int, s float32) int {
			if sims[a] > s {
				return -1
			}
			return 1
		})
		idx = slices.Insert(idx, j, i)
		if len(idx) > n {
			idx = idx[:n]
		}
	}
	return idx
}

// RRFConstant is the k of reciprocal rank fusion: score = sum 1/(k+rank).
const RRFConstant = 60

// Fuse merges ranked lists by reciprocal rank fusion (rank 1 = best) and
// returns the best k hits. Hits are matched by section key; the fused hit
// keeps the highest RelevanceScore and the Lexical and Dense scores from
// whichever list had them; Score is the RRF score.
func Fuse(k int, lists ...[]Hit) []Hit {
	type entry struct {
		hit   Hit
		score float64
		first int // best rank over the lists, for ties
	}
	byKey := map[string]*entry{}
	var order []*entry
	for _, list := range lists {
		for r, h := range list {
			key := h.Section.Key()
			e := byKey[key]
			if e == nil {
				e = &entry{hit: h, first: r}
				e.hit.Lexical, e.hit.Dense = 0, 0
				byKey[key] = e
				order = append(order, e)
			}
			e.score += 1 / float64(RRFConstant+r+1)
			e.first = min(e.first, r)
			e.hit.Section.RelevanceScore = max(e.hit.Section.RelevanceScore, h.Section.RelevanceScore)
			e.hit.Lexical = max(e.hit.Lexical, h.Lexical)
			e.hit.Dense = max(e.hit.Dense, h.Dense)
		}
	}
	slices.SortStableFunc(order, func(a, b *entry) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.first - b.first
	})
	if len(order) > k {
		order = order[:k]
	}
	out := make([]Hit, len(order))
	for i, e := range order {
		out[i] = e.hit
		out[i].Score = e.score
	}
	return out
}

// HybridSearch ranks sections by BM25 and, when an embedder is configured,
// by dense similarity, fused by reciprocal rank fusion. Without an
// embedder it is Search.
func (ix *Index) HybridSearch(ctx context.Context, query string, k int, opt SearchOptions) ([]Hit, error) {
	if ix.embedder == nil {
		return ix.SearchWith(ctx, query, k, opt)
	}
	depth := max(4*k, 50)
	lex, err := ix.SearchWith(ctx, query, depth, opt)
	if err != nil {
		return nil, err
	}
	dense, err := ix.SearchDense(ctx, query, depth, opt)
	if err != nil {
		return nil, err
	}
	return Fuse(k, lex, dense), nil
}
