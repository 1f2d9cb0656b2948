package doc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"unicode/utf16"
)

// decoder holds the streams of one document and what is read from them.
type decoder struct {
	wd, tbl []byte
	fib     *fib
	pieces  []piece

	// Formatting, best effort (nil or empty when unreadable).
	papx     []papRun
	deleted  []fcRange // text deleted with revision marking
	symbols  []fcRange // symbol characters (sprmCSymbol)
	styles   []style
	sections []section
}

// piece is one entry of the piece table: characters [cpStart, cpEnd)
// stored from byte fc of the WordDocument stream, one byte each
// (compressed, Windows-1252) or two (UTF-16LE).
type piece struct {
	cpStart, cpEnd int
	fc             int
	compressed     bool
}

// readPieces reads the Clx: any Prc entries (skipped) then the Pcdt
// holding the PlcPcd.
func (d *decoder) readPieces() error {
	fc, lcb, ok := d.fib.pair(iClx)
	if !ok {
		return errors.New("no piece table (Clx)")
	}
	clx, ok := slice(d.tbl, fc, lcb)
	if !ok {
		return fmt.Errorf("Clx at %d+%d lies beyond the %d-byte table stream", fc, lcb, len(d.tbl))
	}
	for len(clx) > 0 {
		switch clx[0] {
		case 0x01: // Prc: cbGrpprl (int16) then a grpprl
			if len(clx) < 3 {
				return errors.New("truncated Prc")
			}
			n := int(int16(le16(clx[1:])))
			if n < 0 || 3+n > len(clx) {
				return fmt.Errorf("Prc of %d bytes beyond the Clx", n)
			}
			clx = clx[3+n:]
		case 0x02: // Pcdt: lcb then the PlcPcd
			if len(clx) < 5 {
				return errors.New("truncated Pcdt")
			}
			plc, ok := slice(clx, 5, le32(clx[1:]))
			if !ok {
				return errors.New("PlcPcd beyond the Clx")
			}
			return d.readPlcPcd(plc)
		default:
			return fmt.Errorf("unknown Clx entry type %#02x", clx[0])
		}
	}
	return errors.New("Clx has no Pcdt")
}

func (d *decoder) readPlcPcd(plc []byte) error {
	if len(plc) < 16 || (len(plc)-4)%12 != 0 {
		return fmt.Errorf("PlcPcd of %d bytes", len(plc))
	}
	n := (len(plc) - 4) / 12
	d.pieces = make([]piece, 0, n)
	for i := 0; i < n; i++ {
		start, end := le32(plc[4*i:]), le32(plc[4*i+4:])
		if end < start || (i == 0 && start != 0) || (i > 0 && start != d.pieces[i-1].cpEnd) {
			return fmt.Errorf("piece %d has characters %d-%d", i, start, end)
		}
		pcd := plc[4*(n+1)+8*i:]
		fc := le32(pcd[2:])
		p := piece{cpStart: start, cpEnd: end, fc: fc & 0x3FFFFFFF, compressed: fc&0x40000000 != 0}
		if p.compressed {
			p.fc /= 2
		}
		d.pieces = append(d.pieces, p)
	}
	last := d.pieces[n-1].cpEnd
	if d.fib.ccpText > last {
		return fmt.Errorf("main text of %d characters but pieces cover %d", d.fib.ccpText, last)
	}
	// The pieces of the main text must lie inside the stream.
	for _, p := range d.pieces {
		if p.cpStart >= d.fib.ccpText {
			break
		}
		n := min(p.cpEnd, d.fib.ccpText) - p.cpStart
		if !p.compressed {
			n *= 2
		}
		if _, ok := slice(d.wd, p.fc, n); !ok {
			return fmt.Errorf("piece at byte %d (%d bytes) lies beyond the %d-byte WordDocument stream", p.fc, n, len(d.wd))
		}
	}
	return nil
}

// cp1252 maps the bytes 0x80-0x9F of compressed text to Unicode: the
// Windows-1252 code page, which [MS-DOC] 2.4.1 specifies for 0x82-0x9F;
// 0x80, 0x8E and 0x9E ("€", "Ž", "ž"), which the specification leaves
// out, are read as Windows-1252 too. The five bytes that Windows-1252
// leaves undefined stay C1 controls and are dropped.
var cp1252 = [32]rune{
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
}

// pageBreak marks a page break inside rawPara.text.
const pageBreak = '\f'

// rawPara is one paragraph of the text stream before its properties are
// applied.
type rawPara struct {
	text []rune // visible text; pageBreak where a page break falls
	// term is the character that ends the paragraph: 0x0D (paragraph
	// mark), 0x07 (table cell or row mark), 0x0C (section mark) or 0 (end
	// of text without a mark).
	term rune
	// fc is the stream offset of the terminating character, -1 for none.
	fc int
	// sect is the index of the section a section mark ends.
	sect int
}

// split reads the main document text into paragraphs, dropping field
// instructions, deleted text, symbols and control characters.
func (d *decoder) split(ctx context.Context) ([]rawPara, error) {
	var (
		paras  []rawPara
		cur    = rawPara{fc: -1}
		fields []bool // open fields: true while in the instruction
		instr  int    // open fields that are in their instruction
		high   rune   // pending high surrogate
		count  int
	)
	sectEnd := map[int]int{} // cp after a section mark -> section index
	for i, s := range d.sections {
		if i < len(d.sections)-1 {
			sectEnd[s.cpEnd] = i
		}
	}
	end := func(term rune, fc, sect int) {
		cur.term, cur.fc, cur.sect = term, fc, sect
		paras = append(paras, cur)
		cur = rawPara{fc: -1}
		high = 0
	}
	for _, p := range d.pieces {
		if p.cpStart >= d.fib.ccpText {
			break
		}
		last := min(p.cpEnd, d.fib.ccpText)
		for cp := p.cpStart; cp < last; cp++ {
			if count++; count&0xFFFF == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			var c rune
			fc := p.fc + cp - p.cpStart
			if p.compressed {
				c = rune(d.wd[fc])
				if c >= 0x80 && c < 0xA0 {
					c = cp1252[c-0x80]
				}
			} else {
				fc = p.fc + 2*(cp-p.cpStart)
				c = rune(le16(d.wd[fc:]))
			}
			switch c {
			case 0x0D, 0x07:
				end(c, fc, 0)
				continue
			case 0x0C:
				if s, ok := sectEnd[cp+1]; ok {
					end(c, fc, s)
				} else if instr == 0 {
					cur.text = append(cur.text, pageBreak)
				}
				continue
			}
			if inRanges(d.deleted, fc) || c == '(' && inRanges(d.symbols, fc) {
				continue
			}
			switch c {
			case 0x13: // field begin: the instruction follows
				fields = append(fields, true)
				instr++
				continue
			case 0x14: // field separator: the result follows
				if n := len(fields); n > 0 && fields[n-1] {
					fields[n-1] = false
					instr--
				}
				continue
			case 0x15: // field end
				if n := len(fields); n > 0 {
					if fields[n-1] {
						instr--
					}
					fields = fields[:n-1]
				}
				continue
			}
			if instr > 0 {
				continue
			}
			switch {
			case c == 0x09 || c == 0x0B || c == 0xA0:
				c = ' '
			case c == 0x1E:
				c = '-'
			case c < 0x20 || c >= 0x7F && c < 0xA0:
				continue
			case utf16.IsSurrogate(c):
				if c < 0xDC00 {
					high = c
					continue
				}
				if high == 0 {
					continue
				}
				c = utf16.DecodeRune(high, c)
			}
			high = 0
			cur.text = append(cur.text, c)
		}
	}
	if len(cur.text) > 0 {
		end(0, -1, 0)
	}
	return paras, nil
}

// fcRange is a range [start, end) of stream offsets.
type fcRange struct{ start, end int }

// inRanges reports whether fc lies in one of the sorted, disjoint
// ranges r.
func inRanges(r []fcRange, fc int) bool {
	i := sort.Search(len(r), func(i int) bool { return r[i].end > fc })
	return i < len(r) && r[i].start <= fc
}
