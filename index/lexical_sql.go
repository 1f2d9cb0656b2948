package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/schema"
)

// Lexical search reads the index through connections of its own, each
// keeping its statements prepared (readConn), instead of database/sql.
//
// The driver (modernc.org/sqlite v1.40) prepares a statement again at
// every execution, database/sql's Stmt included: its driver statement
// holds only the SQL text, and every query or exec parses it, plans it
// and finalizes it. Parsing was about half of loading a search's hits and
// about 17% of a cached search's CPU (the profile in
// docs/notes/lexical.md, round 3). Besides, every database/sql call
// allocates rows and converts each column through the driver's type
// names. A readConn is a plain SQLite connection to the same file through
// the same pure-Go library (no cgo), with the same pragmas as the
// driver's connections; it keeps every statement it has run prepared
// (up to readStmts of them) and reads columns in place.
//
// One search holds one readConn from start to end, so its read
// transaction spans its statements; the Index keeps up to
// maxSpareReaders of them between searches and closes them with itself.

// readStmts bounds the prepared statements a readConn keeps: the lists
// statement varies with the number of query terms and the sections
// statement with the number of hits, so a process sees a few dozen.
const readStmts = 64

// maxSpareReaders bounds the connections an Index keeps between searches
// (each holds its statements and a page cache of up to cachePages pages).
const maxSpareReaders = 4

// readBusyMillis is how long a read waits for another connection's lock,
// as the driver's connections do (sqlitedb's statementWait).
const readBusyMillis = 1000

// readConn is one SQLite connection of lexical search, used by one search
// at a time.
type readConn struct {
	tls   *libc.TLS
	db    uintptr
	stmts map[string]uintptr // prepared statements by SQL text
	// prepared counts the statements prepared (the tests read it)
	prepared int
	// interrupted is set when a cancelled context interrupted the
	// connection: it is then closed, never reused
	interrupted atomic.Bool
	cause       error      // the context's error, set before interrupted
	mu          sync.Mutex // held by an interrupt and by close
}

// errReadConn wraps an SQLite error of a readConn.
type errReadConn struct {
	msg  string
	code int32
}

func (e *errReadConn) Error() string { return e.msg }

// openReadConn opens a connection to the index file at path with the
// pragmas of the driver's connections (Open).
func openReadConn(path string) (*readConn, error) {
	c := &readConn{tls: libc.NewTLS(), stmts: map[string]uintptr{}}
	name, err := libc.CString(sqlitedb.ReadDSN(path))
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	defer libc.Xfree(c.tls, name)
	pdb := c.tls.Alloc(8)
	defer c.tls.Free(8)
	// no mutex of its own: one search at a time uses a readConn (an
	// interrupt, the one call from another goroutine, needs none; close
	// and interrupt exclude each other by c.mu)
	flags := int32(sqlite3.SQLITE_OPEN_READWRITE | sqlite3.SQLITE_OPEN_NOMUTEX | sqlite3.SQLITE_OPEN_URI)
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pdb, flags, 0)
	c.db = readPointer(pdb)
	if rc != sqlite3.SQLITE_OK {
		err := c.errorOf(rc)
		c.close()
		return nil, err
	}
	sqlite3.Xsqlite3_extended_result_codes(c.tls, c.db, 1)
	for _, p := range []string{
		"PRAGMA busy_timeout = " + strconv.Itoa(readBusyMillis),
		"PRAGMA cache_size = " + strconv.Itoa(cachePages),
		"PRAGMA mmap_size = 1099511627776",
	} {
		r, err := c.query(context.Background(), p)
		if err == nil {
			for r.next() {
			}
			err = r.close()
		}
		if err != nil {
			c.close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return c, nil
}

// ptrSize is the size of a C pointer: 8 bytes on 64-bit platforms, 4 on
// 32-bit ones.
const ptrSize = 4 << (^uintptr(0) >> 63)

// readPointer reads the pointer SQLite wrote at p (an out parameter, of 8
// bytes allocated).
func readPointer(p uintptr) uintptr {
	b := libc.GoBytes(p, ptrSize)
	if ptrSize == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}

// errorOf describes rc with the connection's last error message.
func (c *readConn) errorOf(rc int32) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	if c.db != 0 {
		if m := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)); m != msg {
			msg += ": " + m
		}
	}
	return &errReadConn{msg: fmt.Sprintf("%s (%d)", msg, rc), code: rc}
}

// close finalizes the statements and closes the connection.
func (c *readConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, st)
	}
	c.stmts = nil
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
}

// interrupt stops the statement running on c (from another goroutine),
// because of cause.
func (c *readConn) interrupt(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.db != 0 {
		c.cause = cause
		c.interrupted.Store(true)
		sqlite3.Xsqlite3_interrupt(c.tls, c.db)
	}
}

// prepare returns the prepared statement of sql, preparing it the first
// time.
func (c *readConn) prepare(sql string) (uintptr, error) {
	if st, ok := c.stmts[sql]; ok {
		return st, nil
	}
	if len(c.stmts) >= readStmts {
		for k, st := range c.stmts {
			sqlite3.Xsqlite3_finalize(c.tls, st)
			delete(c.stmts, k)
		}
	}
	z, err := libc.CString(sql)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(c.tls, z)
	pst := c.tls.Alloc(8)
	defer c.tls.Free(8)
	if rc := sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, z, -1, sqlite3.SQLITE_PREPARE_PERSISTENT, pst, 0); rc != sqlite3.SQLITE_OK {
		return 0, c.errorOf(rc)
	}
	st := readPointer(pst)
	if st == 0 {
		return 0, errors.New("empty statement")
	}
	c.stmts[sql] = st
	c.prepared++
	return st, nil
}

// rawRows is the result of a statement on a readConn; close resets it.
type rawRows struct {
	c   *readConn
	st  uintptr
	err error
}

// query runs sql with args (int64 or string values), bound in order.
func (c *readConn) query(ctx context.Context, sql string, args ...any) (*rawRows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := c.prepare(sql)
	if err != nil {
		return nil, err
	}
	r := &rawRows{c: c, st: st}
	for i, a := range args {
		var rc int32
		switch v := a.(type) {
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, st, int32(i+1), v)
		case string:
			z, err := libc.CString(v)
			if err != nil {
				r.close()
				return nil, err
			}
			// SQLITE_TRANSIENT: SQLite copies the value
			rc = sqlite3.Xsqlite3_bind_text(c.tls, st, int32(i+1), z, int32(len(v)), ^uintptr(0))
			libc.Xfree(c.tls, z)
		default:
			r.close()
			return nil, fmt.Errorf("readConn: argument of type %T", a)
		}
		if rc != sqlite3.SQLITE_OK {
			err := c.errorOf(rc)
			r.close()
			return nil, err
		}
	}
	return r, nil
}

// exec runs a statement that returns no rows.
func (c *readConn) exec(ctx context.Context, sql string) error {
	r, err := c.query(ctx, sql)
	if err != nil {
		return err
	}
	for r.next() {
	}
	return r.close()
}

// next steps to the next row; false at the end or on an error (close
// returns it).
func (r *rawRows) next() bool {
	if r.err != nil || r.st == 0 {
		return false
	}
	switch rc := sqlite3.Xsqlite3_step(r.c.tls, r.st); rc {
	case sqlite3.SQLITE_ROW:
		return true
	case sqlite3.SQLITE_DONE:
		return false
	default:
		r.err = r.c.errorOf(rc)
		if r.c.interrupted.Load() && r.c.cause != nil {
			r.err = fmt.Errorf("%w (%v)", r.c.cause, r.err)
		}
		return false
	}
}

// close resets the statement for its next use and returns the error that
// ended the rows, if any.
func (r *rawRows) close() error {
	if r.st != 0 {
		sqlite3.Xsqlite3_reset(r.c.tls, r.st)
		sqlite3.Xsqlite3_clear_bindings(r.c.tls, r.st)
		r.st = 0
	}
	return r.err
}

func (r *rawRows) int64(i int) int64 { return sqlite3.Xsqlite3_column_int64(r.c.tls, r.st, int32(i)) }

// isNull reports whether column i is NULL.
func (r *rawRows) isNull(i int) bool {
	return sqlite3.Xsqlite3_column_type(r.c.tls, r.st, int32(i)) == sqlite3.SQLITE_NULL
}

// bytes returns column i as a blob (nil when NULL or empty), in SQLite's
// memory: valid until the next step, never to be written.
func (r *rawRows) bytes(i int) []byte {
	p := sqlite3.Xsqlite3_column_blob(r.c.tls, r.st, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(r.c.tls, r.st, int32(i))
	if p == 0 || n == 0 {
		return nil
	}
	return libc.GoBytes(p, int(n))
}

// text returns column i as text (a copy).
func (r *rawRows) text(i int) string {
	p := sqlite3.Xsqlite3_column_text(r.c.tls, r.st, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(r.c.tls, r.st, int32(i))
	if p == 0 || n == 0 {
		return ""
	}
	return string(libc.GoBytes(p, int(n))) // GoBytes aliases SQLite's memory: string copies it
}

// readPool keeps an Index's spare readConns.
type readPool struct {
	mu     sync.Mutex
	spare  []*readConn
	closed bool
}

// get returns a spare connection, or a new one to path.
func (p *readPool) get(path string) (*readConn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("index is closed")
	}
	if n := len(p.spare); n > 0 {
		c := p.spare[n-1]
		p.spare = p.spare[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	return openReadConn(path)
}

// put keeps c for the next search, or closes it.
func (p *readPool) put(c *readConn) {
	p.mu.Lock()
	if !p.closed && !c.interrupted.Load() && len(p.spare) < maxSpareReaders {
		p.spare = append(p.spare, c)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	c.close()
}

// close closes the spare connections; the ones in use close when put.
func (p *readPool) close() {
	p.mu.Lock()
	spare := p.spare
	p.spare, p.closed = nil, true
	p.mu.Unlock()
	for _, c := range spare {
		c.close()
	}
}

// reader is one search's view of the index: a readConn, in a read
// transaction unless the search asked for none.
type reader struct {
	c     *readConn
	ix    *Index
	inTx  bool
	stopI func() bool // stops the interrupt on ctx's end
}

// reader takes a connection for one search and begins its read
// transaction (a deferred BEGIN: it takes no lock until the first read,
// and its snapshot is that of the first read); done ends both.
func (ix *Index) reader(ctx context.Context, snapshot bool) (*reader, error) {
	c, err := ix.readers.get(ix.path)
	if err != nil {
		return nil, err
	}
	r := &reader{c: c, ix: ix}
	if ctx.Done() != nil {
		r.stopI = context.AfterFunc(ctx, func() { c.interrupt(ctx.Err()) })
	}
	if snapshot {
		if err := c.exec(ctx, `BEGIN DEFERRED`); err != nil {
			r.done()
			return nil, err
		}
		r.inTx = true
	}
	return r, nil
}

// done ends the search's transaction and gives the connection back.
func (r *reader) done() {
	if r.stopI != nil && !r.stopI() {
		// the interrupt ran or is running: wait for it, and let the
		// connection go (put closes an interrupted one)
		r.c.mu.Lock()
		r.c.interrupted.Store(true)
		r.c.mu.Unlock()
	}
	if r.inTx {
		if r.c.exec(context.Background(), `ROLLBACK`) != nil {
			r.c.interrupted.Store(true) // not reusable: close it
		}
	}
	r.ix.readers.put(r.c)
}

// stats reads the corpus statistics and generation (readLexStats).
func (r *reader) stats(ctx context.Context) (lexStats, error) {
	var st lexStats
	rows, err := r.c.query(ctx, lexStatsSQL)
	if err != nil {
		return st, err
	}
	if !rows.next() {
		if err := rows.close(); err != nil {
			return st, err
		}
		return st, errors.New("no lexical statistics")
	}
	st.n, st.totalLen, st.gen[0], st.gen[1], st.gen[2] = rows.int64(0), rows.int64(1), rows.int64(2), rows.int64(3), rows.int64(4)
	st.deleted = st.gen[2] > 0
	return st, rows.close()
}

// lists is readLists on the reader's connection.
func (r *reader) lists(ctx context.Context, qts []queryTerm, withBounds bool, each listFunc) (n, totalLen int64, deleted bool, err error) {
	if len(qts) == 0 {
		return 0, 0, false, nil
	}
	args := make([]any, len(qts))
	for i, t := range qts {
		args[i] = t.term
	}
	rows, err := r.c.query(ctx, listsSQL(len(qts), withBounds), args...)
	if err != nil {
		return 0, 0, false, err
	}
	defer rows.close()
	var lb listBounds
	for rows.next() {
		n, totalLen, deleted = rows.int64(1), rows.int64(2), rows.int64(3) != 0
		var data, bounds []byte
		if !rows.isNull(5) {
			data = rows.bytes(5)
			if data == nil {
				data = []byte{}
			}
		}
		if !rows.isNull(6) {
			bounds = rows.bytes(6)
			if bounds == nil {
				bounds = []byte{}
			}
		}
		if err := takeList(qts, rows.text(0), rows.int64(4), data, bounds, &lb, each); err != nil {
			return 0, 0, false, err
		}
	}
	return n, totalLen, deleted, rows.close()
}

// deleted is deletedSections on the reader's connection.
func (r *reader) deleted(ctx context.Context) (map[int64]bool, error) {
	rows, err := r.c.query(ctx, `SELECT section FROM lex_deleted`)
	if err != nil {
		return nil, err
	}
	out := map[int64]bool{}
	for rows.next() {
		out[rows.int64(0)] = true
	}
	return out, rows.close()
}

// sections is loadSections on the reader's connection, in one statement
// that joins the ids given as a VALUES list. (With "s.id IN (?, ...)",
// as loadSections has, SQLite builds and drops an ephemeral table at every
// run, and the allocator maps and unmaps its page each time: 8% of a
// cached search's CPU.)
func (r *reader) sections(ctx context.Context, ids []int64) (map[int64]schema.Section, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := r.c.query(ctx, sectionsByIDSQL(len(ids)), args...)
	if err != nil {
		return nil, fmt.Errorf("load sections: %w", err)
	}
	out := make(map[int64]schema.Section, len(ids))
	for rows.next() {
		// the columns of sectionColumns, in order (scanSection)
		out[rows.int64(0)] = schema.Section{
			ID: rows.text(1), Source: rows.text(2), Title: rows.text(3), Content: rows.text(4),
			Page: int(rows.int64(5)), PageEnd: int(rows.int64(6)), PageLabel: rows.text(7),
			Chunk: int(rows.int64(8)), PagePrinted: rows.int64(9) != 0,
			DocTitle: rows.text(10), DocEntity: rows.text(11), DocPeriod: rows.text(12), Kind: schema.SectionKind(rows.text(13)),
		}
	}
	if err := rows.close(); err != nil {
		return nil, fmt.Errorf("load sections: %w", err)
	}
	return out, nil
}

// sectionsByIDSQL loads n sections by id (the columns of sectionColumns).
func sectionsByIDSQL(n int) string {
	return `WITH ids(id) AS (VALUES (?)` + strings.Repeat(",(?)", n-1) + `)
		SELECT ` + sectionColumns + ` FROM ids CROSS JOIN sections s ON s.id = ids.id JOIN documents d ON d.id = s.doc_id`
}
