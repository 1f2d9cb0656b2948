// Package text decodes plain-text files of unknown encoding (Decode); the
// loader sections the decoded text.
//
// Decode detects the encoding in this order:
//
//  1. A byte-order mark: UTF-8, UTF-32 LE/BE, UTF-16 LE/BE.
//  2. UTF-16 or UTF-32 without a BOM, recognised by the pattern of NUL
//     bytes (ASCII-range text in UTF-16LE has a NUL in every odd byte).
//  3. Binary data: NUL bytes the step above did not explain, or more than
//     2% C0 control characters (other than tab, CR, LF, FF, ESC), is
//     rejected with formats.ErrUnsupported ("binary file").
//  4. Valid UTF-8 (pure ASCII included) is UTF-8.
//  5. Legacy encodings, scored by decoding with each candidate:
//     Shift_JIS, EUC-JP, GB18030, Big5 and EUC-KR are tried when the
//     high bytes form valid double-byte sequences, in that order; the
//     first that decodes cleanly (no replacement, control or private-use
//     characters) and is mostly in the script it is meant for (15% kana
//     for Japanese, 50% Hangul for Korean, 60% Han for Chinese) wins.
//     Otherwise, if most letters are outside
//     ASCII the text is taken as Cyrillic and windows-1251 and KOI8-R are
//     told apart by letter case (running text is mostly lower case; the
//     two code pages swap the case halves). Everything else is Western
//     European: "windows-1252" when bytes 0x80-0x9F occur (they are
//     printable there: €, –, “ ...), "iso-8859-1" otherwise (the two agree
//     on every other byte, so decoding is the same).
//
// Central European code pages (windows-1250, ISO-8859-2) are not told
// apart from windows-1252: a few accented letters come out wrong, the
// ASCII text around them is intact.
package text

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/docmind/docmind/formats"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// errBinary is returned (wrapping formats.ErrUnsupported) for binary data.
var errBinary = &formats.Error{Kind: formats.ErrUnsupported, Reason: "binary file (not text in any known encoding)"}

// Decode detects the encoding of data and returns it as a UTF-8 string
// without BOM, together with the encoding's name ("utf-8", "utf-16le",
// "windows-1252", "shift_jis", ...). Binary data gives an error matching
// formats.ErrUnsupported. Empty input gives "", "utf-8", nil.
func Decode(data []byte) (s string, encodingName string, err error) {
	if name, n, ok := bom(data); ok {
		s, err := decodeUnicode(name, data[n:])
		return s, name, err
	}
	if len(data) == 0 {
		return "", "utf-8", nil
	}
	if name := wideWithoutBOM(data); name != "" {
		s, err := decodeUnicode(name, data)
		return s, name, err
	}
	if bytes.IndexByte(data, 0) >= 0 || controlRatio(data) > 0.02 {
		return "", "", errBinary
	}
	if utf8.Valid(data) {
		return string(data), "utf-8", nil
	}
	name, s := legacy(data)
	return s, name, nil
}

func bom(b []byte) (name string, n int, ok bool) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return "utf-8", 3, true
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}):
		return "utf-32le", 4, true
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}):
		return "utf-32be", 4, true
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return "utf-16le", 2, true
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return "utf-16be", 2, true
	}
	return "", 0, false
}

// wideWithoutBOM recognises UTF-16/32 by where the NUL bytes fall in the
// first 4 KiB.
func wideWithoutBOM(b []byte) string {
	if len(b) > 4096 {
		b = b[:4096]
	}
	if len(b) < 4 {
		return ""
	}
	var zero [4]int
	for i, c := range b {
		if c == 0 {
			zero[i%4]++
		}
	}
	quads := len(b) / 4
	total := zero[0] + zero[1] + zero[2] + zero[3]
	if total < quads { // far too few NULs for wide text
		return ""
	}
	// UTF-32LE of mostly-BMP text: bytes 2 and 3 always zero, byte 1 often.
	if zero[2] >= quads*9/10 && zero[3] >= quads*9/10 && zero[0] < quads/10 {
		return "utf-32le"
	}
	if zero[0] >= quads*9/10 && zero[1] >= quads*9/10 && zero[3] < quads/10 {
		return "utf-32be"
	}
	even, odd := zero[0]+zero[2], zero[1]+zero[3]
	pairs := len(b) / 2
	switch {
	case odd >= pairs*4/10 && even <= pairs/20:
		return "utf-16le"
	case even >= pairs*4/10 && odd <= pairs/20:
		return "utf-16be"
	}
	return ""
}

func decodeUnicode(name string, b []byte) (string, error) {
	var sb strings.Builder
	switch name {
	case "utf-8":
		return strings.ToValidUTF8(string(b), "\uFFFD"), nil
	case "utf-16le", "utf-16be":
		var order binary.ByteOrder = binary.LittleEndian
		if name == "utf-16be" {
			order = binary.BigEndian
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = order.Uint16(b[2*i:])
		}
		for _, r := range utf16.Decode(u) {
			sb.WriteRune(r)
		}
	case "utf-32le", "utf-32be":
		var order binary.ByteOrder = binary.LittleEndian
		if name == "utf-32be" {
			order = binary.BigEndian
		}
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(order.Uint32(b[i:]))
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			sb.WriteRune(r)
		}
	}
	s := sb.String()
	if strings.IndexByte(s, 0) >= 0 || controlRatio([]byte(s)) > 0.02 {
		return "", errBinary
	}
	return s, nil
}

// controlRatio is the share of C0 control bytes other than tab, LF, CR,
// FF and ESC.
func controlRatio(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	n := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b {
			n++
		}
	}
	return float64(n) / float64(len(b))
}

type candidate struct {
	name string
	enc  encoding.Encoding
	// script reports whether a rune belongs to the writing system this
	// encoding is meant for.
	script func(rune) bool
	// minShare is the share of non-ASCII runes that must be in script.
	minShare float64
}

var cjk = []candidate{
	{"shift_jis", japanese.ShiftJIS, isKana, 0.15},
	{"euc-jp", japanese.EUCJP, isKana, 0.15},
	{"euc-kr", korean.EUCKR, func(r rune) bool { return unicode.Is(unicode.Hangul, r) }, 0.5},
	{"gb18030", simplifiedchinese.GB18030, func(r rune) bool { return unicode.Is(unicode.Han, r) || isCJKPunct(r) }, 0.6},
	{"big5", traditionalchinese.Big5, func(r rune) bool { return unicode.Is(unicode.Han, r) || isCJKPunct(r) }, 0.6},
}

// isKana reports hiragana and full-width katakana; half-width katakana
// (U+FF61-FF9F) is left out because single-byte text read as Shift_JIS
// turns into it.
func isKana(r rune) bool {
	if r >= 0xFF61 && r <= 0xFF9F {
		return false
	}
	return unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || r == 'ー'
}

func isCJKPunct(r rune) bool { return r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF }

// legacy picks a legacy code page for data that is not valid UTF-8.
func legacy(data []byte) (string, string) {
	if name, s, ok := bestCJK(data); ok {
		return name, s
	}
	if cyrillicShape(data) {
		a, _ := charmap.Windows1251.NewDecoder().Bytes(data)
		b, _ := charmap.KOI8R.NewDecoder().Bytes(data)
		if lowerRatio(string(b)) > lowerRatio(string(a)) {
			return "koi8-r", string(b)
		}
		return "windows-1251", string(a)
	}
	s, _ := charmap.Windows1252.NewDecoder().Bytes(data)
	for _, c := range data {
		if c >= 0x80 && c <= 0x9F {
			return "windows-1252", string(s)
		}
	}
	return "iso-8859-1", string(s)
}

// bestCJK tries the double-byte candidates in order and takes the first
// that decodes without replacement, control or private-use characters and
// whose non-ASCII output is mostly in its own script: at least 15% kana
// for Japanese (Japanese prose is never without kana; Chinese has none),
// half Hangul for Korean, 60% Han for Chinese.
func bestCJK(data []byte) (string, string, bool) {
	for _, c := range cjk {
		out, err := c.enc.NewDecoder().Bytes(data)
		if err != nil {
			continue
		}
		s := string(out)
		nonASCII, inScript := 0, 0
		bad := false
		for _, r := range s {
			if r < 0x80 {
				continue
			}
			if r == utf8.RuneError || r < 0xA0 || unicode.Is(unicode.Co, r) {
				bad = true
				break
			}
			nonASCII++
			if c.script(r) {
				inScript++
			}
		}
		if bad || nonASCII == 0 {
			continue
		}
		if float64(inScript) >= c.minShare*float64(nonASCII) {
			return c.name, s, true
		}
	}
	return "", "", false
}

// cyrillicShape reports whether most letters are high bytes appearing in
// runs, as in Cyrillic or Greek text, rather than accented letters
// sprinkled among ASCII words.
func cyrillicShape(data []byte) bool {
	ascii, high := 0, 0
	for _, c := range data {
		switch {
		case c >= 0xC0:
			high++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			ascii++
		}
	}
	return high > ascii
}

func lowerRatio(s string) float64 {
	lower, letters := 0, 0
	for _, r := range s {
		if r < 0x80 || !unicode.IsLetter(r) {
			continue
		}
		letters++
		if unicode.IsLower(r) {
			lower++
		}
	}
	if letters == 0 {
		return 0
	}
	return float64(lower) / float64(letters)
}

// Check tells, from a file's bytes written to it in pieces, whether Decode
// would return them unchanged (less a UTF-8 byte order mark): valid UTF-8
// after a UTF-8 byte order mark, or valid UTF-8 without NUL bytes or too
// many control characters. It holds no more than a few bytes.
type Check struct {
	head  [3]byte
	nhead int
	n     int64
	nul   bool
	ctl   int64
	utf8  formats.UTF8Stream
}

// Write implements io.Writer; it never fails.
func (c *Check) Write(p []byte) (int, error) {
	for i := 0; c.nhead < len(c.head) && i < len(p); i++ {
		c.head[c.nhead] = p[i]
		c.nhead++
	}
	c.n += int64(len(p))
	for _, b := range p {
		if b == 0 {
			c.nul = true
		} else if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b {
			c.ctl++
		}
	}
	return c.utf8.Write(p)
}

// Unchanged reports whether Decode returns what was written as it is,
// less a UTF-8 byte order mark.
func (c *Check) Unchanged() bool {
	if !c.utf8.Valid() {
		return false
	}
	if _, _, ok := bom(c.head[:c.nhead]); ok {
		return true // valid UTF-8 never starts with another mark
	}
	return !c.nul && !(c.n > 0 && float64(c.ctl)/float64(c.n) > 0.02)
}
