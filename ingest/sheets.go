package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/text"
	"github.com/docmind/docmind/formats/xlsx"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// Spreadsheets are sectioned while read (issue 38): a workbook's or a
// CSV file's rows go to the index a piece at a time (xlsx.Stream,
// xlsx.StreamCSV), in the document's one transaction, so that the reader
// holds 1,000 rows of a sheet of 200,000. A sheet's text takes many times
// its file's size once read (a zip compresses it about ten times), so
// spreadsheets (named .xlsx, .xlsm, .csv or .tsv) are streamed at any size
// when streaming is on (Options.StreamAbove >= 0), not from StreamAbove.

// streamAbove is the size from which the file at path is probed for
// sectioning while read: above, or 1 byte for a spreadsheet.
func streamAbove(above int64, path string) int64 {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx", ".xlsm", ".csv", ".tsv":
		return min(above, 1)
	}
	return above
}

// zipMagic starts a zip archive's first local file header; workbookPart
// is the part every workbook holds, whose name the headers carry
// uncompressed.
var (
	zipMagic     = []byte("PK\x03\x04")
	workbookPart = []byte("xl/workbook.xml")
)

// sheetProbe is the probe of LoaderParser: the loader's (plain text
// streams), and besides it a workbook, told by its zip signature and its
// xl/workbook.xml part, or delimited text, told by its name and read as
// it is (text.Check: UTF-8 the decoder returns unchanged).
type sheetProbe struct {
	loaderProbe
	l        *loader.Loader
	path     string
	head     []byte // the first bytes, up to len(zipMagic)
	tail     []byte // the last bytes written, to find a part name cut between writes
	workbook bool
	text     text.Check
	nonSpace bool
}

func newSheetProbe(l *loader.Loader, path string) *sheetProbe {
	return &sheetProbe{loaderProbe: loaderProbe{l.NewProbe(path)}, l: l, path: path}
}

func (p *sheetProbe) Write(b []byte) (int, error) {
	if n := len(zipMagic) - len(p.head); n > 0 {
		p.head = append(p.head, b[:min(n, len(b))]...)
	}
	if !p.workbook && bytes.Equal(p.head, zipMagic) {
		seam := append(p.tail, b[:min(len(workbookPart), len(b))]...)
		p.workbook = bytes.Contains(seam, workbookPart) || bytes.Contains(b, workbookPart)
		// keep the last bytes written, short of a whole name
		seam = append(p.tail, b...)
		p.tail = append(p.tail[:0:0], seam[max(0, len(seam)-len(workbookPart)+1):]...)
	}
	p.text.Write(b)
	if !p.nonSpace {
		p.nonSpace = len(bytes.TrimSpace(b)) > 0
	}
	return p.loaderProbe.Write(b)
}

// Stream returns the loader's stream for plain text, a spreadsheet's
// stream when the file is one the loader reads, or nil.
func (p *sheetProbe) Stream() StreamFunc {
	if s := p.loaderProbe.Stream(); s != nil {
		return s
	}
	reads := func(format string) bool { return slices.Contains(p.l.Formats(), format) }
	switch ext := strings.ToLower(filepath.Ext(p.path)); {
	case p.workbook && reads(formats.XLSX):
		return p.workbookSections
	case (ext == ".csv" || ext == ".tsv") && p.nonSpace && p.text.Unchanged() && reads(formats.CSV):
		return p.csvSections
	}
	return nil
}

// workbookSections reads the workbook from r and emits its sections piece
// by piece (see pieces). A file that turns out not to be a workbook is
// read whole.
func (p *sheetProbe) workbookSections(ctx context.Context, r io.Reader, emit func(schema.Section) error) (int, string, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, "", err
	}
	if loader.Detect(data, p.path) != formats.XLSX {
		doc, err := p.l.Parse(ctx, p.path, data)
		if err != nil {
			return 0, "", err
		}
		for _, s := range p.l.Split(doc) {
			if err := emit(s); err != nil {
				return 0, "", err
			}
		}
		return doc.Pages, doc.Format, nil
	}
	ps := pieces{l: p.l, emit: emit}
	pages, err := xlsx.Stream(ctx, p.path, data, ps.put)
	return pages, formats.XLSX, p.parseError(formats.XLSX, err)
}

// csvSections reads delimited text from r and emits its sections piece
// by piece (see pieces).
func (p *sheetProbe) csvSections(ctx context.Context, r io.Reader, emit func(schema.Section) error) (int, string, error) {
	ps := pieces{l: p.l, emit: emit}
	return 0, formats.CSV, p.parseError(formats.CSV, xlsx.StreamCSV(ctx, p.path, r, ps.put))
}

// parseError is a reader's error as the loader says it: without the
// file's name, which the result carries.
func (p *sheetProbe) parseError(format string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cannot parse as %s: %s", format, strings.TrimPrefix(err.Error(), p.path+": "))
}

// pieces emits the sections of a spreadsheet's pieces: the loader's
// sections of each (Loader.Split), numbered on within their sheet (page).
// A sheet of at most xlsx.PieceRows rows gets the sections the whole file
// gives; a longer one's sections end at every piece.
type pieces struct {
	l    *loader.Loader
	emit func(schema.Section) error
	done map[int]int // sections emitted per sheet (page)
}

func (ps *pieces) put(piece *document.Document) error {
	if ps.done == nil {
		ps.done = map[int]int{}
	}
	page := piece.Blocks[0].Page
	secs := ps.l.Split(piece)
	for _, s := range secs {
		if off := ps.done[page]; off > 0 {
			s.Chunk += off
			s.ID = pieceID(s.ID, off)
		}
		if err := ps.emit(s); err != nil {
			return err
		}
	}
	ps.done[page] += len(secs)
	return nil
}

// pieceID is the id of a section of a sheet's later piece, whose sections
// start after off others of that sheet: the loader's id of it within its
// piece, made unique in the sheet.
func pieceID(id string, off int) string {
	sum := sha256.Sum256([]byte(id + "\x00" + strconv.Itoa(off)))
	return hex.EncodeToString(sum[:8])
}
