package index

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docmind/docmind/schema"
)

// TestSearchPreparesOnce: a search's statements are prepared once per
// connection and reused by the next searches (the driver prepared each
// statement again at every execution).
func TestSearchPreparesOnce(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "/docs/c.txt", Hash: "c", Format: "text"}, contract()); err != nil {
		t.Fatal(err)
	}
	search := func() {
		t.Helper()
		hits, err := ix.Search(ctx, "payable thirty days", 10)
		if err != nil || len(hits) == 0 {
			t.Fatalf("search: %d hits, %v", len(hits), err)
		}
	}
	search()
	if len(ix.readers.spare) != 1 {
		t.Fatalf("%d spare connections after one search, want 1", len(ix.readers.spare))
	}
	c := ix.readers.spare[0]
	before := c.prepared
	for range 5 {
		search()
	}
	if c.prepared != before {
		t.Fatalf("five more searches prepared %d statements, want none", c.prepared-before)
	}
	// a statement cache bounded by readStmts: queries of every length
	for n := 1; n <= readStmts+10; n++ {
		q := ""
		for i := range n {
			q += fmt.Sprintf(" w%dx", i)
		}
		if _, err := ix.Search(ctx, q, 10); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range ix.readers.spare {
		if len(c.stmts) > readStmts {
			t.Fatalf("a connection keeps %d statements, bound %d", len(c.stmts), readStmts)
		}
	}
}

// TestSearchSnapshotDuringReplace: while another handle (as another
// process) replaces a document again and again — its sections get new ids
// each time — every search finds it: the postings and the sections come
// from one snapshot, never postings whose sections are gone.
func TestSearchSnapshotDuringReplace(t *testing.T) {
	ctx := context.Background()
	ix, path := openTest(t)
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	put := func(ix *Index, name, text string) error {
		return ix.PutDocument(ctx, Document{Path: "/docs/" + name, Hash: text, Format: "text"},
			[]schema.Section{{Title: name, Content: text}})
	}
	for i := range 20 {
		if err := put(ix, fmt.Sprintf("filler%d", i), fmt.Sprintf("unrelated words number %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := put(ix, "target", "the indemnity clause survives termination"); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var werr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// a new hash: the document is replaced (sections deleted
			// and written again under new ids)
			if err := put(other, "target", fmt.Sprintf("the indemnity clause survives termination, version %d", i)); err != nil {
				werr = err
				return
			}
		}
	}()
	searches := 300
	if testing.Short() {
		searches = 100
	}
	for i := range searches {
		hits, err := ix.Search(ctx, "indemnity clause", 10)
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("search %d: %v", i, err)
		}
		if len(hits) != 1 || hits[0].Section.Title != "target" {
			close(stop)
			wg.Wait()
			t.Fatalf("search %d while the document was replaced: %d hits", i, len(hits))
		}
	}
	close(stop)
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
}

// TestSearchCancelledAndClosed: a cancelled search fails with the
// context's error and leaves no broken connection behind; concurrent
// searches keep at most maxSpareReaders connections; a search on a closed
// index fails with an error, and Close closes the spare connections.
func TestSearchCancelledAndClosed(t *testing.T) {
	ix, path := openTest(t)
	ctx := context.Background()
	if err := ix.PutDocument(ctx, Document{Path: "/docs/c.txt", Hash: "c", Format: "text"}, contract()); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cctx, "payable thirty days", 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled search: %v, want context.Canceled", err)
	}
	dctx, cancelD := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancelD()
	if _, err := ix.Search(dctx, "payable thirty days", 10); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("search past its deadline: %v, want context.DeadlineExceeded", err)
	}
	for _, c := range ix.readers.spare {
		if c.interrupted.Load() {
			t.Fatal("an interrupted connection was kept")
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hits, err := ix.Search(ctx, "payable thirty days", 10)
			if err == nil && len(hits) == 0 {
				err = errors.New("no hits")
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(ix.readers.spare); n == 0 || n > maxSpareReaders {
		t.Fatalf("%d spare connections, want 1 to %d", n, maxSpareReaders)
	}
	spare := ix.readers.spare
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range spare {
		if c.db != 0 {
			t.Fatal("Close left a connection open")
		}
	}
	if _, err := ix.Search(ctx, "payable", 10); err == nil {
		t.Fatal("search on a closed index succeeded")
	}
	// the file is whole: another handle reads it
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if hits, err := again.Search(ctx, "payable thirty days", 10); err != nil || len(hits) == 0 {
		t.Fatalf("reopened: %d hits, %v", len(hits), err)
	}
}
