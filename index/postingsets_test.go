package index

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
)

// The cached sets of sections follow the index when another handle (as
// another process would) adds or deletes a document: the generation
// changes and the counts are read again.
func TestPostingSetsFollowAnotherWriter(t *testing.T) {
	ctx := context.Background()
	ix, path := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "a.md", Hash: "a"}, contract()); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	lex := lexicon.Default()
	count := func(want int) {
		t.Helper()
		for range 2 { // read, then from the cache
			if got, err := ix.Corpus().GroupDocFreq(ctx, "payment", lex); err != nil || got != want {
				t.Fatalf("GroupDocFreq(payment) = %d, %v; want %d", got, err, want)
			}
		}
	}
	count(2)
	if ix.postingSets.sets["payment"] == nil {
		t.Fatal("no set cached for payment")
	}
	more := []schema.Section{{Title: "Payment", Content: "Payment is due on receipt."}}
	if err := other.PutDocument(ctx, Document{Path: "b.md", Hash: "b"}, more); err != nil {
		t.Fatal(err)
	}
	count(3)
	if ok, err := other.DeleteDocument(ctx, "a.md"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	count(1)
}

// The cache holds at most its budget of bytes: past it, it starts over.
func TestPostingSetsStayWithinBudget(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	secs := make([]schema.Section, 600)
	for i := range secs {
		secs[i] = schema.Section{Title: fmt.Sprintf("Clause %d", i), Content: fmt.Sprintf("word%c%c appears here.", 'a'+i%26, 'a'+i/26%26)}
	}
	if err := ix.PutDocument(ctx, Document{Path: "a.md", Hash: "a"}, secs); err != nil {
		t.Fatal(err)
	}
	ix.postingSets.max = 200 // bytes: a set of 600 ids is 80
	for i := range 26 {
		term := fmt.Sprintf("word%ca appears", 'a'+i) // two terms: read as sets
		if got, err := ix.Corpus().GroupDocFreq(ctx, term, lexicon.Default()); err != nil || got != 1 {
			t.Fatalf("GroupDocFreq(%s) = %d, %v; want 1", term, got, err)
		}
		if ix.postingSets.bytes > ix.postingSets.max {
			t.Fatalf("cache holds %d bytes, budget %d", ix.postingSets.bytes, ix.postingSets.max)
		}
	}
}

// Concurrent counts share the cache safely (run with -race) and agree.
func TestPostingSetsConcurrent(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "a.md", Hash: "a"}, contract()); err != nil {
		t.Fatal(err)
	}
	lex := lexicon.Default()
	terms := []string{"payment", "late fee", "notice", "confidential information", "invoices"}
	want := make([]int, len(terms))
	for i, term := range terms {
		n, err := ix.Corpus().GroupDocFreq(ctx, term, lex)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = n
	}
	ix.postingSets.reset()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				i := (g + k) % len(terms)
				if got, err := ix.Corpus().GroupDocFreq(ctx, terms[i], lex); err != nil || got != want[i] {
					t.Errorf("GroupDocFreq(%q) = %d, %v; want %d", terms[i], got, err, want[i])
				}
			}
		}()
	}
	wg.Wait()
}
