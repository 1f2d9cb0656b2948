package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/ocr"
	"github.com/docmind/docmind/schema"
)

// Parser turns a file's content into a Document. Parsers for Markdown and
// text receive UTF-8 (the Loader decodes first, see TextDecoder); parsers
// for other formats receive the file's bytes unchanged. source is the
// path to record as Document.Source. An error means the file cannot be
// read as this format; the Loader reports it and goes on.
type Parser interface {
	Parse(ctx context.Context, source string, data []byte) (*document.Document, error)
}

// ParserFunc adapts a function to Parser.
type ParserFunc func(ctx context.Context, source string, data []byte) (*document.Document, error)

// Parse calls f.
func (f ParserFunc) Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	return f(ctx, source, data)
}

// TextDecoder turns the bytes of a text file into UTF-8 text, for example
// from UTF-16 or a legacy code page.
type TextDecoder interface {
	Decode(data []byte) (string, error)
}

// TextDecoderFunc adapts a function to TextDecoder.
type TextDecoderFunc func(data []byte) (string, error)

// Decode calls f.
func (f TextDecoderFunc) Decode(data []byte) (string, error) { return f(data) }

// ErrNotText is returned (wrapped) for content that is not a readable
// document: binary data, or text in an encoding the decoder cannot read.
var ErrNotText = errors.New("not a text document")

// DecodeUTF8 is the default TextDecoder: it accepts UTF-8, strips a byte
// order mark and rejects anything else with an error wrapping ErrNotText.
func DecodeUTF8(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return "", fmt.Errorf("%w: UTF-16 text needs a text decoder for that encoding", ErrNotText)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%w: not valid UTF-8 (text in a legacy encoding needs a text decoder)", ErrNotText)
	}
	return string(data), nil
}

// DefaultMaxFileSize is the largest file the Loader reads.
const DefaultMaxFileSize = 64 << 20

// Loader reads files and folders into sections. Build one with New; it is
// safe for concurrent use once built.
type Loader struct {
	parsers  map[string]Parser
	decoder  TextDecoder
	sections SectionOptions
	maxSize  int64
	ocr      *ocr.Engine
}

// Option configures a Loader.
type Option func(*Loader)

// WithParser registers p for format (formats.PDF, formats.DOCX, formats.HTML,
// or replaces the built-in formats.Markdown / formats.Text parser).
func WithParser(format string, p Parser) Option {
	return func(l *Loader) {
		if p != nil {
			l.parsers[format] = p
		}
	}
}

// WithOCR sets how pages without a text layer and images are read by
// OCR (mode, languages); the parsers find the engine in the context they
// are called with (ocr.FromContext). Without it they use ocr.Default():
// auto mode, English, Tesseract when it is on PATH.
func WithOCR(e *ocr.Engine) Option {
	return func(l *Loader) { l.ocr = e }
}

// WithDecoder sets how text files are decoded to UTF-8 (default
// DecodeUTF8).
func WithDecoder(d TextDecoder) Option {
	return func(l *Loader) {
		if d != nil {
			l.decoder = d
		}
	}
}

// WithSectionOptions sets how documents are split into sections.
func WithSectionOptions(o SectionOptions) Option {
	return func(l *Loader) { l.sections = o }
}

// WithChunking sets the chunk size and overlap, in characters.
func WithChunking(size, overlap int) Option {
	return func(l *Loader) {
		l.sections.ChunkSize = size
		l.sections.Overlap = overlap
	}
}

// WithMaxFileSize sets the largest file read, in bytes; larger files are
// skipped.
func WithMaxFileSize(n int64) Option {
	return func(l *Loader) {
		if n > 0 {
			l.maxSize = n
		}
	}
}

// New returns a Loader with the Markdown and text parsers built in.
func New(opts ...Option) *Loader {
	l := &Loader{
		parsers: map[string]Parser{
			formats.Markdown: MarkdownParser{},
			formats.Text:     TextParser{},
		},
		decoder: utf8Decoder{},
		maxSize: DefaultMaxFileSize,
	}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Formats lists the formats the Loader can read.
func (l *Loader) Formats() []string {
	out := make([]string, 0, len(l.parsers))
	for f := range l.parsers {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// Parse detects the format of data and parses it; name is the file's path
// (recorded as the source, and a tie-breaker for detection). Errors say
// why the content cannot be read, without naming the file (ParseFile and
// LoadDir name it); they wrap ErrNotText for binary data.
func (l *Loader) Parse(ctx context.Context, name string, data []byte) (doc *document.Document, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file")
	}
	format := Detect(data, name)
	if format == formats.Binary {
		return nil, fmt.Errorf("%w (%s)", ErrNotText, binaryReason(data, name))
	}
	if _, ok := l.parsers[format]; !ok {
		switch format {
		case formats.CSV, formats.EML:
			format = formats.Text // read as plain text without their parser
		case formats.Image:
			return nil, fmt.Errorf("%w (%s image is not supported without OCR)", ErrNotText, ocr.ImageKind(data))
		}
	}
	if format == formats.Text || format == formats.Markdown || format == formats.CSV {
		text, err := l.decoder.Decode(data)
		if err != nil {
			return nil, fmt.Errorf("cannot decode text: %w", err)
		}
		if strings.IndexFunc(text, func(r rune) bool { return !unicode.IsSpace(r) }) < 0 {
			return nil, errors.New("empty file")
		}
		if format != formats.CSV {
			format = classifyText(firstN(text, sniffLen), name)
		}
		data = []byte(text)
	}
	p, ok := l.parsers[format]
	if !ok {
		return nil, fmt.Errorf("%s documents are not supported (no %s parser is configured)", strings.ToUpper(format), format)
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("the %s parser failed: %v", format, r)
		}
	}()
	if l.ocr != nil {
		ctx = ocr.NewContext(ctx, l.ocr)
	}
	doc, err = p.Parse(ctx, name, data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse as %s: %w", format, unnamed(err, name))
	}
	if doc == nil || !hasText(doc) {
		return nil, errors.New("no text content")
	}
	if doc.Format == "" {
		doc.Format = format
	}
	if doc.Source == "" {
		doc.Source = name
	}
	stripControls(doc)
	return doc, nil
}

// stripControls takes the terminal's control characters out of doc's
// text, whatever the format (formats.StripControls): answers quote it.
func stripControls(doc *document.Document) {
	doc.Title = formats.StripControls(doc.Title)
	doc.Entity = formats.StripControls(doc.Entity)
	doc.Period = formats.StripControls(doc.Period)
	for i := range doc.Blocks {
		doc.Blocks[i].Text = formats.StripControls(doc.Blocks[i].Text)
	}
	for k, v := range doc.PageLabels {
		doc.PageLabels[k] = formats.StripControls(v)
	}
}

// unnamed returns err without a leading "name: ". The parsers of package
// formats name the file in their errors (formats.Error reads "source:
// reason"), while the Loader's errors do not: its callers name the file
// once, and "a.docx: cannot parse as docx: a.docx: ..." named it twice.
// The result still wraps err, for errors.Is and errors.As.
func unnamed(err error, name string) error {
	msg, ok := strings.CutPrefix(err.Error(), name+": ")
	if !ok || name == "" {
		return err
	}
	return &reasonError{msg: msg, err: err}
}

// reasonError is an error shown as msg that wraps err.
type reasonError struct {
	msg string
	err error
}

func (e *reasonError) Error() string { return e.msg }
func (e *reasonError) Unwrap() error { return e.err }

func hasText(doc *document.Document) bool {
	for _, b := range doc.Blocks {
		if b.Kind != document.Heading && strings.TrimSpace(b.Text) != "" {
			return true
		}
	}
	return false
}

// ParseFile reads and parses one file.
func (l *Loader) ParseFile(ctx context.Context, path string) (*document.Document, error) {
	doc, err := l.parseFile(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// parseFile is ParseFile with errors that do not name the file.
func (l *Loader) parseFile(ctx context.Context, path string) (*document.Document, error) {
	data, err := l.read(path)
	if err != nil {
		return nil, err
	}
	return l.Parse(ctx, path, data)
}

// Split splits a parsed document into sections with the Loader's section
// options (what LoadFile and LoadDir do after parsing).
func (l *Loader) Split(doc *document.Document) []schema.Section {
	return Sections(doc, l.sections)
}

// LoadFile reads one file into sections.
func (l *Loader) LoadFile(ctx context.Context, path string) ([]schema.Section, error) {
	doc, err := l.ParseFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return Sections(doc, l.sections), nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// FileReport describes a file that was loaded.
type FileReport struct {
	Path     string
	Format   string
	Pages    int
	Sections int
	// OCR says which pages were read by OCR, and which needed it but
	// were not.
	OCR document.OCRStats
}

// Skipped is a file that was not loaded, and why.
type Skipped struct {
	Path   string
	Reason string
}

// Report says what LoadDir loaded and skipped.
type Report struct {
	Files   []FileReport
	Skipped []Skipped
}

// LoadDir loads every document under dir, recursively, in lexical path
// order, skipping hidden files and folders (names starting with ".").
// Files that cannot be used (unreadable, binary, empty, unsupported) are
// listed in the report and do not stop the load. It returns an error when
// dir does not exist or is not a folder, when ctx is done, or when no
// usable document was found.
func (l *Loader) LoadDir(ctx context.Context, dir string) ([]schema.Section, Report, error) {
	var rep Report
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, rep, fmt.Errorf("documents folder %s does not exist", dir)
	case err != nil:
		return nil, rep, fmt.Errorf("cannot open documents folder %s: %w", dir, unwrapPathError(err))
	case !fi.IsDir():
		return nil, rep, fmt.Errorf("documents folder %s is not a folder", dir)
	}
	files, _, err := Walk([]string{dir}, WalkOptions{})
	if err != nil {
		return nil, rep, err
	}
	var sections []schema.Section
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, rep, err
		}
		if f.Skip != "" {
			rep.Skipped = append(rep.Skipped, Skipped{Path: f.Path, Reason: f.Skip})
			continue
		}
		doc, err := l.parseFile(ctx, f.Path)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, rep, ctxErr
		}
		if err != nil {
			rep.Skipped = append(rep.Skipped, Skipped{Path: f.Path, Reason: err.Error()})
			continue
		}
		secs := Sections(doc, l.sections)
		sections = append(sections, secs...)
		rep.Files = append(rep.Files, FileReport{Path: f.Path, Format: doc.Format, Pages: doc.Pages, Sections: len(secs), OCR: doc.OCR})
	}
	if len(sections) == 0 {
		if len(rep.Skipped) == 0 {
			return nil, rep, fmt.Errorf("no documents found in %s", dir)
		}
		s := rep.Skipped[0]
		return nil, rep, fmt.Errorf("no usable documents in %s: %d file(s) skipped, e.g. %s: %s", dir, len(rep.Skipped), s.Path, s.Reason)
	}
	return sections, rep, nil
}

// read reads a file (bounded by the size limit, never blocking on a pipe
// or device), with errors that do not repeat the path.
func (l *Loader) read(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return nil, errors.New("is a folder")
	}
	data, _, err := ReadFile(path, l.maxSize)
	return data, err
}
