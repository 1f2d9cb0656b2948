package xlsx

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// ParseCSV reads comma-, semicolon- or tab-separated values (the
// separator is the one of the first line, a .tsv name means tabs) as one
// table with its header (see the package comment). data is UTF-8 text.
// Quotes may be loose and rows of different lengths.
func ParseCSV(ctx context.Context, source string, data []byte) (*document.Document, error) {
	doc := &document.Document{Source: source, Format: formats.CSV}
	err := StreamCSV(ctx, source, bytes.NewReader(data), func(piece *document.Document) error {
		doc.Blocks = append(doc.Blocks, piece.Blocks...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// StreamCSV reads delimited text from r as ParseCSV reads it, and hands
// it on to emit in pieces as its rows are read, so that a large file is
// never held whole: each piece is a document (source, format) holding the
// table blocks of at most PieceRows rows. A file of at most PieceRows rows
// is one piece, with the blocks ParseCSV gives it. It returns emit's
// error, or ParseCSV's errors.
func StreamCSV(ctx context.Context, source string, r io.Reader, emit func(piece *document.Document) error) (err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return err
	}
	br := bufio.NewReaderSize(r, sniffCSV)
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	head, _ := br.Peek(sniffCSV) // the first line, as far as it goes
	cr := csv.NewReader(br)
	cr.Comma = Separator(string(head), source)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	t := &table{}
	emitted := 0
	hand := func(blocks []document.Block) error {
		if len(blocks) == 0 {
			return nil
		}
		emitted++
		return emit(&document.Document{Source: source, Format: formats.CSV, Blocks: blocks})
	}
	for n := 0; n < MaxRows; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				continue
			}
			return formats.Errorf(source, formats.ErrCorrupt, "malformed CSV: %w", err)
		}
		t.add(rec)
		if t.held >= PieceRows {
			if err := hand(t.take()); err != nil {
				return err
			}
		}
	}
	if err := hand(t.finish()); err != nil {
		return err
	}
	if emitted == 0 {
		return formats.Errorf(source, formats.ErrEmpty, "CSV has no text in any cell")
	}
	return nil
}

// sniffCSV is how much of a file's start the separator is chosen from.
const sniffCSV = 64 << 10

const utf8BOM = "\uFEFF"

// Separator is the field separator of delimited text: a tab for a .tsv
// name, else whichever of tab, semicolon and comma the first line holds
// most of (comma on a tie).
func Separator(text, name string) rune {
	if strings.EqualFold(filepath.Ext(name), ".tsv") {
		return '\t'
	}
	line, _, _ := strings.Cut(text, "\n")
	best, n := ',', strings.Count(line, ",")
	for _, c := range []rune{';', '\t'} {
		if k := strings.Count(line, string(c)); k > n {
			best, n = c, k
		}
	}
	return best
}
