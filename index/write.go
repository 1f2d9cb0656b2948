package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Document is one indexed file.
type Document struct {
	// ID is the database id (set by the index).
	ID int64 `json:"id"`
	// Path identifies the document; PutDocument replaces the document with
	// the same path.
	Path string `json:"path"`
	// Hash is the content hash the ingester uses to skip unchanged files.
	Hash    string    `json:"hash"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	Format  string    `json:"format"`
	Pages   int       `json:"pages"`
	Title   string    `json:"title"`
	// IngestedAt is set by the index when the document is written.
	IngestedAt time.Time `json:"ingested_at"`
	// Sections is the number of sections (set when read back).
	Sections int `json:"sections"`
}

// DocumentSections is a document with the sections that replace its old
// ones.
type DocumentSections struct {
	Doc      Document
	Sections []schema.Section
	// Append keeps the document's existing sections and adds these
	// (used by Store.AddDocuments); by default they are replaced.
	Append bool
}

// PutDocument writes a document and its sections in one transaction,
// replacing any document with the same path: readers see either the old
// document or the new one, never a mix. Section.Source is ignored (the
// document's path is the source); sections without an ID get a stable one.
func (ix *Index) PutDocument(ctx context.Context, doc Document, sections []schema.Section) error {
	return ix.PutDocuments(ctx, []DocumentSections{{Doc: doc, Sections: sections}})
}

// PutDocuments writes several documents in one transaction (faster for bulk
// loads; each document is still replaced as a whole). When an embedder is
// configured, every section is embedded first, outside the transaction.
func (ix *Index) PutDocuments(ctx context.Context, batch []DocumentSections) error {
	if len(batch) == 0 {
		return nil
	}
	prep, err := ix.prepare(ctx, batch)
	if err != nil {
		return err
	}
	if err := ix.writeTx(ctx, func(tx *sql.Tx) error { return ix.writeBatch(ctx, tx, batch, prep) }); err != nil {
		return fmt.Errorf("write %s to index %s: %w", describeBatch(batch), ix.path, err)
	}
	return nil
}

func describeBatch(batch []DocumentSections) string {
	if len(batch) == 1 {
		return batch[0].Doc.Path
	}
	return strconv.Itoa(len(batch)) + " documents"
}

// prepared holds the work done before the transaction: analysed terms and
// vectors for every section, in batch order.
type prepared struct {
	terms   [][]termFreq // per section, flattened over the batch
	lengths []int
	// ctx are the terms of each section's document context (contextText),
	// keyed with contextPrefix.
	ctx     [][]termFreq
	ctxLens []int
	vecs    [][]float32 // nil when no embedder
	dim     int
}

func (ix *Index) prepare(ctx context.Context, batch []DocumentSections) (*prepared, error) {
	p := &prepared{}
	an := newAnalyzer()
	var texts []string
	for _, d := range batch {
		if d.Doc.Path == "" {
			return nil, errors.New("write document: empty path")
		}
		for _, s := range d.Sections {
			if len(p.terms)%256 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			tf, n := an.termFreqs(s.Title + "\n" + s.Content)
			p.terms = append(p.terms, tf)
			p.lengths = append(p.lengths, n)
			ctf, cn := contextTerms(an, d.Doc, s)
			p.ctx = append(p.ctx, ctf)
			p.ctxLens = append(p.ctxLens, cn)
			if ix.embedder != nil {
				texts = append(texts, embedText(s))
			}
		}
	}
	if ix.embedder != nil && len(texts) > 0 {
		vecs, err := ix.embedder.EmbedDocuments(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed %s with %s: %w", describeBatch(batch), ix.model, err)
		}
		if len(vecs) != len(texts) {
			return nil, fmt.Errorf("embed %s with %s: got %d vectors for %d sections", describeBatch(batch), ix.model, len(vecs), len(texts))
		}
		p.dim = len(vecs[0])
		for i, v := range vecs {
			if len(v) != p.dim || p.dim == 0 {
				return nil, fmt.Errorf("embed %s with %s: vector %d has dimension %d, want %d", describeBatch(batch), ix.model, i, len(v), p.dim)
			}
			Normalize(v)
		}
		p.vecs = vecs
	}
	return p, nil
}

func embedText(s schema.Section) string {
	if s.Title == "" {
		return s.Content
	}
	return s.Title + "\n" + s.Content
}

func (ix *Index) writeBatch(ctx context.Context, tx *sql.Tx, batch []DocumentSections, p *prepared) error {
	w, err := ix.newSectionWriter(ctx, tx)
	if err != nil {
		return err
	}
	i := 0
	for _, d := range batch {
		docID, err := w.putDoc(ctx, d.Doc, d.Append)
		if err != nil {
			return err
		}
		if err := w.putSections(ctx, docID, d.Doc.Path, d.Sections, p, i); err != nil {
			return err
		}
		i += len(d.Sections)
	}
	return w.finish(ctx)
}

// sectionWriter writes documents and their sections in one write
// transaction: section rows, vectors and the postings of one new segment
// (more when they outgrow segmentFlush).
type sectionWriter struct {
	ix               *Index
	tx               *sql.Tx
	nextID           int64
	secRows, vecRows *bulk
	seg              *segmentBuilder
	now              time.Time
	seen             map[string]int // section keys of the current document
	added, addedLen  int64
	checkedModel     bool
}

func (ix *Index) newSectionWriter(ctx context.Context, tx *sql.Tx) (*sectionWriter, error) {
	w := &sectionWriter{ix: ix, tx: tx, seg: newSegmentBuilder(), now: time.Now()}
	// Section ids are assigned here (the transaction holds the write lock)
	// so that sections can be inserted many rows per statement.
	if err := tx.QueryRowContext(ctx, `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'sections'), 0), coalesce((SELECT max(id) FROM sections), 0)) + 1`).Scan(&w.nextID); err != nil {
		return nil, fmt.Errorf("allocate section ids: %w", err)
	}
	w.secRows = newBulk(tx, `INSERT INTO sections(id, key, doc_id, title, heading_path, content, page, page_end, page_label, chunk, length, page_printed, doc_title, doc_entity, doc_period, kind) VALUES `, 16)
	w.vecRows = newBulk(tx, `INSERT INTO vectors(section, vec) VALUES `, 2)
	return w, nil
}

// putDoc writes a document's row, replacing the document with its path
// (appending keeps its sections), and returns its id.
func (w *sectionWriter) putDoc(ctx context.Context, doc Document, appendTo bool) (int64, error) {
	tx := w.tx
	w.seen = map[string]int{}
	docID, existed, err := lookupDoc(ctx, tx, doc.Path)
	if err != nil {
		return 0, err
	}
	if existed && !appendTo {
		if err := deleteDocTx(ctx, tx, docID); err != nil {
			return 0, err
		}
		existed = false
	}
	if existed {
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET ingested_at = ? WHERE id = ?`, w.now.UnixNano(), docID); err != nil {
			return 0, err
		}
		return docID, nil
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO documents(path, hash, size, mtime, format, pages, title, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		doc.Path, doc.Hash, doc.Size, doc.ModTime.UnixNano(), doc.Format, doc.Pages, doc.Title, w.now.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("insert document: %w", err)
	}
	return res.LastInsertId()
}

// putSections writes sections of the document docID at path, analysed
// (and embedded) in p from p's section number i on.
func (w *sectionWriter) putSections(ctx context.Context, docID int64, path string, sections []schema.Section, p *prepared, i int) error {
	if p.vecs != nil && !w.checkedModel {
		if err := w.ix.checkModel(ctx, w.tx, p.dim, true); err != nil {
			return err
		}
		w.checkedModel = true
	}
	for _, s := range sections {
		key := s.ID
		if key == "" {
			key = StableID(path, s.Title, s.Page, s.Chunk)
		}
		if n := w.seen[key]; n > 0 {
			w.seen[key] = n + 1
			key += "~" + strconv.Itoa(n+1)
		} else {
			w.seen[key] = 1
		}
		rowid := w.nextID
		w.nextID++
		if err := w.secRows.add(ctx, rowid, key, docID, s.Title, s.Title, s.Content, s.Page, s.PageEnd, s.PageLabel, s.Chunk, p.lengths[i], s.PagePrinted, s.DocTitle, s.DocEntity, s.DocPeriod, string(s.Kind)); err != nil {
			return fmt.Errorf("insert sections: %w", err)
		}
		if p.lengths[i] > 0 {
			w.seg.add(rowid, p.terms[i], p.lengths[i])
			w.seg.addContext(rowid, p.ctx[i], p.ctxLens[i])
			w.added++
			w.addedLen += int64(p.lengths[i])
			if w.seg.size >= segmentFlush {
				// The postings of a large document (or batch) go to
				// several segments, so that memory is bounded by
				// segmentFlush rather than held until the commit.
				if err := w.seg.write(ctx, w.tx); err != nil {
					return err
				}
				w.seg = newSegmentBuilder()
			}
		}
		if p.vecs != nil {
			if err := w.vecRows.add(ctx, rowid, encodeVector(p.vecs[i])); err != nil {
				return fmt.Errorf("insert vectors: %w", err)
			}
		}
		i++
	}
	return nil
}

// segmentFlush is the estimated heap size (segmentBuilder.size: terms,
// map entries and posting arrays) of the postings a sectionWriter holds
// before it writes them as a segment of the same transaction and starts
// a new one, so a large document may span several segments. A variable
// so that tests can lower it.
var segmentFlush = 8 << 20

func (w *sectionWriter) finish(ctx context.Context) error {
	tx := w.tx
	if err := w.secRows.flush(ctx); err != nil {
		return fmt.Errorf("insert sections: %w", err)
	}
	if err := w.vecRows.flush(ctx); err != nil {
		return fmt.Errorf("insert vectors: %w", err)
	}
	if err := w.seg.write(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE lex_stats SET n = n + ?, total_len = total_len + ? WHERE id = 1`, w.added, w.addedLen); err != nil {
		return err
	}
	if err := bumpGeneration(ctx, tx); err != nil {
		return err
	}
	return mergeSegments(ctx, tx)
}

// streamBatch is how many sections PutDocumentStream analyses and writes
// at a time.
const streamBatch = 256

// PutDocumentStream writes a document too large to hold whole, in one
// transaction like PutDocument: readers see the old document or the
// complete new one, never part of it, and an error (or a kill) leaves the
// old one. write produces the sections in order, passing each to put
// (which returns the index's errors), and may set doc's Title, Pages and
// Format, written when it returns; an error from write ends the
// transaction and is returned as it is. Sections are analysed (and
// embedded, inside the transaction) and written streamBatch at a time,
// so memory does not grow with the document's size beyond a few bytes of
// postings and id per section. write is called again if the transaction
// has to be retried.
func (ix *Index) PutDocumentStream(ctx context.Context, doc Document, write func(doc *Document, put func(schema.Section) error) error) error {
	if doc.Path == "" {
		return errors.New("write document: empty path")
	}
	var werr error
	err := ix.writeTx(ctx, func(tx *sql.Tx) error {
		werr = nil
		w, err := ix.newSectionWriter(ctx, tx)
		if err != nil {
			return err
		}
		d := doc
		docID, err := w.putDoc(ctx, d, false)
		if err != nil {
			return err
		}
		var batch []schema.Section
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			p, err := ix.prepare(ctx, []DocumentSections{{Doc: d, Sections: batch}})
			if err != nil {
				return err
			}
			if err := w.putSections(ctx, docID, d.Path, batch, p, 0); err != nil {
				return err
			}
			clear(batch)
			batch = batch[:0]
			return nil
		}
		var ierr error // the index's error, seen by put
		put := func(s schema.Section) error {
			batch = append(batch, s)
			if len(batch) == streamBatch {
				ierr = flush()
			}
			return ierr
		}
		if err := write(&d, put); err != nil {
			if ierr == nil {
				werr = err
			}
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET title = ?, pages = ?, format = ? WHERE id = ?`, d.Title, d.Pages, d.Format, docID); err != nil {
			return err
		}
		return w.finish(ctx)
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("write %s to index %s: %w", doc.Path, ix.path, err)
	}
	return nil
}

// bulk inserts rows many per statement: the driver prepares every
// statement it executes, so one row per statement is dominated by SQL
// parsing.
type bulk struct {
	tx     *sql.Tx
	prefix string
	cols   int
	args   []any
	rows   int
}

const bulkRows = 256

func newBulk(tx *sql.Tx, prefix string, cols int) *bulk {
	return &bulk{tx: tx, prefix: prefix, cols: cols}
}

func (b *bulk) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	b.rows++
	if b.rows == bulkRows {
		return b.flush(ctx)
	}
	return nil
}

func (b *bulk) flush(ctx context.Context) error {
	if b.rows == 0 {
		return nil
	}
	row := "(?" + strings.Repeat(",?", b.cols-1) + ")"
	var sb strings.Builder
	sb.Grow(len(b.prefix) + b.rows*(len(row)+1))
	sb.WriteString(b.prefix)
	for i := 0; i < b.rows; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(row)
	}
	_, err := b.tx.ExecContext(ctx, sb.String(), b.args...)
	b.args = b.args[:0]
	b.rows = 0
	return err
}

// StableID derives a section id from its document path, heading path, page
// and chunk index: the same inputs give the same id on every run.
func StableID(path, title string, page, chunk int) string {
	h := sha256.Sum256([]byte(path + "\x00" + title + "\x00" + strconv.Itoa(page) + "\x00" + strconv.Itoa(chunk)))
	return hex.EncodeToString(h[:8])
}

func lookupDoc(ctx context.Context, q querier, path string) (int64, bool, error) {
	var id int64
	err := q.QueryRowContext(ctx, `SELECT id FROM documents WHERE path = ?`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("look up document %s: %w", path, err)
	}
	return id, true, nil
}

// deleteDocTx removes a document, its sections and vectors, leaving
// tombstones for the postings of its sections.
func deleteDocTx(ctx context.Context, tx *sql.Tx, docID int64) error {
	stmts := []string{
		`INSERT OR IGNORE INTO lex_deleted(section) SELECT id FROM sections WHERE doc_id = ?1 AND length > 0`,
		`UPDATE lex_stats SET
			n = n - (SELECT count(*) FROM sections WHERE doc_id = ?1 AND length > 0),
			total_len = total_len - (SELECT coalesce(sum(length), 0) FROM sections WHERE doc_id = ?1)
		 WHERE id = 1`,
		`DELETE FROM vectors WHERE section IN (SELECT id FROM sections WHERE doc_id = ?1)`,
		`DELETE FROM sections WHERE doc_id = ?1`,
		`DELETE FROM documents WHERE id = ?1`,
	}
	for _, s := range stmts {
		if _, err := tx.ExecContext(ctx, s, docID); err != nil {
			return fmt.Errorf("delete old sections: %w", err)
		}
	}
	return nil
}

func bumpGeneration(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('generation', '1')
		ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`)
	return err
}

// DeleteDocument removes the document with this path; ok is false when the
// index has no such document.
func (ix *Index) DeleteDocument(ctx context.Context, path string) (ok bool, err error) {
	err = ix.writeTx(ctx, func(tx *sql.Tx) error {
		id, found, err := lookupDoc(ctx, tx, path)
		if ok = found; err != nil || !found {
			return err
		}
		if err := deleteDocTx(ctx, tx, id); err != nil {
			return err
		}
		return bumpGeneration(ctx, tx)
	})
	if err != nil {
		return false, fmt.Errorf("delete document %s from index %s: %w", path, ix.path, err)
	}
	return ok, nil
}

// MissingVectors reports whether the index has an embedder and the document
// at path has a section without a vector: it was ingested before an
// embedding model was configured and needs its vectors added. It is false
// when no embedder is configured or the document is absent.
func (ix *Index) MissingVectors(ctx context.Context, path string) (bool, error) {
	if ix.embedder == nil {
		return false, nil
	}
	var missing bool
	err := ix.db.QueryRowContext(ctx, `SELECT EXISTS(
		SELECT 1 FROM sections s JOIN documents d ON d.id = s.doc_id
		LEFT JOIN vectors v ON v.section = s.id
		WHERE d.path = ? AND v.section IS NULL)`, path).Scan(&missing)
	if err != nil {
		return false, fmt.Errorf("check the vectors of document %s in index %s: %w", path, ix.path, err)
	}
	return missing, nil
}

// TouchDocument records a new modification time for an unchanged document.
func (ix *Index) TouchDocument(ctx context.Context, path string, mtime time.Time) error {
	err := ix.writeTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE documents SET mtime = ? WHERE path = ?`, mtime.UnixNano(), path)
		return err
	})
	if err != nil {
		return fmt.Errorf("update %s in index %s: %w", path, ix.path, err)
	}
	return nil
}

const docColumns = `d.id, d.path, d.hash, d.size, d.mtime, d.format, d.pages, d.title, d.ingested_at,
	(SELECT count(*) FROM sections s WHERE s.doc_id = d.id)`

func scanDoc(sc interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var mtime, ing int64
	err := sc.Scan(&d.ID, &d.Path, &d.Hash, &d.Size, &mtime, &d.Format, &d.Pages, &d.Title, &ing, &d.Sections)
	d.ModTime = time.Unix(0, mtime)
	d.IngestedAt = time.Unix(0, ing)
	return d, err
}

// Document returns the document with this path; ok is false when absent.
func (ix *Index) Document(ctx context.Context, path string) (doc Document, ok bool, err error) {
	d, err := scanDoc(ix.db.QueryRowContext(ctx, `SELECT `+docColumns+` FROM documents d WHERE d.path = ?`, path))
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, false, nil
	}
	if err != nil {
		return Document{}, false, fmt.Errorf("read document %s from index %s: %w", path, ix.path, err)
	}
	return d, true, nil
}

// Documents lists every document, ordered by path.
func (ix *Index) Documents(ctx context.Context) ([]Document, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT `+docColumns+` FROM documents d ORDER BY d.path`)
	if err != nil {
		return nil, fmt.Errorf("list documents in index %s: %w", ix.path, err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDoc(rows)
		if err != nil {
			return nil, fmt.Errorf("list documents in index %s: %w", ix.path, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list documents in index %s: %w", ix.path, err)
	}
	return out, nil
}

// Sections returns a document's sections in their stored order.
func (ix *Index) Sections(ctx context.Context, path string) ([]schema.Section, error) {
	rows, err := ix.db.QueryContext(ctx, `SELECT `+sectionColumns+` FROM sections s JOIN documents d ON d.id = s.doc_id WHERE d.path = ? ORDER BY s.id`, path)
	if err != nil {
		return nil, fmt.Errorf("read sections of %s from index %s: %w", path, ix.path, err)
	}
	defer rows.Close()
	var out []schema.Section
	for rows.Next() {
		var rowid int64
		s, err := scanSection(rows, &rowid)
		if err != nil {
			return nil, fmt.Errorf("read sections of %s from index %s: %w", path, ix.path, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Section returns the section whose ID (schema.Section.ID) is id; ok is
// false when no section has it. When two sections share an ID (the same
// file indexed under two paths), the one stored first is returned.
func (ix *Index) Section(ctx context.Context, id string) (s schema.Section, ok bool, err error) {
	var rowid int64
	s, err = scanSection(ix.db.QueryRowContext(ctx, `SELECT `+sectionColumns+` FROM sections s JOIN documents d ON d.id = s.doc_id WHERE s.key = ? ORDER BY s.id LIMIT 1`, id), &rowid)
	if errors.Is(err, sql.ErrNoRows) {
		return schema.Section{}, false, nil
	}
	if err != nil {
		return schema.Section{}, false, fmt.Errorf("read section %s from index %s: %w", id, ix.path, err)
	}
	return s, true, nil
}

const sectionColumns = `s.id, s.key, d.path, s.title, s.content, s.page, s.page_end, s.page_label, s.chunk, s.page_printed, s.doc_title, s.doc_entity, s.doc_period, s.kind`

func scanSection(sc interface{ Scan(...any) error }, rowid *int64) (schema.Section, error) {
	var s schema.Section
	err := sc.Scan(rowid, &s.ID, &s.Source, &s.Title, &s.Content, &s.Page, &s.PageEnd, &s.PageLabel, &s.Chunk, &s.PagePrinted, &s.DocTitle, &s.DocEntity, &s.DocPeriod, &s.Kind)
	return s, err
}

// contextPrefix marks the terms of the context field in the postings: a
// context term is stored as contextPrefix + stem, so that it never mixes
// with the terms of a section's own title and text (which the judge's
// corpus statistics count).
const contextPrefix = "\x01"

// contextText is what the context field of a section holds: its
// document's title (Section.DocTitle, else the document's title), entity
// and period, and the words of the file name. Every section of a
// document shares it, so a question that names the organisation, the
// period or the document ranks that document's sections first.
func contextText(doc Document, s schema.Section) string {
	title := s.DocTitle
	if title == "" {
		title = doc.Title
	}
	return strings.Join([]string{title, s.DocEntity, s.DocPeriod, FileNameWords(doc.Path)}, "\n")
}

// contextTerms analyses a section's context field, leaving out the terms
// of the section's own title (a title that repeats the document's, as in a
// one-section document, would otherwise count twice), and prefixes them
// with contextPrefix.
func contextTerms(an *analyzer, doc Document, s schema.Section) ([]termFreq, int) {
	tfs, _ := an.termFreqs(contextText(doc, s))
	if len(tfs) == 0 {
		return nil, 0
	}
	own := map[string]bool{}
	for _, t := range an.terms(s.Title) {
		own[t] = true
	}
	out := tfs[:0]
	n := 0
	for _, t := range tfs {
		if own[t.term] {
			continue
		}
		t.term = contextPrefix + t.term
		out = append(out, t)
		n += t.tf
	}
	return out, n
}

// fileStem returns a file's base name without its extension
// ("reference.com" of "docs/reference.com.md").
func fileStem(path string) string {
	base := path
	if i := strings.LastIndexAny(base, "/\\"); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

// FileNameWords returns the words of a file's base name without its
// extension, split on "_", "-", ".", spaces and camel case, and between a
// run of four or more digits (a year) and letters: "ORACLE_2023_10K.pdf"
// gives "ORACLE 2023 10K", "annualReport2023Q1.md" "annual Report 2023 Q1".
func FileNameWords(path string) string {
	rs := []rune(fileStem(path))
	var b strings.Builder
	digits := 0 // length of the digit run ending at the previous rune
	for i, r := range rs {
		if r == '_' || r == '-' || r == '.' || unicode.IsSpace(r) {
			b.WriteByte(' ')
			digits = 0
			continue
		}
		if i > 0 {
			prev := rs[i-1]
			switch {
			case unicode.IsLower(prev) && unicode.IsUpper(r):
				b.WriteByte(' ')
			case unicode.IsLetter(prev) && unicode.IsDigit(r) && digitRun(rs[i:]) >= 4:
				b.WriteByte(' ')
			case unicode.IsDigit(prev) && unicode.IsLetter(r) && digits >= 4:
				b.WriteByte(' ')
			}
		}
		if unicode.IsDigit(r) {
			digits++
		} else {
			digits = 0
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func digitRun(rs []rune) int {
	n := 0
	for n < len(rs) && unicode.IsDigit(rs[n]) {
		n++
	}
	return n
}

// SectionTerms is how the index analyses a section for BM25, for other
// stores that rank the same way: the stems of its title and text (with
// repeats, in order) and its BM25 length, and the stems of its context
// field (its document's title, entity, period and file name words,
// without those of the section's own title).
func SectionTerms(doc Document, s schema.Section) (terms []string, length int, context []string) {
	an := newAnalyzer()
	terms = an.terms(s.Title + "\n" + s.Content)
	ctf, _ := contextTerms(an, doc, s)
	for _, t := range ctf {
		for range t.tf {
			context = append(context, strings.TrimPrefix(t.term, contextPrefix))
		}
	}
	return terms, textproc.BM25Length(terms), context
}

// SectionKeys returns the keys the index gives sections written for the
// document at path: the section's ID, or StableID when it has none, with
// "~2", "~3"... appended to repeats.
func SectionKeys(path string, sections []schema.Section) []string {
	seen := map[string]int{}
	out := make([]string, len(sections))
	for i, s := range sections {
		key := s.ID
		if key == "" {
			key = StableID(path, s.Title, s.Page, s.Chunk)
		}
		if n := seen[key]; n > 0 {
			seen[key] = n + 1
			key += "~" + strconv.Itoa(n+1)
		} else {
			seen[key] = 1
		}
		out[i] = key
	}
	return out
}
