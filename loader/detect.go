package loader

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/docmind/docmind/formats"
)

// sniffLen is how much of a file the detector looks at.
const sniffLen = 64 << 10

// Detect returns the format of a file from its content: formats.PDF for
// the %PDF- signature, formats.DOCX, formats.XLSX or formats.PPTX for a
// ZIP archive holding word/document.xml, xl/workbook.xml or
// ppt/presentation.xml, formats.ODT for one whose mimetype is an
// OpenDocument text's, formats.RTF for text that opens with {\rtf,
// formats.DOC for an OLE compound file (a Word 97-2003 document; the Word
// parser says what any other is), formats.Image for a PNG, JPEG or TIFF signature,
// formats.EML for text that starts with an e-mail's header (or named
// .eml), formats.CSV for text named .csv or .tsv, formats.HTML for an HTML document, formats.Markdown
// for text with Markdown structure (headings, page markers, fences,
// tables), formats.Text for other text and formats.Binary for anything
// else (NUL bytes, control characters, other archives). The name is only a
// tie-breaker between Markdown and plain text. Text in a legacy 8-bit
// encoding or in UTF-16 is reported as text or Markdown; decoding it is
// the job of the loader's TextDecoder.
func Detect(data []byte, name string) string {
	format, _ := sniff(data, name)
	switch {
	case format == formats.PDF || format == formats.DOCX || format == formats.XLSX || format == formats.PPTX || format == formats.Image ||
		format == formats.ODT || format == formats.RTF || format == formats.DOC:
		return format
	case format == "" && bytes.HasPrefix(data, []byte("PK\x03\x04")):
		// A damaged archive whose local headers still name an Office
		// document (or whose first, stored entry is an OpenDocument
		// text's mimetype): its parser says what is wrong with it.
		for _, m := range officeParts {
			if bytes.Contains(data, []byte(m.part)) {
				return m.format
			}
		}
		if bytes.Contains(data[:min(len(data), 128)], []byte("mimetypeapplication/vnd.oasis.opendocument.text")) {
			return formats.ODT
		}
		return formats.Binary
	case format == formats.EML || format == formats.CSV:
		if isUTF16(data) || !looksBinary(data) {
			return format
		}
		return formats.Binary
	case format == "" && len(bytes.TrimSpace(data)) > 0:
		return formats.Binary
	case isUTF16(data):
		return formats.Text
	case looksBinary(data):
		return formats.Binary
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
	if _, reason := sniff(data, name); reason != "" {
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
		return formats.HTML
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
		return formats.Markdown
	case isMDName:
		return formats.Markdown
	default:
		return formats.Text
	}
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// sniff is the first step of Detect: it names the format of a file from
// its signature (PDF, DOCX, HTML) and the name's extension (Markdown, HTML,
// else plain text). It returns "" with a reason when no parser handles the
// content: other zip containers (OpenDocument, XLSX, ...), images,
// executables and other binary data. Empty (or all white space) files give
// "", "empty file". sniff does not decide whether text bytes are valid in
// some encoding; Detect and the text decoder do.
func sniff(data []byte, name string) (format, reason string) {
	if len(bytes.TrimSpace(data)) == 0 {
		return "", "empty file"
	}
	head := data
	if len(head) > 1024 {
		head = head[:1024]
	}
	switch {
	case bytes.Contains(head, []byte("%PDF-")):
		// PDF readers accept the header anywhere in the first KiB.
		return formats.PDF, ""
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return detectZip(data)
	}
	for _, m := range imageMagic {
		if bytes.HasPrefix(data, []byte(m)) {
			return formats.Image, ""
		}
	}
	if bytes.HasPrefix(bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n"), []byte("{\\rtf")) {
		return formats.RTF, ""
	}
	if bytes.HasPrefix(data, oleMagic) {
		// an OLE compound file: a Word 97-2003 document, or another legacy
		// Office file or a password-protected Office one, which the Word
		// parser names
		return formats.DOC, ""
	}
	for _, m := range binaryMagic {
		if bytes.HasPrefix(data, []byte(m.magic)) {
			return "", m.what + " is not supported"
		}
	}
	if looksHTML(head) {
		return formats.HTML, ""
	}
	if LooksEmail(head) {
		return formats.EML, ""
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return formats.Markdown, ""
	case ".csv", ".tsv":
		return formats.CSV, ""
	case ".eml":
		return formats.EML, ""
	case ".htm", ".html", ".xhtml":
		return formats.HTML, ""
	}
	return formats.Text, ""
}

// imageMagic are the signatures of the images OCR reads: PNG, JPEG and
// TIFF (both byte orders).
var imageMagic = []string{"\x89PNG\r\n\x1a\n", "\xff\xd8\xff", "II*\x00", "MM\x00*"}

// officeParts name the Office Open XML formats by the part each must
// hold.
var officeParts = []struct{ part, format string }{
	{"word/document.xml", formats.DOCX},
	{"xl/workbook.xml", formats.XLSX},
	{"ppt/presentation.xml", formats.PPTX},
}

// oleMagic opens an OLE compound file (legacy Office documents, and
// password-protected Office Open XML ones).
var oleMagic = []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")

var binaryMagic = []struct{ magic, what string }{
	{"GIF8", "GIF image"},
	{"\x7fELF", "executable (ELF)"},
	{"MZ", "executable (Windows)"},
	{"\x1f\x8b", "gzip archive"},
	{"SQLite format 3\x00", "SQLite database"},
	{"7z\xbc\xaf\x27\x1c", "7z archive"},
	{"Rar!", "RAR archive"},
}

func detectZip(data []byte) (string, string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", "damaged zip archive"
	}
	var mimetype string
	for _, f := range zr.File {
		for _, m := range officeParts {
			if strings.TrimPrefix(f.Name, "/") == m.part {
				return m.format, ""
			}
		}
		switch f.Name {
		case "mimetype":
			if f.UncompressedSize64 < 200 {
				if rc, err := f.Open(); err == nil {
					var b [200]byte
					n, _ := rc.Read(b[:])
					rc.Close()
					mimetype = strings.TrimSpace(string(b[:n]))
				}
			}
		}
	}
	switch {
	case strings.HasPrefix(mimetype, "application/vnd.oasis.opendocument.text"):
		return formats.ODT, "" // a text document or its template
	case strings.HasPrefix(mimetype, "application/vnd.oasis.opendocument"):
		return "", "OpenDocument (" + strings.TrimPrefix(mimetype, "application/vnd.oasis.opendocument.") + ") is not supported"
	case mimetype != "":
		return "", "zip container (" + mimetype + ") is not supported"
	}
	return "", "zip archive is not a supported document"
}

func looksHTML(head []byte) bool {
	s := bytes.TrimLeft(head, "\xef\xbb\xbf \t\r\n")
	if len(s) == 0 || s[0] != '<' {
		return false
	}
	l := bytes.ToLower(s)
	for _, p := range []string{"<!doctype html", "<html", "<head", "<body", "<!--", "<meta", "<title", "<div", "<p>", "<h1", "<?xml"} {
		if bytes.HasPrefix(l, []byte(p)) {
			if p == "<?xml" || p == "<!--" {
				return bytes.Contains(l, []byte("<html"))
			}
			return true
		}
	}
	return false
}

// LooksEmail reports text that starts with an Internet message header: a
// block of "Name: value" lines naming From and a subject or date, and one
// of the headers mail systems add (MIME-Version, Message-ID, Received,
// Return-Path).
func LooksEmail(head []byte) bool {
	s := string(bytes.TrimLeft(head, "\r\n"))
	from, subject, mail := false, false, false
	lines := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		lines++
		if line[0] == ' ' || line[0] == '\t' {
			continue // folded header
		}
		name, _, ok := strings.Cut(line, ":")
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return false
		}
		switch strings.ToLower(name) {
		case "from":
			from = true
		case "subject", "date":
			subject = true
		case "mime-version", "message-id", "received", "return-path":
			mail = true
		}
	}
	return lines > 0 && from && subject && mail
}
