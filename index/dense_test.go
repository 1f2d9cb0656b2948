package index

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"
)

// benchLikeVectors returns n unit vectors of dimension dim drawn as the
// dense benchmarks draw theirs (uniform components, centred): the hard
// case for quantization, with the best similarities packed close together.
func benchLikeVectors(rng *rand.Rand, n, dim int) []float32 {
	data := make([]float32, n*dim)
	for i := range data {
		data[i] = rng.Float32() - 0.5
	}
	for i := 0; i < n; i++ {
		Normalize(data[i*dim : (i+1)*dim])
	}
	return data
}

// TestDenseInt8Recall: on benchmark-like vectors (30k x 1536; 10k under
// the race detector or -short), the dense file's search — the int8 scan
// of every vector, or from signMin up the sign-bit pass first, then the
// best candidates rescored with the float32 vectors — finds the exact top
// 10: recall@10 against the exact scan >= 0.95 (the bar) both
// ways.
func TestDenseInt8Recall(t *testing.T) {
	n, dim, queries := 30_000, 1536, 40
	if testing.Short() || denseRaceEnabled {
		n = 10_000
	}
	rng := rand.New(rand.NewPCG(11, 12))
	data := benchLikeVectors(rng, n, dim)
	df, err := memDenseFile(context.Background(), "m", "1", dim, n, func(f func(int64, []byte) error) error {
		for i := 0; i < n; i++ {
			if err := f(int64(i+1), encodeVector(data[i*dim:(i+1)*dim])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	qv := benchLikeVectors(rng, queries, dim)
	exact := make([][]int, queries)
	for j := range exact {
		exact[j] = topSims(scan(data, qv[j*dim:(j+1)*dim], dim), 10, nil)
	}
	for _, pass := range []struct {
		name    string
		signMin int
	}{{"int8 scan", math.MaxInt}, {"sign bits, then int8", 0}} {
		old := signMin
		signMin = pass.signMin
		found, foundNoRescore := 0, 0
		for j := 0; j < queries; j++ {
			q := qv[j*dim : (j+1)*dim]
			qc := make([]int8, dim)
			sims, err := df.scan(qc, quantize(qc, q))
			if err != nil {
				t.Fatal(err)
			}
			cand := topSims(sims, rescoreDepth(10), nil)
			ex := make([]float32, len(cand))
			for i, c := range cand {
				ex[i] = vek32.Dot(data[c*dim:(c+1)*dim], q)
			}
			got := topSims(ex, 10, nil)
			for i, g := range got {
				got[i] = cand[g]
			}
			plain := topSims(sims, 10, nil)
			for _, e := range exact[j] {
				if slices.Contains(got, e) {
					found++
				}
				if slices.Contains(plain, e) {
					foundNoRescore++
				}
			}
		}
		signMin = old
		recall := float64(found) / float64(10*queries)
		t.Logf("%s: recall@10 vs exact, %d x %d, %d queries: %.4f with rescoring, %.4f without", pass.name, n, dim, queries, recall, float64(foundNoRescore)/float64(10*queries))
		if recall < 0.95 {
			t.Fatalf("%s: recall@10 = %.4f, want >= 0.95", pass.name, recall)
		}
	}
}

// denseTestIndex builds an index of docs synthetic documents (50 sections
// each) with hashed-word vectors.
func denseTestIndex(t *testing.T, docs int) (*Index, string, *hashEmbedder) {
	t.Helper()
	return denseTestIndexSeed(t, 3, docs)
}

func denseTestIndexSeed(t *testing.T, seed uint64, docs int) (*Index, string, *hashEmbedder) {
	t.Helper()
	emb := &hashEmbedder{dim: 128}
	ix, path := openTest(t, WithEmbedder(emb, "hash-128"))
	s := newSynth(seed)
	var batch []DocumentSections
	for d := 0; d < docs; d++ {
		batch = append(batch, s.doc(d))
	}
	if err := ix.PutDocuments(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	return ix, path, emb
}

// withDenseFileMin sets the dense file threshold for one test.
func withDenseFileMin(t *testing.T, n int) {
	old := denseFileMin
	denseFileMin = n
	t.Cleanup(func() { denseFileMin = old })
}

// searchBoth runs the same vector search on an index read through the
// dense file and through float32 vectors in memory (two handles on the
// same database) and fails on any difference.
func searchBoth(t *testing.T, path string, emb *hashEmbedder, queries []string, opt SearchOptions) {
	t.Helper()
	ctx := context.Background()
	results := make([][][]Hit, 2)
	for pass, min := range []int{0, math.MaxInt} {
		withDenseFileMin(t, min)
		ix, err := Open(ctx, path, WithEmbedder(emb, "hash-128"))
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			hits, err := ix.SearchDense(ctx, q, 10, opt)
			if err != nil {
				t.Fatal(err)
			}
			results[pass] = append(results[pass], hits)
		}
		if file := ix.vecs.file != nil; file != (pass == 0) {
			t.Fatalf("pass %d: searched the dense file: %v", pass, file)
		}
		ix.Close()
	}
	for i, q := range queries {
		a, b := results[0][i], results[1][i]
		if len(a) != len(b) {
			t.Fatalf("%q: %d hits through the dense file, %d exact", q, len(a), len(b))
		}
		for r := range a {
			if a[r].Dense != b[r].Dense || (a[r].Section.Key() != b[r].Section.Key() && !tied(b, r)) {
				t.Fatalf("%q rank %d: dense file %s (%v), exact %s (%v)", q, r+1, a[r].Section.Key(), a[r].Dense, b[r].Section.Key(), b[r].Dense)
			}
		}
	}
}

// tied tells whether hit r has the same score as a neighbour.
func tied(h []Hit, r int) bool {
	return (r > 0 && h[r-1].Dense == h[r].Dense) || (r+1 < len(h) && h[r+1].Dense == h[r].Dense)
}

func denseQueries(n int) []string {
	s := newSynth(9)
	out := make([]string, n)
	for i := range out {
		out[i] = s.query()
	}
	return out
}

// TestDenseFileSearch: dense search through the int8 dense file returns
// the exact scan's hits and similarities, with and without exclusions,
// and hybrid search fuses them as before.
func TestDenseFileSearch(t *testing.T) {
	_, path, emb := denseTestIndex(t, 40)
	queries := denseQueries(20)
	searchBoth(t, path, emb, queries, SearchOptions{})
	if _, err := os.Stat(path + DenseFileSuffix); err != nil {
		t.Fatalf("no dense file after a search over it: %v", err)
	}
	// Exclude most of a query's best hits: the search goes back for more.
	ctx := context.Background()
	ix, err := Open(ctx, path, WithEmbedder(emb, "hash-128"))
	if err != nil {
		t.Fatal(err)
	}
	hits, err := ix.SearchDense(ctx, queries[0], 40, SearchOptions{})
	ix.Close()
	if err != nil {
		t.Fatal(err)
	}
	ex := map[string]bool{}
	for _, h := range hits[:35] {
		ex[h.Section.Key()] = true
	}
	searchBoth(t, path, emb, queries[:3], SearchOptions{Exclude: ex})

	// Hybrid search: the same fused ranking either way.
	var fused [2][]Hit
	for pass, min := range []int{0, math.MaxInt} {
		withDenseFileMin(t, min)
		ix, err := Open(ctx, path, WithEmbedder(emb, "hash-128"))
		if err != nil {
			t.Fatal(err)
		}
		if fused[pass], err = ix.HybridSearch(ctx, queries[1], 10, SearchOptions{}); err != nil {
			t.Fatal(err)
		}
		ix.Close()
	}
	for r := range fused[1] {
		if fused[0][r].Section.Key() != fused[1][r].Section.Key() || fused[0][r].Score != fused[1][r].Score {
			t.Fatalf("hybrid rank %d: %s with the dense file, %s without", r+1, fused[0][r].Section.Key(), fused[1][r].Section.Key())
		}
	}
}

// denseFileGeneration reads the generation recorded in the dense file at
// path, failing the test when the file does not verify.
func denseFileGeneration(t *testing.T, path string) string {
	t.Helper()
	df, err := openDenseFile(path + DenseFileSuffix)
	if err != nil {
		t.Fatal(err)
	}
	return df.generation
}

// TestDenseFileRebuilt: a dense file that is stale (the index changed),
// torn, corrupt or another database's is detected and rebuilt, and search
// results stay the exact scan's.
func TestDenseFileRebuilt(t *testing.T) {
	ctx := context.Background()
	ix, path, emb := denseTestIndex(t, 20)
	queries := denseQueries(5)
	searchBoth(t, path, emb, queries, SearchOptions{})
	file := path + DenseFileSuffix
	gen1 := denseFileGeneration(t, path)

	// The index changes: the next search rebuilds the file, and finds
	// the new sections.
	withDenseFileMin(t, 0)
	if _, err := ix.SearchDense(ctx, queries[0], 10, SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	s := newSynth(99)
	doc := s.doc(1000)
	if err := ix.PutDocument(ctx, doc.Doc, doc.Sections); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.SearchDense(ctx, doc.Sections[7].Title+"\n"+doc.Sections[7].Content, 1, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Section.Title != doc.Sections[7].Title {
		t.Fatalf("after a write, the new section is not found through the dense file: %v", hits)
	}
	if gen2 := denseFileGeneration(t, path); gen2 == gen1 {
		t.Fatalf("dense file still at generation %s after a write", gen2)
	}
	searchBoth(t, path, emb, queries, SearchOptions{})

	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	damage := map[string]func([]byte) []byte{
		"torn":        func(b []byte) []byte { return b[:len(b)/2] },
		"header only": func(b []byte) []byte { return b[:denseHeaderSize] },
		"empty":       func(b []byte) []byte { return nil },
		"flipped code": func(b []byte) []byte {
			b = slices.Clone(b)
			b[denseHeaderSize+77] ^= 0x40
			return b
		},
		"flipped header": func(b []byte) []byte {
			b = slices.Clone(b)
			b[13] ^= 1
			return b
		},
	}
	for name, f := range damage {
		if err := os.WriteFile(file, f(good), 0o644); err != nil {
			t.Fatal(err)
		}
		searchBoth(t, path, emb, queries, SearchOptions{})
		if got, err := os.ReadFile(file); err != nil || !slices.Equal(got, good) {
			t.Fatalf("%s: the dense file was not rebuilt (%v)", name, err)
		}
	}

	// Another database's file, of the same generation, model, size and
	// last section id: only the sampled vectors tell it apart.
	other, otherPath, _ := denseTestIndexSeed(t, 21, 20)
	withDenseFileMin(t, 0)
	if _, err := other.SearchDense(ctx, queries[0], 10, SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	alien, err := os.ReadFile(otherPath + DenseFileSuffix)
	if err != nil {
		t.Fatal(err)
	}
	// A new database of the same documents' count: same generation.
	ix2, _, _ := denseTestIndex(t, 20)
	if g := denseFileGeneration(t, otherPath); g != "1" {
		t.Fatalf("other database at generation %s, want 1", g)
	}
	path2 := ix2.path
	if err := os.WriteFile(path2+DenseFileSuffix, alien, 0o644); err != nil {
		t.Fatal(err)
	}
	searchBoth(t, path2, emb, queries, SearchOptions{})
	if got, _ := os.ReadFile(path2 + DenseFileSuffix); slices.Equal(got, alien) {
		t.Fatal("another database's dense file was trusted")
	}
}

// TestDenseFileTruncatedUnderSearch: a dense file truncated in place
// while mapped (by another program) makes the scan fault; the search
// reports no crash, drops the file and answers from a rebuilt one.
func TestDenseFileTruncatedUnderSearch(t *testing.T) {
	ctx := context.Background()
	ix, path, emb := denseTestIndex(t, 10)
	queries := denseQueries(3)
	withDenseFileMin(t, 0)
	before, err := ix.SearchDense(ctx, queries[0], 10, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	df := ix.vecs.file
	if df == nil {
		t.Fatal("no dense file in use")
	}
	if err := os.Truncate(path+DenseFileSuffix, denseHeaderSize); err != nil {
		t.Fatal(err)
	}
	qc := make([]int8, df.dim)
	if _, err := df.scan(qc, 1); err == nil {
		t.Fatal("scan of a truncated mapping: no error")
	}
	after, err := ix.SearchDense(ctx, queries[0], 10, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || after[0].Section.Key() != before[0].Section.Key() {
		t.Fatalf("after the truncation: %d hits, first %s; before: %d, first %s", len(after), after[0].Section.Key(), len(before), before[0].Section.Key())
	}
	searchBoth(t, path, emb, queries, SearchOptions{})
}

// TestDenseFileConcurrent: two handles on one database (as two processes
// would be) search while a third writes, so that each rebuilds and renames
// the dense file over the other's mapping; every search succeeds, and
// once the writes stop both agree with the exact scan.
func TestDenseFileConcurrent(t *testing.T) {
	ctx := context.Background()
	ix, path, emb := denseTestIndex(t, 10)
	withDenseFileMin(t, 0)
	queries := denseQueries(4)
	var readers []*Index
	for range 2 {
		r, err := Open(ctx, path, WithEmbedder(emb, "hash-128"))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		readers = append(readers, r)
	}
	done := make(chan struct{})
	errs := make(chan error, 2)
	for _, r := range readers {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				if _, err := r.SearchDense(ctx, queries[i%len(queries)], 10, SearchOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	s := newSynth(77)
	for d := 0; d < 5; d++ {
		doc := s.doc(2000 + d)
		if err := ix.PutDocument(ctx, doc.Doc, doc.Sections); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range readers {
		if err := <-errs; err != nil {
			t.Fatalf("a search during writes: %v", err)
		}
	}
	searchBoth(t, path, emb, queries, SearchOptions{})
}

// TestDenseFileBuildTakesNoWriteLock: building the dense file reads the
// vectors in a read transaction, so a search succeeds while another
// connection holds the write lock (an ingest in another process), and
// does not wait for it.
func TestDenseFileBuildTakesNoWriteLock(t *testing.T) {
	ctx := context.Background()
	ix, path, emb := denseTestIndex(t, 4)
	withDenseFileMin(t, 0)
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil) // the DSN's _txlock=immediate: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	r, err := Open(ctx, path, WithEmbedder(emb, "hash-128"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	if _, err := r.SearchDense(ctx, "x", 3, SearchOptions{}); err != nil {
		t.Fatalf("a search while another connection writes: %v", err)
	}
	if r.vecs.file == nil {
		t.Fatal("the search did not build the dense file")
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("the search waited %s for the writer", d)
	}
}

// TestDenseFileAbandonedTemps: a build removes the temporary files that
// crashed builds left, and leaves a recent one (another build's, live).
func TestDenseFileAbandonedTemps(t *testing.T) {
	ctx := context.Background()
	ix, path, _ := denseTestIndex(t, 2)
	withDenseFileMin(t, 0)
	dir, base := filepath.Split(path + DenseFileSuffix)
	old, live := filepath.Join(dir, "."+base+".tmp123"), filepath.Join(dir, "."+base+".tmp456")
	for _, f := range []string{old, live} {
		if err := os.WriteFile(f, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * abandonedTemp)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SearchDense(ctx, "x", 1, SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an abandoned temporary file was kept (%v)", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a recent temporary file was removed: %v", err)
	}
}

// TestDenseFileUnwritable: where the dense file cannot be written (here a
// folder stands in its place), the same int8 vectors are built in memory
// and results stay the exact scan's.
func TestDenseFileUnwritable(t *testing.T) {
	_, path, emb := denseTestIndex(t, 10)
	if err := os.MkdirAll(filepath.Join(path+DenseFileSuffix, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	searchBoth(t, path, emb, denseQueries(5), SearchOptions{})
	if fi, err := os.Stat(path + DenseFileSuffix); err != nil || !fi.IsDir() {
		t.Fatalf("the folder in the dense file's place changed: %v", err)
	}
}
