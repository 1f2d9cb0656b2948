package pdf

import (
	"context"
	"sync"

	"github.com/docmind/docmind/formats"

	pdfium "github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// pageChunk is how many consecutive pages one instance reads at a time.
// A document shorter than two chunks is read by one instance.
const pageChunk = 8

// pageText is one page's lines, or ok=false when it did not load.
type pageText struct {
	lines []line
	ok    bool
}

// lender lends idle PDFium instances to read pages alongside another
// (Reader is one).
type lender interface {
	// idle returns an instance no one uses, or nil at once.
	idle() pdfium.Pdfium
	// wanted reports that a document is waiting for an instance: a
	// helper then gives its own back.
	wanted() bool
}

// readPages reads the lines of the n pages of doc (open in inst). Chunks
// of pageChunk pages go through a bounded queue to inst and to the idle
// instances more lends (checked before each chunk inst takes, so that an
// instance freed by another document joins in); each of those opens data
// itself, and is given back when the queue is empty or another document
// waits for an instance (documents read side by side cost less than one
// document read twice over). The pages come back in
// order whichever instance read them: the result is the one a single
// instance gives. A panic in PDFium on a helper's goroutine is returned
// as an error, as Parse's own recovery does on its goroutine.
func readPages(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, source string, data []byte, n int, more lender) ([]pageText, error) {
	pages := make([]pageText, n)
	chunks := (n + pageChunk - 1) / pageChunk
	queue := make(chan int, 2)
	go func() {
		defer close(queue)
		for c := 0; c < chunks; c++ {
			select {
			case queue <- c * pageChunk:
			case <-ctx.Done():
				return
			}
		}
	}()
	read := func(in pdfium.Pdfium, d references.FPDF_DOCUMENT, start int) {
		for i := start; i < min(start+pageChunk, n) && ctx.Err() == nil; i++ {
			pages[i].lines, pages[i].ok = pageLines(in, d, i)
		}
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		helpErr error
	)
	help := func(h pdfium.Pdfium) {
		defer wg.Done()
		defer h.Close()
		defer func() {
			if r := recover(); r != nil {
				mu.Lock()
				helpErr = formats.Errorf(source, formats.ErrCorrupt, "parser failed on malformed input: %v", r)
				mu.Unlock()
				for range queue { // the other instances finish the pages
				}
			}
		}()
		od, err := h.OpenDocument(&requests.OpenDocument{File: &data})
		if err != nil {
			return // inst reads the pages without it
		}
		defer h.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: od.Document})
		for !more.wanted() {
			start, ok := <-queue
			if !ok {
				return
			}
			read(h, od.Document, start)
		}
	}
	defer wg.Wait()
	for {
		if more != nil && chunks > 1 {
			if h := more.idle(); h != nil {
				wg.Add(1)
				go help(h)
			}
		}
		start, ok := <-queue
		if !ok {
			break
		}
		read(inst, doc, start)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if helpErr != nil {
		return nil, helpErr
	}
	return pages, nil
}
