package threads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/checkpoint"
	"github.com/docmind/docmind/schema"
)

// dbSize flushes the write-ahead log and returns the database file size.
func dbSize(t testing.TB, s *checkpoint.SQLite) int64 {
	t.Helper()
	if err := s.FlushWAL(context.Background()); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func countRows(t testing.TB, s *checkpoint.SQLite, table string) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRetentionBoundsStorage asks 1,000 questions (200 with -short or the
// race detector) with the default retention: the newest 200 runs (50) keep
// every checkpoint, older runs only their final one, sections are stored
// once. Then a MaxRuns policy caps the ledger and the file stops growing.
func TestRetentionBoundsStorage(t *testing.T) {
	ctx := context.Background()
	total, keep := 1000, checkpoint.DefaultKeepRuns
	if testing.Short() || raceEnabled {
		total, keep = 200, 50
	}
	store, err := checkpoint.OpenSQLite(ctx, filepath.Join(t.TempDir(), checkpoint.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(t, store, cfg, func(c *Config) { c.Retention = checkpoint.Retention{KeepRuns: keep} })
	questions := []string{"What are the late payment penalties?", "And what if it is still unpaid after 60 days?",
		"and for enterprise clients?", "How can the agreement be terminated?"}
	var sizes []int64
	for i := 1; i <= total; i++ {
		if _, err := m.Ask(ctx, fmt.Sprintf("t%d", i/4), questions[i%len(questions)]); err != nil {
			t.Fatal(err)
		}
		if i%(total/4) == 0 {
			sizes = append(sizes, dbSize(t, store))
			t.Logf("%4d runs: %7d bytes, %d checkpoints, %d sections", i, sizes[len(sizes)-1], countRows(t, store, "checkpoints"), countRows(t, store, "sections"))
		}
	}
	if got, want := countRows(t, store, "checkpoints"), keep*6+(total-keep); got != want {
		t.Fatalf("%d checkpoints after %d runs, want %d (%d runs x 6 + one per older run)", got, total, want, keep)
	}
	if n := countRows(t, store, "sections"); n > len(contract) {
		t.Fatalf("%d section rows for a %d-section corpus", n, len(contract))
	}
	var avgState, avgRun float64
	store.DB().QueryRow(`SELECT avg(length(state)+length(sections)) FROM checkpoints`).Scan(&avgState)
	store.DB().QueryRow(`SELECT avg(length(question)+length(query)+length(answer)+length(id)+length(thread)) FROM runs`).Scan(&avgRun)
	t.Logf("avg checkpoint payload %.0f bytes, avg run text %.0f bytes", avgState, avgRun)
	// Past the first `keep` runs, each run costs only its final state.
	perRun := float64(sizes[3]-sizes[1]) / float64(total/2)
	t.Logf("growth per run once retention applies: %.0f bytes", perRun)
	if perRun > 2000 {
		t.Fatalf("each run adds %.0f bytes after pruning; want under 2000", perRun)
	}

	// With MaxRuns the ledger, and the file, stop growing.
	capped := newManager(t, store, cfg, func(c *Config) { c.Retention = checkpoint.Retention{KeepRuns: keep, MaxRuns: keep * 2} })
	if _, err := capped.GC(ctx); err != nil {
		t.Fatal(err)
	}
	before := dbSize(t, store)
	for i := 0; i < total/2; i++ {
		if _, err := capped.Ask(ctx, "capped", questions[i%len(questions)]); err != nil {
			t.Fatal(err)
		}
	}
	after := dbSize(t, store)
	t.Logf("MaxRuns %d: %d bytes before and %d bytes after %d more runs", keep*2, before, after, total/2)
	if runs := countRows(t, store, "runs"); runs != keep*2 {
		t.Fatalf("%d runs kept, want %d", runs, keep*2)
	}
	if after > before+before/10 {
		t.Fatalf("file grew from %d to %d bytes under MaxRuns", before, after)
	}
}

// BenchmarkAskSQLite measures one question through the offline test
// pipeline with a checkpoint per node in SQLite and default retention,
// and reports the database bytes per run.
func BenchmarkAskSQLite(b *testing.B) {
	ctx := context.Background()
	store, err := checkpoint.OpenSQLite(ctx, filepath.Join(b.TempDir(), checkpoint.FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(b, store, cfg)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Ask(ctx, fmt.Sprintf("t%d", i/4), "What are the late payment penalties?"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(dbSize(b, store))/float64(b.N), "dbB/run")
}

// BenchmarkAskMemory is BenchmarkAskSQLite with the in-memory store.
func BenchmarkAskMemory(b *testing.B) {
	ctx := context.Background()
	cfg, _ := pipeline(grounded(0.9))
	m := newManager(b, checkpoint.NewMemory(), cfg)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Ask(ctx, fmt.Sprintf("t%d", i/4), "What are the late payment penalties?"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunWithoutCheckpoints is the same question through the bare
// runner, the baseline for the two above.
func BenchmarkRunWithoutCheckpoints(b *testing.B) {
	ctx := context.Background()
	cfg, _ := pipeline(grounded(0.9))
	r, err := chains.NewRunner(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Run(ctx, schema.NewState("What are the late payment penalties?")); err != nil {
			b.Fatal(err)
		}
	}
}
