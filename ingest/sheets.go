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
	"github.com/docmind/docmind/formats/xlsx"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// Spreadsheets are sectioned while read (issue 38): a workbook's rows go
// to the index a piece at a time (xlsx.Stream), in its document's one
// transaction, so that ingesting a sheet of 200k rows takes about the
// memory of one of 1k. A zip compresses a sheet's text about ten times,
// so workbooks (named .xlsx or .xlsm) are streamed at any size when
// streaming is on (Options.StreamAbove >= 0), not from StreamAbove.

// streamAbove is the size from which the file at path is probed for
// sectioning while read: above, or 1 byte for a workbook.
func streamAbove(above int64, path string) int64 {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx", ".xlsm":
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
// xl/workbook.xml part.
type sheetProbe struct {
	loaderProbe
	l        *loader.Loader
	path     string
	head     []byte // the first bytes, up to len(zipMagic)
	tail     []byte // the last bytes written, to find a part name cut between writes
	workbook bool
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
	return p.loaderProbe.Write(b)
}

// Stream returns the loader's stream for plain text, a workbook's stream
// when the file is one and the loader reads workbooks, or nil.
func (p *sheetProbe) Stream() StreamFunc {
	if s := p.loaderProbe.Stream(); s != nil {
		return s
	}
	if !p.workbook || !slices.Contains(p.l.Formats(), formats.XLSX) {
		return nil
	}
	return p.sections
}

// sections reads the workbook from r and emits its sections piece by
// piece: the loader's sections of each piece (Loader.Split), numbered on
// within their sheet. A sheet of at most xlsx.PieceRows rows gets the
// sections the whole file gives; a longer one's sections end at every
// piece. A file that turns out not to be a workbook is read whole.
func (p *sheetProbe) sections(ctx context.Context, r io.Reader, emit func(schema.Section) error) (int, string, error) {
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
	done := map[int]int{} // sections emitted per sheet (page)
	pages, err := xlsx.Stream(ctx, p.path, data, func(piece *document.Document) error {
		page := piece.Blocks[0].Page
		secs := p.l.Split(piece)
		for _, s := range secs {
			if off := done[page]; off > 0 {
				s.Chunk += off
				s.ID = pieceID(s.ID, off)
			}
			if err := emit(s); err != nil {
				return err
			}
		}
		done[page] += len(secs)
		return nil
	})
	if err != nil {
		// as the loader says it: without the file's name, which the
		// result carries
		return 0, formats.XLSX, fmt.Errorf("cannot parse as xlsx: %s", strings.TrimPrefix(err.Error(), p.path+": "))
	}
	return pages, formats.XLSX, nil
}

// pieceID is the id of a section of a sheet's later piece, whose sections
// start after off others of that sheet: the loader's id of it within its
// piece, made unique in the sheet.
func pieceID(id string, off int) string {
	sum := sha256.Sum256([]byte(id + "\x00" + strconv.Itoa(off)))
	return hex.EncodeToString(sum[:8])
}
