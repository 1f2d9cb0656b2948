// Package sqlitedb opens the project's SQLite files (the document index and
// the run database) through the pure-Go modernc.org/sqlite driver with the
// settings both need: a busy timeout for concurrent writers, immediate
// write transactions, foreign keys and synchronous=NORMAL.
package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Open opens (creating when absent) the database file at path, creating its
// directory if needed. busy bounds how long a statement waits for another
// connection's lock; pragmas are extra "name(value)" settings applied to
// every connection, such as "journal_mode(WAL)".
func Open(path string, busy time.Duration, pragmas ...string) (*sql.DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create directory: %w", err)
		}
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy.Milliseconds(), 10)+")")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Add("_txlock", "immediate")
	return sql.Open("sqlite", "file:"+path+"?"+q.Encode())
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
