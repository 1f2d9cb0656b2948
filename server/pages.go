package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/redact"
	"github.com/docmind/docmind/loader"
)

// Page rendering (GET documents/{id}/pages/{n}).
const (
	// DefaultPageDPI is the resolution of a rendered page without ?dpi=.
	DefaultPageDPI = 110
	// MaxPageDPI bounds ?dpi=.
	MaxPageDPI = 300
	// MaxRenders bounds the pages rendered (or searched for highlights)
	// at once, each in its own PDFium instance holding a bitmap of up to
	// pdf.MaxRenderPixels; more wait for one.
	MaxRenders = 2
)

// pdfReader returns the PDF reader, started on first use (PDFium takes
// seconds to compile the first time; the compiled code is cached on
// disk).
func (s *Server) pdfReader(r *http.Request) (*pdf.Reader, error) {
	s.pdfOnce.Do(func() { s.pdf, s.pdfErr = pdf.NewReader(r.Context(), pdf.Options{Workers: MaxRenders}) })
	return s.pdf, s.pdfErr
}

// Close releases what the server started (the PDF reader); the
// configured index and manager are the caller's.
func (s *Server) Close() error {
	s.pdfOnce.Do(func() {}) // no reader starts after Close
	if s.pdf != nil {
		return s.pdf.Close()
	}
	return nil
}

// pdfPage reads the request's document and page: an indexed PDF, page n
// of it, ?dpi= and the file's bytes, checked against the index (409 when
// the file changed since, 410 when it is gone). It answers the error and
// reports false when the request cannot be served.
func (s *Server) pdfPage(w http.ResponseWriter, r *http.Request) (doc index.Document, data []byte, n, dpi int, ok bool) {
	doc, ok = s.documentByID(w, r)
	if !ok {
		return
	}
	ok = false
	if doc.Format != "pdf" {
		writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("document %d is %s: only PDF pages are rendered", doc.ID, doc.Format))
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > doc.Pages {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no page %q in document %d: it has %d pages", r.PathValue("n"), doc.ID, doc.Pages))
		return
	}
	if dpi, ok = queryInt(w, r, "dpi", DefaultPageDPI, MaxPageDPI); !ok {
		return
	}
	ok = false
	if dpi < 1 {
		dpi = DefaultPageDPI
	}
	if data, ok = s.readDocument(w, doc); !ok {
		return
	}
	ok = false
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != doc.Hash {
		writeError(w, http.StatusConflict, fmt.Sprintf("document %d's file changed since it was indexed: ingest it again", doc.ID))
		return
	}
	return doc, data, n, dpi, true
}

// MaxPageFileBytes bounds the PDF file the page endpoints read: PDFium's
// own limit (pdf.DefaultMaxFileSize).
const MaxPageFileBytes = pdf.DefaultMaxFileSize

// readDocument reads an indexed document's file under the rules the
// ingest applies: a regular file (a pipe or device swapped in is refused
// without blocking), at most MaxPageFileBytes, and, after symbolic links,
// inside the folder the document was indexed in (or one of
// Config.DocumentRoots). It answers the error (403, 410, 413) and
// reports false when the file cannot be served.
func (s *Server) readDocument(w http.ResponseWriter, doc index.Document) ([]byte, bool) {
	if !s.inRoots(doc.Path) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("document %d's file now leads outside its folder: it is not read (ingest it again)", doc.ID))
		return nil, false
	}
	data, _, err := loader.ReadFile(doc.Path, MaxPageFileBytes)
	var tl *loader.TooLargeError
	switch {
	case errors.As(err, &tl):
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("document %d's file is too large to render: %s", doc.ID, oneLine(err.Error())))
		return nil, false
	case err != nil:
		writeError(w, http.StatusGone, fmt.Sprintf("document %d's file is no longer readable: %s", doc.ID, oneLine(err.Error())))
		return nil, false
	}
	return data, true
}

// inRoots reports whether path, its symbolic links resolved, is inside
// one of Config.DocumentRoots or, without them, inside the folder path
// is in (its own folder's links resolved). A path that does not resolve
// counts as inside: reading it then fails as a missing file.
func (s *Server) inRoots(path string) bool {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return true
	}
	roots := s.cfg.DocumentRoots
	if s.cfg.UploadDir != "" {
		roots = append(roots[:len(roots):len(roots)], s.cfg.UploadDir)
	}
	if len(s.cfg.DocumentRoots) == 0 {
		roots = append(roots, filepath.Dir(path))
	}
	for _, root := range roots {
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(real, target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// withPDF runs fn with the PDF reader under a run slot (PDFium is CPU
// bound), answering 429 or 500 when there is none.
func (s *Server) withPDF(w http.ResponseWriter, r *http.Request, fn func(*pdf.Reader)) {
	release, ok := s.slot(w, r)
	if !ok {
		return
	}
	defer release()
	reader, err := s.pdfReader(r)
	if err != nil {
		s.internal(w, "start the PDF reader", err)
		return
	}
	fn(reader)
}

// pdfError answers a failure of the PDF reader on a page.
func (s *Server) pdfError(w http.ResponseWriter, what string, err error) {
	switch {
	case errors.Is(err, pdf.ErrNoPage):
		writeError(w, http.StatusNotFound, "no such page in the document")
		return
	case errors.Is(err, pdf.ErrPageTooLarge):
		writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("the page is too large to render: at most %d pixels, %d on a side, even at 1 dpi", pdf.MaxRenderPixels, pdf.MaxRenderSide))
		return
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "the request ended before the page was rendered")
		return
	}
	// PDFium's own message (a panic's text, the file's path) stays in
	// the server's log
	s.cfg.Logger.Error("server: "+what, "err", redact.String(oneLine(err.Error())))
	writeError(w, http.StatusInternalServerError, what+" failed: the PDF could not be read (logged on the server)")
}

// documentPage answers GET /api/v1/documents/{id}/pages/{n}[?dpi=D]: page
// n of an indexed PDF as a PNG image, read from the file the index was
// built from. A page too large for dpi renders at the resolution that
// fits pdf.MaxRenderPixels (highlights give it as "dpi"); one too large
// even at 1 dpi gets 422.
func (s *Server) documentPage(w http.ResponseWriter, r *http.Request) {
	doc, data, n, dpi, ok := s.pdfPage(w, r)
	if !ok {
		return
	}
	s.withPDF(w, r, func(reader *pdf.Reader) {
		png, err := reader.RenderPage(r.Context(), s.cfg.ShowSource(doc.Path), data, n, dpi)
		if err != nil {
			s.pdfError(w, "render page", err)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Length", strconv.Itoa(len(png)))
		w.Write(png)
	})
}

// Highlight limits (GET documents/{id}/pages/{n}/highlights).
const (
	// MaxHighlightQuotes bounds the q parameters of one request.
	MaxHighlightQuotes = 20
	// MaxHighlightQuoteBytes bounds one quote.
	MaxHighlightQuoteBytes = 4 << 10
)

// documentHighlights answers GET
// /api/v1/documents/{id}/pages/{n}/highlights?q=QUOTE[&q=QUOTE...][&dpi=D]:
// where the quotes occur on page n of an indexed PDF, as rectangles in
// the pixels of the page's PNG at the same dpi ({"width", "height",
// "rects": [{"x", "y", "w", "h"}], "found"}), computed from PDFium's
// character boxes. A quote not on the page gives no rectangles.
func (s *Server) documentHighlights(w http.ResponseWriter, r *http.Request) {
	quotes := r.URL.Query()["q"]
	switch {
	case len(quotes) == 0:
		writeError(w, http.StatusBadRequest, "q is required: the quote to highlight, e.g. ?q=late+fee+of+1.5%25")
		return
	case len(quotes) > MaxHighlightQuotes:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("%d quotes: at most %d q parameters", len(quotes), MaxHighlightQuotes))
		return
	}
	for _, q := range quotes {
		if strings.TrimSpace(q) == "" || len(q) > MaxHighlightQuoteBytes {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("each q must be a quote of 1 to %d bytes", MaxHighlightQuoteBytes))
			return
		}
	}
	doc, data, n, dpi, ok := s.pdfPage(w, r)
	if !ok {
		return
	}
	s.withPDF(w, r, func(reader *pdf.Reader) {
		h, err := reader.Highlight(r.Context(), s.cfg.ShowSource(doc.Path), data, n, dpi, quotes)
		if err != nil {
			s.pdfError(w, "highlight page", err)
			return
		}
		writeJSON(w, http.StatusOK, PageHighlights{Document: doc.ID, Page: n, DPI: h.DPI, Highlights: *h})
	})
}

// PageHighlights is the JSON of GET documents/{id}/pages/{n}/highlights.
type PageHighlights struct {
	Document int64 `json:"document"`
	Page     int   `json:"page"`
	DPI      int   `json:"dpi"`
	pdf.Highlights
}
