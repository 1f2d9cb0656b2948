package xlsx

import (
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
func ParseCSV(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = Separator(text, source)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	t := &table{}
	for n := 0; n < MaxRows; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				continue
			}
			return nil, formats.Errorf(source, formats.ErrCorrupt, "malformed CSV: %w", err)
		}
		t.add(rec)
	}
	blocks := t.finish()
	if len(blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "CSV has no text in any cell")
	}
	return &document.Document{Source: source, Format: formats.CSV, Blocks: blocks}, nil
}

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
