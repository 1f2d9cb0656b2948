package ocr

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG images
	_ "image/png"  // DecodeConfig of PNG images
	"time"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// MaxPixels bounds the size of an image read by OCR (a 600 DPI A3 scan
// is about 70 million pixels).
const MaxPixels = 100_000_000

// ParseImage reads an image (PNG, JPEG, TIFF; every page of a multi-page
// TIFF) by OCR with the engine ctx carries (FromContext): one paragraph
// block per paragraph Tesseract finds, on the image's page. Errors are
// formats errors: ErrTooLarge (above MaxPixels), ErrCorrupt (Tesseract
// cannot read the image), ErrEmpty (no text, or no OCR: the error then
// wraps a *NeededError saying why and how to install Tesseract).
func ParseImage(ctx context.Context, source string, data []byte) (doc *document.Document, err error) {
	defer formats.Recover(source, &err)
	what := ImageKind(data) + " image"
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil && cfg.Width*cfg.Height > MaxPixels {
		return nil, formats.Errorf(source, formats.ErrTooLarge, "%s is %d×%d pixels, above the OCR limit of %d million", what, cfg.Width, cfg.Height, MaxPixels/1_000_000)
	}
	e := FromContext(ctx)
	if err := e.Available(); err != nil {
		return nil, Needed(source, what, 1, err)
	}
	start := time.Now()
	e.Progress(source, 0, 1)
	pages, err := e.Recognize(ctx, data)
	e.Progress(source, 1, 1)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, formats.Errorf(source, formats.ErrCorrupt, "%s: OCR failed: %w", what, err)
	}
	doc = &document.Document{Source: source, Format: formats.Image, Pages: len(pages)}
	for _, p := range pages {
		for _, text := range p.Paragraphs() {
			if t := formats.CleanText(text); t != "" {
				doc.Blocks = append(doc.Blocks, document.Block{Kind: document.Paragraph, Text: t, Page: p.Number})
			}
		}
	}
	doc.OCR = document.OCRStats{Pages: len(pages), Time: time.Since(start)}
	if len(doc.Blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "%s: OCR found no text", what)
	}
	return doc, nil
}

// Needed is the formats error (ErrEmpty) of a file with no text unless
// read by OCR, when OCR is not available (why): it wraps a *NeededError.
func Needed(source, what string, pages int, why error) error {
	ne := &NeededError{What: what, Pages: pages, Reason: why.Error()}
	return &formats.Error{Source: source, Kind: formats.ErrEmpty, Reason: ne.Error(), Err: ne}
}

// ImageKind names an image's format from its signature: "PNG", "JPEG",
// "TIFF" or "unknown".
func ImageKind(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG")):
		return "PNG"
	case bytes.HasPrefix(data, []byte("\xff\xd8")):
		return "JPEG"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "TIFF"
	}
	return "unknown"
}
