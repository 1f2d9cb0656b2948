package threads

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmind/docmind/checkpoint"
)

// A new run and its first checkpoint are written in one transaction: when
// the checkpoint cannot be written (here SQLite itself refuses it, as on a
// full disk), no run is left in the ledger without a checkpoint to resume
// from — for a question asked and for a replayed run alike.
func TestNewRunWrittenWithItsFirstCheckpoint(t *testing.T) {
	ctx := context.Background()
	store, err := checkpoint.OpenSQLite(ctx, filepath.Join(t.TempDir(), checkpoint.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, store, cfg)
	first, err := m.Ask(ctx, "t", "What are the late payment penalties?")
	if err != nil {
		t.Fatal(err)
	}

	if _, err := store.DB().ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON checkpoints
		BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Ask(ctx, "t", "And for enterprise clients?"); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("ask with a refused checkpoint: %v, want the disk-full error", err)
	}
	if _, err := m.Fork(ctx, first.Run.ID, "judge", ForkOptions{}); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("replay with a refused checkpoint: %v, want the disk-full error", err)
	}
	runs, err := store.Runs(ctx, checkpoint.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if _, err := store.Get(ctx, r.ID, -1); err != nil {
			t.Errorf("run %s (%s, %q) is listed without a checkpoint: %v", r.ID, r.Status, r.Question, err)
		}
	}
	if len(runs) != 1 {
		t.Errorf("%d runs listed, want only the first", len(runs))
	}
}
