package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/docmind/docmind/formats/pdf"
	"github.com/docmind/docmind/index"
)

// Page rendering (GET documents/{id}/pages/{n}).
const (
	// DefaultPageDPI is the resolution of a rendered page without ?dpi=.
	DefaultPageDPI = 110
	// MaxPageDPI bounds ?dpi=.
	MaxPageDPI = 300
)

// pdfReader returns the PDF reader, started on first use (PDFium takes
// seconds to compile the first time; the compiled code is cached on
// disk).
func (s *Server) pdfReader(r *http.Request) (*pdf.Reader, error) {
	s.pdfOnce.Do(func() { s.pdf, s.pdfErr = pdf.NewReader(r.Context(), pdf.Options{}) })
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
	data, err = os.ReadFile(doc.Path)
	if err != nil {
		writeError(w, http.StatusGone, fmt.Sprintf("document %d's file is no longer readable: %s", doc.ID, oneLine(err.Error())))
		return
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != doc.Hash {
		writeError(w, http.StatusConflict, fmt.Sprintf("document %d's file changed since it was indexed: ingest it again", doc.ID))
		return
	}
	return doc, data, n, dpi, true
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
	if errors.Is(err, pdf.ErrNoPage) {
		writeError(w, http.StatusNotFound, oneLine(err.Error()))
		return
	}
	s.internal(w, what, err)
}

// documentPage answers GET /api/v1/documents/{id}/pages/{n}[?dpi=D]: page
// n of an indexed PDF as a PNG image, read from the file the index was
// built from.
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
		writeJSON(w, http.StatusOK, PageHighlights{Document: doc.ID, Page: n, DPI: dpi, Highlights: *h})
	})
}

// PageHighlights is the JSON of GET documents/{id}/pages/{n}/highlights.
type PageHighlights struct {
	Document int64 `json:"document"`
	Page     int   `json:"page"`
	DPI      int   `json:"dpi"`
	pdf.Highlights
}
