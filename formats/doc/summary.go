package doc

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"

	"github.com/docmind/docmind/formats"
)

// Property identifiers and types of the SummaryInformation property set
// ([MS-OLEPS]).
const (
	pidCodePage = 1
	pidTitle    = 2
	vtI2        = 0x0002
	vtLPSTR     = 0x001E
	vtLPWSTR    = 0x001F
)

// codePages are the single-byte code pages a title may be stored in.
var codePages = map[int]encoding.Encoding{
	437: charmap.CodePage437, 850: charmap.CodePage850, 874: charmap.Windows874,
	1250: charmap.Windows1250, 1251: charmap.Windows1251, 1252: charmap.Windows1252,
	1253: charmap.Windows1253, 1254: charmap.Windows1254, 1255: charmap.Windows1255,
	1256: charmap.Windows1256, 1257: charmap.Windows1257, 1258: charmap.Windows1258,
	10000: charmap.Macintosh, 28591: charmap.ISO8859_1, 28592: charmap.ISO8859_2,
}

// summaryTitle returns PIDSI_TITLE from a SummaryInformation stream, ""
// when it has none or cannot be read.
func summaryTitle(b []byte) string {
	// PropertySetStream: byte order, version, system id, CLSID, count,
	// then FMTID0 and the offset of the first property set.
	if len(b) < 48 || le16(b) != 0xFFFE || le32(b[24:]) < 1 {
		return ""
	}
	off := le32(b[44:])
	if _, ok := slice(b, off, 8); !ok {
		return ""
	}
	ps := b[off:]
	n := le32(ps[4:])
	if n > (len(ps)-8)/8 {
		n = (len(ps) - 8) / 8
	}
	codePage, title := 1252, -1
	for i := 0; i < n; i++ {
		id, off := le32(ps[8+8*i:]), le32(ps[12+8*i:])
		switch id {
		case pidCodePage:
			if v, ok := slice(ps, off, 6); ok && le16(v) == vtI2 {
				codePage = le16(v[4:])
			}
		case pidTitle:
			title = off
		}
	}
	if title < 0 {
		return ""
	}
	head, ok := slice(ps, title, 8)
	if !ok {
		return ""
	}
	var s string
	switch le16(head) {
	case vtLPSTR:
		v, ok := slice(ps, title+8, le32(head[4:]))
		if !ok {
			return ""
		}
		s = decodeCodePage(v, codePage)
	case vtLPWSTR:
		v, ok := slice(ps, title+8, 2*le32(head[4:]))
		if !ok {
			return ""
		}
		u := make([]uint16, len(v)/2)
		for i := range u {
			u[i] = uint16(le16(v[2*i:]))
		}
		s = string(utf16.Decode(u))
	default:
		return ""
	}
	s = strings.TrimRight(s, "\x00")
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return formats.CleanText(formats.StripControls(s))
}

// decodeCodePage decodes an 8-bit string of the given Windows code page.
func decodeCodePage(v []byte, codePage int) string {
	switch codePage {
	case 65001:
		return strings.ToValidUTF8(string(v), "\uFFFD")
	case 1200:
		u := make([]uint16, len(v)/2)
		for i := range u {
			u[i] = uint16(le16(v[2*i:]))
		}
		return string(utf16.Decode(u))
	}
	if enc, ok := codePages[codePage]; ok {
		if s, err := enc.NewDecoder().Bytes(v); err == nil {
			return string(s)
		}
	}
	if utf8.Valid(v) {
		return string(v)
	}
	s, _ := charmap.Windows1252.NewDecoder().Bytes(v)
	return string(s)
}
