package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// analyzer turns text into BM25 terms exactly like textproc.Terms, caching
// stems (stemming dominates analysis time in bulk loads).
type analyzer struct {
	stems map[string]string
}

func newAnalyzer() *analyzer { return &analyzer{stems: map[string]string{}} }

type termFreq struct {
	term string
	tf   int
}

func (a *analyzer) terms(text string) []string {
	toks := textproc.Tokens(text)
	out := toks[:0]
	for _, t := range toks {
		if textproc.IsStopWord(t) {
			continue
		}
		s, ok := a.stems[t]
		if !ok {
			s = textproc.Stem(t)
			if len(a.stems) < 1<<20 {
				a.stems[t] = s
			}
		}
		out = append(out, s)
	}
	return out
}

// termFreqs returns the distinct terms of text with their counts, sorted by
// term, and the section's BM25 length (textproc.BM25Length).
func (a *analyzer) termFreqs(text string) ([]termFreq, int) {
	terms := a.terms(text)
	if len(terms) == 0 {
		return nil, 0
	}
	slices.Sort(terms)
	var out []termFreq
	for i, t := range terms {
		if i > 0 && terms[i-1] == t {
			out[len(out)-1].tf++
			continue
		}
		out = append(out, termFreq{term: t, tf: 1})
	}
	return out, textproc.BM25Length(terms)
}

// posting is one (section, term) entry.
type posting struct {
	id     int64 // sections.id
	tf     uint32
	length uint32
}

// Postings blobs are a sequence of uvarint triples: id delta (from the
// previous id, the first from 0), term frequency, section length.
func appendPosting(buf []byte, prev int64, p posting) []byte {
	buf = binary.AppendUvarint(buf, uint64(p.id-prev))
	buf = binary.AppendUvarint(buf, uint64(p.tf))
	return binary.AppendUvarint(buf, uint64(p.length))
}

func decodePostings(data []byte, fn func(p posting)) error {
	var id int64
	for len(data) > 0 {
		d, tf, l, n := nextPosting(data)
		if n <= 0 {
			return errCorruptPostings
		}
		data = data[n:]
		id += int64(d)
		fn(posting{id: id, tf: uint32(tf), length: uint32(l)})
	}
	return nil
}

var errCorruptPostings = errors.New("corrupt postings")

// nextPosting reads the posting at the start of data: its id delta, term
// frequency and length, and its size in bytes (0 when corrupt). Most
// values take one or two bytes (tf, lengths below 16384, deltas in lists
// of more than a section in 16384): one byte is read inline, two without
// a loop.
func nextPosting(data []byte) (delta, tf, length uint64, n int) {
	var v [3]uint64
	for f := range v {
		if n < len(data) && data[n] < 0x80 {
			v[f] = uint64(data[n])
			n++
			continue
		}
		if n+1 < len(data) && data[n+1] < 0x80 {
			v[f] = uint64(data[n]&0x7f) | uint64(data[n+1])<<7
			n += 2
			continue
		}
		x, k := binary.Uvarint(data[n:])
		if k <= 0 {
			return 0, 0, 0, 0
		}
		v[f] = x
		n += k
	}
	return v[0], v[1], v[2], n
}

// segmentBuilder collects the postings of one write transaction.
type segmentBuilder struct {
	terms    map[string]*listWriter
	sections int
	size     int // heap bytes of the terms and postings, estimated
}

func newSegmentBuilder() *segmentBuilder {
	return &segmentBuilder{terms: map[string]*listWriter{}}
}

// add records a section's terms; sections must be added in increasing id
// order.
func (b *segmentBuilder) add(id int64, tfs []termFreq, length int) {
	b.sections++
	b.post(id, tfs, length)
}

// addContext records a section's context terms (already prefixed); it
// does not count as a section of its own.
func (b *segmentBuilder) addContext(id int64, tfs []termFreq, length int) {
	b.post(id, tfs, length)
}

// post appends a posting of section id to the list of each of its terms.
func (b *segmentBuilder) post(id int64, tfs []termFreq, length int) {
	for _, t := range tfs {
		tp := b.terms[t.term]
		if tp == nil {
			tp = &listWriter{}
			b.terms[t.term] = tp
			b.size += len(t.term) + termOverhead
		}
		n := tp.footprint()
		tp.add(posting{id: id, tf: uint32(t.tf), length: uint32(length)})
		b.size += tp.footprint() - n
	}
}

// termOverhead estimates the heap bytes a segmentBuilder spends on a term
// beside its string and its lists' arrays: the map entry (key header,
// pointer and bucket share) and the listWriter itself.
const termOverhead = 48 + 96

// footprint is the bytes of the arrays a listWriter holds (their
// capacities, which is what the heap holds).
func (w *listWriter) footprint() int {
	return cap(w.buf) + cap(w.front)*8 + cap(w.skips)*16
}

func (b *segmentBuilder) write(ctx context.Context, tx *sql.Tx) error {
	if b.sections == 0 {
		return nil
	}
	entries := make([]blockEntry, 0, len(b.terms))
	for term, tp := range b.terms {
		entries = append(entries, tp.entry(term))
	}
	slices.SortFunc(entries, func(a, b blockEntry) int { return strings.Compare(a.term, b.term) })
	if err := writeSegment(ctx, tx, b.sections, entries); err != nil {
		return fmt.Errorf("write postings: %w", err)
	}
	return nil
}

// blockEntry is one term's postings within a segment.
type blockEntry struct {
	term string
	df   int
	data []byte
	// front and skips are the postings' score frontier and skip points
	// when the writer kept them (else encodeBounds computes them)
	front []tfLen
	skips []skipPoint
}

// blockTarget is the size at which a block is cut. A term whose postings
// are larger gets a block of its own.
const blockTarget = 6 << 10

// A block is: uvarint entry count; per entry uvarint term length, term
// bytes, uvarint df, uvarint postings length; then the postings of every
// entry in order.
func encodeBlock(entries []blockEntry) []byte {
	var buf []byte
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	for _, e := range entries {
		buf = binary.AppendUvarint(buf, uint64(len(e.term)))
		buf = append(buf, e.term...)
		buf = binary.AppendUvarint(buf, uint64(e.df))
		buf = binary.AppendUvarint(buf, uint64(len(e.data)))
	}
	for _, e := range entries {
		buf = append(buf, e.data...)
	}
	return buf
}

// decodeBlock calls fn for every entry of a block; data aliases block.
func decodeBlock(block []byte, fn func(e blockEntry) bool) error {
	bad := fmt.Errorf("corrupt postings block")
	n, k := binary.Uvarint(block)
	if k <= 0 || n > uint64(len(block)) {
		return bad
	}
	dir := block[k:]
	type ent struct {
		term    string
		df, len int
	}
	ents := make([]ent, 0, n)
	total := 0
	for i := uint64(0); i < n; i++ {
		tl, k := binary.Uvarint(dir)
		if k <= 0 || uint64(len(dir)-k) < tl {
			return bad
		}
		term := string(dir[k : k+int(tl)])
		dir = dir[k+int(tl):]
		df, k1 := binary.Uvarint(dir)
		if k1 <= 0 {
			return bad
		}
		dl, k2 := binary.Uvarint(dir[k1:])
		if k2 <= 0 || dl > uint64(len(block)) {
			return bad // a length past the block (or past int) is corrupt
		}
		dir = dir[k1+k2:]
		ents = append(ents, ent{term, int(df), int(dl)})
		total += int(dl)
	}
	if total != len(dir) {
		return bad
	}
	for _, e := range ents {
		if !fn(blockEntry{term: e.term, df: e.df, data: dir[:e.len:e.len]}) {
			return nil
		}
		dir = dir[e.len:]
	}
	return nil
}

// writeSegment stores a new segment of sorted entries.
func writeSegment(ctx context.Context, tx *sql.Tx, sections int, entries []blockEntry) error {
	w, err := newSegmentWriter(ctx, tx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := w.add(e); err != nil {
			return err
		}
	}
	return w.finish(sections)
}

// segmentWriter writes a new segment's entries, given in term order, in
// blocks as they come, so that a segment of any size is written without
// holding it whole.
type segmentWriter struct {
	ctx     context.Context
	tx      *sql.Tx
	seg     int64
	ins     *bulk
	pending []blockEntry // entries of the block being filled
	size    int          // their estimated encoded size
}

func newSegmentWriter(ctx context.Context, tx *sql.Tx) (*segmentWriter, error) {
	// level and sections are set by finish, once they are known
	res, err := tx.ExecContext(ctx, `INSERT INTO lex_segments(level, sections) VALUES (0, 0)`)
	if err != nil {
		return nil, err
	}
	seg, err := res.LastInsertId()
	if err != nil {
		return nil, err
	}
	return &segmentWriter{ctx: ctx, tx: tx, seg: seg, ins: newBulk(tx, `INSERT INTO lex_blocks(seg, first_term, chunk, data, bounds) VALUES `, 5)}, nil
}

// store writes a block of entries with their score bounds
// (lexical_bounds.go).
func (w *segmentWriter) store(chunk int, entries []blockEntry) error {
	bounds, err := encodeBounds(entries)
	if err != nil {
		return err
	}
	return w.ins.add(w.ctx, w.seg, entries[0].term, chunk, encodeBlock(entries), bounds)
}

func (w *segmentWriter) flush() error {
	if len(w.pending) > 0 {
		if err := w.store(0, w.pending); err != nil {
			return err
		}
	}
	w.pending, w.size = w.pending[:0], 0
	return nil
}

// add appends the next entry; entries come in increasing term order.
func (w *segmentWriter) add(e blockEntry) error {
	if len(e.data) >= blockTarget {
		// A long postings list is stored alone, in chunks that stay
		// below the SQLite allocator's large-allocation threshold.
		if err := w.flush(); err != nil {
			return err
		}
		for _, c := range chunkPostings(e) {
			if err := w.store(1, []blockEntry{c}); err != nil {
				return err
			}
		}
		return nil
	}
	w.pending = append(w.pending, e)
	w.size += len(e.term) + len(e.data) + 8
	if w.size >= blockTarget {
		return w.flush()
	}
	return nil
}

// finish writes what is pending and records the segment's size.
func (w *segmentWriter) finish(sections int) error {
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.ins.flush(w.ctx); err != nil {
		return err
	}
	_, err := w.tx.ExecContext(w.ctx, `UPDATE lex_segments SET level = ?, sections = ? WHERE id = ?`, segmentLevel(sections), sections, w.seg)
	return err
}

// chunkPostings splits a long postings list into lists of about
// blockTarget bytes, each delta-encoded from zero.
func chunkPostings(e blockEntry) []blockEntry {
	var out []blockEntry
	var cur listWriter
	_ = decodePostings(e.data, func(p posting) {
		cur.add(p)
		if len(cur.buf) >= blockTarget {
			out = append(out, cur.entry(e.term))
			cur = listWriter{}
		}
	})
	if cur.df > 0 {
		out = append(out, cur.entry(e.term))
	}
	return out
}

// Segment merging: a segment's level grows by one for every mergeFactor
// times more sections than baseSegment; when mergeFactor segments share a
// level they are merged into one. A query therefore reads at most about
// mergeFactor rows per term and level.
const (
	mergeFactor = 8
	baseSegment = 256
)

func segmentLevel(sections int) int {
	level := 0
	for n := baseSegment; sections > n; n *= mergeFactor {
		level++
	}
	return level
}

func mergeSegments(ctx context.Context, tx *sql.Tx) error {
	for {
		var level int
		err := tx.QueryRowContext(ctx, `SELECT level FROM lex_segments GROUP BY level HAVING count(*) >= ? ORDER BY level LIMIT 1`, mergeFactor).Scan(&level)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return fmt.Errorf("merge postings: %w", err)
		}
		if err := mergeLevel(ctx, tx, level); err != nil {
			return fmt.Errorf("merge postings: %w", err)
		}
	}
}

func mergeLevel(ctx context.Context, tx *sql.Tx, level int) error {
	segs, err := sqlitedb.Column[int64](ctx, tx, `SELECT id FROM lex_segments WHERE level = ? ORDER BY id`, level)
	if err != nil {
		return err
	}
	return mergeSegmentIDs(ctx, tx, segs)
}

// deletedSections returns the sections deleted whose postings stay in
// their segments until it is merged (lex_deleted).
func deletedSections(ctx context.Context, q sqlitedb.Querier) (map[int64]bool, error) {
	dead, err := sqlitedb.Column[int64](ctx, q, `SELECT section FROM lex_deleted`)
	if err != nil {
		return nil, err
	}
	deleted := make(map[int64]bool, len(dead))
	for _, id := range dead {
		deleted[id] = true
	}
	return deleted, nil
}

// mergeSegmentIDs merges the given segments into one new segment, dropping
// the postings of deleted sections and their tombstones. It reads the
// segments side by side in term order, a few blocks at a time, and writes
// the merged lists as it goes: its memory is that of one term's postings,
// not of the segments.
func mergeSegmentIDs(ctx context.Context, tx *sql.Tx, segs []int64) error {
	deleted, err := deletedSections(ctx, tx)
	if err != nil {
		return err
	}
	total := 0
	for _, seg := range segs {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT sections FROM lex_segments WHERE id = ?`, seg).Scan(&n); err != nil {
			return err
		}
		total += n
	}
	curs := make([]*segmentCursor, len(segs))
	for i, seg := range segs {
		curs[i] = &segmentCursor{seg: seg}
	}
	out, err := newSegmentWriter(ctx, tx)
	if err != nil {
		return err
	}
	dropped := map[int64]struct{}{}
	written := false
	var ps []posting
	for {
		// the smallest term any segment is at
		term, any := "", false
		for _, c := range curs {
			e, err := c.peek(ctx, tx)
			if err != nil {
				return err
			}
			if e != nil && (!any || e.term < term) {
				term, any = e.term, true
			}
		}
		if !any {
			break
		}
		ps = ps[:0]
		for _, c := range curs {
			for {
				e, err := c.peek(ctx, tx)
				if err != nil {
					return err
				}
				if e == nil || e.term != term {
					break
				}
				if err := decodePostings(e.data, func(p posting) {
					if deleted[p.id] {
						dropped[p.id] = struct{}{}
						return
					}
					ps = append(ps, p)
				}); err != nil {
					return fmt.Errorf("term %q: %w", term, err)
				}
				c.next()
			}
		}
		if len(ps) == 0 {
			continue
		}
		if !slices.IsSortedFunc(ps, func(a, b posting) int { return cmpInt64(a.id, b.id) }) {
			slices.SortFunc(ps, func(a, b posting) int { return cmpInt64(a.id, b.id) })
		}
		var w listWriter
		for _, p := range ps {
			w.add(p)
		}
		if err := out.add(w.entry(term)); err != nil {
			return err
		}
		written = true
	}
	if written {
		// a section's postings are all in one segment
		if err := out.finish(max(total-len(dropped), 0)); err != nil {
			return err
		}
	} else if _, err := tx.ExecContext(ctx, `DELETE FROM lex_segments WHERE id = ?`, out.seg); err != nil {
		return err
	}
	for _, seg := range segs {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lex_blocks WHERE seg = ?`, seg); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM lex_segments WHERE id = ?`, seg); err != nil {
			return err
		}
	}
	for id := range dropped {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lex_deleted WHERE section = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// segmentCursor reads one segment's entries in term order (the chunks of
// a long list in their order), a page of blocks at a time. Each page is
// a query of its own, so no statement stays open while the merge writes.
type segmentCursor struct {
	seg     int64
	blocks  [][]byte     // the page's blocks not yet decoded
	entries []blockEntry // the current block's entries not yet read
	term    string       // the key of the last block read
	rowid   int64
	started bool
	done    bool
}

// cursorPage is how many blocks a segmentCursor reads at a time (each
// about blockTarget bytes).
var cursorPage = 16

// peek returns the current entry, nil at the end.
func (c *segmentCursor) peek(ctx context.Context, tx *sql.Tx) (*blockEntry, error) {
	for len(c.entries) == 0 {
		if len(c.blocks) == 0 {
			if c.done {
				return nil, nil
			}
			if err := c.page(ctx, tx); err != nil {
				return nil, err
			}
			continue
		}
		b := c.blocks[0]
		c.blocks = c.blocks[1:]
		if err := decodeBlock(b, func(e blockEntry) bool {
			c.entries = append(c.entries, e)
			return true
		}); err != nil {
			return nil, err
		}
	}
	return &c.entries[0], nil
}

func (c *segmentCursor) next() { c.entries = c.entries[1:] }

func (c *segmentCursor) page(ctx context.Context, tx *sql.Tx) error {
	q, args := `SELECT rowid, first_term, data FROM lex_blocks WHERE seg = ?
		ORDER BY first_term, rowid LIMIT ?`, []any{c.seg, cursorPage}
	if c.started {
		q, args = `SELECT rowid, first_term, data FROM lex_blocks WHERE seg = ? AND (first_term, rowid) > (?, ?)
		ORDER BY first_term, rowid LIMIT ?`, []any{c.seg, c.term, c.rowid, cursorPage}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&c.rowid, &c.term, &data); err != nil {
			return err
		}
		c.blocks = append(c.blocks, data)
		n++
	}
	c.started = true
	if n < cursorPage {
		c.done = true
	}
	return rows.Err()
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Optimize merges every lexical segment into one and drops the postings of
// deleted sections. Searches are fastest right after it; ingestion does not
// need it.
func (ix *Index) Optimize(ctx context.Context) error {
	err := ix.writeTx(ctx, func(tx *sql.Tx) error {
		segs, err := sqlitedb.Column[int64](ctx, tx, `SELECT id FROM lex_segments ORDER BY id`)
		if err != nil {
			return err
		}
		if len(segs) > 1 || hasDeleted(ctx, tx) {
			return mergeSegmentIDs(ctx, tx, segs)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("optimize index %s: %w", ix.path, err)
	}
	return nil
}

func hasDeleted(ctx context.Context, tx *sql.Tx) bool {
	var n int
	_ = tx.QueryRowContext(ctx, `SELECT count(*) FROM lex_deleted`).Scan(&n)
	return n > 0
}

// Hit is one search result.
type Hit struct {
	// Section carries RelevanceScore in [0,1].
	Section schema.Section
	// Score is the raw score of the ranking that produced the hit: BM25
	// for lexical search, cosine similarity for dense search, the fused
	// RRF score for hybrid search.
	Score float64
	// Lexical and Dense are the hit's BM25 score and cosine similarity
	// when known (hybrid search fills both where the section was found).
	Lexical, Dense float64
	rowid          int64
}

// SearchOptions tunes one search.
type SearchOptions struct {
	// K1 and B override the index's BM25 parameters when > 0 / >= 0 with
	// SetBM25 true.
	K1, B   float64
	SetBM25 bool
	// ContextWeight overrides the index's context field weight when
	// SetContextWeight is true (0 turns the context field off).
	ContextWeight    float64
	SetContextWeight bool
	// Exclude drops sections whose key (Section.Key) is in the set.
	Exclude map[string]bool
	// Where keeps only the sections it matches (the zero Where matches
	// every section).
	Where Where

	// measurement knobs of the tests and benchmarks
	exhaustive bool         // score every posting (no pruning)
	noSnapshot bool         // read without a read transaction
	noCache    bool         // read every list from the index (no listCache)
	stats      *searchStats // when set, counts the work done
}

// searchStats counts the work of lexical searches.
type searchStats struct {
	postings int64 // postings of the query's terms read
	scored   int64 // postings scored
}

// Where restricts a search to some documents: every non-empty field must
// match.
type Where struct {
	// Documents lists document paths (Section.Source).
	Documents []string
	// Folder keeps documents whose path is under this folder.
	Folder string
	// Entity and Period match the document context (Section.DocEntity,
	// Section.DocPeriod), ignoring case.
	Entity, Period string
}

// IsZero reports whether w matches every section.
func (w Where) IsZero() bool {
	return len(w.Documents) == 0 && w.Folder == "" && w.Entity == "" && w.Period == ""
}

// Match reports whether s passes w.
func (w Where) Match(s schema.Section) bool {
	if len(w.Documents) > 0 && !slices.Contains(w.Documents, s.Source) {
		return false
	}
	if w.Folder != "" && !InFolder(s.Source, w.Folder) {
		return false
	}
	if w.Entity != "" && !strings.EqualFold(w.Entity, s.DocEntity) {
		return false
	}
	return w.Period == "" || strings.EqualFold(w.Period, s.DocPeriod)
}

// InFolder reports whether path is folder itself or lies under it
// (compared on whole path elements: "/a/bc" is not under "/a/b").
func InFolder(path, folder string) bool {
	folder = strings.TrimRight(folder, "/")
	if folder == "" {
		return strings.HasPrefix(path, "/")
	}
	return path == folder || strings.HasPrefix(path, folder+"/")
}

// accumulator is a reusable dense score array indexed by section id.
type accumulator struct {
	scores  []float32 // rank: text plus context
	content []float32 // the text's part (relevance)
	touched []int64
}

// maxSpareAccumulators bounds the accumulators an Index keeps for reuse:
// one per concurrent query up to this many.
const maxSpareAccumulators = 4

// getAccumulator returns a spare accumulator, or a new one.
func (ix *Index) getAccumulator() *accumulator {
	ix.accMu.Lock()
	defer ix.accMu.Unlock()
	if n := len(ix.accSpare); n > 0 {
		acc := ix.accSpare[n-1]
		ix.accSpare = ix.accSpare[:n-1]
		return acc
	}
	return &accumulator{}
}

// putAccumulator clears acc and keeps it for reuse.
func (ix *Index) putAccumulator(acc *accumulator) {
	for _, id := range acc.touched {
		acc.scores[id] = 0
		acc.content[id] = 0
	}
	acc.touched = acc.touched[:0]
	ix.accMu.Lock()
	defer ix.accMu.Unlock()
	if len(ix.accSpare) < maxSpareAccumulators {
		ix.accSpare = append(ix.accSpare, acc)
	}
}

// Search ranks sections by BM25 against the query and returns the best k.
// RelevanceScore is the BM25 score divided by the score of a section of
// average length holding every query term once (capped at 1).
func (ix *Index) Search(ctx context.Context, query string, k int) ([]Hit, error) {
	return ix.SearchWith(ctx, query, k, SearchOptions{})
}

// SearchWith is Search with per-query options.
func (ix *Index) SearchWith(ctx context.Context, query string, k int, opt SearchOptions) ([]Hit, error) {
	hits, err := ix.lexical(ctx, query, k, opt)
	if err != nil {
		return nil, fmt.Errorf("search index %s for %q: %w", ix.path, query, err)
	}
	return hits, nil
}

type queryTerm struct {
	term  string
	qtf   int
	df    int
	lists []termList
}

// readPostings fills the df of every term of qts (sorted by term,
// distinct) from every segment, calls each with the index in qts of a term
// and one blob of its postings (valid only during the call: each decodes
// or copies it), and returns the corpus statistics. One statement, so that
// statistics and postings come from the same snapshot even while a writer
// merges segments: for every segment and term it returns the block that
// would hold the term.
func readPostings(ctx context.Context, q querier, qts []queryTerm, each func(i int, postings []byte) error) (n, totalLen int64, err error) {
	n, totalLen, _, err = readLists(ctx, q, qts, false, func(i int, _ int64, postings []byte, _ *listBounds) error {
		return each(i, postings)
	})
	return n, totalLen, err
}

// readLists is readPostings that also passes the segment of each list and
// its bounds (nil when withBounds is false or the block has none; valid
// only during the call), and tells whether any section is deleted
// with its postings still in their segments (lex_deleted).
func readLists(ctx context.Context, q querier, qts []queryTerm, withBounds bool, each listFunc) (n, totalLen int64, deleted bool, err error) {
	if len(qts) == 0 {
		return 0, 0, false, nil
	}
	args := make([]any, len(qts))
	for i, t := range qts {
		args[i] = t.term
	}
	rows, err := q.QueryContext(ctx, listsSQL(len(qts), withBounds), args...)
	if err != nil {
		return 0, 0, false, err
	}
	defer rows.Close()
	var lb listBounds
	for rows.Next() {
		var term string
		var seg int64
		var data, bounds sql.RawBytes // not copied again: each reads them in place
		if err := rows.Scan(&term, &n, &totalLen, &deleted, &seg, &data, &bounds); err != nil {
			return 0, 0, false, err
		}
		if err := takeList(qts, term, seg, data, bounds, &lb, each); err != nil {
			return 0, 0, false, err
		}
	}
	return n, totalLen, deleted, rows.Err()
}

// listFunc is readLists' callback: the index in qts of a term, the
// segment of one of its lists, the list's postings and its bounds (nil
// when not read or not stored), valid only during the call.
type listFunc func(i int, seg int64, postings []byte, lb *listBounds) error

// listsSQL is readLists' statement for n terms: one row per segment and
// term, the block that would hold the term, with the statistics.
func listsSQL(n int, withBounds bool) string {
	boundsCol := "NULL"
	if withBounds {
		boundsCol = "b.bounds"
	}
	return `WITH q(term) AS (VALUES (?)` + strings.Repeat(",(?)", n-1) + `)
		SELECT q.term, st.n, st.total_len, EXISTS (SELECT 1 FROM lex_deleted), b.seg, b.data, ` + boundsCol + `
		FROM lex_stats st CROSS JOIN lex_segments s CROSS JOIN q CROSS JOIN lex_blocks b
		WHERE st.id = 1 AND b.seg = s.id
			AND b.first_term = (SELECT max(first_term) FROM lex_blocks WHERE seg = s.id AND first_term <= q.term)
			AND (b.chunk = 0 OR b.first_term = q.term)`
}

// takeList handles one row of listsSQL: when block data holds term (one
// of qts), it adds the term's df and calls each with its postings and
// bounds (decoded into lb when the row has them).
func takeList(qts []queryTerm, term string, seg int64, data, bounds []byte, lb *listBounds, each listFunc) error {
	i := sort.Search(len(qts), func(i int) bool { return qts[i].term >= term })
	if i == len(qts) || qts[i].term != term || data == nil {
		return nil
	}
	postings, df, pos, ok, err := findInBlock(data, term)
	if err == nil && ok {
		qts[i].df += df
		var b *listBounds
		if bounds != nil {
			rest := bounds
			for j := 0; j <= pos && err == nil; j++ {
				size := math.MaxInt // an entry before the term's: only read past
				if j == pos {
					size = len(postings)
				}
				rest, err = nextBounds(rest, lb, size)
			}
			b = lb
		}
		if err == nil {
			err = each(i, seg, postings, b)
		}
	}
	if err != nil {
		return fmt.Errorf("term %q: %w", term, err)
	}
	return nil
}

// findInBlock returns the postings and df of term in a block and the
// entry's position in it; ok is false when the block does not hold term.
// It reads the block in place, allocating nothing.
func findInBlock(block []byte, term string) (postings []byte, df, pos int, ok bool, err error) {
	bad := fmt.Errorf("corrupt postings block")
	n, k := binary.Uvarint(block)
	if k <= 0 || n > uint64(len(block)) {
		return nil, 0, 0, false, bad
	}
	dir := block[k:]
	total, off, size := 0, 0, 0
	for i := uint64(0); i < n; i++ {
		tl, k := binary.Uvarint(dir)
		if k <= 0 || uint64(len(dir)-k) < tl {
			return nil, 0, 0, false, bad
		}
		name := dir[k : k+int(tl)]
		dir = dir[k+int(tl):]
		d, k1 := binary.Uvarint(dir)
		if k1 <= 0 {
			return nil, 0, 0, false, bad
		}
		dl, k2 := binary.Uvarint(dir[k1:])
		if k2 <= 0 || dl > uint64(len(block)) {
			return nil, 0, 0, false, bad
		}
		dir = dir[k1+k2:]
		if !ok && string(name) == term {
			ok, df, pos, off, size = true, int(d), int(i), total, int(dl)
		}
		total += int(dl)
	}
	if total != len(dir) {
		return nil, 0, 0, false, bad
	}
	if !ok {
		return nil, 0, 0, false, nil
	}
	return dir[off : off+size : off+size], df, pos, true, nil
}

func (ix *Index) lexical(ctx context.Context, query string, k int, opt SearchOptions) ([]Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	k1, b := ix.k1, ix.b
	if opt.SetBM25 {
		k1, b = opt.K1, opt.B
	}
	an := analyzer{stems: map[string]string{}}
	tfs, _ := an.termFreqs(textproc.QueryText(query))
	if len(tfs) == 0 {
		return nil, nil
	}
	// one read transaction: the postings and the sections they point to
	// are read from the same snapshot, so that a document replaced
	// meanwhile is seen old or new, never as postings without sections
	// (on a connection of lexical search's own, with its statements
	// prepared: lexical_sql.go)
	conn, err := ix.reader(ctx, !opt.noSnapshot)
	if err != nil {
		return nil, err
	}
	defer conn.done()
	cw := ix.contextWeight
	if opt.SetContextWeight {
		cw = opt.ContextWeight
	}
	qts := make([]queryTerm, 0, 2*len(tfs))
	for _, t := range tfs {
		qts = append(qts, queryTerm{term: t.term, qtf: t.tf})
		if cw > 0 {
			qts = append(qts, queryTerm{term: contextPrefix + t.term, qtf: t.tf})
		}
	}
	slices.SortFunc(qts, func(a, b queryTerm) int { return strings.Compare(a.term, b.term) })
	// filters (Where, Exclude) are applied to loaded sections, after
	// scoring: with one, every section is scored
	prunable := !opt.exhaustive && opt.Where.IsZero() && len(opt.Exclude) == 0
	st, err := ix.lists.fill(ctx, conn, qts, prunable && !ix.noBounds, !ix.noBounds && !opt.noCache)
	if err != nil {
		return nil, err
	}
	n, totalLen, deleted := st.n, st.totalLen, st.deleted
	if n == 0 {
		return nil, nil
	}
	avgdl := float64(totalLen) / float64(n)
	c1 := k1 * (1 - b)
	c2 := k1 * b / avgdl
	// unit is the score of an average-length section with every term once:
	// RelevanceScore is the score over it. A term no section has counts in
	// it with the weight of the rarest possible term, so a question about
	// something the documents never mention ("warranty") cannot reach a
	// relevance floor on its other, common words ("period") alone.
	unit := 0.0
	for _, qt := range qts {
		switch {
		case strings.HasPrefix(qt.term, contextPrefix):
		case qt.df == 0:
			unit += math.Log(1+(float64(n)-0.5)/1.5) * float64(qt.qtf)
		default:
			unit += termWeight(qt, n)
		}
	}
	if opt.stats != nil {
		for _, qt := range qts {
			opt.stats.postings += int64(qt.df)
		}
	}
	if prunable {
		q := &pruneQuery{k1: k1, c1: c1, c2: c2, cw: cw, n: n, stats: opt.stats}
		if deleted {
			if q.deleted, err = conn.deleted(ctx); err != nil {
				return nil, err
			}
		}
		hits, ok, err := ix.pruned(ctx, conn, q, qts, k, unit)
		if err != nil || ok {
			return hits, err
		}
	}

	acc := ix.getAccumulator()
	defer ix.putAccumulator(acc)
	var ctxTerms []queryTerm
	var nScored int64
	if opt.stats != nil {
		defer func() { opt.stats.scored += nScored }()
	}
	for _, qt := range qts {
		if strings.HasPrefix(qt.term, contextPrefix) {
			ctxTerms = append(ctxTerms, qt)
			continue
		}
		if qt.df == 0 {
			continue
		}
		wk := termWeight(qt, n) * (k1 + 1)
		for _, l := range qt.lists {
			err := l.each(func(p posting) {
				if int(p.id) >= len(acc.scores) {
					grow := max(int(p.id)+1, 2*len(acc.scores))
					acc.scores = append(acc.scores, make([]float32, grow-len(acc.scores))...)
					acc.content = append(acc.content, make([]float32, grow-len(acc.content))...)
				}
				nScored++
				tf := float64(p.tf)
				s := float32(wk * tf / (tf + c1 + c2*float64(p.length)))
				if acc.scores[p.id] == 0 {
					acc.touched = append(acc.touched, p.id)
				}
				acc.scores[p.id] += s
				acc.content[p.id] += s
			})
			if err != nil {
				return nil, fmt.Errorf("term %q: %w", qt.term, err)
			}
		}
	}
	// The context field (the document's title, entity, period and file
	// name) adds to the rank of sections the question's terms already
	// found, with its own idf and weight and no length normalisation; it
	// decides which document's sections come first, not whether a section
	// is relevant: RelevanceScore stays the text's score over unit.
	for _, qt := range ctxTerms {
		if qt.df == 0 {
			continue
		}
		wk := contextWeight(qt, n, cw) * (k1 + 1)
		for _, l := range qt.lists {
			err := l.each(func(p posting) {
				if int(p.id) >= len(acc.content) || acc.content[p.id] == 0 {
					return
				}
				nScored++
				tf := float64(p.tf)
				acc.scores[p.id] += float32(wk * tf / (tf + k1))
			})
			if err != nil {
				return nil, fmt.Errorf("term %q: %w", qt.term, err)
			}
		}
	}
	return ix.collectTop(ctx, conn, acc, k, unit, opt)
}

// idf is BM25's inverse document frequency of a term in df of n sections.
func idf(df int, n int64) float64 {
	d := min(float64(df), float64(n))
	return math.Log(1 + (float64(n)-d+0.5)/(d+0.5))
}

// termWeight is a text term's weight, idf times its count in the query.
func termWeight(qt queryTerm, n int64) float64 { return idf(qt.df, n) * float64(qt.qtf) }

// contextWeight is a context term's weight: the field's weight cw times
// idf and the count in the query.
func contextWeight(qt queryTerm, n int64, cw float64) float64 {
	return cw * idf(qt.df, n) * float64(qt.qtf)
}

// collectTop selects the k best live, non-excluded sections from the
// accumulator and loads them. Postings of deleted sections (not yet merged
// away) are skipped because their rows no longer exist.
func (ix *Index) collectTop(ctx context.Context, conn *reader, acc *accumulator, k int, unit float64, opt SearchOptions) ([]Hit, error) {
	want := k + len(opt.Exclude) + 8
	var out []Hit
	taken := map[int64]bool{}
	for {
		cand := topN(acc, want, taken)
		if len(cand) == 0 {
			return out, nil
		}
		secs, err := conn.sections(ctx, cand)
		if err != nil {
			return nil, err
		}
		for _, id := range cand {
			taken[id] = true
			s, ok := secs[id]
			if !ok || opt.Exclude[s.Key()] || !opt.Where.Match(s) {
				continue
			}
			raw := float64(acc.scores[id])
			s.RelevanceScore = min(1, float64(acc.content[id])/unit)
			out = append(out, Hit{Section: s, Score: raw, Lexical: raw, rowid: id})
			if len(out) == k {
				return out, nil
			}
		}
		want *= 4
	}
}

// topN returns the ids of the n highest scores not in skip, best first
// (ties by lower id).
func topN(acc *accumulator, n int, skip map[int64]bool) []int64 {
	h := make([]int64, 0, n)
	better := func(a, b int64) bool { // a ranks before b
		sa, sb := acc.scores[a], acc.scores[b]
		if sa != sb {
			return sa > sb
		}
		return a < b
	}
	// h is a min-heap by rank (root = worst kept).
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			w := l
			if r := l + 1; r < len(h) && better(h[l], h[r]) {
				w = r
			}
			if !better(h[i], h[w]) {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	up := func(i int) {
		for i > 0 {
			p := (i - 1) / 2
			if !better(h[p], h[i]) {
				return
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
	}
	for _, id := range acc.touched {
		if skip[id] {
			continue
		}
		if len(h) < n {
			h = append(h, id)
			up(len(h) - 1)
			continue
		}
		if better(id, h[0]) {
			h[0] = id
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b int64) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return h
}

func loadSections(ctx context.Context, q querier, ids []int64) (map[int64]schema.Section, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := q.QueryContext(ctx, sectionsSQL(len(ids)), args...)
	if err != nil {
		return nil, fmt.Errorf("load sections: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]schema.Section, len(ids))
	for rows.Next() {
		var id int64
		s, err := scanSection(rows, &id)
		if err != nil {
			return nil, fmt.Errorf("load sections: %w", err)
		}
		out[id] = s
	}
	return out, rows.Err()
}

// sectionsSQL loads n sections by id (the columns of sectionColumns).
func sectionsSQL(n int) string {
	return `SELECT ` + sectionColumns + ` FROM sections s JOIN documents d ON d.id = s.doc_id WHERE s.id IN (?` + strings.Repeat(",?", n-1) + `)`
}
