package doc

// This file builds small .doc files from scratch, following [MS-CFB] and
// [MS-DOC] independently of the parser, so that tests can cover what
// LibreOffice never writes: compressed (8-bit) text, Word's own field and
// special characters, deleted revisions, section break kinds, localized
// style names, Word 6.0/95 and encrypted headers.

import (
	"encoding/binary"
	"sort"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"
)

// Markers used in synPara.text: text between delStart and delEnd is
// stored, but marked as deleted with revision marking; symbol stands for
// a symbol-font character (a "(" with sprmCSymbol).
const (
	delStart = '\uE000'
	delEnd   = '\uE001'
	symbol   = '\uE002'
)

// Character formatting of a synthetic character.
const (
	chpPlain = iota
	chpDeleted
	chpSymbol
)

// synPara is one paragraph: its text (control characters included) and
// terminator (0x0D, 0x07 or 0x0C), style and extra paragraph sprms.
type synPara struct {
	text  string
	term  rune
	istd  int
	sprms []byte
}

// synStyle is one paragraph style of the stylesheet.
type synStyle struct {
	name      string
	sti, base int
	sprms     []byte // the style's paragraph grpprl
	// odd stores the STD with an odd length (a trailing byte), which the
	// stylesheet pads to an even offset.
	odd bool
}

// synDoc describes a synthetic document.
type synDoc struct {
	paras []synPara
	// compressed is the number of leading paragraphs stored as 8-bit
	// Windows-1252 text; the rest is UTF-16.
	compressed int
	// trailing is text after the main document (a footnote story).
	trailing string
	styles   []synStyle
	// bkc is the break code of each section after the first (the
	// sections are ended by paragraphs whose term is 0x0C).
	bkc        []int
	title      string // SummaryInformation title, Windows-1252
	flags      uint16 // FibBase flags besides fWhichTblStm
	nFib       uint16 // 0 for 0x00C1
	noStyles   bool
	badPapxFKP bool // a PAPX bin table pointing beyond the stream
}

func sprm(op int, arg ...byte) []byte {
	return append([]byte{byte(op), byte(op >> 8)}, arg...)
}

func put16(b []byte, off, v int) { binary.LittleEndian.PutUint16(b[off:], uint16(v)) }
func put32(b []byte, off, v int) { binary.LittleEndian.PutUint32(b[off:], uint32(v)) }

// enc1252 encodes r as Windows-1252 (with golang.org/x/text, not the
// parser's table), failing the test when it cannot.
func enc1252(t testing.TB, r rune) byte {
	b, ok := charmap.Windows1252.EncodeRune(r)
	if !ok {
		t.Fatalf("%q is not in Windows-1252", r)
	}
	return b
}

// build returns the .doc file described by s.
func (s synDoc) build(t testing.TB) []byte {
	t.Helper()
	// Lay the characters out: compressed piece at 1024, UTF-16 piece
	// right after it (on an even offset). A character is one UTF-16
	// unit, as in Word.
	type char struct {
		u   uint16
		chp int
	}
	var chars []char
	var paraEnds []int // cp after each paragraph mark
	var sectEnds []int
	deleted := false
	for _, p := range s.paras {
		for _, r := range p.text + string(p.term) {
			switch r {
			case delStart:
				deleted = true
				continue
			case delEnd:
				deleted = false
				continue
			case symbol:
				chars = append(chars, char{'(', chpSymbol})
				continue
			}
			chp := chpPlain
			if deleted {
				chp = chpDeleted
			}
			for _, u := range utf16.Encode([]rune{r}) {
				chars = append(chars, char{u, chp})
			}
		}
		paraEnds = append(paraEnds, len(chars))
		if p.term == 0x0C {
			sectEnds = append(sectEnds, len(chars))
		}
	}
	ccpText := len(chars)
	for _, u := range utf16.Encode([]rune(s.trailing)) {
		chars = append(chars, char{u, chpPlain})
	}
	split := 0 // first cp of the UTF-16 piece
	if s.compressed > 0 {
		split = paraEnds[s.compressed-1]
	}
	wd := make([]byte, 1024, 8192)
	fcs := make([]int, len(chars)+1) // stream offset of each cp
	for cp, c := range chars {
		if cp == split && len(wd)%2 == 1 {
			wd = append(wd, 0)
		}
		fcs[cp] = len(wd)
		if cp < split {
			wd = append(wd, enc1252(t, rune(c.u)))
		} else {
			wd = binary.LittleEndian.AppendUint16(wd, c.u)
		}
	}
	fcs[len(chars)] = len(wd)

	// PAPX FKP: one run per paragraph.
	pad := func(b []byte, n int) []byte {
		for len(b)%n != 0 {
			b = append(b, 0)
		}
		return b
	}
	wd = pad(wd, 512)
	// PAPX FKPs: one run per paragraph, 8 paragraphs a page.
	type bteEntry struct{ fc, pn int }
	var papxBte []bteEntry
	start := 0
	for first := 0; first < len(s.paras); first += 8 {
		paras := s.paras[first:min(first+8, len(s.paras))]
		papxBte = append(papxBte, bteEntry{fcs[start], len(wd) / 512})
		page := make([]byte, 512)
		crun := len(paras)
		at := 4*(crun+1) + 13*crun
		for i, p := range paras {
			put32(page, 4*i, fcs[start])
			start = paraEnds[first+i]
			at += at & 1
			g := append([]byte{byte(p.istd), byte(p.istd >> 8)}, p.sprms...)
			if at+2+len(g) > 511 {
				t.Fatal("PAPX FKP overflow")
			}
			page[4*(crun+1)+13*i] = byte(at / 2)
			if len(g)%2 == 1 {
				page[at] = byte((len(g) + 1) / 2) // 2*cb-1 bytes follow
				at++
			} else {
				page[at], page[at+1] = 0, byte(len(g)/2) // 2*cb' bytes follow
				at += 2
			}
			at += copy(page[at:], g)
		}
		put32(page, 4*crun, fcs[start])
		page[511] = byte(crun)
		wd = append(wd, page...)
	}

	// CHPX FKP: a run wherever the formatting changes.
	chpxPage := len(wd) / 512
	page := make([]byte, 512)
	var bounds []int
	for cp := 0; cp < ccpText; cp++ {
		if cp == 0 || chars[cp].chp != chars[cp-1].chp || cp == split {
			bounds = append(bounds, cp)
		}
	}
	crun := len(bounds)
	rgb := 4 * (crun + 1)
	chpx := map[int]int{chpDeleted: 500, chpSymbol: 490} // offsets
	if rgb+crun > 490 {
		t.Fatal("CHPX FKP overflow")
	}
	page[500] = 3
	copy(page[501:], sprm(sprmCFRMarkDel, 1))
	page[490] = 6
	copy(page[491:], sprm(sprmCSymbol, 2, 0, 0x6C, 0xF0)) // font 2, U+F06C
	for i, cp := range bounds {
		put32(page, 4*i, fcs[cp])
		page[rgb+i] = byte(chpx[chars[cp].chp] / 2)
	}
	put32(page, 4*crun, fcs[ccpText])
	page[511] = byte(crun)
	wd = append(wd, page...)

	// SEPX of each section after the first.
	sepx := make([]int, len(sectEnds)+1)
	sepx[0] = -1
	for i := range sectEnds {
		sepx[i+1] = -1
		if i < len(s.bkc) {
			sepx[i+1] = len(wd)
			g := sprm(sprmSBkc, byte(s.bkc[i]))
			wd = append(wd, byte(len(g)), 0)
			wd = append(wd, g...)
		}
	}
	wd = pad(wd, 2)

	// Table stream: STSH, PlcfSed, bin tables, Clx.
	var tbl []byte
	type fcLcb struct{ fc, lcb int }
	var stsh, sed, btePapx, bteChpx, clx fcLcb
	if !s.noStyles {
		b := make([]byte, 2+18)
		put16(b, 0, 18)
		put16(b, 2, len(s.styles))
		put16(b, 4, 10) // cbSTDBaseInFile
		put16(b, 6, 1)
		for _, st := range s.styles {
			std := make([]byte, 10)
			put16(std, 0, st.sti)
			put16(std, 2, 1|st.base<<4) // stk paragraph
			put16(std, 4, 2)            // cupx
			name := utf16.Encode([]rune(st.name))
			std = binary.LittleEndian.AppendUint16(std, uint16(len(name)))
			for _, u := range name {
				std = binary.LittleEndian.AppendUint16(std, u)
			}
			std = append(std, 0, 0)
			upx := append([]byte{0, 0}, st.sprms...) // istd, grpprl
			std = binary.LittleEndian.AppendUint16(std, uint16(len(upx)))
			std = append(std, upx...)
			std = pad(std, 2)
			std = append(std, 0, 0) // empty character UPX
			if st.odd {
				std = append(std, 0xEE)
			}
			b = binary.LittleEndian.AppendUint16(b, uint16(len(std)))
			b = append(b, std...)
			b = pad(b, 2)
		}
		stsh = fcLcb{len(tbl), len(b)}
		tbl = append(tbl, b...)
	}
	if len(sectEnds) > 0 {
		ends := append(append([]int{0}, sectEnds...), ccpText)
		b := []byte{}
		for _, cp := range ends {
			b = binary.LittleEndian.AppendUint32(b, uint32(cp))
		}
		for i := 0; i < len(ends)-1; i++ {
			sed := make([]byte, 12)
			put32(sed, 2, sepx[i])
			b = append(b, sed...)
		}
		sed = fcLcb{len(tbl), len(b)}
		tbl = append(tbl, b...)
	}
	bte := func(entries []bteEntry) fcLcb {
		var b []byte
		for _, e := range entries {
			b = binary.LittleEndian.AppendUint32(b, uint32(e.fc))
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(fcs[ccpText]))
		for _, e := range entries {
			b = binary.LittleEndian.AppendUint32(b, uint32(e.pn))
		}
		r := fcLcb{len(tbl), len(b)}
		tbl = append(tbl, b...)
		return r
	}
	if s.badPapxFKP {
		papxBte[len(papxBte)-1].pn = 4000
	}
	btePapx = bte(papxBte)
	bteChpx = bte([]bteEntry{{0, chpxPage}})
	{
		b := []byte{0x01, 2, 0, 0x00, 0x00} // a Prc to skip
		b = append(b, 0x02)
		cps := []int{0}
		pieces := [][2]int{} // fc field
		if split > 0 {
			cps = append(cps, split)
			pieces = append(pieces, [2]int{fcs[0]*2 | 0x40000000})
		}
		if split < len(chars) {
			cps = append(cps, len(chars))
			pieces = append(pieces, [2]int{fcs[split]})
		}
		plc := []byte{}
		for _, cp := range cps {
			plc = binary.LittleEndian.AppendUint32(plc, uint32(cp))
		}
		for _, p := range pieces {
			pcd := make([]byte, 8)
			put32(pcd, 2, p[0])
			plc = append(plc, pcd...)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(plc)))
		b = append(b, plc...)
		clx = fcLcb{len(tbl), len(b)}
		tbl = append(tbl, b...)
	}

	// FIB.
	nFib := int(s.nFib)
	if nFib == 0 {
		nFib = 0xC1
	}
	put16(wd, 0, 0xA5EC)
	put16(wd, 2, nFib)
	put16(wd, 10, int(s.flags)|0x0200) // fWhichTblStm: 1Table
	put16(wd, 32, 14)                  // csw
	put16(wd, 62, 22)                  // cslw
	put32(wd, 64, len(wd))             // cbMac
	put32(wd, 64+12, ccpText)
	put32(wd, 64+16, len(chars)-ccpText) // ccpFtn
	put16(wd, 152, 93)                   // cbRgFcLcb
	for i, p := range map[int]fcLcb{iStshf: stsh, iPlcfSed: sed, iPlcfBtePapx: btePapx, iPlcfBteChpx: bteChpx, iClx: clx} {
		put32(wd, 154+8*i, p.fc)
		put32(wd, 154+8*i+4, p.lcb)
	}
	streams := map[string][]byte{"WordDocument": wd, "1Table": tbl}
	if s.title != "" {
		streams["\x05SummaryInformation"] = summaryInfo(t, s.title)
	}
	return buildCFB(t, streams)
}

// summaryInfo builds a SummaryInformation property set holding a
// Windows-1252 code page and a VT_LPSTR title.
func summaryInfo(t testing.TB, title string) []byte {
	b := make([]byte, 48)
	put16(b, 0, 0xFFFE)
	put32(b, 24, 1)
	copy(b[28:], "\xe0\x85\x9f\xf2\xf9\x4f\x68\x10\xab\x91\x08\x00\x2b\x27\xb3\xd9")
	put32(b, 44, 48)
	var str []byte
	for _, r := range title {
		str = append(str, enc1252(t, r))
	}
	str = append(str, 0)
	ps := make([]byte, 8+16)
	put32(ps, 4, 2)
	put32(ps, 8, pidCodePage)
	put32(ps, 12, 24)
	put32(ps, 16, pidTitle)
	put32(ps, 20, 32)
	ps = append(ps, 2, 0, 0, 0, 0xE4, 0x04, 0, 0) // VT_I2 1252
	ps = append(ps, 0x1E, 0, 0, 0)
	ps = binary.LittleEndian.AppendUint32(ps, uint32(len(str)))
	ps = append(ps, str...)
	for len(ps)%4 != 0 {
		ps = append(ps, 0)
	}
	put32(ps, 0, len(ps))
	return append(b, ps...)
}

// buildCFB writes a version 3 compound file holding the given root
// streams. Streams are padded to 4096 bytes so that none lives in the
// mini stream.
func buildCFB(t testing.TB, streams map[string][]byte) []byte {
	t.Helper()
	const (
		ss      = 512
		free    = 0xFFFFFFFF
		end     = 0xFFFFFFFE
		fatSect = 0xFFFFFFFD
		none    = 0xFFFFFFFF
	)
	names := make([]string, 0, len(streams))
	for n := range streams {
		names = append(names, n)
	}
	sort.Strings(names)
	dirSectors := (len(names) + 1 + 3) / 4
	fat := make([]uint32, ss/4)
	for i := range fat {
		fat[i] = free
	}
	fat[0] = fatSect
	for i := 1; i <= dirSectors; i++ {
		fat[i] = uint32(i + 1)
	}
	fat[dirSectors] = end
	next := 1 + dirSectors
	var body []byte
	dir := make([]byte, dirSectors*ss)
	entry := func(i int, name string, typ byte, child, right uint32, startSect, size int) {
		e := dir[i*128:]
		u := utf16.Encode([]rune(name))
		for k, c := range u {
			binary.LittleEndian.PutUint16(e[2*k:], c)
		}
		put16(e, 64, 2*len(u)+2)
		e[66], e[67] = typ, 1
		binary.LittleEndian.PutUint32(e[68:], none)
		binary.LittleEndian.PutUint32(e[72:], right)
		binary.LittleEndian.PutUint32(e[76:], child)
		binary.LittleEndian.PutUint32(e[116:], uint32(startSect))
		put32(e, 120, size)
	}
	entry(0, "Root Entry", 5, 1, none, end, 0)
	for i, n := range names {
		data := append([]byte(nil), streams[n]...)
		for len(data) < 4096 {
			data = append(data, 0)
		}
		size := len(data)
		for len(data)%ss != 0 {
			data = append(data, 0)
		}
		k := len(data) / ss
		if next+k > len(fat) {
			t.Fatal("synthetic compound file too large")
		}
		for j := 0; j < k; j++ {
			fat[next+j] = uint32(next + j + 1)
		}
		fat[next+k-1] = end
		right := uint32(none)
		if i+2 <= len(names) {
			right = uint32(i + 2)
		}
		entry(i+1, n, 2, none, right, next, size)
		next += k
		body = append(body, data...)
	}
	h := make([]byte, ss)
	copy(h, oleMagic)
	put16(h, 24, 0x3E)
	put16(h, 26, 3)
	put16(h, 28, 0xFFFE)
	put16(h, 30, 9)
	put16(h, 32, 6)
	put32(h, 44, 1)                            // FAT sectors
	put32(h, 48, 1)                            // first directory sector
	put32(h, 56, 4096)                         // mini stream cutoff
	binary.LittleEndian.PutUint32(h[60:], end) // mini FAT
	binary.LittleEndian.PutUint32(h[68:], end) // DIFAT
	for i := 76; i < ss; i += 4 {
		binary.LittleEndian.PutUint32(h[i:], free)
	}
	put32(h, 76, 0) // the FAT is sector 0
	out := append([]byte(nil), h...)
	for _, v := range fat {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	out = append(out, dir...)
	return append(out, body...)
}
