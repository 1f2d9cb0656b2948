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
func Parse(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := zipx.OpenOffice(source, "XLSX", "Excel", ".xls", data, MaxPartSize)
	if err != nil {
		return nil, err
	}
	var total uint64
	for name, f := range a.Parts {
		if f.UncompressedSize64 > MaxPartSize {
			return nil, zipx.PartError(source, name, zipx.ErrTooLarge, MaxPartSize)
		}
		total += f.UncompressedSize64
	}
	if total > MaxUnzipped {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "workbook is %d MiB once decompressed, above the %d MiB limit (zip bomb?)", total>>20, MaxUnzipped>>20)
	}
	if a.Parts["xl/workbook.xml"] == nil {
		return nil, formats.Errorf(source, formats.ErrUnsupported, "zip file has no xl/workbook.xml (not an Excel workbook)")
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: MaxUnzipped, UnzipXMLSizeLimit: MaxPartInMemory})
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "not a readable Excel workbook: %w", err)
	}
	defer f.Close()
	doc = &document.Document{Source: source, Format: formats.XLSX}
	if p, err := f.GetDocProps(); err == nil && p != nil {
		doc.Title = formats.CleanText(p.Title)
	}
	rows := 0
	for i, name := range f.GetSheetList() {
		t := &table{page: i + 1}
		if err := readSheet(ctx, f, name, t, &rows); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, formats.Errorf(source, formats.ErrCorrupt, "sheet %q: %w", name, err)
		}
		doc.Pages = i + 1
		blocks := t.finish()
		if len(blocks) == 0 {
			continue
		}
		doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Heading, Level: 1, Text: formats.CleanText(name), Page: i + 1})
		doc.Blocks = append(doc.Blocks, blocks...)
	}
	if len(doc.Blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "workbook has no text in any cell")
	}
	return doc, nil
}

var errTooManyRows = errors.New("too many rows")

// readSheet streams the rows of one sheet into t; rows counts the rows
// of the file so far.
func readSheet(ctx context.Context, f *excelize.File, name string, t *table, rows *int) error {
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
	}
	return it.Error()
}
