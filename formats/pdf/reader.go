// Package pdf extracts text, page numbers, page labels and section headings
// from PDF files with PDFium compiled to WebAssembly
// (github.com/klippa-app/go-pdfium/webassembly, run by wazero): pure Go, no
// cgo, nothing to install.
//
// A Reader holds the compiled PDFium module and a pool of instances; make
// one per process and share it. Compiling PDFium takes seconds, so the
// Reader keeps wazero's compilation cache on disk (by default in
// os.UserCacheDir()/docmind/wazero); later processes start in a fraction of
// that.
//
// What Parse produces (see layout.go for the heuristics):
//   - text per page from FPDFText_GetText, split into lines and joined into
//     paragraphs at vertical gaps; words PDFium marks as hyphenated at a
//     line end are rejoined;
//   - Heading blocks from the bookmarks (outline), at the page each
//     bookmark points to, level = outline depth; without bookmarks, from
//     font size relative to the body text and from numbering ("7.", "7.1");
//   - running headers and footers removed (lines repeated at the top or
//     bottom of many pages, digits ignored so "Page 3 of 12" matches),
//     except on a page where they are all the text there is;
//   - Pages = page count, PageLabels = printed labels ("iv", "A-3") where
//     the file declares them, Title from the document information.
//
// Damaged files: PDFium repairs what it can (bad xref tables, flipped bits
// in content). A file PDFium cannot open at all (truncated before the
// trailer, garbage) gives formats.ErrCorrupt; when it opens but some pages
// fail to load, the pages that load are returned (best effort) and the
// others are left out. Files needing a user password give
// formats.ErrEncrypted; owner-password-only (permissions) files open
// normally. No text at all gives formats.ErrEmpty.
package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/ocr"
	pdfium "github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

// DefaultMaxFileSize is the largest PDF Parse accepts when Options.MaxFileSize
// is 0. PDFium in WebAssembly has a 4 GiB address space that holds the file
// and everything parsed from it.
const DefaultMaxFileSize = 512 << 20

// Options configures a Reader. The zero value is usable.
type Options struct {
	// Workers is the number of PDFium instances that may run at once, and
	// so the number of concurrent Parse calls; more wait. An instance no
	// Parse uses reads pages of a document another is reading (chunks of
	// pages through a bounded queue), so that one large document uses
	// every core too. Default: GOMAXPROCS, at most 4.
	Workers int
	// CacheDir is where wazero keeps compiled code between processes.
	// Empty means os.UserCacheDir()/docmind/wazero; "off" disables the
	// disk cache (every NewReader compiles from scratch).
	CacheDir string
	// MaxFileSize bounds the input size; 0 means DefaultMaxFileSize.
	MaxFileSize int
	// IgnoreBookmarks makes Parse detect headings from fonts and numbering
	// even when the file has an outline.
	IgnoreBookmarks bool
}

// Reader parses PDFs. It is safe for concurrent use: each Parse borrows a
// PDFium instance from the pool for the length of the call.
type Reader struct {
	opts  Options
	pool  pdfium.Pool
	cache wazero.CompilationCache
	mu    sync.Mutex
	done  bool
	// lent counts the instances idle lent to read pages alongside
	// another (for tests).
	lent atomic.Int64
	// waiting counts the Parse calls waiting for an instance.
	waiting atomic.Int32
}

// Notice, when set, is told (once per Reader) that NewReader compiles
// PDFium because no compiled copy is cached: the first PDF a machine reads
// then waits some seconds, which a command should say rather than sit
// silent. The docmind command prints it on stderr.
var Notice func(msg string)

// NewReader compiles PDFium (or loads it from the compilation cache) and
// returns a Reader. Close it when done.
func NewReader(ctx context.Context, opts Options) (*Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = min(runtime.GOMAXPROCS(0), 4)
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	rc := wazero.NewRuntimeConfig()
	var cache wazero.CompilationCache
	if opts.CacheDir != "off" {
		dir, err := cacheDir(opts.CacheDir)
		if err == nil {
			cache, err = wazero.NewCompilationCacheWithDir(dir)
		}
		switch {
		case err != nil:
			// A read-only home is no reason to fail: compile in memory.
			cache = nil
			notice("preparing the PDF reader: compiling PDFium (some seconds; no cache folder could be used, so every run compiles it)")
		default:
			rc = rc.WithCompilationCache(cache)
			if !holdsFile(dir) {
				notice("preparing the PDF reader: compiling PDFium once (some seconds; later runs load it from " + dir + ")")
			}
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       0,
		MaxIdle:       opts.Workers,
		MaxTotal:      opts.Workers,
		ReuseWorkers:  true,
		RuntimeConfig: rc,
		// No file system access for PDFium: documents are passed as bytes.
		FSConfig: wazero.NewFSConfig(),
		Stdout:   io.Discard,
		Stderr:   io.Discard,
	})
	if err != nil {
		if cache != nil {
			cache.Close(ctx)
		}
		return nil, fmt.Errorf("pdf: starting PDFium (WebAssembly): %w", err)
	}
	// Before instances run side by side: see warmInvokeTypes.
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		pool.Close()
		if cache != nil {
			cache.Close(ctx)
		}
		return nil, fmt.Errorf("pdf: starting PDFium (WebAssembly): %w", err)
	}
	warmInvokeTypes(inst)
	inst.Close()
	return &Reader{opts: opts, pool: pool, cache: cache}, nil
}

// holdsFile reports whether a regular file is anywhere under dir (wazero
// creates its versioned folder when the cache is opened, before it
// compiles anything into it).
func holdsFile(dir string) bool {
	found := errors.New("found")
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			return found
		}
		return nil
	})
	return err == found
}

func notice(msg string) {
	if Notice != nil {
		Notice(msg)
	}
}

func cacheDir(dir string) (string, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "docmind", "wazero")
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// Close releases the PDFium pool and the compilation cache handle (the
// cache files stay on disk).
func (r *Reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return nil
	}
	r.done = true
	err := r.pool.Close()
	if r.cache != nil {
		if cerr := r.cache.Close(context.Background()); err == nil {
			err = cerr
		}
	}
	return err
}

// Parse extracts a document from PDF bytes. source is used in the
// document and in error messages. Errors match formats.ErrEncrypted,
// formats.ErrCorrupt, formats.ErrEmpty or formats.ErrTooLarge; a
// cancelled ctx is checked between pages and returns ctx.Err().
func (r *Reader) Parse(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	inst, err := r.instance(ctx, source, data)
	if err != nil {
		return nil, err
	}
	defer inst.Close()
	var more lender
	if r.opts.Workers > 1 {
		more = r
	}
	raw, err := extract(ctx, inst, source, data, more)
	if err != nil {
		return nil, err
	}
	st, err := ocrPages(ctx, inst, source, data, raw)
	if err != nil {
		return nil, err
	}
	doc, err = build(source, raw, r.opts.IgnoreBookmarks)
	if err != nil {
		if errors.Is(err, formats.ErrEmpty) && st.Needed > 0 {
			return nil, ocr.Needed(source, "scanned PDF (no text layer)", st.Needed, errors.New(st.Reason))
		}
		return nil, err
	}
	doc.OCR = st
	return doc, nil
}

// instance checks data's size and borrows a PDFium instance from the
// pool; close it when done.
func (r *Reader) instance(ctx context.Context, source string, data []byte) (pdfium.Pdfium, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "empty file")
	}
	if len(data) > r.opts.MaxFileSize {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "PDF is %d MiB, above the %d MiB limit", len(data)>>20, r.opts.MaxFileSize>>20)
	}
	r.mu.Lock()
	closed := r.done
	r.mu.Unlock()
	if closed {
		return nil, errors.New("pdf: use of a closed Reader")
	}
	r.waiting.Add(1)
	inst, err := r.pool.GetInstanceWithContext(ctx)
	r.waiting.Add(-1)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("pdf: %s: no PDFium instance available: %w", source, err)
	}
	reuseCalls(inst)
	return inst, nil
}

// idle lends a PDFium instance that no Parse is using, starting one when
// fewer than Options.Workers run, or returns nil at once when all are
// busy: Parse reads a document's pages on it too (readPages).
func (r *Reader) idle() pdfium.Pdfium {
	if r.wanted() {
		return nil
	}
	r.mu.Lock()
	closed := r.done
	r.mu.Unlock()
	if closed {
		return nil
	}
	now, cancel := context.WithCancel(context.Background())
	cancel() // take an idle instance or start one, never wait
	inst, err := r.pool.GetInstanceWithContext(now)
	if err != nil {
		return nil
	}
	reuseCalls(inst)
	r.lent.Add(1)
	return inst
}

// wanted reports that a Parse is waiting for an instance.
func (r *Reader) wanted() bool { return r.waiting.Load() > 0 }

// ErrNoPage is returned (wrapped) by RenderPage for a page the PDF does
// not have.
var ErrNoPage = errors.New("no such page")

// openPage borrows a PDFium instance and opens data in it, checking
// that the document has page n (1-based; ErrNoPage otherwise). Call
// done when finished with the document.
func (r *Reader) openPage(ctx context.Context, source string, data []byte, n int) (inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, done func(), err error) {
	inst, err = r.instance(ctx, source, data)
	if err != nil {
		return nil, "", nil, err
	}
	od, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		inst.Close()
		return nil, "", nil, openError(source, err)
	}
	done = func() {
		inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: od.Document})
		inst.Close()
	}
	pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: od.Document})
	if err != nil {
		done()
		return nil, "", nil, formats.Errorf(source, formats.ErrCorrupt, "damaged PDF: no readable pages")
	}
	if n < 1 || n > pc.PageCount {
		done()
		return nil, "", nil, fmt.Errorf("pdf: %s: page %d: %w (it has %d)", source, n, ErrNoPage, pc.PageCount)
	}
	return inst, od.Document, done, nil
}

// Render limits: a page renders at the resolution asked for unless its
// bitmap would exceed MaxRenderPixels pixels or MaxRenderSide pixels on a
// side; then at the largest resolution that fits (FitDPI). A page too
// large even at 1 dpi gives ErrPageTooLarge.
const (
	// MaxRenderPixels bounds a rendered page's pixels: 16 Mi pixels, 64
	// MiB as the RGBA bitmap PDFium draws into.
	MaxRenderPixels = 16 << 20
	// MaxRenderSide bounds a rendered page's width and height in pixels.
	MaxRenderSide = 16 << 10
	// retirePixels: an instance that drew a bitmap above this many pixels
	// is closed rather than returned to the pool, so that the WebAssembly
	// memory the bitmap grew (which never shrinks) is given back.
	retirePixels = 4 << 20
)

// ErrPageTooLarge is returned (wrapped) by RenderPage and Highlight for a
// page that cannot be drawn within MaxRenderPixels even at 1 dpi, or
// whose size is not a size.
var ErrPageTooLarge = errors.New("page too large to render")

// FitDPI returns the resolution a page of w×h points renders at when dpi
// is asked for: dpi, or the largest resolution below it at which the
// bitmap stays within MaxRenderPixels and MaxRenderSide. It returns
// ErrPageTooLarge when not even 1 dpi fits.
func FitDPI(w, h float64, dpi int) (int, error) {
	if !(w > 0 && h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return 0, fmt.Errorf("%w: the page's size is %gx%g points", ErrPageTooLarge, w, h)
	}
	px := func(d int) (int64, int64) {
		s := float64(d) / 72
		return int64(math.Ceil(w * s)), int64(math.Ceil(h * s))
	}
	fits := func(d int) bool {
		pw, ph := px(d)
		return pw <= MaxRenderSide && ph <= MaxRenderSide && pw*ph <= MaxRenderPixels
	}
	if dpi < 1 {
		dpi = 1
	}
	if fits(dpi) {
		return dpi, nil
	}
	// estimate from the area, then step down to absorb the rounding up
	d := int(min(float64(dpi), 72*math.Sqrt(MaxRenderPixels/(w*h)), 72*MaxRenderSide/max(w, h)))
	for d >= 1 && !fits(d) {
		d--
	}
	if d < 1 {
		return 0, fmt.Errorf("%w: the page is %.0fx%.0f inches", ErrPageTooLarge, w/72, h/72)
	}
	return d, nil
}

// pageDPI returns the resolution page n (1-based) of doc renders at when
// dpi is asked for (FitDPI) and the pixels of its bitmap.
func pageDPI(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, source string, n, dpi int) (int, int64, error) {
	size, err := inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: doc, Index: n - 1})
	if err != nil {
		return 0, 0, fmt.Errorf("pdf: %s: page %d size: %w", source, n, err)
	}
	fit, err := FitDPI(size.Width, size.Height, dpi)
	if err != nil {
		return 0, 0, fmt.Errorf("pdf: %s: page %d: %w", source, n, err)
	}
	s := float64(fit) / 72
	return fit, int64(math.Ceil(size.Width*s)) * int64(math.Ceil(size.Height*s)), nil
}

// RenderPage renders page n (1-based) of a PDF as a PNG image at dpi
// dots per inch, or at the lower resolution FitDPI gives for a page too
// large for dpi; ErrPageTooLarge when even 1 dpi is too large.
func (r *Reader) RenderPage(ctx context.Context, source string, data []byte, n, dpi int) (png []byte, err error) {
	defer formats.Recover(source, &err)
	inst, doc, done, err := r.openPage(ctx, source, data, n)
	if err != nil {
		return nil, err
	}
	fit, pixels, err := pageDPI(inst, doc, source, n, dpi)
	if err != nil {
		done()
		return nil, err
	}
	defer func() {
		if pixels > retirePixels {
			inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc})
			inst.Kill()
			return
		}
		done()
	}()
	png, err = renderPNG(inst, doc, n, fit)
	if err != nil {
		return nil, fmt.Errorf("pdf: %s: render page %d: %w", source, n, err)
	}
	return png, nil
}

// openError turns PDFium's open failure into a formats error.
func openError(source string, err error) error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return formats.Errorf(source, formats.ErrEncrypted, "encrypted PDF (password required)")
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return formats.Errorf(source, formats.ErrEncrypted, "PDF uses an unsupported encryption scheme")
	case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile):
		return formats.Errorf(source, formats.ErrCorrupt, "damaged or truncated PDF (PDFium cannot repair it)")
	}
	return formats.Errorf(source, formats.ErrCorrupt, "PDFium cannot open the file: %w", err)
}
