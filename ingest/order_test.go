package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/schema"
)

// gatedParser parses like textParser, but the file named first waits until
// the parser has been called for the file named last: the files between
// them are done, by the other worker, before the first one.
func gatedParser(first, last string, released *atomic.Bool) Parser {
	gate := make(chan struct{})
	var once sync.Once
	base := textParser(0)
	return ParserFunc(func(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, error) {
		switch filepath.Base(path) {
		case first:
			<-gate
		case last:
			once.Do(func() { released.Store(true); close(gate) })
		}
		return base.Parse(ctx, path, data)
	})
}

// documentOrder returns the index's documents' base names by id.
func documentOrder(t *testing.T, dbPath string) []string {
	t.Helper()
	docs, err := openIndex(t, dbPath).Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(docs, func(a, b index.Document) int { return int(a.ID - b.ID) })
	var names []string
	for _, d := range docs {
		names = append(names, filepath.Base(d.Path))
	}
	return names
}

// A file done after later ones in the walk is still written first: a
// fresh build gives ids in walk order, whatever order the workers finish in.
func TestIngestWritesInWalkOrder(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	var want []string
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("f%d.txt", i)
		write(t, filepath.Join(docs, name), fmt.Sprintf("Heading %d\nclause %d of the agreement", i, i))
		want = append(want, name)
	}
	var released atomic.Bool
	db := filepath.Join(dir, "index.db")
	ix := openIndex(t, db)
	sum, err := Run(context.Background(), ix, []string{docs}, Options{Parser: gatedParser("f0.txt", "f5.txt", &released), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed != len(want) {
		t.Fatalf("indexed %d, want %d: %+v", sum.Indexed, len(want), sum.Results)
	}
	if got := documentOrder(t, db); !slices.Equal(got, want) {
		t.Errorf("documents by id %v, want walk order %v", got, want)
	}
}

// A slow file does not hold every later file in memory: past the
// reordering window, files are written out of turn while it is still read,
// and every file is indexed.
func TestIngestReorderWindowIsBounded(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	n := reorderFiles + 8
	for i := 0; i < n; i++ {
		write(t, filepath.Join(docs, fmt.Sprintf("f%03d.txt", i)), fmt.Sprintf("Heading %d\nclause %d", i, i))
	}
	var released atomic.Bool
	var early atomic.Int32 // files written while f000 was still waiting
	ix := openIndex(t, filepath.Join(dir, "index.db"))
	opt := Options{Parser: gatedParser("f000.txt", fmt.Sprintf("f%03d.txt", n-1), &released), Workers: 2,
		Progress: func(Progress) {
			if !released.Load() {
				early.Add(1)
			}
		}}
	sum, err := Run(context.Background(), ix, []string{docs}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed != n {
		t.Fatalf("indexed %d, want %d", sum.Indexed, n)
	}
	if early.Load() == 0 {
		t.Errorf("no file was written while the first one was read: the held files are not bounded")
	}
}
