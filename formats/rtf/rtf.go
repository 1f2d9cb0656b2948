// Package rtf reads Rich Text Format (.rtf) documents with the standard
// library and golang.org/x/text's code pages only.
//
// What it extracts:
//   - paragraphs, ended by \par or \sect (\line, \tab and a \page inside
//     a paragraph read as spaces, optional hyphens dropped, non-breaking
//     spaces and hyphens as plain ones), their text decoded from \'hh
//     escapes (and raw 8-bit bytes) in the document's code page
//     (\ansicpgN, \ansi, \mac, \pc, \pca) or in the code page of the
//     current font's \fcharsetN (double-byte ones included), and from \uN
//     escapes (surrogate pairs joined) whose \ucN fallback characters are
//     skipped;
//   - headings: a paragraph is a heading when its own \outlinelevelN, or
//     its style's (following \sbasedon chains through the stylesheet),
//     gives an outline level 0-8, or when the style's name is "heading N"
//     or "Title", localized names ("Überschrift 1", "Titre 1", "Kop 1", ...)
//     included;
//   - tables as Table blocks, one row (\trowd ... \row) a line, cells
//     (ended by \cell) joined by " | "; a nested table (\itap2, \nestcell,
//     \nestrow) is flattened into the text of its cell, cells joined by
//     " | " and rows by " ; " as formats/docx does;
//   - the text boxes of shapes (\shptxt), each paragraph a block;
//   - field results (\fldrslt), such as a hyperlink's visible text;
//   - page numbers: pages start at 1 and advance at \page, at a paragraph
//     with \pagebb (page break before) and at a section break (\sect)
//     whose next section starts on a new page (\sbkpage, the default,
//     \sbkodd or \sbkeven; not \sbknone or \sbkcol). RTF records no
//     layout, so the numbers are a lower bound of the printed ones.
//
// The title comes from {\info{\title ...}}. Headers, footers, footnotes,
// annotations, field instructions, pictures, embedded objects, bookmarks,
// index and table-of-contents entries, hidden (\v) and deleted (\deleted)
// text, the list numbers (\listtext, \pntext) and every destination
// marked \* that is not known to hold text are left out.
//
// Not read either: the layout (columns, frames' positions, soft page
// breaks), so pages are only those the file breaks explicitly, and the
// HTML that Outlook encapsulates in \fromhtml documents (its RTF
// rendering is read instead).
//
// Limits: groups nested more than MaxDepth deep give formats.ErrCorrupt.
// A truncated file (groups left open at the end) is read as far as it
// goes.
package rtf

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// MaxDepth is the deepest nesting of groups Parse accepts.
const MaxDepth = 1000

// maxStyleDepth bounds \sbasedon chains (they may be cyclic in broken
// files).
const maxStyleDepth = 16

// ctxEvery is how many tokens are read between checks of the context.
const ctxEvery = 1 << 14

// Parse reads an RTF document. Errors match formats.ErrEmpty (empty file,
// or no text), formats.ErrCorrupt (not an RTF document, groups nested
// beyond MaxDepth) or the context's error.
func Parse(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "empty file")
	}
	rest := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	rest = bytes.TrimLeft(rest, " \t\r\n\f\x00")
	if !bytes.HasPrefix(rest, []byte(`{\rtf`)) {
		if len(rest) == 0 {
			return nil, formats.Errorf(source, formats.ErrEmpty, "empty file")
		}
		return nil, formats.Errorf(source, formats.ErrCorrupt, `not an RTF document (it does not start with "{\rtf")`)
	}
	p := newParser(ctx, rest)
	if err := p.run(); err != nil {
		if errors.Is(err, errTooDeep) {
			return nil, formats.Errorf(source, formats.ErrCorrupt, "RTF groups nested too deep (more than %d)", MaxDepth)
		}
		return nil, err
	}
	if len(p.body.blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "RTF document has no text")
	}
	return &document.Document{
		Source: source,
		Format: formats.RTF,
		Title:  formats.CleanText(p.title.String()),
		Blocks: p.body.blocks,
		Pages:  p.body.page,
	}, nil
}

type rtfError string

func (e rtfError) Error() string { return string(e) }

const errTooDeep = rtfError("nesting too deep")

// dest says what the text of the current group is.
type dest uint8

const (
	destBody   dest = iota // document text
	destSkip               // not content: dropped
	destInfo               // \info: only its \title is read
	destTitle              // \title inside \info
	destFonts              // \fonttbl: font numbers and charsets
	destStyles             // \stylesheet
	destStyle              // one style definition; its text is the name
)

// paraProps are the paragraph properties that matter here.
type paraProps struct {
	style   int  // \sN
	outline int  // \outlinelevelN, -1 when not set
	intbl   bool // \intbl: the paragraph is in a table
	itap    int  // \itapN: table nesting depth (2 and more: nested)
	pagebb  bool // \pagebb: page break before
}

var defaultPara = paraProps{outline: -1}

// state is what a group saves and restores.
type state struct {
	dest     dest
	uc       int  // fallback characters after \uN
	font     int  // \fN
	hidden   bool // \v
	deleted  bool // \deleted (a tracked deletion)
	star     bool // \* read: the next control word is an optional destination
	uprFirst bool // in \upr before its first group (the ANSI version, skipped)
	para     paraProps
}

// style is one paragraph style of the stylesheet.
type style struct {
	num, basedOn int
	outline      int // \outlinelevelN, -1 when not set
	para         bool
	name         strings.Builder
}

type parser struct {
	ctx   context.Context
	data  []byte
	pos   int
	stack []state
	st    state

	ansiCP int         // document code page
	deff   int         // default font
	fonts  map[int]int // font number -> code page (0: the document's)
	font   int         // font being defined in \fonttbl
	styles map[int]*style
	cur    *style // style being defined
	title  strings.Builder

	pend   []byte // \'hh bytes not yet decoded
	pendCP int    // their code page
	skipN  int    // \uN fallback characters still to skip
	high   rune   // high surrogate waiting for its pair

	body body
}

func newParser(ctx context.Context, data []byte) *parser {
	return &parser{
		ctx:    ctx,
		data:   data,
		ansiCP: 1252,
		fonts:  map[int]int{},
		styles: map[int]*style{},
		st:     state{uc: 1, para: defaultPara},
		body:   body{page: 1, sbkPage: true},
	}
}

// run reads the whole document.
func (p *parser) run() error {
	n := 0
	for p.pos < len(p.data) {
		n++
		if n%ctxEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return err
			}
		}
		c := p.data[p.pos]
		switch c {
		case '{':
			p.pos++
			if err := p.open(); err != nil {
				return err
			}
		case '}':
			p.pos++
			if len(p.stack) <= 1 {
				// The document's group ends: what follows is not RTF.
				p.finish()
				return nil
			}
			p.close()
		case '\\':
			p.pos++
			p.control()
		case '\r', '\n':
			p.pos++
		default:
			p.plain()
		}
	}
	p.finish()
	return nil
}

// finish ends the paragraph, table and text boxes left open at the end
// of the document (all of them when the file is truncated).
func (p *parser) finish() {
	p.flush()
	for len(p.body.stories) > 0 {
		p.body.endStory(p.st.para, p.level(p.st.para))
	}
	if p.st.dest == destBody {
		p.body.endPara(p.st.para, p.level(p.st.para))
	} else {
		p.body.endPara(defaultPara, 0)
	}
	p.body.closeTable()
}

// open starts a group.
func (p *parser) open() error {
	p.flush()
	p.skipN = 0
	if len(p.stack) >= MaxDepth {
		return errTooDeep
	}
	parent := p.st
	if p.st.uprFirst {
		p.st.uprFirst = false
		parent.uprFirst = false
		p.stack = append(p.stack, parent)
		p.st.dest = destSkip
		return nil
	}
	p.stack = append(p.stack, parent)
	p.st.star = false
	if p.st.dest == destStyles {
		p.st.dest = destStyle
		p.cur = &style{outline: -1, basedOn: -1, para: true}
	}
	return nil
}

// close ends a group, restoring the state saved when it opened.
func (p *parser) close() {
	p.flush()
	p.skipN = 0
	n := len(p.stack)
	if n == 0 {
		return
	}
	inner := p.st
	p.st = p.stack[n-1]
	p.stack = p.stack[:n-1]
	if inner.dest == destStyle && p.st.dest == destStyles {
		if s := p.cur; s != nil && s.para {
			p.styles[s.num] = s
		}
		p.cur = nil
	}
	for k := len(p.body.stories); k > 0 && p.body.stories[k-1].depth > len(p.stack); k-- {
		// The text box's group ends: its last paragraph too.
		p.body.endStory(inner.para, p.level(inner.para))
	}
}

// plain reads a run of ordinary characters.
func (p *parser) plain() {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '\\' || c == '{' || c == '}' || c < 0x20 || c >= 0x80 {
			break
		}
		p.pos++
	}
	if p.pos > start {
		run := p.data[start:p.pos]
		if p.skipN > 0 {
			k := min(p.skipN, len(run))
			p.skipN -= k
			run = run[k:]
		}
		if len(run) > 0 && p.textDest() {
			p.write(string(run))
		}
		return
	}
	c := p.data[p.pos]
	p.pos++
	switch {
	case p.skipN > 0:
		p.skipN--
	case c >= 0x80:
		// A raw 8-bit character: a byte in the current code page.
		p.hexByte(c)
	case c == '\t':
		p.write(" ")
	}
}

// textDest reports whether text in the current group is kept.
func (p *parser) textDest() bool {
	switch p.st.dest {
	case destBody:
		return !p.st.hidden && !p.st.deleted
	case destTitle, destStyle:
		return true
	}
	return false
}

// write adds decoded text to the current destination.
func (p *parser) write(s string) {
	p.flush()
	p.high = 0
	p.emit(s)
}

func (p *parser) emit(s string) {
	switch p.st.dest {
	case destBody:
		if !p.st.hidden && !p.st.deleted {
			p.body.write(s, p.st.para)
		}
	case destTitle:
		p.title.WriteString(s)
	case destStyle:
		if p.cur != nil {
			p.cur.name.WriteString(s)
		}
	}
}

// hexByte queues one byte of text in the current code page; runs of bytes
// are decoded together so that double-byte code pages work.
func (p *parser) hexByte(b byte) {
	if p.skipN > 0 {
		p.skipN--
		return
	}
	if !p.textDest() {
		return
	}
	cp := p.codePage()
	if len(p.pend) > 0 && cp != p.pendCP {
		p.flush()
	}
	p.pendCP = cp
	p.pend = append(p.pend, b)
}

// flush decodes the queued bytes.
func (p *parser) flush() {
	if len(p.pend) == 0 {
		return
	}
	out, err := codePage(p.pendCP).NewDecoder().Bytes(p.pend)
	p.pend = p.pend[:0]
	if err != nil {
		return
	}
	p.high = 0
	p.emit(string(out))
}

func (p *parser) codePage() int {
	if cp := p.fonts[p.st.font]; cp != 0 {
		return cp
	}
	return p.ansiCP
}

// control reads a control word or symbol (the backslash already read).
func (p *parser) control() {
	if p.pos >= len(p.data) {
		return
	}
	c := p.data[p.pos]
	if !isLetter(c) {
		p.pos++
		p.symbol(c)
		return
	}
	start := p.pos
	for p.pos < len(p.data) && isLetter(p.data[p.pos]) {
		p.pos++
	}
	word := string(p.data[start:p.pos])
	param, hasParam := 0, false
	if p.pos < len(p.data) && (p.data[p.pos] == '-' || isDigit(p.data[p.pos])) {
		neg := p.data[p.pos] == '-'
		q := p.pos
		if neg {
			q++
		}
		if q < len(p.data) && isDigit(p.data[q]) {
			hasParam = true
			for q < len(p.data) && isDigit(p.data[q]) {
				if param < 1e8 {
					param = param*10 + int(p.data[q]-'0')
				}
				q++
			}
			if neg {
				param = -param
			}
			p.pos = q
		}
	}
	if p.pos < len(p.data) && p.data[p.pos] == ' ' {
		p.pos++
	}
	if word == "bin" {
		// Binary data: param raw bytes, whatever the destination.
		p.pos += min(max(param, 0), len(p.data)-p.pos)
		return
	}
	p.flush()
	if word != "u" {
		p.skipN = 0
	}
	if p.st.star {
		p.st.star = false
		if !starText[word] {
			p.st.dest = destSkip
			return
		}
	}
	p.word(word, param, hasParam)
}

// symbol handles a control symbol: \ followed by a non-letter.
func (p *parser) symbol(c byte) {
	if c == '\'' {
		if p.pos+1 < len(p.data) {
			h, ok1 := unhex(p.data[p.pos])
			l, ok2 := unhex(p.data[p.pos+1])
			if ok1 && ok2 {
				p.pos += 2
				p.hexByte(h<<4 | l)
			}
		}
		return
	}
	if p.skipN > 0 && c != '*' && c != '\r' && c != '\n' {
		p.skipN--
		return
	}
	switch c {
	case '*':
		p.st.star = true
	case '\\', '{', '}':
		if p.textDest() {
			p.write(string(c))
		}
	case '~':
		if p.textDest() {
			p.write("\u00a0")
		}
	case '_':
		if p.textDest() {
			p.write("-")
		}
	case '\r', '\n':
		// A backslash before a line end is a \par.
		p.flush()
		p.word("par", 0, false)
	}
	// \- (optional hyphen), \| and \: (formula and index marks) and
	// unknown symbols are dropped.
}

// word handles a control word.
func (p *parser) word(w string, param int, hasParam bool) {
	if skipDest[w] {
		p.st.dest = destSkip
		return
	}
	on := !hasParam || param != 0
	switch p.st.dest {
	case destSkip:
		return
	case destFonts:
		switch w {
		case "f":
			p.font = param
		case "fcharset":
			if cp := charsetCP[param]; cp != 0 {
				p.fonts[p.font] = cp
			}
		case "cpg":
			p.fonts[p.font] = param
		}
		return
	case destStyle:
		if p.cur != nil {
			switch w {
			case "s":
				p.cur.num = param
				return
			case "sbasedon":
				p.cur.basedOn = param
				return
			case "outlinelevel":
				p.cur.outline = param
				return
			case "cs", "ds", "ts", "tsrowd":
				p.cur.para = false
				return
			}
		}
	}
	switch w {
	// Document settings.
	case "ansi":
		p.ansiCP = 1252
	case "mac":
		p.ansiCP = 10000
	case "pc":
		p.ansiCP = 437
	case "pca":
		p.ansiCP = 850
	case "ansicpg":
		if param > 0 {
			p.ansiCP = param
		}
	case "deff":
		p.deff = param
		p.st.font = param
	case "uc":
		p.st.uc = max(min(param, 8), 0)

	// Destinations read here.
	case "fonttbl":
		p.st.dest = destFonts
	case "stylesheet":
		p.st.dest = destStyles
	case "info":
		p.st.dest = destInfo
	case "title":
		if p.st.dest == destInfo {
			p.st.dest = destTitle
			p.title.Reset()
		}
	case "upr":
		p.st.uprFirst = true
	case "shptxt":
		if p.st.dest == destBody {
			p.body.startStory(len(p.stack))
		}

	// Character properties.
	case "plain":
		p.st.font, p.st.hidden, p.st.deleted = p.deff, false, false
	case "f":
		p.st.font = param
	case "v":
		p.st.hidden = on
	case "deleted":
		p.st.deleted = on

	// Paragraph properties.
	case "pard":
		p.st.para = defaultPara
	case "s":
		p.st.para.style = param
	case "outlinelevel":
		p.st.para.outline = param
	case "intbl":
		p.st.para.intbl = on
	case "itap":
		p.st.para.itap = param
		if param > 0 {
			p.st.para.intbl = true
		}
	case "pagebb":
		p.st.para.pagebb = on

	// Section properties.
	case "sectd", "sbkpage", "sbkodd", "sbkeven":
		p.body.sbkPage = true
	case "sbknone", "sbkcol":
		p.body.sbkPage = false

	// Unicode.
	case "u":
		p.unicode(param)

	default:
		p.special(w)
	}
}

// special handles the control words that are text or structure.
func (p *parser) special(w string) {
	if p.st.dest != destBody {
		if s, ok := specialText[w]; ok && p.textDest() {
			p.write(s)
		} else if (w == "par" || w == "line" || w == "tab" || w == "sect" || w == "page") && p.textDest() {
			p.write(" ")
		}
		return
	}
	b := &p.body
	switch w {
	case "par":
		b.endPara(p.st.para, p.level(p.st.para))
	case "sect":
		b.endPara(p.st.para, p.level(p.st.para))
		b.sectBreak = true
	case "page":
		// A break inside a paragraph separates words like \line.
		b.breakPage()
		p.write(" ")
	case "line", "tab":
		p.write(" ")
	case "cell":
		b.cell(false)
	case "nestcell":
		b.cell(true)
	case "row":
		b.row(false)
	case "nestrow":
		b.row(true)
	default:
		if s, ok := specialText[w]; ok && p.textDest() {
			p.write(s)
		}
	}
}

// unicode handles \uN: a UTF-16 code unit, then \ucN fallback characters
// to skip.
func (p *parser) unicode(n int) {
	if n < 0 {
		n += 65536
	}
	r := rune(n)
	keep := p.textDest()
	switch {
	case n < 0 || n > 0xffff:
		p.high = 0
	case utf16.IsSurrogate(r) && r < 0xdc00:
		p.high = r
	case utf16.IsSurrogate(r):
		if p.high != 0 && keep {
			p.emit(string(utf16.DecodeRune(p.high, r)))
		}
		p.high = 0
	default:
		if keep {
			if r < 0x20 {
				r = ' '
			}
			p.write(string(r))
		}
	}
	p.skipN = p.st.uc
}

// level is the heading level of a paragraph with properties pp, 0 when
// it is not a heading.
func (p *parser) level(pp paraProps) int {
	if pp.outline >= 0 {
		if pp.outline <= 8 {
			return pp.outline + 1
		}
		return 0 // level 9 is body text
	}
	return headingLevel(p.styles, pp.style)
}

// headingLevel resolves a style number to a heading level (1-9), or 0
// when the style is not a heading.
func headingLevel(styles map[int]*style, num int) int {
	seen := 0
	for s := styles[num]; s != nil && seen < maxStyleDepth; s = styles[s.basedOn] {
		seen++
		if s.outline >= 0 {
			if s.outline <= 8 {
				return s.outline + 1
			}
			return 0
		}
		if n := nameLevel(s.styleName()); n > 0 {
			return n
		}
		if s.basedOn == s.num {
			break
		}
	}
	return 0
}

// nameLevel reads a heading level from a style name; Word may give
// aliases after commas ("heading 1,H1").
func nameLevel(name string) int {
	for _, alias := range strings.Split(name, ",") {
		if l := formats.HeadingLevel(strings.TrimSpace(alias)); l > 0 {
			return l
		}
	}
	return 0
}

// styleName is the style's name: its text up to the semicolon.
func (s *style) styleName() string {
	name, _, _ := strings.Cut(s.name.String(), ";")
	return formats.CleanText(name)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// skipDest are the destinations whose text is not document content.
var skipDest = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		colortbl pict object objdata result header headerl headerr headerf
		footer footerl footerr footerf footnote annotation atnid atnauthor
		atndate atnref atrfstart atrfend fldinst themedata colorschememapping
		datastore latentstyles listtable listoverridetable list listoverride
		listtext pntext pn pntxta pntxtb rsidtbl generator xmlnstbl pgdsctbl
		pgdsc filetbl revtbl bkmkstart bkmkend txe xe tc tcn template docvar
		fchars lchars userprops nonshppict shppict shprslt sp sn sv
		nonesttables ftnsep ftnsepc ftncn aftnsep aftnsepc aftncn
		protusertbl mmathPr wgrffmtfilter passwordhash do falt panose
		fname keycode listpicture pgptbl blipuid private formfield
		ffname ffdeftext ffentrymcr ffexitmcr ffformat ffhelptext ffl
		ffstattext datafield mergefield printim creatim revtim buptim
		author operator keywords subject comment doccomm company manager
		category hlinkbase`) {
		skipDest[w] = true
	}
}

// starText are the destinations marked \* whose text is read: nested
// table properties (they hold \nestrow), a shape's instructions and text
// box, and the Unicode half of \upr.
var starText = map[string]bool{
	"nesttableprops": true, "shpinst": true, "shptxt": true, "ud": true,
}

// specialText are control words that stand for a character.
var specialText = map[string]string{
	"emdash": "—", "endash": "–", "bullet": "•", "lquote": "‘", "rquote": "’",
	"ldblquote": "“", "rdblquote": "”", "emspace": " ", "enspace": " ",
	"qmspace": " ", "zwj": "", "zwnj": "", "zwbo": "", "zwnbo": "",
	"ltrmark": "", "rtlmark": "",
}

// charsetCP maps \fcharsetN to a Windows code page; 0 (ANSI), 1
// (default) and 2 (symbol) use the document's.
var charsetCP = map[int]int{
	77: 10000, 128: 932, 129: 949, 134: 936, 136: 950, 161: 1253, 162: 1254,
	163: 1258, 177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874,
	238: 1250, 254: 437, 255: 850,
}

// codePage returns the decoder for a Windows code page number; unknown
// ones read as cp1252.
func codePage(cp int) encoding.Encoding {
	switch cp {
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 852:
		return charmap.CodePage852
	case 855:
		return charmap.CodePage855
	case 858:
		return charmap.CodePage858
	case 860:
		return charmap.CodePage860
	case 862:
		return charmap.CodePage862
	case 863:
		return charmap.CodePage863
	case 865:
		return charmap.CodePage865
	case 866:
		return charmap.CodePage866
	case 874:
		return charmap.Windows874
	case 932:
		return japanese.ShiftJIS
	case 936:
		return simplifiedchinese.GBK
	case 949:
		return korean.EUCKR
	case 950:
		return traditionalchinese.Big5
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 1258:
		return charmap.Windows1258
	case 10000:
		return charmap.Macintosh
	case 10007:
		return charmap.MacintoshCyrillic
	case 20866:
		return charmap.KOI8R
	case 21866:
		return charmap.KOI8U
	case 28591:
		return charmap.ISO8859_1
	case 28592:
		return charmap.ISO8859_2
	case 28595:
		return charmap.ISO8859_5
	case 28597:
		return charmap.ISO8859_7
	case 28605:
		return charmap.ISO8859_15
	case 65001:
		return unicode.UTF8
	}
	return charmap.Windows1252
}
