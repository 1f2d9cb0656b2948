package doc

import (
	"errors"
	"fmt"
	"sort"
	"unicode/utf16"
)

// Sprms read ([MS-DOC] 2.6).
const (
	sprmPIstd             = 0x4600
	sprmPFPageBreakBefore = 0x2407
	sprmPFInTable         = 0x2416
	sprmPFTtp             = 0x2417
	sprmPOutLvl           = 0x2640
	sprmPItap             = 0x6649
	sprmPFInnerTableCell  = 0x244B
	sprmPFInnerTtp        = 0x244C
	sprmPChgTabs          = 0xC615
	sprmTDefTable10       = 0xD606
	sprmTDefTable         = 0xD608
	sprmCFRMarkDel        = 0x0800
	sprmCSymbol           = 0x6A09
	sprmSBkc              = 0x3009
)

// fkpSize is the size of a formatted disk page (PapxFkp, ChpxFkp).
const fkpSize = 512

// maxStyleDepth bounds istdBase chains (they may be cyclic in broken
// files).
const maxStyleDepth = 16

// eachSprm calls fn with each Prl (sprm and operand) of a grpprl,
// stopping at the first one that does not fit.
func eachSprm(g []byte, fn func(sprm int, arg []byte)) {
	for len(g) >= 2 {
		sprm := le16(g)
		g = g[2:]
		n := operandSize(sprm, g)
		if n < 0 || n > len(g) {
			return
		}
		fn(sprm, g[:n])
		g = g[n:]
	}
}

// operandSize is the size of the operand of sprm, given the bytes that
// follow it; -1 when they are too short to tell.
func operandSize(sprm int, rest []byte) int {
	switch sprm >> 13 { // spra
	case 0, 1:
		return 1
	case 2, 4, 5:
		return 2
	case 3:
		return 4
	case 7:
		return 3
	}
	// spra 6: variable, a size byte first, with two exceptions.
	switch sprm {
	case sprmTDefTable, sprmTDefTable10:
		// A 2-byte cb counting the rest of the operand plus one.
		if len(rest) < 2 {
			return -1
		}
		return 2 + max(le16(rest)-1, 0)
	case sprmPChgTabs:
		// cb 255: the size follows from the counts of deleted and added
		// tab stops (PChgTabsDel: 4 bytes each, PChgTabsAdd: 3 bytes).
		if len(rest) >= 1 && rest[0] == 255 {
			if len(rest) < 2 {
				return -1
			}
			add := 2 + 4*int(rest[1])
			if add >= len(rest) {
				return -1
			}
			return add + 1 + 3*int(rest[add])
		}
	}
	if len(rest) < 1 {
		return -1
	}
	return 1 + int(rest[0])
}

// paraProps are the properties read of a paragraph.
type paraProps struct {
	istd            int
	outline         int // sprmPOutLvl, -1 when not set
	pageBreakBefore int // 1 on, 0 off, -1 not set
	inTable, ttp    bool
	innerCell       bool
	innerTtp        bool
	itap            int // table depth (sprmPItap), -1 when not set
}

var noProps = paraProps{outline: -1, pageBreakBefore: -1, itap: -1}

// apply reads the paragraph sprms of a grpprl into p.
func (p *paraProps) apply(g []byte) {
	eachSprm(g, func(sprm int, arg []byte) {
		flag := len(arg) > 0 && arg[0] != 0
		switch sprm {
		case sprmPIstd:
			p.istd = le16(arg)
		case sprmPOutLvl:
			p.outline = int(arg[0])
		case sprmPFPageBreakBefore:
			p.pageBreakBefore = 0
			if flag {
				p.pageBreakBefore = 1
			}
		case sprmPFInTable:
			p.inTable = flag
		case sprmPFTtp:
			p.ttp = flag
		case sprmPFInnerTableCell:
			p.innerCell = flag
		case sprmPFInnerTtp:
			p.innerTtp = flag
		case sprmPItap:
			p.itap = le16(arg)
		}
	})
}

// papRun is the paragraph whose mark lies in stream offsets
// [start, end), with its properties.
type papRun struct {
	start, end int
	props      paraProps
}

// readFormatting reads the paragraph properties, the stylesheet, the
// sections and the character runs to skip. Each is optional: on failure
// it is left empty and the text is read without it.
func (d *decoder) readFormatting() {
	if runs, err := d.readPapx(); err == nil {
		d.papx = runs
		if styles, err := d.readStyles(); err == nil {
			d.styles = styles
		}
	}
	if s, err := d.readSections(); err == nil {
		d.sections = s
	}
	if del, sym, err := d.readChpx(); err == nil {
		d.deleted, d.symbols = del, sym
	}
}

// fkpPages returns the FKP pages of a PlcBte (PlcBtePapx or PlcBteChpx)
// in order, each page once.
func (d *decoder) fkpPages(i int) ([][]byte, error) {
	fc, lcb, ok := d.fib.pair(i)
	if !ok {
		return nil, errors.New("no bin table")
	}
	plc, ok := slice(d.tbl, fc, lcb)
	if !ok || lcb < 12 || (lcb-4)%8 != 0 {
		return nil, fmt.Errorf("bin table at %d+%d is damaged", fc, lcb)
	}
	n := (lcb - 4) / 8
	seen := map[int]bool{}
	var pages [][]byte
	for k := 0; k < n; k++ {
		pn := le32(plc[4*(n+1)+4*k:]) & 0x3FFFFF
		if seen[pn] {
			continue
		}
		seen[pn] = true
		page, ok := slice(d.wd, pn*fkpSize, fkpSize)
		if !ok {
			return nil, fmt.Errorf("FKP page %d beyond the WordDocument stream", pn)
		}
		pages = append(pages, page)
	}
	return pages, nil
}

// readPapx reads every PapxFkp into runs sorted by stream offset.
func (d *decoder) readPapx() ([]papRun, error) {
	pages, err := d.fkpPages(iPlcfBtePapx)
	if err != nil {
		return nil, err
	}
	var runs []papRun
	for _, page := range pages {
		crun := int(page[fkpSize-1])
		bx := 4 * (crun + 1)
		if bx+13*crun > fkpSize-1 {
			return nil, fmt.Errorf("PapxFkp with %d runs", crun)
		}
		for i := 0; i < crun; i++ {
			r := papRun{start: le32(page[4*i:]), end: le32(page[4*i+4:]), props: noProps}
			if off := 2 * int(page[bx+13*i]); off != 0 {
				g, err := papxGrpprl(page, off)
				if err != nil {
					return nil, err
				}
				r.props.istd = le16(g)
				r.props.apply(g[2:])
			}
			if r.end > r.start {
				runs = append(runs, r)
			}
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].start < runs[j].start })
	return runs, nil
}

// papxGrpprl returns the GrpPrlAndIstd of the PapxInFkp at off in page.
func papxGrpprl(page []byte, off int) ([]byte, error) {
	if off >= fkpSize-1 {
		return nil, fmt.Errorf("PAPX at %d", off)
	}
	var g []byte
	var ok bool
	if cb := int(page[off]); cb != 0 {
		g, ok = slice(page, off+1, 2*cb-1)
	} else {
		g, ok = slice(page, off+2, 2*int(page[off+1]))
	}
	if !ok || len(g) < 2 {
		return nil, fmt.Errorf("PAPX at %d overflows its page", off)
	}
	return g, nil
}

// props returns the properties of the paragraph whose mark is at fc.
func (d *decoder) props(fc int) paraProps {
	r := d.papx
	i := sort.Search(len(r), func(i int) bool { return r[i].end > fc })
	if fc >= 0 && i < len(r) && r[i].start <= fc {
		return r[i].props
	}
	return noProps
}

// readChpx reads the ChpxFkp pages and returns the stream ranges whose
// characters are deleted with revision marking, and those that are
// symbols (sprmCSymbol: the text holds a placeholder "(" and the
// property a character of a symbol font), each sorted.
func (d *decoder) readChpx() (deleted, symbols []fcRange, err error) {
	pages, err := d.fkpPages(iPlcfBteChpx)
	if err != nil {
		return nil, nil, err
	}
	for _, page := range pages {
		crun := int(page[fkpSize-1])
		rgb := 4 * (crun + 1)
		if rgb+crun > fkpSize-1 {
			return nil, nil, fmt.Errorf("ChpxFkp with %d runs", crun)
		}
		for i := 0; i < crun; i++ {
			off := 2 * int(page[rgb+i])
			if off == 0 {
				continue
			}
			if off >= fkpSize-1 {
				return nil, nil, fmt.Errorf("CHPX at %d", off)
			}
			g, ok := slice(page, off+1, int(page[off]))
			if !ok {
				return nil, nil, fmt.Errorf("CHPX at %d overflows its page", off)
			}
			del, sym := false, false
			eachSprm(g, func(sprm int, arg []byte) {
				switch sprm {
				case sprmCFRMarkDel:
					del = arg[0] == 1 || arg[0] == 0x81
				case sprmCSymbol:
					sym = true
				}
			})
			r := fcRange{le32(page[4*i:]), le32(page[4*i+4:])}
			if del && r.end > r.start {
				deleted = append(deleted, r)
			}
			if sym && r.end > r.start {
				symbols = append(symbols, r)
			}
		}
	}
	return mergeRanges(deleted), mergeRanges(symbols), nil
}

// mergeRanges sorts ranges and merges those that overlap, so that
// inRanges's search is exact.
func mergeRanges(r []fcRange) []fcRange {
	sort.Slice(r, func(i, j int) bool { return r[i].start < r[j].start })
	out := r[:0]
	for _, x := range r {
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// style is one style definition of the stylesheet.
type style struct {
	name            string
	sti             int // built-in style identifier; 0x0FFE user-defined
	base            int // istdBase; 0x0FFF none
	para            bool
	outline         int // -1 when the style does not set it
	pageBreakBefore int // -1 when the style does not set it
}

// Built-in style identifiers.
const (
	stiHeading1 = 1
	stiHeading9 = 9
	stiTitle    = 62
	istdNil     = 0x0FFF
)

// readStyles reads the STSH. Empty slots are kept (as zero styles) so that
// the slice is indexed by istd.
func (d *decoder) readStyles() ([]style, error) {
	fc, lcb, ok := d.fib.pair(iStshf)
	if !ok {
		return nil, errors.New("no stylesheet")
	}
	b, ok := slice(d.tbl, fc, lcb)
	if !ok || len(b) < 2 {
		return nil, errors.New("stylesheet beyond the table stream")
	}
	stshi, ok := slice(b, 2, le16(b))
	if !ok || len(stshi) < 4 {
		return nil, errors.New("damaged stylesheet header")
	}
	cstd, cbBase := le16(stshi), le16(stshi[2:])
	if cbBase < 10 {
		return nil, fmt.Errorf("style base of %d bytes", cbBase)
	}
	pos := 2 + len(stshi)
	styles := make([]style, 0, min(cstd, len(b)/2))
	for i := 0; i < cstd && pos+2 <= len(b); i++ {
		cb := le16(b[pos:])
		std, ok := slice(b, pos+2, cb)
		if !ok {
			return nil, fmt.Errorf("style %d overflows the stylesheet", i)
		}
		pos += 2 + cb + cb&1 // LPStds sit on even offsets
		styles = append(styles, parseSTD(std, cbBase))
	}
	return styles, nil
}

// parseSTD reads one STD: Stdf (cbBase bytes), the name (Xstz), then for
// a paragraph style its paragraph UPX. A damaged STD gives what could be
// read.
func parseSTD(std []byte, cbBase int) style {
	s := style{base: istdNil, outline: -1, pageBreakBefore: -1}
	if len(std) < 10 {
		return s
	}
	s.sti = le16(std) & 0x0FFF
	s.para = le16(std[2:])&0x000F == 1 // stk: paragraph style
	s.base = le16(std[2:]) >> 4
	pos := cbBase
	if pos+2 > len(std) {
		return s
	}
	cch := le16(std[pos:])
	name, ok := slice(std, pos+2, 2*cch)
	if !ok {
		return s
	}
	u := make([]uint16, cch)
	for i := range u {
		u[i] = uint16(le16(name[2*i:]))
	}
	s.name = string(utf16.Decode(u))
	pos += 2 + 2*cch + 2 // the name and its terminating null
	if !s.para || pos+2 > len(std) {
		return s
	}
	// LPUpxPapx: cbUpx, then istd and the paragraph grpprl.
	upx, ok := slice(std, pos+2, le16(std[pos:]))
	if !ok || len(upx) < 2 {
		return s
	}
	p := noProps
	p.apply(upx[2:])
	s.outline, s.pageBreakBefore = p.outline, p.pageBreakBefore
	return s
}

// section is a section of the main text ending before cpEnd, with its
// break code (how it starts: 0 continuous, 1 new column, 2 new page,
// 3 even page, 4 odd page).
type section struct {
	cpEnd int
	bkc   int
}

// readSections reads the PlcfSed and each section's SEPX break code.
func (d *decoder) readSections() ([]section, error) {
	fc, lcb, ok := d.fib.pair(iPlcfSed)
	if !ok {
		return nil, errors.New("no sections")
	}
	plc, ok := slice(d.tbl, fc, lcb)
	if !ok || lcb < 16 || (lcb-4)%16 != 0 {
		return nil, errors.New("damaged section table")
	}
	n := (lcb - 4) / 16
	secs := make([]section, n)
	for i := range secs {
		secs[i] = section{cpEnd: le32(plc[4*i+4:]), bkc: 2}
		sed := plc[4*(n+1)+12*i:]
		fcSepx := le32(sed[2:])
		if fcSepx == 0xFFFFFFFF {
			continue
		}
		head, ok := slice(d.wd, fcSepx, 2)
		if !ok {
			continue
		}
		g, ok := slice(d.wd, fcSepx+2, le16(head))
		if !ok {
			continue
		}
		eachSprm(g, func(sprm int, arg []byte) {
			if sprm == sprmSBkc {
				secs[i].bkc = int(arg[0])
			}
		})
	}
	return secs, nil
}
