package sqlitedb

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Any valid path works: characters that mean something in a URI ('?',
// '#', '%', '&', '=') in a folder's or the file's name are part of the
// name, and the database is written exactly there, nowhere else.
func TestOpenAnyPath(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{
		"plain",
		"what?",
		"a?b=c&d=e",
		"#hash",
		"100%",
		"%3F",
		"%zz",
		"with space",
		"file:x",
		"_pragma=busy_timeout(1)",
		"ünïcødé",
		"?#%&=;",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, name, "sub"+name)
			path := filepath.Join(dir, name+".db")
			db, err := Open(path, "journal_mode(WAL)")
			if err != nil {
				t.Fatal(err)
			}
			err = WriteTx(ctx, db, 0, func(tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `CREATE TABLE t(v TEXT)`); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `INSERT INTO t(v) VALUES (?)`, name)
				return err
			})
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			db.Close()
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatalf("the database's folder: %v", err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Contains(names, name+".db") {
				t.Fatalf("%s holds %q, not %q", dir, names, name+".db")
			}
			for _, n := range names {
				if n != name+".db" && n != name+".db-wal" && n != name+".db-shm" {
					t.Errorf("unexpected file %q beside the database", n)
				}
			}
			// Nothing was written anywhere else under root.
			_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && filepath.Dir(p) != dir {
					t.Errorf("file written outside the database's folder: %s", p)
				}
				return nil
			})
			db, err = Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var v string
			if err := db.QueryRowContext(ctx, `SELECT v FROM t`).Scan(&v); err != nil || v != name {
				t.Fatalf("reopened: got %q, %v; want %q", v, err, name)
			}
		})
	}
}

// Handles opened at once on a new database (as two processes asking at
// the same moment do) all connect: switching a new file to WAL makes
// SQLite answer SQLITE_BUSY at once, without waiting, to the connections
// that lose the race, and a connection is retried then like a busy write
// (TestConcurrentProcesses in threads failed so in CI).
func TestConcurrentFirstOpen(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		path := filepath.Join(t.TempDir(), "new.db")
		const n = 8
		errs := make(chan error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			go func() {
				<-start
				db, err := Open(path, "auto_vacuum(INCREMENTAL)", "journal_mode(WAL)")
				if err != nil {
					errs <- err
					return
				}
				defer db.Close()
				errs <- WriteTx(ctx, db, 10*time.Second, func(tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS t(v TEXT)`)
					return err
				})
			}()
		}
		close(start)
		for i := 0; i < n; i++ {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
