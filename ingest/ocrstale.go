package ingest

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/docmind/docmind/formats/ocr"
)

// A file indexed while some of its pages needed OCR that could not run
// (Tesseract not installed, or OCR off) is indexed with the text it has,
// and the index notes it: its path, content hash and the number of such
// pages, in a table of its own (ocrPendingTable) in the index's SQLite
// file. A later ingest reads such a file again, though unchanged, once
// OCR can run (the OCR engine of Run's context, ocr.FromContext, is
// available), and its result's Reason says so; unchanged files without
// such pages are not read again. A store other than the SQLite index
// (Weaviate) keeps no such note.

// ocrPendingTable holds the notes.
const ocrPendingTable = "ingest_ocr_pending"

// sqlStore is a store in an SQLite database (*index.Index).
type sqlStore interface{ DB() *sql.DB }

// ocrAgain returns why the unchanged file at path, of content hash hash,
// is to be read again — it was indexed with pages that needed OCR, and
// OCR can run now — or "" when it is not.
func ocrAgain(ctx context.Context, ix Store, path, hash string) string {
	db, ok := ix.(sqlStore)
	if !ok || ocr.FromContext(ctx).Available() != nil {
		return ""
	}
	var pages int
	var reason string
	err := db.DB().QueryRowContext(ctx, `SELECT pages, reason FROM `+ocrPendingTable+` WHERE path = ? AND hash = ?`, path, hash).Scan(&pages, &reason)
	if err != nil { // no note, or no table yet
		return ""
	}
	return fmt.Sprintf("read again now that OCR can run: %s needed it when the file was indexed (%s)", plural(pages, "page"), reason)
}

// noteOCR notes, after the file of res was written with content hash
// hash, whether pages of it needed OCR that could not run, replacing any
// earlier note of its path. An error is the index's.
func noteOCR(ctx context.Context, ix Store, res Result, hash string) error {
	sq, ok := ix.(sqlStore)
	if !ok {
		return nil
	}
	db := sq.DB()
	if res.NeedOCR == 0 || ocr.FromContext(ctx).Available() == nil {
		// No page is waiting for OCR that could run: the index has a
		// note of this path only if an earlier run made the table.
		if _, err := db.ExecContext(ctx, `DELETE FROM `+ocrPendingTable+` WHERE path = ?`, res.Path); err != nil && !noTable(ctx, db) {
			return err
		}
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+ocrPendingTable+` (path TEXT PRIMARY KEY, hash TEXT NOT NULL, pages INTEGER NOT NULL, reason TEXT NOT NULL)`); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `INSERT OR REPLACE INTO `+ocrPendingTable+` (path, hash, pages, reason) VALUES (?, ?, ?, ?)`, res.Path, hash, res.NeedOCR, res.OCRReason)
	return err
}

// noTable reports that the notes' table does not exist.
func noTable(ctx context.Context, db *sql.DB) bool {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, ocrPendingTable).Scan(&n)
	return err == nil && n == 0
}

// plural is "1 page" or "n pages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
