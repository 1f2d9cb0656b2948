// Package index is DocMind's persistent, zero-service document index: one
// SQLite database file (pure Go, modernc.org/sqlite, WAL mode) that is the
// store of record for documents, their sections, optional dense vectors and
// the lexical (BM25) postings.
//
// Lexical search is an own BM25 inverted index kept inside the same
// database: postings are compact varint lists packed, sorted by term, into
// blocks of a few KiB, one row per block and segment. Each write transaction adds a segment; small segments are merged
// into larger ones as they accumulate (a tiered, log-structured layout), so
// that a query reads a handful of rows per term and opening the index costs
// nothing proportional to the corpus. k1 and b are query-time parameters.
//
// Dense vectors, when an embedder is configured, are stored with the
// embedding model's name and dimension (an index never mixes models). Below
// 20,000 sections they are loaded lazily into one contiguous []float32 the
// first time dense search runs and scanned exactly; from there up, dense
// search scans int8 copies in a memory-mapped file beside the database
// (DenseFileSuffix) and rescores the best candidates with the stored
// vectors. Hybrid search fuses BM25 and dense rankings by reciprocal rank
// fusion.
//
// Store implements langchaingo's vectorstores.VectorStore over an Index and
// Retriever implements schema.Retriever over any vectorstores.VectorStore.
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/embeddings"

	"github.com/docmind/docmind/internal/sqlitedb"
)

// SchemaVersion is the version of the database layout this package writes.
const SchemaVersion = 1

// ReadingVersion is the version of how documents are read into the index:
// parsing, sectioning and term analysis (BM25 lengths among them). Bump it
// when a change alters what a document's sections or terms are: an index
// written by another version re-reads every document at its next ingest
// (and so does `ask --docs`, whose per-folder index is ingested at every
// run), instead of mixing sections read two ways. Version 3: terms fold
// accents (textproc.Fold), so "Herve" finds "Hervé". Version 4: sections
// carry their kind (schema.SectionKind: preamble, signature block, …).
// Version 5: each headed row of a table flattened into text is also a
// section of its own (kind table-row, loader.SectionOptions.NoTableRows).
// Version 6: a row section cites the page its row is on, not every page of
// the section it is read from. Version 7: a word's British and American
// spellings have one term (textproc.Stem), so "licence" finds "license".
// Version 8: a preamble's parties may be defined "hereinafter" ("(hereinafter
// referred to as “Consultant”)"), and the names a numbered clause defines
// do not make its section a preamble (loader.isPreamble); a PDF filed as
// an exhibit is titled by its own heading, not "Exhibit 10.17" (pdf
// coverTitle).
const ReadingVersion = 8

// FileName is the database file name used inside an index directory.
const FileName = "docmind.db"

// Default BM25 parameters of the index — the one BM25 that answers ask,
// with --docs or from an index. Chosen over 0.9/0.4 (Anserini's) on
// several sets at once (BENCHMARKS.md): BEIR SciFact nDCG@10 train 0.6988
// vs 0.6953, test 0.6855 vs 0.6790; contract QA development set answered
// correctly 0.952 vs 0.929 with equal abstention figures, held-out equal.
// They are also the in-memory retriever's (retriever.DefaultK1/B).
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// DefaultContextWeight is the weight of a section's context field — its
// document's title, entity, period and file name words — relative to its
// own title and text (see WithContextWeight and BENCHMARKS.md).
const DefaultContextWeight = 1.0

// Index is an open index. It is safe for concurrent use; several processes
// may open the same file (one writer at a time, any number of readers).
type Index struct {
	db       *sql.DB
	path     string
	embedder embeddings.Embedder
	model    string
	k1, b    float64
	// contextWeight weighs the context field in lexical ranking.
	contextWeight float64
	// noBounds: the index has no lex_blocks.bounds column (written before
	// them and opened read-only).
	noBounds bool
	busy     time.Duration
	// spare accumulators, reused by lexical queries (not a sync.Pool:
	// the collector empties a pool, and a 100k-section accumulator
	// reallocated after each collection was a quarter of a question's
	// allocation, hence of its collections)
	docMaps  docMapCache
	accMu    sync.Mutex
	accSpare []*accumulator

	vecMu sync.Mutex
	vecs  *vectorCache

	// phrases caches stemmed section texts for Corpus's phrase checks.
	phrases phraseCache
	// postingSets caches terms' sets of sections for Corpus.GroupDocFreq.
	postingSets postingSets
	// lists caches the postings lists lexical search reads.
	lists listCache
	// readers are lexical search's connections (lexical_sql.go).
	readers readPool
}

// Option configures Open.
type Option func(*Index)

// WithEmbedder makes the index store a dense vector for every section it
// adds and use dense search (fused with BM25) in HybridSearch and Store.
// model names the embedding model; an index built with one model refuses
// vectors from another.
func WithEmbedder(e embeddings.Embedder, model string) Option {
	return func(ix *Index) { ix.embedder, ix.model = e, model }
}

// WithBM25 sets the BM25 parameters used by searches (defaults DefaultK1,
// DefaultB).
func WithBM25(k1, b float64) Option {
	return func(ix *Index) { ix.k1, ix.b = k1, b }
}

// WithContextWeight sets the weight of the context field (the document's
// title, entity, period and file name, shared by all its sections) in
// lexical ranking; 0 ranks by the sections' own title and text alone
// (default DefaultContextWeight). The context decides which document's
// sections rank first; it never changes RelevanceScore.
func WithContextWeight(w float64) Option {
	return func(ix *Index) { ix.contextWeight = max(0, w) }
}

// DefaultBusyTimeout is how long a writer waits its turn behind other
// writers (another ingest writing a large document, say) before failing.
const DefaultBusyTimeout = 10 * time.Minute

// WithBusyTimeout sets how long a writer waits its turn behind other
// writers before failing with "database is locked" (default
// DefaultBusyTimeout). Cancelling the context ends the wait at once.
func WithBusyTimeout(d time.Duration) Option {
	return func(ix *Index) { ix.busy = d }
}

// PathInDir returns the database path inside an index directory.
func PathInDir(dir string) string { return filepath.Join(dir, FileName) }

// cachePages is the page cache of each connection, in pages: 64 MiB of
// the index's 64 KiB pages. It is given in pages because SQLite reads a
// size in KiB ("cache_size(-65536)") against the 4 KiB default page size
// when the connection opens, before it reads the file's: that allowed
// 16,384 pages, 1.1 GiB per connection, and a large document's write
// transaction filled it (peak RSS grew with the document, 836 MiB for a
// 477 MiB text file).
const cachePages = 1024

// Open opens (creating when absent) the index database at path. The parent
// directory is created if needed.
func Open(ctx context.Context, path string, opts ...Option) (*Index, error) {
	ix := &Index{path: path, k1: DefaultK1, b: DefaultB, contextWeight: DefaultContextWeight, busy: DefaultBusyTimeout}
	for _, o := range opts {
		o(ix)
	}
	if ix.embedder != nil && ix.model == "" {
		return nil, fmt.Errorf("open index %s: an embedder needs a model name (WithEmbedder(e, model))", path)
	}
	db, err := sqlitedb.Open(path, "cache_size("+strconv.Itoa(cachePages)+")", "mmap_size(1099511627776)")
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	ix.db = db
	if err := sqlitedb.Retry(ctx, ix.busy, func() error { return ix.migrate(ctx) }); err != nil {
		db.Close()
		if sqlitedb.IsDamaged(err) {
			return nil, fmt.Errorf("index %s is damaged (%w): delete it and run docmind ingest again", path, err)
		}
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	return ix, nil
}

// Path returns the database file path.
func (ix *Index) Path() string { return ix.path }

// Close closes the database.
func (ix *Index) Close() error {
	ix.readers.close()
	if err := ix.db.Close(); err != nil {
		return fmt.Errorf("close index %s: %w", ix.path, err)
	}
	return nil
}

// DB returns the underlying database handle, for read-only inspection.
func (ix *Index) DB() *sql.DB { return ix.db }

const schemaSQL = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	path        TEXT NOT NULL UNIQUE,
	hash        TEXT NOT NULL,
	size        INTEGER NOT NULL,
	mtime       INTEGER NOT NULL,
	format      TEXT NOT NULL,
	pages       INTEGER NOT NULL,
	title       TEXT NOT NULL,
	ingested_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sections (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	key          TEXT NOT NULL,
	doc_id       INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
	title        TEXT NOT NULL,
	heading_path TEXT NOT NULL,
	content      TEXT NOT NULL,
	page         INTEGER NOT NULL,
	page_end     INTEGER NOT NULL,
	page_label   TEXT NOT NULL,
	chunk        INTEGER NOT NULL,
	length       INTEGER NOT NULL,
	page_printed INTEGER NOT NULL DEFAULT 0,
	doc_title    TEXT NOT NULL DEFAULT '',
	doc_entity   TEXT NOT NULL DEFAULT '',
	doc_period   TEXT NOT NULL DEFAULT '',
	kind         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS sections_doc ON sections(doc_id);
CREATE INDEX IF NOT EXISTS sections_key ON sections(key);
CREATE TABLE IF NOT EXISTS vectors (
	section INTEGER PRIMARY KEY REFERENCES sections(id) ON DELETE CASCADE,
	vec     BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS lex_segments (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	level    INTEGER NOT NULL,
	sections INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS lex_blocks (
	id         INTEGER PRIMARY KEY,
	seg        INTEGER NOT NULL,
	first_term TEXT NOT NULL,
	chunk      INTEGER NOT NULL, -- 1: one chunk of a long postings list
	data       BLOB NOT NULL,
	bounds     BLOB -- score bounds of data's lists (lexical_bounds.go); NULL: none
);
CREATE INDEX IF NOT EXISTS lex_blocks_key ON lex_blocks(seg, first_term);
CREATE TABLE IF NOT EXISTS lex_deleted (
	section INTEGER PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS lex_stats (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	n         INTEGER NOT NULL,
	total_len INTEGER NOT NULL
);
INSERT OR IGNORE INTO lex_stats(id, n, total_len) VALUES (1, 0, 0);
`

// migrate creates the schema on a new database and checks the version of
// an existing one.
func (ix *Index) migrate(ctx context.Context) error {
	var v string
	err := ix.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v)
	if err == nil {
		if v != strconv.Itoa(SchemaVersion) {
			return fmt.Errorf("database has schema version %s, this DocMind reads version %d (re-create the index)", v, SchemaVersion)
		}
		if err := ix.addContextColumns(ctx); err != nil {
			return err
		}
		if err := ix.addBoundsColumn(ctx); err != nil {
			return err
		}
		return ix.checkReadingVersion(ctx)
	}
	if err != sql.ErrNoRows && !strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("read schema version: %w", err)
	}
	// A missing meta table (new database) or a missing row both land here.
	// 64 KiB pages keep postings blocks inside one page, so SQLite reads
	// them straight from the memory map instead of assembling overflow
	// chains into fresh buffers; the page size must be set before the
	// first table is created and before WAL mode (which persists in the
	// file) is switched on.
	conn, err := ix.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer conn.Close()
	for _, p := range []string{`PRAGMA page_size = 65536`, `PRAGMA journal_mode = WAL`} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("create schema: %s: %w", p, err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)`, strconv.Itoa(SchemaVersion)); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if err := setMeta(ctx, tx, "reading_version", strconv.Itoa(ReadingVersion)); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

// contextColumns are the section columns added after the first release of
// schema version 1, with their definitions.
var contextColumns = [][2]string{
	{"page_printed", "INTEGER NOT NULL DEFAULT 0"},
	{"doc_title", "TEXT NOT NULL DEFAULT ''"},
	{"doc_entity", "TEXT NOT NULL DEFAULT ''"},
	{"doc_period", "TEXT NOT NULL DEFAULT ''"},
	{"kind", "TEXT NOT NULL DEFAULT ''"},
}

// addContextColumns migrates an index written before sections carried
// their document's context: it adds the columns, and clears the documents'
// hashes so that the next ingest re-reads every file and indexes its
// context field (until then those sections rank by their text alone). An
// index that cannot be written is refused with what to do.
func (ix *Index) addContextColumns(ctx context.Context) error {
	have, err := sqlitedb.Column[string](ctx, ix.db, `SELECT name FROM pragma_table_info('sections')`)
	if err != nil {
		return fmt.Errorf("read the sections table: %w", err)
	}
	missing := contextColumns[:0:0]
	for _, c := range contextColumns {
		if !slices.Contains(have, c[0]) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return ix.writeTx(ctx, func(tx *sql.Tx) error {
		for _, c := range missing {
			if _, err := tx.ExecContext(ctx, `ALTER TABLE sections ADD COLUMN `+c[0]+` `+c[1]); err != nil {
				if sqlitedb.IsBusy(err) {
					return err
				}
				return fmt.Errorf("this index predates document context and cannot be upgraded (%v): ingest the documents again into a new index", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET hash = ''`); err != nil {
			return fmt.Errorf("add document context columns: %w", err)
		}
		return nil
	})
}

// addBoundsColumn adds the postings' score bounds (lex_blocks.bounds) to
// an index written before them. Its blocks keep NULL bounds, which lexical
// search reads as the saturation bound, until a merge or Optimize writes
// them again. An index that cannot be written is read without bounds.
func (ix *Index) addBoundsColumn(ctx context.Context) error {
	have, err := sqlitedb.Column[string](ctx, ix.db, `SELECT name FROM pragma_table_info('lex_blocks')`)
	if err != nil {
		return fmt.Errorf("read the lex_blocks table: %w", err)
	}
	if slices.Contains(have, "bounds") {
		return nil
	}
	err = ix.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `ALTER TABLE lex_blocks ADD COLUMN bounds BLOB`)
		return err
	})
	if sqlitedb.IsBusy(err) {
		return err
	}
	ix.noBounds = err != nil
	return nil
}

// checkReadingVersion marks every document of an index written by another
// ReadingVersion (or before versions were recorded) as changed, by
// clearing its hash, so that the next ingest reads it again. The index
// answers as before until then. When the index cannot be written (a
// read-only file, another writer holding it past the busy timeout) it is
// left as it is, to be upgraded by a later open: reading an old index is
// never refused for this.
func (ix *Index) checkReadingVersion(ctx context.Context) error {
	v, _, err := getMeta(ctx, ix.db, "reading_version")
	if err != nil {
		return err
	}
	if v == strconv.Itoa(ReadingVersion) {
		return nil
	}
	_ = ix.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET hash = ''`); err != nil {
			return err
		}
		return setMeta(ctx, tx, "reading_version", strconv.Itoa(ReadingVersion))
	})
	return nil
}

// writeTx runs fn in a write transaction, waiting its turn behind other
// writers for up to the busy timeout.
func (ix *Index) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return sqlitedb.WriteTx(ctx, ix.db, ix.busy, fn)
}

// meta reads a meta value; ok is false when absent.
func getMeta(ctx context.Context, q querier, key string) (string, bool, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", key, err)
	}
	return v, true, nil
}

func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("write %s: %w", key, err)
	}
	return nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Stats summarises an index.
type Stats struct {
	Documents int   `json:"documents"`
	Sections  int   `json:"sections"`
	Pages     int   `json:"pages"`
	SizeBytes int64 `json:"size_bytes"`
	// EmbeddingModel and EmbeddingDim are empty/0 when the index holds no
	// vectors.
	EmbeddingModel string `json:"embedding_model,omitempty"`
	EmbeddingDim   int    `json:"embedding_dim,omitempty"`
	Vectors        int    `json:"vectors"`
	// Segments is the number of lexical postings segments.
	Segments int `json:"segments"`
}

// Stats reports the index's size and embedding model.
func (ix *Index) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	row := ix.db.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM documents),
		(SELECT count(*) FROM sections),
		(SELECT coalesce(sum(pages), 0) FROM documents),
		(SELECT count(*) FROM vectors),
		(SELECT count(*) FROM lex_segments)`)
	if err := row.Scan(&s.Documents, &s.Sections, &s.Pages, &s.Vectors, &s.Segments); err != nil {
		return s, fmt.Errorf("index stats %s: %w", ix.path, err)
	}
	m, d, err := ix.embeddingMeta(ctx, ix.db)
	if err != nil {
		return s, fmt.Errorf("index stats %s: %w", ix.path, err)
	}
	s.EmbeddingModel, s.EmbeddingDim = m, d
	for _, suffix := range []string{"", "-wal", "-shm", DenseFileSuffix} {
		if fi, err := os.Stat(ix.path + suffix); err == nil {
			s.SizeBytes += fi.Size()
		}
	}
	return s, nil
}

// EmbeddingModel returns the embedding model and dimension the index's
// vectors were made with, or "" and 0 when it holds none. It reads two
// metadata rows; it costs nothing proportional to the corpus.
func (ix *Index) EmbeddingModel(ctx context.Context) (model string, dim int, err error) {
	model, dim, err = ix.embeddingMeta(ctx, ix.db)
	if err != nil {
		return "", 0, fmt.Errorf("index %s: read embedding model: %w", ix.path, err)
	}
	return model, dim, nil
}

func (ix *Index) embeddingMeta(ctx context.Context, q querier) (model string, dim int, err error) {
	model, _, err = getMeta(ctx, q, "embedding_model")
	if err != nil {
		return "", 0, err
	}
	d, ok, err := getMeta(ctx, q, "embedding_dim")
	if err != nil || !ok {
		return model, 0, err
	}
	dim, err = strconv.Atoi(d)
	if err != nil {
		return "", 0, fmt.Errorf("bad embedding_dim %q in index: %w", d, err)
	}
	return model, dim, nil
}

// DefaultDir returns the default index directory: $DOCMIND_INDEX when set,
// otherwise <user cache dir>/docmind/index (on Linux
// ~/.cache/docmind/index). An index can always be rebuilt from the
// documents, so the cache directory is the right home.
func DefaultDir() (string, error) { return DefaultDirIn(os.Getenv) }

// DefaultDirIn is DefaultDir with the environment read through getenv (a
// command's own environment, a map in tests).
func DefaultDirIn(getenv func(string) string) (string, error) {
	if d := getenv("DOCMIND_INDEX"); d != "" {
		return d, nil
	}
	c, err := userCacheDir(getenv)
	if err != nil {
		return "", fmt.Errorf("find the default index directory (set --index or DOCMIND_INDEX): %w", err)
	}
	return filepath.Join(c, "docmind", "index"), nil
}

// CacheDirForIn returns a per-folder index directory under the user cache
// dir (found through getenv: XDG_CACHE_HOME, HOME), for one-shot runs over
// a folder (`ask --docs DIR`): the same folder maps to the same index, so
// repeated runs only re-parse changed files.
func CacheDirForIn(docsDir string, getenv func(string) string) (string, error) {
	return cacheDirFor(docsDir, "", getenv)
}

// ServedCacheDirForIn is the per-folder index directory of `docmind serve
// --docs DIR`, beside CacheDirForIn's: a server also indexes the files
// uploaded to it, which a one-shot `ask --docs DIR` must not answer from.
func ServedCacheDirForIn(docsDir string, getenv func(string) string) (string, error) {
	return cacheDirFor(docsDir, "serve", getenv)
}

func cacheDirFor(docsDir, purpose string, getenv func(string) string) (string, error) {
	abs, err := filepath.Abs(docsDir)
	if err != nil {
		return "", fmt.Errorf("index cache for %s: %w", docsDir, err)
	}
	c, err := userCacheDir(getenv)
	if err != nil {
		return "", fmt.Errorf("index cache for %s: %w", docsDir, err)
	}
	return filepath.Join(c, "docmind", "folders", StableID(abs, purpose, 0, 0)), nil
}

// userCacheDir is os.UserCacheDir reading the environment through getenv.
func userCacheDir(getenv func(string) string) (string, error) {
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = getenv("LocalAppData")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Caches")
		}
	case "plan9":
		if h := getenv("home"); h != "" {
			dir = filepath.Join(h, "lib", "cache")
		}
	default:
		if x := getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
			dir = x
		} else if h := getenv("HOME"); h != "" {
			dir = filepath.Join(h, ".cache")
		}
	}
	if dir == "" {
		return "", errors.New("no user cache directory: neither $XDG_CACHE_HOME nor $HOME is set")
	}
	return dir, nil
}
