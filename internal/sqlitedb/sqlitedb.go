// Package sqlitedb opens the project's SQLite files (the document index and
// the run database) through the pure-Go modernc.org/sqlite driver with the
// settings both need: immediate write transactions that wait their turn
// behind other writers (WriteTx), foreign keys and synchronous=NORMAL.
// Database files are created readable by their owner only (0600), in
// folders only the owner can enter (0700).
package sqlitedb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Permissions of the files and folders DocMind creates for its data: the
// index holds the documents' text, the run database questions and answers.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// statementWait is the longest one statement waits inside SQLite for
// another connection's lock. SQLite's wait cannot be cancelled, so it is
// kept to a second; write transactions wait longer by retrying (WriteTx),
// which a cancelled context ends. Reads do not retry: at 50 ms, listing
// runs while other processes wrote failed with SQLITE_BUSY under load
// (TestConcurrentAsksInProcess).
const statementWait = time.Second

// Open opens (creating when absent) the database file at path, creating its
// directory if needed. Any path works, whatever characters it holds.
// pragmas are extra "name(value)" settings applied to every connection,
// such as "journal_mode(WAL)".
func Open(path string, pragmas ...string) (*sql.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), DirMode); err != nil {
		return nil, fmt.Errorf("create directory: %w", err)
	}
	// Create the file with private permissions before SQLite does (it
	// would use 0644); SQLite gives the -wal and -shm files the
	// database file's permissions.
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, FileMode)
	switch {
	case err == nil:
		f.Close()
	case !errors.Is(err, fs.ErrExist):
		return nil, fmt.Errorf("create database file: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(statementWait.Milliseconds(), 10)+")")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	// Transactions take the write lock when they begin; a read
	// transaction must say so (sql.TxOptions{ReadOnly: true}), or it
	// waits for, and blocks, every writer.
	q.Add("_txlock", "immediate")
	for k, v := range readOnlyParams(abs) {
		q[k] = v
	}
	return sql.OpenDB(connector{dsn: DSN(abs) + "?" + q.Encode()}), nil
}

// ReadDSN is DSN(path), with the URI parameters that open the file
// read-only when this process cannot write it (readOnlyParams).
func ReadDSN(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if q := readOnlyParams(path); q != nil {
		return DSN(path) + "?" + q.Encode()
	}
	return DSN(path)
}

// ReadOnly reports whether this process may not write the database file
// at path, or not create files beside it.
func ReadOnly(path string) bool {
	return !writable(path) || !writable(filepath.Dir(path))
}

// readOnlyParams returns, for a database file this process may read but
// not write, or not create files beside (another user's index, a
// read-only mount), the URI parameters that open it read-only; nil for
// one it can write. SQLite reads a WAL database only where it can create
// the -wal and -shm files beside it, unless told the file is immutable;
// with no -wal file there is no writer and nothing to replay.
func readOnlyParams(abs string) url.Values {
	if !ReadOnly(abs) {
		return nil
	}
	q := url.Values{"mode": {"ro"}}
	if _, err := os.Stat(abs + "-wal"); errors.Is(err, fs.ErrNotExist) {
		q.Set("immutable", "1")
	}
	return q
}

// openWait is how long opening a connection keeps retrying while SQLite
// answers SQLITE_BUSY. Switching a new file to WAL (or recovering its
// log) answers so at once, without waiting, to the connections that lose
// the race, so two processes opening a new database together would
// otherwise fail (TestConcurrentFirstOpen).
const openWait = 10 * time.Second

// connector opens connections to one database, retrying busy ones.
type connector struct{ dsn string }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	var conn driver.Conn
	err := Retry(ctx, openWait, func() error {
		var err error
		conn, err = c.Driver().Open(c.dsn)
		return err
	})
	return conn, err
}

func (connector) Driver() driver.Driver { return &sqlite.Driver{} }

// DSN is the SQLite URI naming the file at path (made absolute). The path
// is percent-encoded, so that '?', '#' and '%' in a folder's or file's
// name are part of the name, not the start of URI parameters.
func DSN(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath()
}

// IsBusy reports whether err is SQLite's "database is locked"
// (SQLITE_BUSY, any extended code): another connection holds the lock.
func IsBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// IsDamaged reports whether err is SQLite's "database disk image is
// malformed" or "file is not a database" (SQLITE_CORRUPT, SQLITE_NOTADB,
// any extended code): the file is not a whole database.
func IsDamaged(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_CORRUPT || c == sqlite3.SQLITE_NOTADB
}

// Retry calls fn until it succeeds, fails with an error other than
// SQLITE_BUSY, ctx ends or wait has passed: the caller waits its turn
// behind other writers. fn must be safe to run again.
func Retry(ctx context.Context, wait time.Duration, fn func() error) error {
	start := time.Now()
	pause := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !IsBusy(err) {
			return err
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w while waiting for another writer", ctx.Err())
		}
		if waited := time.Since(start); waited >= wait {
			return fmt.Errorf("%w: another writer kept the database locked for %s", err, waited.Round(time.Second))
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w while waiting for another writer", ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// beginWait is how long one attempt to start a write transaction waits
// inside SQLite for another writer. SQLite's wait sums nominal sleeps that
// overshoot on a loaded machine (a 1 s wait took 3.8 s under CI's race
// tests) and cannot be cancelled, so WriteTx keeps it short and does the
// real waiting in Retry, which a cancelled context ends at once.
const beginWait = 50 * time.Millisecond

// WriteTx runs fn in an immediate (write-locking) transaction and commits
// it, waiting up to wait for other writers (see Retry): a busy database
// rolls the attempt back and runs fn again, so fn must only act through tx.
// Once begun, the transaction holds the write lock, so (in WAL mode) its
// statements and commit do not wait for other connections.
func WriteTx(ctx context.Context, db *sql.DB, wait time.Duration, fn func(tx *sql.Tx) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := setBusyTimeout(ctx, conn, beginWait); err != nil {
		return err
	}
	defer func() {
		// Back to the pool with the usual wait, or not at all.
		if setBusyTimeout(context.WithoutCancel(ctx), conn, statementWait) != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return Retry(ctx, wait, func() error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// setBusyTimeout sets how long conn's statements wait for another
// connection's lock.
func setBusyTimeout(ctx context.Context, conn *sql.Conn, d time.Duration) error {
	_, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(d.Milliseconds(), 10))
	return err
}

// Querier is what Column needs: a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Column returns the single column of a query's rows.
func Column[T any](ctx context.Context, q Querier, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
