package loader

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/docmind/docmind/formats"
)

// Format names returned by Detect and used as keys for parsers. They match
// document.Document.Format.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
	FormatHTML     = "html"
	FormatPDF      = "pdf"
	FormatDOCX     = "docx"
	// FormatBinary marks content that is not a document DocMind can read
	// (images, archives, executables, ...).
	FormatBinary = "binary"
)

// sniffLen is how much of a file the detector looks at.
const sniffLen = 64 << 10

// Detect returns the format of a file from its content: FormatPDF for the
// %PDF- signature, FormatDOCX for a ZIP archive holding word/document.xml,
// FormatHTML for an HTML document, FormatMarkdown for text with Markdown
// structure (headings, page markers, fences, tables), FormatText for other
// text and FormatBinary for anything else (NUL bytes, control characters,
// other archives). The name is only a tie-breaker between Markdown and
// plain text. Text in a legacy 8-bit encoding or in UTF-16 is reported as
// text or Markdown; decoding it is the job of the loader's TextDecoder.
func Detect(data []byte, name string) string {
	format, _ := formats.Detect(name, data)
	switch {
	case format == formats.PDF || format == formats.DOCX:
		return format
	case format == "" && bytes.HasPrefix(data, []byte("PK\x03\x04")) && bytes.Contains(data, []byte("word/document.xml")):
		// A damaged archive whose local headers still name a Word
		// document: the DOCX parser says what is wrong with it.
		return FormatDOCX
	case format == "" && len(bytes.TrimSpace(data)) > 0:
		return FormatBinary
	case isUTF16(data):
		return FormatText
	case looksBinary(data):
		return FormatBinary
	}
	sample := data
	if len(sample) > sniffLen {
		sample = sample[:sniffLen]
	}
	return classifyText(string(bytes.TrimPrefix(sample, utf8BOM)), name)
}

// binaryReason says what binary content is, where it can tell ("PNG
// image", "OpenDocument (text)").
func binaryReason(data []byte, name string) string {
	if _, reason := formats.Detect(name, data); reason != "" {
		return reason
	}
	return "binary content"
}

var utf8BOM = []byte("\xEF\xBB\xBF")

// isUTF16 reports a UTF-16 byte order mark, or text whose every other byte
// is NUL (UTF-16 without a mark, mostly ASCII).
func isUTF16(data []byte) bool {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return true
	}
	n := len(data)
	if n > 4096 {
		n = 4096
	}
	n &^= 1
	if n < 8 {
		return false
	}
	var evenNUL, oddNUL int
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			evenNUL++
		}
		if data[i+1] == 0 {
			oddNUL++
		}
	}
	half := n / 2
	return (oddNUL*10 >= half*7 && evenNUL*10 < half) || (evenNUL*10 >= half*7 && oddNUL*10 < half)
}

// looksBinary reports NUL bytes or more than 5% control characters other
// than white space and escape in the first bytes. Bytes above 0x7F are not
// counted: they are legacy-encoded text as often as binary.
func looksBinary(data []byte) bool {
	n := len(data)
	if n > 8192 {
		n = 8192
	}
	ctl := 0
	for _, c := range data[:n] {
		switch {
		case c == 0:
			return true
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1B:
			ctl++
		case c == 0x7F:
			ctl++
		}
	}
	return ctl*20 > n
}

var (
	reATX        = regexp.MustCompile(`(?m)^ {0,3}#{1,6}[ \t]+\S`)
	rePageMarker = regexp.MustCompile(`(?i)^<!--\s*page\s*:?\s*([^\s>]+)\s*-->$`)
	reFence      = regexp.MustCompile("(?m)^ {0,3}(```|~~~)")
	reSetext     = regexp.MustCompile(`(?m)^\S[^\n]*\n {0,3}(=+|-{2,})[ \t]*$`)
	reTableDelim = regexp.MustCompile(`(?m)^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$`)
	reMDLink     = regexp.MustCompile(`\[[^\]\n]+\]\([^)\s]+\)`)
	rePageLine   = regexp.MustCompile(`(?mi)^<!--\s*page\s*:?\s*[^\s>]+\s*-->[ \t]*$`)
)

// classifyText tells HTML, Markdown and plain text apart.
func classifyText(s, name string) string {
	head := strings.ToLower(strings.TrimSpace(firstN(s, 2048)))
	if strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") ||
		(strings.HasPrefix(head, "<") && (strings.Contains(head, "<html") || strings.Contains(head, "<body"))) {
		return FormatHTML
	}
	score := len(reATX.FindAllStringIndex(s, 3))
	if rePageLine.MatchString(s) || reFence.MatchString(s) || reTableDelim.MatchString(s) ||
		reSetext.MatchString(s) || strings.HasPrefix(s, "---\n") {
		score += 2
	}
	if reMDLink.MatchString(s) {
		score++
	}
	ext := strings.ToLower(filepath.Ext(name))
	isMDName := ext == ".md" || ext == ".markdown" || ext == ".mdown" || ext == ".mkd"
	switch {
	case score >= 2:
		return FormatMarkdown
	case isMDName:
		return FormatMarkdown
	default:
		return FormatText
	}
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
