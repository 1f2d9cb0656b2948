package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"

	"github.com/docmind/docmind/formats/pdf"
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

// documentPage answers GET /api/v1/documents/{id}/pages/{n}[?dpi=D]: page
// n of an indexed PDF as a PNG image, read from the file the index was
// built from (409 when it changed since, 410 when it is gone).
func (s *Server) documentPage(w http.ResponseWriter, r *http.Request) {
	doc, ok := s.documentByID(w, r)
	if !ok {
		return
	}
	if doc.Format != "pdf" {
		writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("document %d is %s: only PDF pages are rendered", doc.ID, doc.Format))
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 || n > doc.Pages {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no page %q in document %d: it has %d pages", r.PathValue("n"), doc.ID, doc.Pages))
		return
	}
	dpi, ok := queryInt(w, r, "dpi", DefaultPageDPI, MaxPageDPI)
	if !ok {
		return
	}
	if dpi < 1 {
		dpi = DefaultPageDPI
	}
	data, err := os.ReadFile(doc.Path)
	if err != nil {
		writeError(w, http.StatusGone, fmt.Sprintf("document %d's file is no longer readable: %s", doc.ID, oneLine(err.Error())))
		return
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != doc.Hash {
		writeError(w, http.StatusConflict, fmt.Sprintf("document %d's file changed since it was indexed: ingest it again", doc.ID))
		return
	}
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
	png, err := reader.RenderPage(r.Context(), s.cfg.ShowSource(doc.Path), data, n, dpi)
	switch {
	case errors.Is(err, pdf.ErrNoPage):
		writeError(w, http.StatusNotFound, oneLine(err.Error()))
		return
	case err != nil:
		s.internal(w, "render page", err)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(png)))
	w.Write(png)
}
