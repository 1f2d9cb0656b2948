package docmind

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/doc"
	"github.com/docmind/docmind/formats/docx"
	"github.com/docmind/docmind/formats/eml"
	"github.com/docmind/docmind/formats/html"
	"github.com/docmind/docmind/formats/ocr"
	"github.com/docmind/docmind/formats/odt"
	"github.com/docmind/docmind/formats/pptx"
	"github.com/docmind/docmind/formats/rtf"
	"github.com/docmind/docmind/formats/text"
	"github.com/docmind/docmind/formats/xlsx"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// LoadDocuments reads the documents at path — a folder (recursively) or a
// single file — and splits them into sections with titles and pages. It
// reads DOCX, XLSX, CSV and TSV, PPTX, saved e-mails (EML, with their
// attachments), images by OCR (when Tesseract is installed), HTML
// (boilerplate removed), Markdown (pages from
// "<!-- page: N -->" lines or form feeds) and plain text in any common
// encoding (pages from form feeds), and every format whose package the
// program imports: PDF with
//
//	import _ "github.com/docmind/docmind/formats/pdf"
//
// The format is detected from the content. Files that cannot be used
// (encrypted, damaged, binary, empty, a format not linked in) are listed
// in the report with the reason and do not stop the load; so are named
// pipes, sockets and devices, which are never opened. Folders are walked
// by loader.Walk and files split with the loader's sectioning, as docmind
// ingest does; an error means path is missing, unreadable, or held no
// usable document.
func LoadDocuments(ctx context.Context, path string) ([]schema.Section, loader.Report, error) {
	l, closeLoader := NewLoader()
	defer closeLoader()
	fi, err := os.Stat(path)
	if err == nil && !fi.IsDir() {
		doc, err := l.ParseFile(ctx, path)
		if err != nil {
			return nil, loader.Report{}, err
		}
		secs := loader.Sections(doc, loader.SectionOptions{})
		return secs, loader.Report{Files: []loader.FileReport{{Path: path, Format: doc.Format, Pages: doc.Pages, Sections: len(secs), OCR: doc.OCR}}}, nil
	}
	return l.LoadDir(ctx, path)
}

// NewLoader returns a loader that reads DOCX, DOC, ODT, RTF, XLSX, CSV, PPTX, EML,
// images (OCR), HTML, Markdown and text, and
// every format registered with loader.Register (PDF, when the program
// imports github.com/docmind/docmind/formats/pdf), and a function that
// releases the parsers it started. A PDF read by a loader without the
// PDF package is skipped with a reason that names the import.
func NewLoader(opts ...loader.Option) (*loader.Loader, func()) {
	base := []loader.Option{
		loader.WithParser(formats.PDF, notLinked{formats.PDF, "github.com/docmind/docmind/formats/pdf"}),
		loader.WithParser(formats.DOCX, loader.ParserFunc(docx.Parse)),
		loader.WithParser(formats.ODT, loader.ParserFunc(odt.Parse)),
		loader.WithParser(formats.RTF, loader.ParserFunc(rtf.Parse)),
		loader.WithParser(formats.DOC, loader.ParserFunc(doc.Parse)),
		loader.WithParser(formats.HTML, loader.ParserFunc(html.Parse)),
		loader.WithParser(formats.XLSX, loader.ParserFunc(xlsx.Parse)),
		loader.WithParser(formats.CSV, loader.ParserFunc(xlsx.ParseCSV)),
		loader.WithParser(formats.PPTX, loader.ParserFunc(pptx.Parse)),
		loader.WithParser(formats.Image, loader.ParserFunc(ocr.ParseImage)),
		loader.WithDecoder(textDecoder{}),
	}
	// Attachments of e-mails are read by the loader itself, as files of
	// their own.
	var l *loader.Loader
	mail := eml.Parser{Attachment: func(ctx context.Context, name string, data []byte) (*document.Document, error) {
		return l.Parse(ctx, name, data)
	}}
	base = append(base, loader.WithParser(formats.EML, mail))
	registered := loader.Registered()
	var releases []func()
	for _, format := range slices.Sorted(maps.Keys(registered)) {
		p, release := registered[format]()
		base = append(base, loader.WithParser(format, p))
		if release != nil {
			releases = append(releases, release)
		}
	}
	l = loader.New(append(base, opts...)...)
	return l, func() {
		for _, r := range releases {
			r()
		}
	}
}

// notLinked stands for the parser of a format whose package the program
// does not import.
type notLinked struct{ format, pkg string }

func (n notLinked) Parse(context.Context, string, []byte) (*document.Document, error) {
	return nil, fmt.Errorf("%s support is not linked into this program (import _ %q)", strings.ToUpper(n.format), n.pkg)
}

// textDecoder decodes text in any encoding formats/text recognises, and
// vouches for the files it returns unchanged (so that large plain-text
// files are sectioned while being read).
type textDecoder struct{}

func (textDecoder) Decode(data []byte) (string, error) { return decodeText(data) }

func (textDecoder) NewCheck() loader.DecodeCheck { return &text.Check{} }

// decodeText decodes text in any encoding formats/text recognises.
func decodeText(data []byte) (string, error) {
	s, _, err := text.Decode(data)
	if err != nil {
		return "", errors.New(formats.Reason(err))
	}
	return s, nil
}
