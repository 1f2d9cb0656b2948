package checkpoint

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/schema"
)

// FileName is the run database's file name inside a data directory.
const FileName = "runs.db"

// SchemaVersion is the version of the database layout this package writes.
const SchemaVersion = 1

// PathInDir returns the run database path inside a data directory.
func PathInDir(dir string) string { return filepath.Join(dir, FileName) }

// SQLite is a durable Store in one SQLite file (WAL mode). Several
// processes may use the same file at once; writers wait their turn for up
// to the busy timeout.
type SQLite struct {
	db   *sql.DB
	path string
	busy time.Duration
	// locks tell running runs from interrupted ones.
	locks *runLocks
	// deflaters pools *flate.Writer: a new one allocates about 1 MB.
	deflaters sync.Pool
}

var _ Store = (*SQLite)(nil)

// SQLiteOption configures OpenSQLite.
type SQLiteOption func(*sqliteConfig)

type sqliteConfig struct{ busy time.Duration }

// DefaultBusyTimeout is how long a writer waits its turn behind other
// writers before failing.
const DefaultBusyTimeout = 10 * time.Minute

// WithBusyTimeout sets how long a writer waits its turn behind other
// writers before failing with "database is locked" (default
// DefaultBusyTimeout). Cancelling the context ends the wait at once.
func WithBusyTimeout(d time.Duration) SQLiteOption {
	return func(c *sqliteConfig) { c.busy = d }
}

// OpenSQLite opens (creating when absent) the run database at path; the
// parent directory is created if needed.
func OpenSQLite(ctx context.Context, path string, opts ...SQLiteOption) (*SQLite, error) {
	cfg := sqliteConfig{busy: DefaultBusyTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	// auto_vacuum must be set before the first table is created; it lets
	// GC hand freed pages back to the file system.
	db, err := sqlitedb.Open(path, "auto_vacuum(INCREMENTAL)", "journal_mode(WAL)")
	if err != nil {
		return nil, fmt.Errorf("open run database %s: %w", path, err)
	}
	s := &SQLite{db: db, path: path, busy: cfg.busy, locks: newRunLocks(path)}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open run database %s: %w", path, err)
	}
	return s, nil
}

// Path returns the database file path.
func (s *SQLite) Path() string { return s.path }

// DB returns the underlying handle, for read-only inspection.
func (s *SQLite) DB() *sql.DB { return s.db }

// Close closes the database; the runs this process was running and did
// not finish are interrupted from now on.
func (s *SQLite) Close() error {
	s.locks.releaseAll()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close run database %s: %w", s.path, err)
	}
	return nil
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
	id              TEXT PRIMARY KEY,
	thread          TEXT NOT NULL,
	created         INTEGER NOT NULL,
	updated         INTEGER NOT NULL,
	question        TEXT NOT NULL,
	query           TEXT NOT NULL,
	status          TEXT NOT NULL,
	outcome         TEXT NOT NULL,
	answer          TEXT NOT NULL,
	retries         INTEGER NOT NULL,
	tokens          INTEGER NOT NULL,
	error           TEXT NOT NULL,
	parent          TEXT NOT NULL,
	fork_step       INTEGER NOT NULL,
	review          INTEGER NOT NULL,
	review_decision TEXT NOT NULL,
	review_note     TEXT NOT NULL,
	steps           INTEGER NOT NULL DEFAULT 0,
	pruned          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_thread ON runs(thread, created);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created, id);
CREATE INDEX IF NOT EXISTS runs_unpruned ON runs(created) WHERE pruned = 0;
CREATE TABLE IF NOT EXISTS checkpoints (
	id                INTEGER PRIMARY KEY,
	run               TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	step              INTEGER NOT NULL,
	node              TEXT NOT NULL,
	next              TEXT NOT NULL,
	created           INTEGER NOT NULL,
	duration_ns       INTEGER NOT NULL,
	calls             INTEGER NOT NULL,
	prompt_tokens     INTEGER NOT NULL,
	completion_tokens INTEGER NOT NULL,
	total_tokens      INTEGER NOT NULL,
	state             BLOB NOT NULL,
	sections          TEXT NOT NULL,
	UNIQUE (run, step)
);
CREATE TABLE IF NOT EXISTS sections (
	hash TEXT PRIMARY KEY,
	body BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS run_sections (
	run  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	hash TEXT NOT NULL,
	PRIMARY KEY (run, hash)
) WITHOUT ROWID;
`

func (s *SQLite) migrate(ctx context.Context) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return fmt.Errorf("create tables: %w", err)
		}
		var v string
		err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('schema_version', ?)`, strconv.Itoa(SchemaVersion)); err != nil {
				return fmt.Errorf("record schema version: %w", err)
			}
		case err != nil:
			return fmt.Errorf("read schema version: %w", err)
		case v != strconv.Itoa(SchemaVersion):
			return fmt.Errorf("the file has run database layout version %s; this program reads version %d", v, SchemaVersion)
		}
		return nil
	})
}

// sectionRef is how a checkpoint refers to a stored section: its content
// hash and the score it had in this step.
type sectionRef struct {
	Hash  string  `json:"h"`
	Score float64 `json:"s"`
}

// splitSections removes the sections from a state for storage and returns
// them as bodies (keyed by content hash) and references.
func (s *SQLite) splitSections(st *schema.State) (state []byte, refs []sectionRef, bodies map[string][]byte, err error) {
	bodies = map[string][]byte{}
	refs = make([]sectionRef, 0, len(st.RetrievedSections))
	for _, sec := range st.RetrievedSections {
		score := sec.RelevanceScore
		sec.RelevanceScore = 0
		b, err := json.Marshal(sec)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("encode section %s: %w", sec.Key(), err)
		}
		sum := sha256.Sum256(b)
		h := hex.EncodeToString(sum[:16])
		bodies[h] = b
		refs = append(refs, sectionRef{Hash: h, Score: score})
	}
	bare := *st
	bare.RetrievedSections = nil
	raw, err := json.Marshal(&bare)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("encode state: %w", err)
	}
	state, err = s.deflate(raw)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("compress state: %w", err)
	}
	return state, refs, bodies, nil
}

// deflate compresses a state for storage; states repeat the answer in the
// verdict's claims and compress to about half.
func (s *SQLite) deflate(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, _ := s.deflaters.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(&buf, flate.DefaultCompression); err != nil {
			return nil, err
		}
	} else {
		w.Reset(&buf)
	}
	defer s.deflaters.Put(w)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// inflate reverses deflate.
func inflate(b []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(b))
	defer r.Close()
	return io.ReadAll(r)
}

// decodeState reverses the state half of splitSections: it inflates and
// decodes a stored state blob (whose sections are stored apart). Errors
// read "decompress state: …" or "decode state: …".
func decodeState(blob []byte) (*schema.State, error) {
	raw, err := inflate(blob)
	if err != nil {
		return nil, fmt.Errorf("decompress state: %w", err)
	}
	st := &schema.State{}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	return st, nil
}

// Put saves a checkpoint in one transaction.
func (s *SQLite) Put(ctx context.Context, cp Checkpoint) error {
	enc, err := s.encode(cp)
	if err != nil {
		return err
	}
	if err := s.inTx(ctx, func(tx *sql.Tx) error { return putTx(ctx, tx, enc) }); err != nil {
		return fmt.Errorf("save checkpoint %s/%d in %s: %w", cp.RunID, cp.Step, s.path, err)
	}
	return nil
}

// StartRun saves a new run with its first checkpoints in one transaction,
// so that every run listed has a checkpoint to resume from.
func (s *SQLite) StartRun(ctx context.Context, r Run, cps ...Checkpoint) error {
	if r.ID == "" {
		return errors.New("start run: empty run id")
	}
	encs := make([]encodedCheckpoint, len(cps))
	for i, cp := range cps {
		cp.RunID = r.ID
		var err error
		if encs[i], err = s.encode(cp); err != nil {
			return err
		}
	}
	if r.Status == StatusRunning {
		if err := s.locks.hold(r.ID); err != nil {
			return fmt.Errorf("start run %s: mark it running: %w", r.ID, err)
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := upsertRun(ctx, tx, stamped(r)); err != nil {
			return err
		}
		for _, enc := range encs {
			if err := putTx(ctx, tx, enc); err != nil {
				return fmt.Errorf("checkpoint %d: %w", enc.cp.Step, err)
			}
		}
		return nil
	})
	if err != nil {
		s.locks.release(r.ID)
		return fmt.Errorf("start run %s in %s: %w", r.ID, s.path, err)
	}
	return nil
}

// encodedCheckpoint is a checkpoint ready to be written.
type encodedCheckpoint struct {
	cp     Checkpoint
	state  []byte
	refs   string
	bodies map[string][]byte
}

// encode prepares a checkpoint for writing, outside the transaction.
func (s *SQLite) encode(cp Checkpoint) (encodedCheckpoint, error) {
	if cp.State == nil {
		return encodedCheckpoint{}, fmt.Errorf("save checkpoint %s/%d: nil state", cp.RunID, cp.Step)
	}
	state, refs, bodies, err := s.splitSections(cp.State)
	if err != nil {
		return encodedCheckpoint{}, fmt.Errorf("save checkpoint %s/%d: %w", cp.RunID, cp.Step, err)
	}
	refJSON, err := json.Marshal(refs)
	if err != nil {
		return encodedCheckpoint{}, fmt.Errorf("save checkpoint %s/%d: encode section references: %w", cp.RunID, cp.Step, err)
	}
	if cp.Created.IsZero() {
		cp.Created = time.Now().UTC()
	}
	return encodedCheckpoint{cp: cp, state: state, refs: string(refJSON), bodies: bodies}, nil
}

// putTx writes an encoded checkpoint in tx.
func putTx(ctx context.Context, tx *sql.Tx, enc encodedCheckpoint) error {
	cp := enc.cp
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id = ?`, cp.RunID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("run %w", ErrNotFound)
	}
	u := cp.Usage
	if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoints(run, step, node, next, created, duration_ns,
		calls, prompt_tokens, completion_tokens, total_tokens, state, sections)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		cp.RunID, cp.Step, cp.Node, cp.Next, cp.Created.UnixNano(), int64(cp.Duration),
		u.Calls, u.PromptTokens, u.CompletionTokens, u.TotalTokens, enc.state, enc.refs); err != nil {
		if isConstraint(err) {
			return ErrExists
		}
		return err
	}
	for h, b := range enc.bodies {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sections(hash, body) VALUES (?, ?)`, h, b); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO run_sections(run, hash) VALUES (?, ?)`, cp.RunID, h); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE runs SET steps = max(steps, ?) WHERE id = ?`, cp.Step, cp.RunID)
	return err
}

// isConstraint reports a SQLite uniqueness violation (the step is saved).
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// inTx runs fn in an immediate (write-locking) transaction, waiting its
// turn behind other writers for up to the busy timeout.
func (s *SQLite) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlitedb.WriteTx(ctx, s.db, s.busy, fn)
}

const checkpointCols = `c.run, r.thread, c.step, c.node, c.next, c.created, c.duration_ns,
	c.calls, c.prompt_tokens, c.completion_tokens, c.total_tokens, c.state, c.sections`

// Get returns one checkpoint; step < 0 means the latest.
func (s *SQLite) Get(ctx context.Context, runID string, step int) (Checkpoint, error) {
	q := `SELECT ` + checkpointCols + ` FROM checkpoints c JOIN runs r ON r.id = c.run WHERE c.run = ? `
	args := []any{runID}
	if step < 0 {
		q += `ORDER BY c.step DESC LIMIT 1`
	} else {
		q += `AND c.step = ?`
		args = append(args, step)
	}
	cps, err := s.queryCheckpoints(ctx, q, args...)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("read checkpoint %s/%d from %s: %w", runID, step, s.path, err)
	}
	if len(cps) == 0 {
		return Checkpoint{}, fmt.Errorf("checkpoint %d of run %s: %w", step, runID, ErrNotFound)
	}
	return cps[0], nil
}

// List returns a run's checkpoints in step order.
func (s *SQLite) List(ctx context.Context, runID string) ([]Checkpoint, error) {
	if _, err := s.Run(ctx, runID); err != nil {
		return nil, err
	}
	cps, err := s.queryCheckpoints(ctx, `SELECT `+checkpointCols+` FROM checkpoints c JOIN runs r ON r.id = c.run
		WHERE c.run = ? ORDER BY c.step`, runID)
	if err != nil {
		return nil, fmt.Errorf("read checkpoints of run %s from %s: %w", runID, s.path, err)
	}
	return cps, nil
}

func (s *SQLite) queryCheckpoints(ctx context.Context, q string, args ...any) ([]Checkpoint, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out  []Checkpoint
		refs = map[string]bool{}
	)
	type raw struct {
		state []byte
		refs  []sectionRef
	}
	var raws []raw
	for rows.Next() {
		var (
			cp      Checkpoint
			created int64
			dur     int64
			state   []byte
			secs    string
		)
		if err := rows.Scan(&cp.RunID, &cp.Thread, &cp.Step, &cp.Node, &cp.Next, &created, &dur,
			&cp.Usage.Calls, &cp.Usage.PromptTokens, &cp.Usage.CompletionTokens, &cp.Usage.TotalTokens, &state, &secs); err != nil {
			return nil, err
		}
		cp.Created = time.Unix(0, created).UTC()
		cp.Duration = time.Duration(dur)
		var rs []sectionRef
		if err := json.Unmarshal([]byte(secs), &rs); err != nil {
			return nil, fmt.Errorf("decode section references of step %d: %w", cp.Step, err)
		}
		for _, r := range rs {
			refs[r.Hash] = true
		}
		out = append(out, cp)
		raws = append(raws, raw{state: state, refs: rs})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	bodies, err := s.sectionBodies(ctx, refs)
	if err != nil {
		return nil, err
	}
	for i := range out {
		st, err := decodeState(raws[i].state)
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", out[i].Step, err)
		}
		st.RetrievedSections = make([]schema.Section, 0, len(raws[i].refs))
		for _, r := range raws[i].refs {
			sec, ok := bodies[r.Hash]
			if !ok {
				return nil, fmt.Errorf("step %d refers to section %s, which is missing", out[i].Step, r.Hash)
			}
			sec.RelevanceScore = r.Score
			st.RetrievedSections = append(st.RetrievedSections, sec)
		}
		if st.NodeHistory == nil {
			st.NodeHistory = []string{}
		}
		out[i].State = st
	}
	return out, nil
}

// sectionBodies loads the sections with the given hashes.
func (s *SQLite) sectionBodies(ctx context.Context, hashes map[string]bool) (map[string]schema.Section, error) {
	out := make(map[string]schema.Section, len(hashes))
	for h := range hashes {
		var b []byte
		if err := s.db.QueryRowContext(ctx, `SELECT body FROM sections WHERE hash = ?`, h).Scan(&b); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			return nil, err
		}
		var sec schema.Section
		if err := json.Unmarshal(b, &sec); err != nil {
			return nil, fmt.Errorf("decode section %s: %w", h, err)
		}
		out[h] = sec
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SaveRun inserts or updates a run. Saved as running, the run is marked as
// run by this process until it is saved with another status or the store
// is closed.
func (s *SQLite) SaveRun(ctx context.Context, r Run) error {
	if r.ID == "" {
		return errors.New("save run: empty run id")
	}
	if r.Status == StatusRunning {
		if err := s.locks.hold(r.ID); err != nil {
			return fmt.Errorf("save run %s: mark it running: %w", r.ID, err)
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error { return upsertRun(ctx, tx, stamped(r)) })
	if err != nil {
		return fmt.Errorf("save run %s in %s: %w", r.ID, s.path, err)
	}
	if r.Status != StatusRunning {
		s.locks.release(r.ID)
	}
	return nil
}

// stamped sets a run's missing times to now.
func stamped(r Run) Run {
	now := time.Now().UTC()
	if r.Created.IsZero() {
		r.Created = now
	}
	if r.Updated.IsZero() {
		r.Updated = now
	}
	return r
}

// upsertRun inserts or updates a run in tx.
func upsertRun(ctx context.Context, tx *sql.Tx, r Run) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO runs(id, thread, created, updated, question, query, status,
		outcome, answer, retries, tokens, error, parent, fork_step, review, review_decision, review_note)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET thread = excluded.thread, updated = excluded.updated,
		question = excluded.question, query = excluded.query, status = excluded.status,
		outcome = excluded.outcome, answer = excluded.answer, retries = excluded.retries,
		tokens = excluded.tokens, error = excluded.error, parent = excluded.parent,
		fork_step = excluded.fork_step, review = excluded.review,
		review_decision = excluded.review_decision, review_note = excluded.review_note`,
		r.ID, r.Thread, r.Created.UnixNano(), r.Updated.UnixNano(), r.Question, r.Query, string(r.Status),
		string(r.Outcome), r.Answer, r.Retries, r.Tokens, redact.String(r.Error), r.Parent, r.ForkStep, boolInt(r.Review),
		r.ReviewDecision, r.ReviewNote)
	return err
}

const runCols = `id, thread, created, updated, question, query, status, outcome, answer, retries, tokens,
	error, parent, fork_step, review, review_decision, review_note, steps, pruned`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var (
		r                Run
		created, updated int64
		status, outcome  string
		review, pruned   int
	)
	err := sc.Scan(&r.ID, &r.Thread, &created, &updated, &r.Question, &r.Query, &status, &outcome, &r.Answer,
		&r.Retries, &r.Tokens, &r.Error, &r.Parent, &r.ForkStep, &review, &r.ReviewDecision, &r.ReviewNote,
		&r.Steps, &pruned)
	r.Created, r.Updated = time.Unix(0, created).UTC(), time.Unix(0, updated).UTC()
	r.Status, r.Outcome = Status(status), Outcome(outcome)
	r.Review, r.Pruned = review != 0, pruned != 0
	return r, err
}

// Run returns a run by id or unique id prefix.
func (s *SQLite) Run(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if err == nil {
		s.locks.mark(&r)
		return r, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("read run %s from %s: %w", id, s.path, err)
	}
	if id == "" {
		return Run{}, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(id)
	rs, err := s.queryRuns(ctx, `SELECT `+runCols+` FROM runs WHERE id LIKE ? ESCAPE '\' LIMIT 3`, esc+"%")
	if err != nil {
		return Run{}, fmt.Errorf("read run %s from %s: %w", id, s.path, err)
	}
	for i := range rs {
		s.locks.mark(&rs[i])
	}
	return uniqueRun(id, rs)
}

// Runs lists runs oldest first.
func (s *SQLite) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	q := `SELECT ` + runCols + ` FROM runs WHERE 1=1`
	var args []any
	if f.Thread != "" {
		q += ` AND thread = ?`
		args = append(args, f.Thread)
	}
	// Interrupted runs are stored as running: which running runs are
	// interrupted is known only once they are read.
	live := f.Status == StatusRunning || f.Status == StatusInterrupted
	if live {
		q += ` AND status = 'running'`
	} else if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	q += ` ORDER BY created DESC, id DESC`
	if f.Limit > 0 && !live {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	all, err := s.queryRuns(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs in %s: %w", s.path, err)
	}
	rs := all[:0]
	for _, r := range all {
		s.locks.mark(&r)
		if live && r.Status != f.Status {
			continue
		}
		if rs = append(rs, r); f.Limit > 0 && len(rs) == f.Limit {
			break
		}
	}
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs, nil
}

func (s *SQLite) queryRuns(ctx context.Context, q string, args ...any) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// GC applies the retention policy, deletes sections no run refers to any
// more, and returns freed pages to the file system.
func (s *SQLite) GC(ctx context.Context, ret Retention) (GCStats, error) {
	var st GCStats
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if ret.MaxRuns > 0 {
			ids, err := olderRuns(ctx, tx, ret.MaxRuns, false)
			if err != nil {
				return err
			}
			for _, id := range ids {
				res, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE run = ?`, id)
				if err != nil {
					return err
				}
				n, _ := res.RowsAffected()
				st.DeletedCheckpoints += int(n)
				if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, id); err != nil {
					return err
				}
				st.DeletedRuns++
			}
		}
		if keep := ret.keepRuns(); keep >= 0 {
			ids, err := olderRuns(ctx, tx, keep, true)
			if err != nil {
				return err
			}
			for _, id := range ids {
				n, err := pruneRun(ctx, tx, id)
				if err != nil {
					return err
				}
				st.DeletedCheckpoints += n
				st.PrunedRuns++
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sections WHERE hash NOT IN (SELECT hash FROM run_sections)`)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		st.DeletedSections = int(n)
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("garbage-collect runs in %s: %w", s.path, err)
	}
	// Hand free pages back to the file system once there are enough of
	// them to matter; SQLite reuses free pages for new rows meanwhile.
	var free int
	if err := s.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return st, fmt.Errorf("read free pages of %s: %w", s.path, err)
	}
	if free >= vacuumPages {
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `PRAGMA incremental_vacuum`)
			return err
		})
		if err != nil {
			return st, fmt.Errorf("vacuum %s: %w", s.path, err)
		}
	}
	return st, nil
}

// vacuumPages is the number of free pages at which GC shrinks the file.
const vacuumPages = 256

// olderRuns returns the finished (done or failed) runs older than the
// newest n, only those not yet pruned when unpruned is set.
func olderRuns(ctx context.Context, tx *sql.Tx, n int, unpruned bool) ([]string, error) {
	var (
		created int64
		id      string
	)
	// The n-th newest run is the cutoff; everything older is selected.
	err := tx.QueryRowContext(ctx, `SELECT created, id FROM runs ORDER BY created DESC, id DESC LIMIT 1 OFFSET ?`, n).Scan(&created, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	q := `SELECT id FROM runs WHERE status IN ('done', 'failed') AND (created < ? OR (created = ? AND id <= ?))`
	if unpruned {
		q += ` AND pruned = 0`
	}
	return sqlitedb.Column[string](ctx, tx, q, created, created, id)
}

// pruneRun keeps only the run's latest checkpoint and the sections it
// refers to; it returns the number of checkpoints deleted.
func pruneRun(ctx context.Context, tx *sql.Tx, id string) (int, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE run = ? AND step < (SELECT max(step) FROM checkpoints WHERE run = ?)`, id, id)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	var secs string
	err = tx.QueryRowContext(ctx, `SELECT sections FROM checkpoints WHERE run = ?`, id).Scan(&secs)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_sections WHERE run = ?`, id); err != nil {
		return 0, err
	}
	if secs != "" {
		var refs []sectionRef
		if err := json.Unmarshal([]byte(secs), &refs); err != nil {
			return 0, fmt.Errorf("decode section references of run %s: %w", id, err)
		}
		for _, r := range refs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO run_sections(run, hash) VALUES (?, ?)`, id, r.Hash); err != nil {
				return 0, err
			}
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET pruned = 1 WHERE id = ?`, id)
	return int(n), err
}

// FlushWAL copies the write-ahead log into the database file and
// truncates it (useful before measuring or copying the file).
func (s *SQLite) FlushWAL(ctx context.Context) error {
	err := sqlitedb.Retry(ctx, s.busy, func() error {
		_, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		return err
	})
	if err != nil {
		return fmt.Errorf("checkpoint write-ahead log of %s: %w", s.path, err)
	}
	return nil
}
