package text

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/internal/fixture"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

func TestDecodeFixtures(t *testing.T) {
	tests := []struct {
		file, enc, want string
	}{
		{"enc/notes_utf8.txt", "utf-8", "Die Vergütung beträgt 1.500 € pro Monat."},
		{"enc/notes_utf8bom.txt", "utf-8", "Vertragsbedingungen für Dienstleistungen – Übersicht"},
		{"enc/notes_utf16bom.txt", "utf-16le", "Die Vergütung beträgt 1.500 € pro Monat."},
		{"enc/notes_utf16le_nobom.txt", "utf-16le", "Gerichtsstand ist München."},
		{"enc/notes_cp1252.txt", "windows-1252", "Vertragsbedingungen für Dienstleistungen – Übersicht"},
		{"enc/notes_latin1.txt", "iso-8859-1", "Die Vergütung beträgt"},
		{"enc/notes_cp1251.txt", "windows-1251", "Настоящий договор определяет условия"},
		{"enc/notes_koi8r.txt", "koi8-r", "Настоящий договор определяет условия"},
		{"enc/notes_sjis.txt", "shift_jis", "本契約は、甲と乙との間の業務委託に関する条件"},
		{"enc/short_cp1252.txt", "windows-1252", "Café – 5 €"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, enc, err := Decode(fixture.Read(t, tt.file))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if enc != tt.enc {
				t.Errorf("encoding = %q, want %q", enc, tt.enc)
			}
			if !strings.Contains(s, tt.want) {
				t.Errorf("decoded text lacks %q:\n%s", tt.want, s)
			}
			if strings.HasPrefix(s, "\ufeff") {
				t.Error("BOM kept in the decoded text")
			}
		})
	}
}

func TestDecodeBinaryFixtures(t *testing.T) {
	for _, f := range []string{"enc/renamed_pdf.txt", "enc/c2.odt", "enc/noext_docx"} {
		_, _, err := Decode(fixture.Read(t, f))
		if !errors.Is(err, formats.ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", f, err)
		}
	}
}

func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encoding %q: %v", s, err)
	}
	return b
}

func TestDecodeGenerated(t *testing.T) {
	const de = "Zahlungen sind innerhalb von 30 Tagen fällig. Gerichtsstand ist München."
	const ru = "Оплата производится в течение тридцати дней после получения счёта."
	const ko = "계약 기간은 일 년이며 지급은 삼십 일 이내에 이루어져야 합니다."
	const zh = "本合同自双方签字之日起生效，付款应在收到发票后三十日内完成。"
	const ja = "支払いは請求書の受領後三十日以内に行うものとします。"
	tests := []struct {
		name string
		data []byte
		enc  string
		want string
	}{
		{"ascii", []byte("plain ASCII text\n"), "utf-8", "plain ASCII text\n"},
		{"utf8", []byte(ru), "utf-8", ru},
		{"utf16be bom", encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), de), "utf-16be", de},
		{"utf16le bom", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), de), "utf-16le", de},
		{"utf16be no bom", encode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), de), "utf-16be", de},
		{"utf32le bom", encode(t, utf32.UTF32(utf32.LittleEndian, utf32.UseBOM), de), "utf-32le", de},
		{"utf32be bom", encode(t, utf32.UTF32(utf32.BigEndian, utf32.UseBOM), ru), "utf-32be", ru},
		{"utf32le no bom", encode(t, utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM), de), "utf-32le", de},
		{"windows-1251", encode(t, charmap.Windows1251, ru), "windows-1251", ru},
		{"koi8-r", encode(t, charmap.KOI8R, ru), "koi8-r", ru},
		{"windows-1252", encode(t, charmap.Windows1252, "Préavis – “résiliation” € 30"), "windows-1252", "Préavis – “résiliation” € 30"},
		{"shift_jis", encode(t, japanese.ShiftJIS, ja), "shift_jis", ja},
		{"euc-jp", encode(t, japanese.EUCJP, ja), "euc-jp", ja},
		{"euc-kr", encode(t, korean.EUCKR, ko), "euc-kr", ko},
		{"gb18030", encode(t, simplifiedchinese.GB18030, zh), "gb18030", zh},
		{"empty", nil, "utf-8", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, enc, err := Decode(tt.data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if enc != tt.enc {
				t.Errorf("encoding = %q, want %q", enc, tt.enc)
			}
			if s != tt.want {
				t.Errorf("text = %q, want %q", s, tt.want)
			}
		})
	}
}

func TestDecodeBinary(t *testing.T) {
	tests := map[string][]byte{
		"nul bytes":      []byte("abc\x00\x01\x02def\x00ghi\x00\x00\x00jkl"),
		"elf":            append([]byte("\x7fELF\x02\x01\x01\x00\x00\x00"), bytes.Repeat([]byte{0, 1, 2, 3}, 50)...),
		"control chars":  bytes.Repeat([]byte("ab\x01\x02\x03\x04"), 20),
		"utf16 with nul": encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "ab\x00\x00\x00\x00\x00cd"),
	}
	for name, data := range tests {
		_, _, err := Decode(data)
		if !errors.Is(err, formats.ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("hello"))
	f.Add([]byte("\xff\xfeh\x00i\x00"))
	f.Add([]byte("\xfe\xff\x00h\x00i"))
	f.Add([]byte("\xff\xfe\x00\x00h\x00\x00\x00"))
	f.Add([]byte("\x00\x00\xfe\xff\x00\x00\x00h"))
	f.Add([]byte("caf\xe9 \x96 \x80"))
	f.Add([]byte("\x96\x7b\x8c\x5f\x96\xf1\x82\xcd"))
	f.Add([]byte("\xee\xc1\xd3\xd4\xcf\xd1\xdd\xc9\xca"))
	f.Add([]byte("a\x00b\x00c\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, enc, err := Decode(data)
		if err != nil {
			if !errors.Is(err, formats.ErrUnsupported) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if enc == "" {
			t.Fatal("empty encoding name")
		}
		if !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 out of %s: %q", enc, s)
		}
	})
}
