package index

import (
	"context"
	"testing"

	"github.com/docmind/docmind/schema"
)

// TestListCacheServesAndSeesWrites: a search's lists are kept (a second
// search reads none from the index), and a write by another handle on the
// same file — a new document, a deletion, a merge, a segment gone without
// a new one — is seen by the next search, never hidden by the cache.
func TestListCacheServesAndSeesWrites(t *testing.T) {
	ctx := context.Background()
	ix, path := openTest(t)
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	doc := func(name, text string) (Document, []schema.Section) {
		return Document{Path: "/docs/" + name, Hash: name, Format: "text"}, []schema.Section{{Title: name, Content: text}}
	}
	put := func(ix *Index, name, text string) {
		t.Helper()
		d, secs := doc(name, text)
		if err := ix.PutDocument(ctx, d, secs); err != nil {
			t.Fatal(err)
		}
	}
	found := func(query string) []string {
		t.Helper()
		hits, err := ix.Search(ctx, query, 10)
		if err != nil {
			t.Fatal(err)
		}
		var titles []string
		for _, h := range hits {
			titles = append(titles, h.Section.Title)
		}
		return titles
	}
	put(ix, "a", "the invoice is payable in thirty days")
	put(ix, "b", "termination needs sixty days notice")
	if got := found("invoice payable"); len(got) != 1 || got[0] != "a" {
		t.Fatalf("first search: %v", got)
	}

	put(other, "c", "an invoice is payable on receipt: payable at once")
	if got := found("invoice payable"); len(got) != 2 || got[0] != "c" {
		t.Fatalf("after another handle added a document: %v", got)
	}
	if ok, err := other.DeleteDocument(ctx, "/docs/c"); err != nil || !ok {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if got := found("invoice payable"); len(got) != 1 || got[0] != "a" {
		t.Fatalf("after another handle deleted a document: %v", got)
	}
	if err := other.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if got := found("invoice payable"); len(got) != 1 || got[0] != "a" {
		t.Fatalf("after another handle optimized: %v", got)
	}

	// a merge of segments whose postings are all dead writes no segment:
	// the newest segment stays, an older one goes
	put(ix, "d", "an invoice payable by the d party")
	if got := found("invoice payable"); len(got) != 2 {
		t.Fatalf("after adding d: %v", got)
	}
	var oldest int64
	if err := ix.DB().QueryRowContext(ctx, `SELECT min(id) FROM lex_segments`).Scan(&oldest); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{`DELETE FROM lex_blocks WHERE seg = ?`, `DELETE FROM lex_segments WHERE id = ?`} {
		if _, err := ix.DB().ExecContext(ctx, stmt, oldest); err != nil {
			t.Fatal(err)
		}
	}
	if got := found("invoice payable"); len(got) != 1 || got[0] != "d" {
		t.Fatalf("after the oldest segment went without a new one: %v", got)
	}

	// served from the cache: the blocks are gone, the generation is not
	if _, err := ix.DB().ExecContext(ctx, `UPDATE lex_blocks SET data = x'00'`); err != nil {
		t.Fatal(err)
	}
	if got := found("invoice payable"); len(got) != 1 || got[0] != "d" {
		t.Fatalf("search of cached terms: %v", got)
	}
	if got, err := ix.SearchWith(ctx, "invoice payable", 10, SearchOptions{noCache: true}); err != nil || len(got) != 0 {
		t.Fatalf("search without the cache over emptied blocks: %v, %v", len(got), err)
	}
}

// TestListCacheBounded: the cache never holds more than its budget, nor
// a term larger than its share of it.
func TestListCacheBounded(t *testing.T) {
	ctx := context.Background()
	ix, s := openSynthTest(t)
	ix.lists.max = 64 << 10 // its share per term (1 KiB) below some lists' size
	for range 200 {
		if _, err := ix.Search(ctx, s.query(), 10); err != nil {
			t.Fatal(err)
		}
		if ix.lists.bytes > ix.lists.max {
			t.Fatalf("cache holds %d bytes, budget %d", ix.lists.bytes, ix.lists.max)
		}
		for term, ct := range ix.lists.terms {
			if ct.size > ix.lists.termLimit() {
				t.Fatalf("term %q holds %d bytes, its share of the budget is %d", term, ct.size, ix.lists.termLimit())
			}
		}
	}
	if len(ix.lists.terms) == 0 {
		t.Fatal("nothing cached")
	}
}

// TestListCacheKeepsWhatIsUsed: past its budget the cache drops the terms
// no search used since the clock hand last passed, and keeps a term that
// every other search uses (it started over when full, dropping it too).
func TestListCacheKeepsWhatIsUsed(t *testing.T) {
	ctx := context.Background()
	ix, s := openSynthTest(t)
	ix.lists.max = 256 << 10 // below the lists searched: terms go
	hot := s.words[30]
	for i := range 300 {
		q := s.query()
		if i%2 == 0 {
			q = hot
		}
		if _, err := ix.Search(ctx, q, 10); err != nil {
			t.Fatal(err)
		}
		if ix.lists.bytes > ix.lists.max {
			t.Fatalf("cache holds %d bytes, budget %d", ix.lists.bytes, ix.lists.max)
		}
		if len(ix.lists.clock) != len(ix.lists.terms) {
			t.Fatalf("clock of %d terms, cache of %d", len(ix.lists.clock), len(ix.lists.terms))
		}
		if i%2 == 0 && i > 0 {
			if ct, ok := ix.lists.terms[hot]; !ok || !ct.packed {
				t.Fatalf("search %d: the term every other search uses is not kept decoded (%v)", i, ok)
			}
		}
	}
}

// openSynthTest opens a new index holding 20 synthetic documents (1,000
// sections), and returns it with the synth that drew them.
func openSynthTest(t *testing.T) (*Index, *synth) {
	t.Helper()
	ix, _ := openTest(t)
	s := newSynth(9)
	var batch []DocumentSections
	for d := range 20 {
		batch = append(batch, s.doc(d))
	}
	if err := ix.PutDocuments(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	return ix, s
}
