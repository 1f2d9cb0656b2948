package index

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/docmind/docmind/schema"
)

// TestSegmentFlushSplitsDocument writes one large document with a small
// segmentFlush, so that its postings go to several segments of its
// transaction, and checks that search (with its per-list score bounds),
// deletes and Optimize give what the same corpus written as one segment
// per transaction gives.
func TestSegmentFlushSplitsDocument(t *testing.T) {
	ctx := context.Background()
	big := synthSections(0, 1200, 3)
	small := [][]schema.Section{synthSections(1, 30, 4), synthSections(2, 50, 5)}
	queries := []string{"late payment penalty", "warranty", "arbitration court law law", "force subcontract", "contract", "audit records renewal price"}

	build := func(flush int, stream bool) *Index {
		t.Helper()
		old := segmentFlush
		segmentFlush = flush
		defer func() { segmentFlush = old }()
		ix, _ := openTest(t)
		for i, secs := range small {
			if err := ix.PutDocument(ctx, Document{Path: fmt.Sprint("small", i)}, secs); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if stream {
			err = ix.PutDocumentStream(ctx, Document{Path: "big"}, func(_ *Document, put func(schema.Section) error) error {
				for _, s := range big {
					if err := put(s); err != nil {
						return err
					}
				}
				return nil
			})
		} else {
			err = ix.PutDocument(ctx, Document{Path: "big"}, big)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.PutDocument(ctx, Document{Path: "small2"}, synthSections(3, 20, 6)); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	segments := func(ix *Index) int {
		t.Helper()
		st, err := ix.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.Segments
	}
	top := func(ix *Index, q string) []Hit {
		t.Helper()
		hits, err := ix.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	same := func(what string, got, want *Index) {
		t.Helper()
		for _, q := range queries {
			g, w := top(got, q), top(want, q)
			if len(g) != len(w) || len(w) == 0 {
				t.Fatalf("%s %q: %d hits, want %d (> 0)", what, q, len(g), len(w))
			}
			for i := range w {
				if g[i].Section.ID != w[i].Section.ID || math.Abs(g[i].Score-w[i].Score) > 1e-9 {
					t.Fatalf("%s %q rank %d: %s (%v), want %s (%v)", what, q, i, g[i].Section.ID, g[i].Score, w[i].Section.ID, w[i].Score)
				}
			}
		}
	}

	want := build(1<<40, false)
	// 4 documents, one segment each: fewer than mergeFactor, none merged.
	if n := segments(want); n != 4 {
		t.Fatalf("unlimited budget: %d segments, want 4", n)
	}
	for _, stream := range []bool{false, true} {
		what := fmt.Sprintf("stream %v", stream)
		got := build(80<<10, stream)
		// The big document's postings (some 260 KiB estimated, most in its many section-number terms) span
		// several segments (fewer than mergeFactor, so not merged back).
		if n := segments(got); n < 6 {
			t.Fatalf("%s: %d segments, want the big document in several", what, n)
		} else {
			t.Logf("%s: %d segments", what, n)
		}
		same(what, got, want)

		// Deleting the big document removes its postings from all its
		// segments.
		for _, ix := range []*Index{got, want} {
			if _, err := ix.DeleteDocument(ctx, "big"); err != nil {
				t.Fatal(err)
			}
		}
		same(what+" after delete", got, want)
		for _, ix := range []*Index{got, want} {
			if err := ix.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			if n := segments(ix); n != 1 {
				t.Fatalf("%s: %d segments after Optimize", what, n)
			}
		}
		same(what+" after Optimize", got, want)
		// want lost its big document; write it again for the next round.
		want = build(1<<40, false)
	}
}

// TestMergeReadsSegmentsInPages merges segments read a page of blocks at
// a time, with pages of one and two blocks, so that a page ends inside a
// long list's chunks and between the entries of one term in several
// segments, and checks that search gives what the unmerged corpus gives.
func TestMergeReadsSegmentsInPages(t *testing.T) {
	ctx := context.Background()
	queries := []string{"late payment penalty", "warranty", "arbitration court law law", "force subcontract", "contract", "audit records renewal price"}
	build := func(page int) *Index {
		t.Helper()
		old := cursorPage
		cursorPage = page
		defer func() { cursorPage = old }()
		ix, _ := openTest(t)
		// mergeFactor documents of one segment each: the last write merges them
		for i := range mergeFactor {
			if err := ix.PutDocument(ctx, Document{Path: fmt.Sprint("doc", i)}, synthSections(i, 300, uint32(i+3))); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ix.DeleteDocument(ctx, "doc2"); err != nil {
			t.Fatal(err)
		}
		if err := ix.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	want := build(1 << 20)
	st, err := want.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Segments != 1 {
		t.Fatalf("%d segments after Optimize, want 1", st.Segments)
	}
	for _, page := range []int{1, 2} {
		got := build(page)
		for _, q := range queries {
			g, err := got.Search(ctx, q, 20)
			if err != nil {
				t.Fatal(err)
			}
			w, err := want.Search(ctx, q, 20)
			if err != nil {
				t.Fatal(err)
			}
			if len(g) != len(w) || len(w) == 0 {
				t.Fatalf("page %d %q: %d hits, want %d (> 0)", page, q, len(g), len(w))
			}
			for i := range w {
				if g[i].Section.ID != w[i].Section.ID || math.Abs(g[i].Score-w[i].Score) > 1e-9 {
					t.Fatalf("page %d %q rank %d: %s (%v), want %s (%v)", page, q, i, g[i].Section.ID, g[i].Score, w[i].Section.ID, w[i].Score)
				}
			}
		}
	}
}
