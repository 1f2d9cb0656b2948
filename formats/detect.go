package formats

import (
	"archive/zip"
	"bytes"
	"path/filepath"
	"strings"
)

// Format names returned by Detect; they match document.Document.Format.
const (
	PDF      = "pdf"
	DOCX     = "docx"
	HTML     = "html"
	Markdown = "markdown"
	Text     = "text"
)

// Detect names the format of a file from its content; the name is used only
// to tell Markdown from plain text (both are text). It returns "" with a
// reason when no parser handles the content: other zip containers
// (OpenDocument, XLSX, ...), images, executables and other binary data.
// Empty (or all white space) files give "", "empty file". Detect does not decide whether text bytes are valid in some encoding; the
// text parser reports binary data it cannot decode as ErrUnsupported.
func Detect(name string, data []byte) (format, reason string) {
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
		return PDF, ""
	case bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return detectZip(data)
	}
	for _, m := range binaryMagic {
		if bytes.HasPrefix(data, []byte(m.magic)) {
			return "", m.what + " is not supported"
		}
	}
	if looksHTML(head) {
		return HTML, ""
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return Markdown, ""
	case ".htm", ".html", ".xhtml":
		return HTML, ""
	}
	return Text, ""
}

var binaryMagic = []struct{ magic, what string }{
	{"\x89PNG", "PNG image"},
	{"\xff\xd8\xff", "JPEG image"},
	{"GIF8", "GIF image"},
	{"\x7fELF", "executable (ELF)"},
	{"MZ", "executable (Windows)"},
	{"\x1f\x8b", "gzip archive"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "legacy Office document (.doc/.xls)"},
	{"{\\rtf", "RTF document"},
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
		switch f.Name {
		case "word/document.xml":
			return DOCX, ""
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
