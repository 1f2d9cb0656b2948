package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
)

// Writers wait their turn: while another connection holds the index's
// write lock (as writing a very large document does), concurrent ingests
// — each with its own connection, one of them with a large document —
// wait and then index every file; none fails with "database is locked".
// The lock is held for 2 s, forty times SQLite's own busy wait (50 ms,
// after which the writers' Retry loop does the waiting); that loop waits
// up to index.DefaultBusyTimeout, which must stay far longer than the
// old 10 s. A writer whose context is cancelled stops waiting at once.
func TestConcurrentIngestsWaitTheirTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("holds the write lock for 2 s")
	}
	if index.DefaultBusyTimeout < time.Minute {
		t.Errorf("index.DefaultBusyTimeout is %s: a writer behind a large document gives up too soon", index.DefaultBusyTimeout)
	}
	ctx := context.Background()
	ixPath := filepath.Join(t.TempDir(), index.FileName)
	openIndex(t, ixPath) // create the schema

	const writers, filesEach = 4, 5
	var folders []string
	for w := 0; w < writers; w++ {
		dir := t.TempDir()
		for f := 0; f < filesEach; f++ {
			body := fmt.Sprintf("Clause %d-%d\nPayment terms of writer %d, file %d.", w, f, w, f)
			if w == 0 && f == 0 {
				// A large document: thousands of sections in one transaction.
				body = strings.Repeat(body+"\n\n", 5000)
			}
			write(t, filepath.Join(dir, fmt.Sprintf("w%d-f%d.txt", w, f)), body)
		}
		folders = append(folders, dir)
	}

	holder := openIndex(t, ixPath)
	tx, err := holder.DB().BeginTx(ctx, nil) // an immediate (write) transaction
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('holder', 'x')`); err != nil {
		t.Fatal(err)
	}
	const hold = 2 * time.Second
	released := time.Now().Add(hold)
	go func() {
		time.Sleep(hold)
		tx.Commit()
	}()

	var wg sync.WaitGroup
	errs := make([]error, writers)
	sums := make([]*Summary, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := index.Open(ctx, ixPath)
			if err != nil {
				errs[w] = err
				return
			}
			defer ix.Close()
			sums[w], errs[w] = Run(ctx, ix, []string{folders[w]}, Options{Parser: textParser(0), Workers: 1})
		}()
	}
	// A cancelled writer gives up promptly instead of waiting its turn.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	cix := openIndex(t, ixPath)
	cstart := time.Now()
	if _, err := Run(cctx, cix, []string{folders[1]}, Options{Parser: textParser(0)}); err == nil {
		t.Error("an ingest cancelled while waiting for the lock succeeded")
	}
	d := time.Since(cstart)
	t.Logf("the cancelled writer gave up after %s", d.Round(time.Millisecond))
	if d > 3*time.Second {
		t.Errorf("a cancelled writer took %s to give up, want about 300 ms", d.Round(time.Millisecond))
	}

	wg.Wait()
	if time.Now().Before(released) {
		t.Fatal("the writers finished while the lock was still held")
	}
	for w, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", w, err)
			continue
		}
		if sums[w].Indexed != filesEach {
			t.Errorf("writer %d indexed %d files, want %d: %+v", w, sums[w].Indexed, filesEach, sums[w].Results)
		}
	}
	docs, err := openIndex(t, ixPath).Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != writers*filesEach {
		t.Errorf("the index holds %d documents, want %d", len(docs), writers*filesEach)
	}
}
