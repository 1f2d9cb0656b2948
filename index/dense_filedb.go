package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/viterin/vek/vek32"
)

// loadDenseFile returns the index's dense file, verified against the
// database, rebuilding it from the stored vectors when it is missing,
// torn, corrupt or stale.
func (ix *Index) loadDenseFile(ctx context.Context, conn *sql.Conn, model, gen string, dim int) (*denseFile, error) {
	path := ix.path + DenseFileSuffix
	if df, err := openDenseFile(path); err == nil {
		if err := checkDenseFile(ctx, conn, df, model, gen, dim); err == nil {
			return df, nil
		}
	}
	if err := ix.buildDenseFile(ctx, conn, path, model, dim); err != nil {
		return nil, err
	}
	df, err := openDenseFile(path)
	if err != nil {
		return nil, err
	}
	if df.model != model || df.dim != dim {
		return nil, fmt.Errorf("dense file %s: rebuilt for another model", path)
	}
	return df, nil
}

// abandonedTemp is how long a dense file's temporary file may go
// unmodified before a build takes it for a crashed build's and removes it
// (a live build writes a MiB at a time).
const abandonedTemp = 10 * time.Minute

// removeAbandonedTemps removes the temporary files that builds of the
// dense file at path left when they crashed.
func removeAbandonedTemps(path string) {
	dir, base := filepath.Split(path)
	olds, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp*"))
	for _, o := range olds {
		if fi, err := os.Stat(o); err == nil && time.Since(fi.ModTime()) > abandonedTemp {
			os.Remove(o)
		}
	}
}

// buildDenseFile writes the dense file from one read transaction, so that
// the generation it records is the one its vectors belong to.
func (ix *Index) buildDenseFile(ctx context.Context, conn *sql.Conn, path, model string, dim int) error {
	removeAbandonedTemps(path)
	return readVectorsTx(ctx, conn, dim, func(gen string, each func(func(int64, []byte) error) error) error {
		return writeDenseFile(ctx, path, model, gen, dim, each)
	})
}

// memDenseFile builds the dense vectors in memory, from one read
// transaction, for an index whose folder takes no dense file.
func (ix *Index) memDenseFile(ctx context.Context, conn *sql.Conn, model string, dim, sizeHint int) (df *denseFile, err error) {
	err = readVectorsTx(ctx, conn, dim, func(gen string, each func(func(int64, []byte) error) error) error {
		df, err = memDenseFile(ctx, model, gen, dim, sizeHint, each)
		return err
	})
	return df, err
}

// readVectorsTx calls f, in one read transaction, with the generation and
// a function that yields every stored vector in section id order. The
// transaction is a reader's (a deferred BEGIN, not the DSN's immediate
// one): it neither waits for nor blocks an ingest in another process.
func readVectorsTx(ctx context.Context, conn *sql.Conn, dim int, f func(gen string, each func(func(int64, []byte) error) error) error) error {
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	gen, _, err := getMeta(ctx, tx, "generation")
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT section, vec FROM vectors ORDER BY section`)
	if err != nil {
		return err
	}
	defer rows.Close()
	return f(gen, func(g func(int64, []byte) error) error { return eachVector(rows, dim, g) })
}

// errStaleDense is why a dense file that verified on its own does not
// match the database.
var errStaleDense = errors.New("dense file does not match the index")

// denseSamples is how many vectors checkDenseFile re-reads from the
// database and compares, code for code, with the file's.
const denseSamples = 4

// checkDenseFile tells whether df is the dense file of the database as it
// is: same generation, model and dimension, same last section id, and
// sampled vectors that quantize to the file's codes. The generation alone
// would not tell a file left beside a new database of the same
// generation.
func checkDenseFile(ctx context.Context, conn *sql.Conn, df *denseFile, model, gen string, dim int) error {
	if df.generation != gen || df.model != model || df.dim != dim {
		return errStaleDense
	}
	var last sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT max(section) FROM vectors`).Scan(&last); err != nil {
		return err
	}
	n := len(df.ids)
	if n == 0 {
		if last.Valid {
			return errStaleDense
		}
		return nil
	}
	if !last.Valid || last.Int64 != df.ids[n-1] {
		return errStaleDense
	}
	codes := make([]int8, dim)
	vec := make([]float32, dim)
	for s := range denseSamples {
		i := s * (n - 1) / (denseSamples - 1)
		var b []byte
		err := conn.QueryRowContext(ctx, `SELECT vec FROM vectors WHERE section = ?`, df.ids[i]).Scan(&b)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && len(b) != 4*dim) {
			return errStaleDense
		}
		if err != nil {
			return err
		}
		decodeVectorInto(vec, b)
		scale := quantize(codes, vec)
		if math.Float32bits(scale) != math.Float32bits(df.scales[i]) || !slices.Equal(codes, df.code(i)) {
			return errStaleDense
		}
	}
	return nil
}

// rescoreDepth is how many candidates of the int8 scan are rescored at
// full precision for n results. The int8 estimate of a cosine is off by
// about 1e-4 for 1536 dimensions, far less than the gaps between the best
// few hundred similarities; twice the results plus a margin keeps the top
// n exact in the recall test (dense_test.go).
func rescoreDepth(n int) int { return 2*n + 16 }

// rescore reads the full-precision vectors of candidates cand (positions
// in ids) from the database and returns the n with the highest cosine
// with q, best first, with their ids and exact similarities. Candidates
// whose vector is gone (deleted since the scan) are returned in gone.
func rescore(ctx context.Context, conn *sql.Conn, q []float32, cand []int, ids []int64, n int) (best []int, sims []float64, gone []int, err error) {
	args := make([]any, len(cand))
	for i, c := range cand {
		args[i] = ids[c]
	}
	rows, err := conn.QueryContext(ctx, `SELECT section, vec FROM vectors WHERE section IN (?`+strings.Repeat(",?", len(cand)-1)+`)`, args...)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("rescore: %w", err)
	}
	defer rows.Close()
	exact := make(map[int64]float64, len(cand))
	vec := make([]float32, len(q))
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, nil, nil, fmt.Errorf("rescore: %w", err)
		}
		if len(b) != 4*len(q) {
			return nil, nil, nil, fmt.Errorf("vector of section %d has %d bytes, want %d", id, len(b), 4*len(q))
		}
		decodeVectorInto(vec, b)
		exact[id] = float64(vek32.Dot(vec, q))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("rescore: %w", err)
	}
	for _, c := range cand {
		if _, ok := exact[ids[c]]; ok {
			best = append(best, c)
		} else {
			gone = append(gone, c)
		}
	}
	slices.SortStableFunc(best, func(a, b int) int {
		sa, sb := exact[ids[a]], exact[ids[b]]
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	best = best[:min(n, len(best))]
	sims = make([]float64, len(best))
	for i, c := range best {
		sims[i] = exact[ids[c]]
	}
	return best, sims, gone, nil
}
