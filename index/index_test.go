package index

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

func openTest(t *testing.T, opts ...Option) (*Index, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "idx", FileName)
	ix, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, path
}

func contract() []schema.Section {
	return []schema.Section{
		{Title: "Payment Terms", Content: "Invoices are payable within thirty (30) days of receipt.", Page: 7},
		{Title: "Late Payment Penalties", Content: "A late fee of 1.5% per month applies when payment is not received within thirty (30) days.", Page: 8, PageEnd: 9},
		{Title: "Termination", Content: "Either party may terminate this agreement with sixty days written notice.", Page: 12, PageLabel: "xii"},
		{Title: "Confidentiality", Content: "Each party keeps the other party's confidential information secret.", Page: 14},
	}
}

func TestPutSearchReopen(t *testing.T) {
	ctx := context.Background()
	ix, path := openTest(t)
	doc := Document{Path: "/docs/contract.pdf", Hash: "h1", Size: 100, ModTime: time.Unix(1700000000, 5), Format: "pdf", Pages: 20, Title: "Services Contract"}
	if err := ix.PutDocument(ctx, doc, contract()); err != nil {
		t.Fatal(err)
	}
	check := func(ix *Index) {
		t.Helper()
		hits, err := ix.Search(ctx, "late payment penalties", 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].Section.Title != "Late Payment Penalties" {
			t.Fatalf("top hit = %+v, want Late Payment Penalties", hits)
		}
		s := hits[0].Section
		if s.Source != "/docs/contract.pdf" || s.Page != 8 || s.PageEnd != 9 || s.ID == "" {
			t.Fatalf("section fields lost: %+v", s)
		}
		if s.RelevanceScore <= 0 || s.RelevanceScore > 1 || hits[0].Score <= 0 {
			t.Fatalf("scores: relevance %v raw %v", s.RelevanceScore, hits[0].Score)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Fatalf("hits not sorted: %v", hits)
			}
		}
		d, ok, err := ix.Document(ctx, "/docs/contract.pdf")
		if err != nil || !ok {
			t.Fatalf("document: %v %v", ok, err)
		}
		if d.Hash != "h1" || d.Pages != 20 || d.Sections != 4 || d.Format != "pdf" || d.Title != "Services Contract" || !d.ModTime.Equal(doc.ModTime) || d.IngestedAt.IsZero() {
			t.Fatalf("document fields: %+v", d)
		}
		secs, err := ix.Sections(ctx, "/docs/contract.pdf")
		if err != nil || len(secs) != 4 || secs[2].PageLabel != "xii" {
			t.Fatalf("sections: %+v %v", secs, err)
		}
		got, ok, err := ix.Section(ctx, s.ID)
		if err != nil || !ok || got.Title != "Late Payment Penalties" || got.Source != "/docs/contract.pdf" || got.Content != contract()[1].Content || got.PageEnd != 9 {
			t.Fatalf("section %s: %+v %v %v", s.ID, got, ok, err)
		}
		if _, ok, err := ix.Section(ctx, "no-such-id"); ok || err != nil {
			t.Fatalf("unknown section id: ok %v, err %v", ok, err)
		}
		st, err := ix.Stats(ctx)
		if err != nil || st.Documents != 1 || st.Sections != 4 || st.Pages != 20 || st.SizeBytes == 0 {
			t.Fatalf("stats %+v %v", st, err)
		}
	}
	check(ix)
	var mode string
	var pageSize int
	ix.DB().QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode)
	ix.DB().QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize)
	if mode != "wal" || pageSize != 65536 {
		t.Fatalf("journal mode %q, page size %d; want wal, 65536", mode, pageSize)
	}
	first, _ := ix.Search(ctx, "late payment penalties", 1)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	check(ix2)
	again, _ := ix2.Search(ctx, "late payment penalties", 1)
	if again[0].Section.ID != first[0].Section.ID {
		t.Fatalf("section id not stable across reopen: %s vs %s", again[0].Section.ID, first[0].Section.ID)
	}
}

func TestReplaceAndDelete(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "a.txt", Hash: "1"}, []schema.Section{{Title: "Old", Content: "zebra giraffe"}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.PutDocument(ctx, Document{Path: "b.txt", Hash: "1"}, []schema.Section{{Title: "B", Content: "zebra lion"}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.PutDocument(ctx, Document{Path: "a.txt", Hash: "2"}, []schema.Section{{Title: "New", Content: "elephant"}}); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(ctx, "zebra giraffe", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Section.Source != "b.txt" {
		t.Fatalf("old section still found: %+v", hits)
	}
	if hits, _ := ix.Search(ctx, "elephant", 10); len(hits) != 1 || hits[0].Section.Title != "New" {
		t.Fatalf("new section not found: %+v", hits)
	}
	ok, err := ix.DeleteDocument(ctx, "a.txt")
	if err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if hits, _ := ix.Search(ctx, "elephant", 10); len(hits) != 0 {
		t.Fatalf("deleted section found: %+v", hits)
	}
	if ok, _ := ix.DeleteDocument(ctx, "a.txt"); ok {
		t.Fatal("second delete reported a document")
	}
	docs, _ := ix.Documents(ctx)
	if len(docs) != 1 || docs[0].Path != "b.txt" {
		t.Fatalf("documents: %+v", docs)
	}
}

// bruteBM25 scores every section directly from its text.
func bruteBM25(secs []schema.Section, query string, k1, b float64) map[string]float64 {
	type doc struct {
		tf  map[string]int
		len int
	}
	docs := make([]doc, len(secs))
	df := map[string]int{}
	total := 0
	n := 0
	for i, s := range secs {
		terms := textproc.Terms(s.Title + "\n" + s.Content)
		words := 0 // the length counts words, not values (at least 1)
		for _, t := range terms {
			if strings.IndexFunc(t, unicode.IsLetter) >= 0 {
				words++
			}
		}
		docs[i] = doc{tf: map[string]int{}, len: max(words, 1)}
		for _, t := range terms {
			if docs[i].tf[t] == 0 {
				df[t]++
			}
			docs[i].tf[t]++
		}
		if len(terms) > 0 {
			total += docs[i].len
			n++
		}
	}
	avg := float64(total) / float64(n)
	qtf := map[string]int{}
	for _, t := range textproc.Terms(query) {
		qtf[t]++
	}
	out := map[string]float64{}
	for i, d := range docs {
		s := 0.0
		for t, q := range qtf {
			tf := float64(d.tf[t])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (float64(n)-float64(df[t])+0.5)/(float64(df[t])+0.5))
			s += float64(q) * idf * tf * (k1 + 1) / (tf + k1*(1-b+b*float64(d.len)/avg))
		}
		if s > 0 {
			out[secs[i].ID] = s
		}
	}
	return out
}

func synthSections(doc, n int, seed uint32) []schema.Section {
	words := []string{"contract", "payment", "penalty", "late", "fee", "invoice", "termination", "notice", "party", "agreement",
		"warranty", "liability", "damages", "insurance", "confidential", "records", "audit", "renewal", "price", "discount",
		"delivery", "acceptance", "breach", "cure", "arbitration", "court", "law", "assignment", "subcontract", "force"}
	out := make([]schema.Section, n)
	x := seed*2654435761 + uint32(doc)
	next := func() uint32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
	for i := range out {
		l := 3 + int(next()%40)
		text := ""
		for j := 0; j < l; j++ {
			// skewed choice: low indexes more frequent
			w := int(next()%uint32(len(words))) * int(next()%uint32(len(words))) / len(words)
			text += words[w] + " "
		}
		out[i] = schema.Section{ID: fmt.Sprintf("d%d-s%d", doc, i), Title: fmt.Sprintf("Section %d", i), Content: text, Page: i + 1}
	}
	return out
}

// TestBM25MatchesBruteForce checks scores through many segments, merges,
// replacements and deletions against a direct computation.
func TestBM25MatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	live := map[int][]schema.Section{}
	// 60 documents of 1..40 sections: enough per-document segments to
	// trigger several merges; then replace and delete some.
	for d := 0; d < 60; d++ {
		secs := synthSections(d, 1+d%40, 1)
		if err := ix.PutDocument(ctx, Document{Path: fmt.Sprint("doc", d)}, secs); err != nil {
			t.Fatal(err)
		}
		live[d] = secs
	}
	for d := 0; d < 60; d += 7 {
		secs := synthSections(d, 5+d%13, 2)
		if err := ix.PutDocument(ctx, Document{Path: fmt.Sprint("doc", d)}, secs); err != nil {
			t.Fatal(err)
		}
		live[d] = secs
	}
	for d := 3; d < 60; d += 11 {
		if _, err := ix.DeleteDocument(ctx, fmt.Sprint("doc", d)); err != nil {
			t.Fatal(err)
		}
		delete(live, d)
	}
	st, _ := ix.Stats(ctx)
	if st.Segments >= 60 {
		t.Fatalf("segments were not merged: %d", st.Segments)
	}
	var all []schema.Section
	for _, secs := range live {
		all = append(all, secs...)
	}
	for _, optimize := range []bool{false, true} {
		if optimize {
			if err := ix.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			if st, _ := ix.Stats(ctx); st.Segments != 1 {
				t.Fatalf("segments after Optimize: %d", st.Segments)
			}
		}
		for _, q := range []string{"late payment penalty", "warranty", "arbitration court law law", "force majeure"} {
			want := bruteBM25(all, q, DefaultK1, DefaultB)
			hits, err := ix.Search(ctx, q, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(want) {
				t.Fatalf("%q (optimized %v): %d hits, want %d", q, optimize, len(hits), len(want))
			}
			for _, h := range hits {
				w, ok := want[h.Section.ID]
				if !ok {
					t.Fatalf("%q (optimized %v): unexpected hit %s", q, optimize, h.Section.ID)
				}
				// Before Optimize, df still counts deleted sections whose
				// postings are not merged away yet (as in Lucene), so only
				// the hit set is compared; after it the scores are exact.
				if optimize && math.Abs(h.Score-w) > 1e-4*math.Max(1, w) {
					t.Fatalf("%q: %s score %v, want %v", q, h.Section.ID, h.Score, w)
				}
			}
			if optimize {
				ids := make([]string, 0, len(want))
				for id := range want {
					ids = append(ids, id)
				}
				sort.Slice(ids, func(i, j int) bool { return want[ids[i]] > want[ids[j]] })
				for i := 0; i < min(5, len(hits)); i++ {
					if math.Abs(want[ids[i]]-hits[i].Score) > 1e-4 {
						t.Fatalf("%q rank %d: got %s (%v), want %s (%v)", q, i, hits[i].Section.ID, hits[i].Score, ids[i], want[ids[i]])
					}
				}
			}
		}
	}
}

func TestExcludeKeys(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "c.pdf"}, contract()); err != nil {
		t.Fatal(err)
	}
	all, _ := ix.Search(ctx, "payment days", 10)
	if len(all) < 2 {
		t.Fatalf("want at least 2 hits, got %d", len(all))
	}
	ex := map[string]bool{all[0].Section.Key(): true}
	hits, err := ix.SearchWith(ctx, "payment days", 10, SearchOptions{Exclude: ex})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != len(all)-1 {
		t.Fatalf("got %d hits, want %d", len(hits), len(all)-1)
	}
	for _, h := range hits {
		if ex[h.Section.Key()] {
			t.Fatalf("excluded key returned: %s", h.Section.Key())
		}
	}
}

func TestFuseOrder(t *testing.T) {
	h := func(id string, rel float64) Hit { return Hit{Section: schema.Section{ID: id, RelevanceScore: rel}} }
	lex := []Hit{h("a", 0.9), h("b", 0.5), h("c", 0.4)}
	dense := []Hit{h("c", 0.8), h("b", 0.7), h("d", 0.6)}
	got := Fuse(10, lex, dense)
	var ids []string
	for _, x := range got {
		ids = append(ids, x.Section.ID)
	}
	// b: 1/62+1/62 = .03226; c: 1/63+1/61 = .03227; a: 1/61; d: 1/63.
	want := []string{"c", "b", "a", "d"}
	if !slices.Equal(ids, want) {
		t.Fatalf("fused order %v, want %v", ids, want)
	}
	if math.Abs(got[0].Score-(1.0/63+1.0/61)) > 1e-12 {
		t.Fatalf("rrf score %v", got[0].Score)
	}
	if got[1].Section.RelevanceScore != 0.7 {
		t.Fatalf("fused relevance should be the max: %v", got[1].Section.RelevanceScore)
	}
	if len(Fuse(2, lex, dense)) != 2 {
		t.Fatal("Fuse did not cut to k")
	}
}

// hashEmbedder is a real (if simple) embedder: a bag of hashed stems,
// normalised. Texts sharing words get similar vectors.
type hashEmbedder struct {
	dim   int
	calls int
}

func (e *hashEmbedder) vec(text string) []float32 {
	v := make([]float32, e.dim)
	for _, t := range textproc.Terms(text) {
		h := fnv.New32a()
		h.Write([]byte(t))
		v[h.Sum32()%uint32(e.dim)]++
	}
	return v
}

func (e *hashEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vec(t)
	}
	return out, nil
}

func (e *hashEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return e.vec(text), nil
}

func TestDenseAndModelMix(t *testing.T) {
	ctx := context.Background()
	emb := &hashEmbedder{dim: 64}
	ix, path := openTest(t, WithEmbedder(emb, "hash-64"))
	if err := ix.PutDocument(ctx, Document{Path: "c.pdf"}, contract()); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.SearchDense(ctx, "confidential information secret", 2, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Section.Title != "Confidentiality" || hits[0].Dense <= hits[1].Dense {
		t.Fatalf("dense hits: %+v", hits)
	}
	hy, err := ix.HybridSearch(ctx, "late fee payment", 3, SearchOptions{})
	if err != nil || len(hy) == 0 || hy[0].Section.Title != "Late Payment Penalties" {
		t.Fatalf("hybrid: %+v %v", hy, err)
	}
	st, _ := ix.Stats(ctx)
	if st.EmbeddingModel != "hash-64" || st.EmbeddingDim != 64 || st.Vectors != 4 {
		t.Fatalf("stats: %+v", st)
	}
	// Vectors are cached; a write must invalidate the cache.
	if err := ix.PutDocument(ctx, Document{Path: "w.txt"}, []schema.Section{{Title: "Warranty", Content: "The warranty period is twelve months."}}); err != nil {
		t.Fatal(err)
	}
	if hits, _ := ix.SearchDense(ctx, "warranty period months", 1, SearchOptions{}); len(hits) != 1 || hits[0].Section.Title != "Warranty" {
		t.Fatalf("dense search missed a new section: %+v", hits)
	}
	ix.Close()

	for _, tc := range []struct {
		model string
		dim   int
	}{{"other-model", 64}, {"hash-64", 32}} {
		other, err := Open(ctx, path, WithEmbedder(&hashEmbedder{dim: tc.dim}, tc.model))
		if err != nil {
			t.Fatal(err)
		}
		err = other.PutDocument(ctx, Document{Path: "x.txt"}, []schema.Section{{Title: "X", Content: "x"}})
		if !errors.Is(err, ErrModelMismatch) {
			t.Fatalf("%s/%d: adding vectors from another model: err = %v", tc.model, tc.dim, err)
		}
		if _, err := other.SearchDense(ctx, "late fee", 1, SearchOptions{}); !errors.Is(err, ErrModelMismatch) {
			t.Fatalf("%s/%d: dense search with another model: err = %v", tc.model, tc.dim, err)
		}
		if d, _, _ := other.Document(ctx, "x.txt"); d.Path != "" {
			t.Fatal("refused document was written")
		}
		other.Close()
	}
	plain, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if m, d, err := plain.EmbeddingModel(ctx); m != "hash-64" || d != 64 || err != nil {
		t.Fatalf("EmbeddingModel without embedder = %q, %d, %v", m, d, err)
	}
	if _, err := plain.SearchDense(ctx, "x", 1, SearchOptions{}); !errors.Is(err, ErrNoEmbedder) {
		t.Fatalf("dense search without embedder: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	fresh, _ := openTest(t)
	if m, d, err := fresh.EmbeddingModel(ctx); m != "" || d != 0 || err != nil {
		t.Fatalf("EmbeddingModel of a new index = %q, %d, %v", m, d, err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "x.db"), WithEmbedder(&hashEmbedder{dim: 4}, "")); err == nil {
		t.Fatal("embedder without model name accepted")
	}
	dir := t.TempDir()
	if _, err := Open(ctx, dir); err == nil {
		t.Fatal("opening a directory as database succeeded")
	}
}

func TestAnalyzerMatchesTextproc(t *testing.T) {
	an := newAnalyzer()
	for _, s := range []string{"The late payment penalties apply!", "Running runners ran 1.5% of 10,000 documents' pages", ""} {
		if got, want := an.terms(s), textproc.Terms(s); !slices.Equal(got, want) {
			t.Fatalf("terms(%q) = %v, textproc.Terms = %v", s, got, want)
		}
	}
}

func TestDefaultDirs(t *testing.T) {
	t.Setenv("DOCMIND_INDEX", "/x/idx")
	if d, err := DefaultDir(); err != nil || d != "/x/idx" {
		t.Fatalf("DefaultDir with DOCMIND_INDEX = %q, %v", d, err)
	}
	t.Setenv("DOCMIND_INDEX", "")
	t.Setenv("XDG_CACHE_HOME", "/cache")
	if d, err := DefaultDir(); err != nil || d != "/cache/docmind/index" {
		t.Fatalf("DefaultDir = %q, %v", d, err)
	}
	a, _ := CacheDirForIn("/docs/a", os.Getenv)
	b, _ := CacheDirForIn("/docs/b", os.Getenv)
	a2, _ := CacheDirForIn("/docs/a/", os.Getenv)
	if a == b || a != a2 || filepath.Dir(a) != "/cache/docmind/folders" {
		t.Fatalf("CacheDirForIn: %q %q %q", a, b, a2)
	}
}

// Each connection's page cache is bounded in bytes by what cachePages
// says: it is set in pages of the file's 64 KiB, because a size in KiB
// was read against 4 KiB pages and allowed 16 times as much (1.1 GiB per
// connection), which a large document's write transaction filled.
func TestPageCacheBounded(t *testing.T) {
	ix, _ := openTest(t)
	ctx := context.Background()
	conn, err := ix.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var pages, pageSize int64
	if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if pages <= 0 {
		t.Fatalf("cache_size = %d: a size in KiB, which SQLite reads against 4 KiB pages; give it in pages", pages)
	}
	if b := pages * pageSize; b > 64<<20 {
		t.Errorf("page cache %d pages × %d bytes = %d MiB per connection, want at most 64 MiB", pages, pageSize, b>>20)
	}
}

// TestLexicalReusesAccumulator: a query's score array is kept for the
// next one, cleared, instead of being left to the collector (a sync.Pool
// lost it at every collection, and at 100k sections reallocating it was a
// quarter of what a question allocated).
func TestLexicalReusesAccumulator(t *testing.T) {
	ctx := context.Background()
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "ix.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	secs := []schema.Section{{Title: "Fees", Content: "late fee of two percent"}, {Title: "Term", Content: "notice period of thirty days"}}
	if err := ix.PutDocument(ctx, Document{Path: "/a.md", Hash: "x", Format: "md"}, secs); err != nil {
		t.Fatal(err)
	}
	// the exhaustive path (filters, the pruning's fallback) accumulates
	if _, err := ix.SearchWith(ctx, "late fee", 5, SearchOptions{exhaustive: true}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	acc := ix.getAccumulator()
	if len(acc.scores) == 0 {
		t.Fatal("the accumulator of the last query was not kept")
	}
	for id, s := range acc.scores {
		if s != 0 || acc.content[id] != 0 {
			t.Fatalf("kept accumulator not cleared: section %d scores %v", id, s)
		}
	}
	if len(acc.touched) != 0 {
		t.Fatalf("kept accumulator lists %d touched sections", len(acc.touched))
	}
	ix.putAccumulator(acc)
	hits, err := ix.Search(ctx, "notice period", 5)
	if err != nil || len(hits) != 1 || hits[0].Section.Title != "Term" {
		t.Fatalf("search after reuse: %v, %v", hits, err)
	}
}

// TestBitsetAddAfterAnd: a set that an intersection shortened grows
// again with zeroed words, not with the bits it held before (add reuses
// the capacity beyond the length).
func TestBitsetAddAfterAnd(t *testing.T) {
	var b bitset
	for id := int64(0); id < 1000; id++ {
		b = b.add(id)
	}
	b = b.and(bitset(nil).add(3))
	b = b.add(900)
	if got := b.ids(10); !slices.Equal(got, []int64{3, 900}) {
		t.Fatalf("ids = %v, want [3 900]", got)
	}
}
