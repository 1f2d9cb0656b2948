package xlsx

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/xuri/excelize/v2"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/zipx"
)

// Limits on an XLSX file (a zip archive).
const (
	// MaxPartSize is the largest decompressed part (a worksheet, the
	// shared strings). Worksheets above MaxPartInMemory are streamed from
	// a temporary file.
	MaxPartSize = 1 << 30
	// MaxUnzipped bounds the sum of the decompressed parts.
	MaxUnzipped = 2 << 30
	// MaxPartInMemory is the largest part held in memory.
	MaxPartInMemory = 16 << 20
)

// Parse reads an XLSX workbook: one heading per sheet (its name, on page
// n for sheet n), then its rows with their header (see the package
// comment). Hidden sheets are read too. Errors are formats errors:
// ErrCorrupt (not a workbook), ErrEncrypted (password protected),
// ErrTooLarge (a zip bomb) or ErrEmpty (no cell has text).
func Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	var doc *document.Document
	pages, err := Stream(ctx, source, data, func(piece *document.Document) error {
		if doc == nil {
			doc = &document.Document{Source: source, Format: formats.XLSX, Title: piece.Title}
		}
		blocks := piece.Blocks
		if n := len(doc.Blocks); n > 0 && doc.Blocks[n-1].Page == blocks[0].Page {
			blocks = blocks[1:] // the sheet's heading again
		}
		doc.Blocks = append(doc.Blocks, blocks...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	doc.Pages = pages
	return doc, nil
}

// Stream reads a workbook as Parse does and hands it on to emit in
// pieces as its rows are read, so that a large sheet is never held whole:
// each piece is a document (source, format, title) holding a sheet's
// heading and the table blocks of at most PieceRows of its rows. A sheet
// of at most PieceRows rows is one piece, with the blocks Parse gives it.
// Stream returns the page count (the sheets) once every piece is emitted,
// or emit's error, or Parse's errors.
func Stream(ctx context.Context, source string, data []byte, emit func(piece *document.Document) error) (pages int, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	a, err := zipx.OpenOffice(source, "XLSX", "Excel", ".xls", data, MaxPartSize)
	if err != nil {
		return 0, err
	}
	var total uint64
	for name, f := range a.Parts {
		if f.UncompressedSize64 > MaxPartSize {
			return 0, zipx.PartError(source, name, zipx.ErrTooLarge, MaxPartSize)
		}
		total += f.UncompressedSize64
	}
	if total > MaxUnzipped {
		return 0, formats.Errorf(source, formats.ErrTooLarge, "workbook is %d MiB once decompressed, above the %d MiB limit (zip bomb?)", total>>20, MaxUnzipped>>20)
	}
	if a.Parts["xl/workbook.xml"] == nil {
		return 0, formats.Errorf(source, formats.ErrUnsupported, "zip file has no xl/workbook.xml (not an Excel workbook)")
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: MaxUnzipped, UnzipXMLSizeLimit: MaxPartInMemory})
	if err != nil {
		return 0, formats.Errorf(source, formats.ErrCorrupt, "not a readable Excel workbook: %w", err)
	}
	defer f.Close()
	title := ""
	if p, err := f.GetDocProps(); err == nil && p != nil {
		title = formats.CleanText(p.Title)
	}
	rows, emitted := 0, 0
	for i, name := range f.GetSheetList() {
		t := &table{page: i + 1}
		heading := document.Block{Kind: document.Heading, Level: 1, Text: formats.CleanText(name), Page: i + 1}
		hand := func(blocks []document.Block) error {
			if len(blocks) == 0 {
				return nil
			}
			emitted++
			piece := &document.Document{Source: source, Format: formats.XLSX, Title: title, Pages: i + 1,
				Blocks: append([]document.Block{heading}, blocks...)}
			return emit(piece)
		}
		var eerr error // emit's
		err := readSheet(ctx, f, name, t, &rows, func() bool {
			if t.held >= PieceRows {
				eerr = hand(t.take())
			}
			return eerr == nil
		})
		if eerr != nil {
			return 0, eerr
		}
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, formats.Errorf(source, formats.ErrCorrupt, "sheet %q: %w", name, err)
		}
		pages = i + 1
		if err := hand(t.finish()); err != nil {
			return 0, err
		}
	}
	if emitted == 0 {
		return 0, formats.Errorf(source, formats.ErrEmpty, "workbook has no text in any cell")
	}
	return pages, nil
}

var errTooManyRows = errors.New("too many rows")

// readSheet streams the rows of one sheet into t, calling more after
// each row, and stops early when more returns false; rows counts the rows
// of the file so far.
func readSheet(ctx context.Context, f *excelize.File, name string, t *table, rows *int, more func() bool) error {
	it, err := f.Rows(name)
	if err != nil {
		return err
	}
	defer it.Close()
	for it.Next() {
		if *rows >= MaxRows {
			return nil
		}
		if *rows%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		cells, err := it.Columns()
		if err != nil {
			return fmt.Errorf("row %d: %w", *rows+1, err)
		}
		*rows++
		t.add(cells)
		if !more() {
			return nil
		}
	}
	return it.Error()
}
