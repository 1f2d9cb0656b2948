// Package doc reads legacy Word 97-2003 binary documents (.doc), the
// OLE2 compound file format of [MS-DOC], in pure Go: the container is
// opened with github.com/richardlehane/mscfb, everything inside it is
// decoded here.
//
// What it extracts:
//   - the main document text (the first FibRgLw97.ccpText characters of
//     the piece table), split into paragraphs at paragraph marks; tabs and
//     line breaks read as spaces, non-breaking hyphens as "-", optional
//     hyphens, picture and object anchors and other control characters
//     dropped; of a field only its result is kept (a hyperlink's text, a
//     table of contents' entries), never its instruction; text deleted
//     with revision marking (sprmCFRMarkDel) is dropped, and so are
//     symbols inserted from a symbol font (sprmCSymbol), whose text is a
//     placeholder "(";
//   - headings: a paragraph is a heading when its own outline level
//     (sprmPOutLvl 0-8), or its style's (following istdBase chains), says
//     so, or when the style is a built-in heading (sti 1-9, level sti) or
//     the built-in Title (level 1), or its name reads "heading N", "Title"
//     or a localized equivalent;
//   - tables (paragraphs with sprmPFInTable) as Table blocks, one row a
//     line, cells joined by " | "; a nested table is folded into its outer
//     cell, rows separated by " ; ";
//   - page numbers: pages start at 1 and advance at explicit page breaks,
//     at section breaks that start a new page and at paragraphs that have
//     (or whose style has) "page break before" once the page has text.
//     A .doc has no layout, so these are a lower bound of the printed
//     page numbers, as for DOCX;
//   - the title, from the SummaryInformation property set (PIDSI_TITLE).
//
// Not extracted: headers, footers, footnotes, endnotes, comments and text
// boxes (they follow the main text in the piece table), Word's automatic
// list and heading numbering, embedded objects, and the properties that a
// fast save left in the piece table (Prm) rather than in the FKPs.
// Word 6.0/95 files (an older FIB) are refused with
// formats.ErrUnsupported, encrypted or obfuscated ones with
// formats.ErrEncrypted; an .xls, .ppt or other OLE file is named in a
// formats.ErrUnsupported error.
//
// When the paragraph properties or the stylesheet cannot be read, the
// text is still returned, as paragraphs without headings or tables.
//
// Limits: every offset and length read from the file is checked against
// the stream it points into before use, and a stream is read only when
// its declared size fits in the file, so damaged input gives
// formats.ErrCorrupt (never a panic), and memory stays within a small
// multiple of the file's size.
package doc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/richardlehane/mscfb"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// oleMagic starts every OLE2 compound file.
var oleMagic = []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")

// Parse reads a Word 97-2003 (.doc) document. Errors match
// formats.ErrCorrupt (not an OLE file, damaged structures),
// formats.ErrEncrypted (password protected), formats.ErrUnsupported
// (another OLE file such as an .xls or .ppt, or a Word 6.0/95 document)
// or formats.ErrEmpty (no text).
func Parse(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	return parse(ctx, source, data)
}

// parse is Parse without the recovery from panics, so that tests see
// them.
func parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "empty file")
	}
	if !bytes.HasPrefix(data, oleMagic) {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "not a Word 97-2003 document (no OLE compound file signature)")
	}
	streams, err := openStreams(data)
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "damaged OLE compound file: %w", err)
	}
	wdEntry := streams["WordDocument"]
	if wdEntry == nil {
		return nil, notWord(source, streams)
	}
	wd, err := readStream(wdEntry, len(data))
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "cannot read the WordDocument stream: %w", err)
	}
	f, err := parseFIB(wd)
	if err != nil {
		return nil, fibError(source, err)
	}
	tblEntry := streams[f.table]
	if tblEntry == nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "Word document has no %s stream", f.table)
	}
	tbl, err := readStream(tblEntry, len(data))
	if err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "cannot read the %s stream: %w", f.table, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &decoder{wd: wd, tbl: tbl, fib: f}
	if err := d.readPieces(); err != nil {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "damaged piece table: %w", err)
	}
	// Formatting is best effort: without it the text is still read.
	d.readFormatting()
	paras, err := d.split(ctx)
	if err != nil {
		return nil, err
	}
	b := &builder{d: d, page: 1}
	for i := range paras {
		if i&0x3FF == 0x3FF {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b.paragraph(&paras[i])
	}
	b.endTable()
	if len(b.blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "Word document has no text")
	}
	title := ""
	if si := streams["SummaryInformation"]; si != nil {
		if s, err := readStream(si, len(data)); err == nil {
			title = summaryTitle(s)
		}
	}
	return &document.Document{
		Source: source,
		Format: formats.DOC,
		Title:  title,
		Blocks: b.blocks,
		Pages:  b.page,
	}, nil
}

// openStreams lists the streams at the root of the compound file by name
// (property set streams lose their leading control character:
// "\x05SummaryInformation" is "SummaryInformation").
func openStreams(data []byte) (map[string]*mscfb.File, error) {
	r, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	streams := map[string]*mscfb.File{}
	for _, f := range r.File {
		if len(f.Path) != 0 || f.FileInfo().IsDir() {
			continue
		}
		if _, dup := streams[f.Name]; !dup {
			streams[f.Name] = f
		}
	}
	return streams, nil
}

// readStream reads a whole stream, refusing one that claims to be larger
// than the file holding it.
func readStream(f *mscfb.File, limit int) ([]byte, error) {
	if f.Size < 0 || f.Size > int64(limit) {
		return nil, fmt.Errorf("stream %s claims %d bytes in a %d-byte file", f.Name, f.Size, limit)
	}
	b := make([]byte, f.Size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

// notWord explains an OLE file that has no WordDocument stream.
func notWord(source string, streams map[string]*mscfb.File) error {
	has := func(names ...string) bool {
		for _, n := range names {
			if streams[n] != nil {
				return true
			}
		}
		return false
	}
	switch {
	case has("EncryptionInfo", "EncryptedPackage"):
		return formats.Errorf(source, formats.ErrEncrypted, "encrypted Office document (password required)")
	case has("Workbook", "Book"):
		return formats.Errorf(source, formats.ErrUnsupported, "legacy Excel (.xls) workbook: not read; save it as .xlsx")
	case has("PowerPoint Document"):
		return formats.Errorf(source, formats.ErrUnsupported, "legacy PowerPoint (.ppt): not read; save it as .pptx")
	}
	return formats.Errorf(source, formats.ErrUnsupported, "OLE file without a Word document")
}

// FIB errors that are not damage.
var (
	errEncrypted = errors.New("password-protected Word document")
	errWord95    = errors.New("Word 6.0/95 document: not read; save it as .docx")
)

func fibError(source string, err error) error {
	switch {
	case errors.Is(err, errEncrypted):
		return formats.Errorf(source, formats.ErrEncrypted, "%s", err.Error())
	case errors.Is(err, errWord95):
		return formats.Errorf(source, formats.ErrUnsupported, "%s", err.Error())
	}
	return formats.Errorf(source, formats.ErrCorrupt, "damaged Word file information block: %w", err)
}

// Indices of the (fc, lcb) pairs of FibRgFcLcb97 that are read.
const (
	iStshf       = 1
	iPlcfSed     = 6
	iPlcfBteChpx = 12
	iPlcfBtePapx = 13
	iClx         = 33
)

// fib is what is used of the File Information Block.
type fib struct {
	nFib    uint16
	table   string // "0Table" or "1Table"
	ccpText int    // characters of the main document
	fcLcb   []byte // FibRgFcLcb: pairs of little-endian uint32
}

// pair returns the (fc, lcb) pair i of FibRgFcLcb; ok is false when the
// FIB is too short to hold it or lcb is 0.
func (f *fib) pair(i int) (fc, lcb int, ok bool) {
	if (i+1)*8 > len(f.fcLcb) {
		return 0, 0, false
	}
	fc = int(binary.LittleEndian.Uint32(f.fcLcb[i*8:]))
	lcb = int(binary.LittleEndian.Uint32(f.fcLcb[i*8+4:]))
	return fc, lcb, lcb > 0 && fc >= 0
}

func parseFIB(wd []byte) (*fib, error) {
	if len(wd) < 34 {
		return nil, errors.New("WordDocument stream is too short")
	}
	le := binary.LittleEndian
	if le.Uint16(wd) != 0xA5EC {
		return nil, fmt.Errorf("bad signature %#04x (not a Word document)", le.Uint16(wd))
	}
	f := &fib{nFib: le.Uint16(wd[2:])}
	flags := le.Uint16(wd[10:])
	if flags&0x0100 != 0 || flags&0x8000 != 0 { // fEncrypted, fObfuscated
		return nil, errEncrypted
	}
	if f.nFib < 0xC0 {
		return nil, errWord95
	}
	f.table = "0Table"
	if flags&0x0200 != 0 { // fWhichTblStm
		f.table = "1Table"
	}
	pos := 32
	csw := int(le.Uint16(wd[pos:]))
	pos += 2 + 2*csw
	if pos+2 > len(wd) {
		return nil, errors.New("FIB ends inside FibRgW97")
	}
	cslw := int(le.Uint16(wd[pos:]))
	pos += 2
	if cslw < 4 || pos+4*cslw > len(wd) {
		return nil, errors.New("FIB ends inside FibRgLw97")
	}
	ccp := int32(le.Uint32(wd[pos+12:]))
	if ccp < 0 {
		return nil, fmt.Errorf("negative text length %d", ccp)
	}
	f.ccpText = int(ccp)
	pos += 4 * cslw
	if pos+2 > len(wd) {
		return nil, errors.New("FIB ends before FibRgFcLcb")
	}
	n := int(le.Uint16(wd[pos:]))
	pos += 2
	if n <= iClx || pos+8*n > len(wd) {
		return nil, fmt.Errorf("FibRgFcLcb has %d entries (too few, or beyond the stream)", n)
	}
	f.fcLcb = wd[pos : pos+8*n]
	return f, nil
}

// le16 and le32 read little-endian integers; callers check bounds.
func le16(b []byte) int { return int(binary.LittleEndian.Uint16(b)) }
func le32(b []byte) int { return int(binary.LittleEndian.Uint32(b)) }

// slice returns b[off:off+n], or false when that is out of range.
func slice(b []byte, off, n int) ([]byte, bool) {
	if off < 0 || n < 0 || off > len(b) || n > len(b)-off {
		return nil, false
	}
	return b[off : off+n], true
}
