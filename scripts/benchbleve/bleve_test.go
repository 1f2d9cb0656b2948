package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// TestBleveSetup checks the configuration compared: BM25 scoring (not
// bleve's default TF-IDF), the en analyzer (a stemmed query term finds
// its other forms), one segment after finish, OR semantics.
func TestBleveSetup(t *testing.T) {
	b, err := newBleveBuilder(filepath.Join(t.TempDir(), "bleve"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{"a": "Running dogs", "b": "a dog runs\nfar away", "c": "cats sleep", "d": "birds fly"}
	for id, text := range docs {
		if err := b.add(id, text); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := b.finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ids, err := bleveSearch(ix, "dog cats", 10)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(slices.Sorted(slices.Values(ids)), ",") != "a,b,c" {
		t.Fatalf("dog OR cats found %v, want a, b and c", ids)
	}
	q := query.NewMatchQuery("dog")
	q.SetField("text")
	req := bleve.NewSearchRequest(q)
	req.Explain = true
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !explains(res.Hits[0].Expl, "bm25") {
		t.Fatalf("the score is not explained as BM25: %+v", res.Hits)
	}
}

func explains(e *search.Explanation, word string) bool {
	if e == nil {
		return false
	}
	if strings.Contains(e.Message, word) {
		return true
	}
	for _, c := range e.Children {
		if explains(c, word) {
			return true
		}
	}
	return false
}
