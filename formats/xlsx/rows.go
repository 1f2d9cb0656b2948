// Package xlsx reads spreadsheets: Excel workbooks (XLSX, with
// github.com/xuri/excelize/v2, rows streamed) and comma-, semicolon- or
// tab-separated values (CSV, TSV, with encoding/csv).
//
// Every row is written with its header, one cell "Header: value" after
// another ("Region: EMEA; Q3 2024: 1,204"), so that any chunk of a sheet
// quotes what its numbers are. The header is a sheet's first non-empty
// row; a column without a header cell is named by its letter ("C"). Each
// sheet of a workbook starts with a heading (the sheet's name) on its own
// page (sheet n is page n); rows go in table blocks of at most RowsPerBlock
// rows, which the loader cuts into sections between rows.
package xlsx

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// Limits on what one sheet contributes.
const (
	// RowsPerBlock is the number of rows in one table block.
	RowsPerBlock = 100
	// MaxColumns bounds the columns read from a row.
	MaxColumns = 512
	// MaxCellRunes bounds one cell's text; longer cells are cut.
	MaxCellRunes = 2000
	// MaxRows bounds the rows read from one file (Excel's own limit per
	// sheet); further rows are left out.
	MaxRows = 1 << 20
	// PieceRows is the most rows of a sheet in one piece that Stream
	// hands on.
	PieceRows = 1000
)

// table turns the rows of one sheet into blocks.
type table struct {
	page   int
	header []string
	rows   []string
	blocks []document.Block
	n      int // rows read, header included
	held   int // rows in blocks and rows, not yet taken
}

// add reads one row: the first non-empty one is the header.
func (t *table) add(cells []string) {
	if len(cells) > MaxColumns {
		cells = cells[:MaxColumns]
	}
	empty := true
	for i, c := range cells {
		cells[i] = cellText(c)
		if cells[i] != "" {
			empty = false
		}
	}
	if empty {
		return
	}
	t.n++
	if t.header == nil {
		t.header = append([]string{}, cells...)
		return
	}
	var sb strings.Builder
	for i, c := range cells {
		if c == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("; ")
		}
		h := ""
		if i < len(t.header) {
			h = t.header[i]
		}
		if h == "" {
			h = ColumnName(i + 1)
		}
		sb.WriteString(h)
		sb.WriteString(": ")
		sb.WriteString(c)
	}
	t.rows = append(t.rows, sb.String())
	t.held++
	if len(t.rows) >= RowsPerBlock {
		t.flush()
	}
}

// flush ends the current block of rows.
func (t *table) flush() {
	if len(t.rows) > 0 {
		t.blocks = append(t.blocks, document.Block{Kind: document.Table, Text: strings.Join(t.rows, "\n"), Page: t.page})
		t.rows = t.rows[:0]
	}
}

// take returns the blocks of the rows added since the last take, the
// last one cut short.
func (t *table) take() []document.Block {
	t.flush()
	b := t.blocks
	t.blocks, t.held = nil, 0
	return b
}

// finish returns the blocks of the sheet not yet taken. A sheet of one
// row (the "header" alone) is that row as a paragraph.
func (t *table) finish() []document.Block {
	if t.n == 1 {
		var cells []string
		for _, h := range t.header {
			if h != "" {
				cells = append(cells, h)
			}
		}
		return []document.Block{{Kind: document.Paragraph, Text: strings.Join(cells, "; "), Page: t.page}}
	}
	return t.take()
}

// cellText is a cell's text on one line, cut at MaxCellRunes.
func cellText(s string) string {
	s = formats.CleanText(s)
	if utf8.RuneCountInString(s) > MaxCellRunes {
		s = string([]rune(s)[:MaxCellRunes]) + "…"
	}
	return s
}

// ColumnName is the spreadsheet name of column n (1-based): A, B, ...,
// Z, AA, AB, ...
func ColumnName(n int) string {
	if n < 1 {
		return strconv.Itoa(n)
	}
	var b []byte
	for n > 0 {
		n--
		b = append([]byte{byte('A' + n%26)}, b...)
		n /= 26
	}
	return string(b)
}
