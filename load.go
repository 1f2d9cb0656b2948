package docmind

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/docx"
	"github.com/docmind/docmind/formats/eml"
	"github.com/docmind/docmind/formats/html"
	"github.com/docmind/docmind/formats/ocr"
	"github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/formats/pptx"
	"github.com/docmind/docmind/formats/text"
	"github.com/docmind/docmind/formats/xlsx"
	"github.com/docmind/docmind/loader"
)

// The loader's vocabulary, re-exported from packages loader and document
// so that a caller of LoadDocuments or NewLoader needs only this package
// (the loader's options, such as loader.WithParser, stay in package
// loader).
type (
	// LoadReport says which files LoadDocuments read and which it skipped,
	// and why.
	LoadReport = loader.Report
	// LoadedFile is a file that was loaded: its path, format, pages and
	// sections.
	LoadedFile = loader.FileReport
	// SkippedFile is a file that was not loaded, and why.
	SkippedFile = loader.Skipped
	// Loader reads files and folders into sections; NewLoader returns one
	// that reads every supported format.
	Loader = loader.Loader
	// LoaderOption configures a Loader (loader.WithParser,
	// loader.WithChunking and the other options of package loader).
	LoaderOption = loader.Option
	// LoadProbe learns, from a file written to it in pieces, whether the
	// Loader can section the file while reading it (Loader.NewProbe).
	LoadProbe = loader.Probe
	// TextStream sections a plain-text file while reading it
	// (LoadProbe.Stream).
	TextStream = loader.TextStream
	// Document is a parsed document, in blocks, before it is split into
	// sections (Loader.ParseFile, Loader.Split).
	Document = document.Document
	// DocumentBlock is one heading, paragraph or table of a Document.
	DocumentBlock = document.Block
	// BlockKind is the kind of a DocumentBlock.
	BlockKind = document.Kind
)

// LoadDocuments reads the documents at path — a folder (recursively) or a
// single file — and splits them into sections with titles and pages. It
// reads PDF (text per page, bookmarks and headings, running headers
// removed), DOCX, HTML (boilerplate removed), Markdown (pages from
// "<!-- page: N -->" lines or form feeds) and plain text in any common
// encoding (pages from form feeds); the format is detected from the
// content. Files that cannot be used (encrypted, damaged, binary, empty)
// are listed in the report with the reason and do not stop the load; so
// are named pipes, sockets and devices, which are never opened. Folders
// are walked by loader.Walk and files split with the loader's sectioning,
// as docmind ingest does; an error means path is missing, unreadable, or
// held no usable document.
func LoadDocuments(ctx context.Context, path string) ([]Section, LoadReport, error) {
	l, closeLoader := NewLoader()
	defer closeLoader()
	fi, err := os.Stat(path)
	if err == nil && !fi.IsDir() {
		doc, err := l.ParseFile(ctx, path)
		if err != nil {
			return nil, LoadReport{}, err
		}
		secs := loader.Sections(doc, loader.SectionOptions{})
		return secs, LoadReport{Files: []LoadedFile{{Path: path, Format: doc.Format, Pages: doc.Pages, Sections: len(secs), OCR: doc.OCR}}}, nil
	}
	return l.LoadDir(ctx, path)
}

// NewLoader returns a Loader that reads every supported format, and a
// function that releases it. The PDF engine (PDFium compiled to
// WebAssembly) starts only when the first PDF is read.
func NewLoader(opts ...LoaderOption) (*Loader, func()) {
	lp := &lazyPDF{}
	base := []loader.Option{
		loader.WithParser(formats.PDF, lp),
		loader.WithParser(formats.DOCX, loader.ParserFunc(docx.Parse)),
		loader.WithParser(formats.HTML, loader.ParserFunc(html.Parse)),
		loader.WithParser(formats.XLSX, loader.ParserFunc(xlsx.Parse)),
		loader.WithParser(formats.CSV, loader.ParserFunc(xlsx.ParseCSV)),
		loader.WithParser(formats.PPTX, loader.ParserFunc(pptx.Parse)),
		loader.WithParser(formats.Image, loader.ParserFunc(ocr.ParseImage)),
		loader.WithDecoder(textDecoder{}),
	}
	// Attachments of e-mails are read by the Loader itself, as files of
	// their own.
	var l *loader.Loader
	mail := eml.Parser{Attachment: func(ctx context.Context, name string, data []byte) (*document.Document, error) {
		return l.Parse(ctx, name, data)
	}}
	base = append(base, loader.WithParser(formats.EML, mail))
	l = loader.New(append(base, opts...)...)
	return l, lp.close
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

// lazyPDF starts the PDF reader on first use.
type lazyPDF struct {
	once sync.Once
	r    *pdf.Reader
	err  error
}

func (p *lazyPDF) Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	p.once.Do(func() { p.r, p.err = pdf.NewReader(ctx, pdf.Options{}) })
	if p.err != nil {
		return nil, p.err
	}
	doc, err := p.r.Parse(ctx, source, data)
	if err != nil {
		return nil, reasonOnly{err}
	}
	return doc, nil
}

// reasonOnly shows a formats error as its reason alone (the loader names
// the file) and still wraps it, for errors.Is and errors.As.
type reasonOnly struct{ err error }

func (e reasonOnly) Error() string { return formats.Reason(e.err) }
func (e reasonOnly) Unwrap() error { return e.err }

func (p *lazyPDF) close() {
	if p.r != nil {
		p.r.Close()
	}
}
