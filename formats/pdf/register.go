package pdf

import (
	"context"
	"sync"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/loader"
)

// Importing this package registers the PDF reader with package loader,
// so that docmind.NewLoader, docmind.LoadDocuments and the loaders built
// from them read PDF files:
//
//	import _ "github.com/docmind/docmind/formats/pdf"
//
// The reader (PDFium compiled to WebAssembly) starts when the first PDF
// is read, not when the loader is built.
func init() {
	loader.Register(formats.PDF, func() (loader.Parser, func()) {
		lp := &lazyReader{}
		return lp, lp.close
	})
}

// lazyReader starts a Reader on first use.
type lazyReader struct {
	once sync.Once
	r    *Reader
	err  error
}

func (p *lazyReader) Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	p.once.Do(func() { p.r, p.err = NewReader(ctx, Options{}) })
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
// the file) and still wraps it, for errors.Is and errors.As (the pages a
// scanned PDF needs read by OCR travel in it).
type reasonOnly struct{ err error }

func (e reasonOnly) Error() string { return formats.Reason(e.err) }
func (e reasonOnly) Unwrap() error { return e.err }

// close releases the reader, when it was started. Parse must not run
// concurrently with it.
func (p *lazyReader) close() {
	if p.r != nil {
		p.r.Close()
	}
}
