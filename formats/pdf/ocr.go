package pdf

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats/ocr"
	pdfium "github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// ocrPages reads by OCR (the engine ctx carries, ocr.FromContext) the
// pages whose text layer is empty or garbage (ocr.NeedsOCR) and that hold
// text, an image or a form (not blank pages), or every page in mode
// always: each page is rendered at the engine's DPI and its lines
// replace the page's text layer, with their positions in points so that
// the layout heuristics apply to them as to any page. Pages that could
// not be read (no Tesseract, OCR off, Tesseract failed) are counted in
// the stats with the reason.
func ocrPages(ctx context.Context, inst pdfium.Pdfium, source string, data []byte, raw *rawDoc) (st document.OCRStats, err error) {
	e := ocr.FromContext(ctx)
	text := map[int]*strings.Builder{}
	for _, l := range raw.lines {
		if text[l.page] == nil {
			text[l.page] = &strings.Builder{}
		}
		text[l.page].WriteString(l.text + " ")
	}
	var cand []int
	for p := 1; p <= raw.pages; p++ {
		if slices.Contains(raw.unread, p) {
			continue
		}
		if t := text[p]; e.Mode() == ocr.Always || t == nil || ocr.NeedsOCR(t.String()) {
			cand = append(cand, p)
		}
	}
	if len(cand) == 0 {
		return st, nil
	}
	od, oerr := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if oerr != nil {
		st.Needed, st.Reason = len(cand), "the PDF could not be opened again to render its pages"
		return st, nil
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: od.Document})
	// A blank page, or one drawn with lines alone, has nothing to read.
	var need []int
	for _, p := range cand {
		if e.Mode() == ocr.Always || hasContent(inst, od.Document, p) {
			need = append(need, p)
		}
	}
	if len(need) == 0 {
		return st, nil
	}
	if err := e.Available(); err != nil {
		st.Needed, st.Reason = len(need), err.Error()
		return st, nil
	}
	start := time.Now()
	defer func() { st.Time = time.Since(start) }()
	ocrd := map[int][]line{}
	e.Progress(source, 0, len(need))
	for i, p := range need {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if i > 0 {
			e.Progress(source, i, len(need))
		}
		lines, err := ocrPage(ctx, inst, od.Document, p, e)
		if err != nil {
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			st.Needed++
			st.Reason = err.Error()
			continue
		}
		st.Pages++
		if len(lines) > 0 || text[p] == nil || ocr.NeedsOCR(text[p].String()) {
			ocrd[p] = lines
		}
	}
	e.Progress(source, len(need), len(need))
	if len(ocrd) > 0 {
		kept := raw.lines[:0:0]
		for _, l := range raw.lines {
			if _, replaced := ocrd[l.page]; !replaced {
				kept = append(kept, l)
			}
		}
		// a scan's scale says nothing of its type's size in points:
		// an OCR'd page's body text is taken to be the size of the
		// body text of the pages read from their text layer, so that
		// headings are found by the same rules on both
		textBody := bodySize(kept)
		for _, ls := range ocrd {
			if pageBody := bodySize(ls); textBody > 0 && pageBody > 0 {
				for i := range ls {
					ls[i].size *= textBody / pageBody
				}
			}
			kept = append(kept, ls...)
		}
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].page < kept[j].page })
		raw.lines = kept
	}
	return st, nil
}

// hasContent reports whether page p (1-based) holds text, an image or a
// form (which may hold either); a page that cannot be read counts as
// having content.
func hasContent(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, p int) bool {
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: p - 1})
	if err != nil {
		return true
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	page := requests.Page{ByReference: &pg.Page}
	n, err := inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return true
	}
	for i := 0; i < n.Count; i++ {
		o, err := inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: i})
		if err != nil {
			return true
		}
		t, err := inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject})
		if err != nil {
			return true
		}
		switch t.Type {
		case enums.FPDF_PAGEOBJ_TEXT, enums.FPDF_PAGEOBJ_IMAGE, enums.FPDF_PAGEOBJ_FORM:
			return true
		}
	}
	return false
}

// ocrPage renders page p (1-based) and reads its lines by OCR.
func ocrPage(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, p int, e *ocr.Engine) ([]line, error) {
	// a page too large for OCR's resolution renders at the lower one
	// FitDPI allows, as the page endpoint's renders do
	dpi, _, err := pageDPI(inst, doc, "", p, e.DPI())
	if err != nil {
		return nil, fmt.Errorf("page %d could not be rendered for OCR: %w", p, err)
	}
	png, err := renderPNG(inst, doc, p, dpi)
	if err != nil {
		return nil, fmt.Errorf("page %d could not be rendered for OCR: %w", p, err)
	}
	pages, err := e.Recognize(ctx, png)
	if err != nil {
		return nil, fmt.Errorf("page %d: %w", p, err)
	}
	if len(pages) == 0 {
		return nil, nil
	}
	pt := 72 / float64(dpi) // points per pixel
	pg := pages[0]
	var out []line
	bold := boldLines(png, pg)
	for i, l := range pg.Lines() {
		// Tesseract's box spans ascenders and descenders; the font size
		// is about 0.8 of it.
		h := l.TypeHeight
		if h == 0 {
			h = float64(l.Height)
		}
		size := h * pt * 0.8
		out = append(out, line{
			page:    p,
			text:    cleanText(l.Text),
			size:    size,
			y:       float64(pg.Height-l.Top-l.Height) * pt,
			fromTop: float64(l.Top) * pt,
			bold:    bold[i],
			unsure:  l.Conf < minHeadingConf,
		})
	}
	return out, nil
}

// renderPNG renders page n (1-based) of an open document as a PNG image
// at dpi dots per inch.
func renderPNG(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, n, dpi int) ([]byte, error) {
	out, err := inst.RenderToFile(&requests.RenderToFile{
		RenderPageInDPI: &requests.RenderPageInDPI{
			Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: n - 1}},
			DPI:  dpi,
		},
		OutputFormat: requests.RenderToFileOutputFormatPNG,
		OutputTarget: requests.RenderToFileOutputTargetBytes,
	})
	if err != nil {
		return nil, err
	}
	if out.ImageBytes == nil {
		return nil, fmt.Errorf("no image")
	}
	return *out.ImageBytes, nil
}

// ocrHighlight finds quotes on page n, which has no text layer, by OCR
// (the engine ctx carries): the page is rendered at the engine's DPI,
// read by Tesseract, and each quote's words are covered by one rectangle
// per OCR'd line, scaled to the pixels of the page at dpi. Without OCR it
// returns h unchanged (nothing to highlight).
func ocrHighlight(ctx context.Context, inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, n, dpi int, quotes []string, h *Highlights) (*Highlights, error) {
	e := ocr.FromContext(ctx)
	if e.Available() != nil {
		return h, nil
	}
	png, err := renderPNG(inst, doc, n, e.DPI())
	if err != nil {
		return h, nil
	}
	pages, err := e.Recognize(ctx, png)
	if err != nil || len(pages) == 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return h, nil
	}
	words := pages[0].Words
	// The page's text as runes, each mapped to its word.
	var runes []rune
	var wordOf []int
	for i, w := range words {
		for _, r := range w.Text + " " {
			runes = append(runes, r)
			wordOf = append(wordOf, i)
		}
	}
	text := foldText(runes)
	scale := float64(dpi) / float64(e.DPI())
	for _, q := range quotes {
		spans := text.find(foldText([]rune(q)).letters)
		if len(spans) > 0 {
			h.Found++
		}
		for _, sp := range spans {
			var cur *Rect
			lastLine := [3]int{-1}
			for wi := wordOf[sp[0]]; wi <= wordOf[sp[1]-1]; wi++ {
				w := words[wi]
				x, y := int(float64(w.Left)*scale), int(float64(w.Top)*scale)
				x2, y2 := int(math.Ceil(float64(w.Left+w.Width)*scale)), int(math.Ceil(float64(w.Top+w.Height)*scale))
				if line := [3]int{w.Block, w.Par, w.Line}; cur == nil || line != lastLine {
					if len(h.Rects) >= maxHighlightRects {
						return h, nil
					}
					h.Rects = append(h.Rects, Rect{X: x, Y: y, W: x2 - x, H: y2 - y})
					cur, lastLine = &h.Rects[len(h.Rects)-1], line
					continue
				}
				right, bottom := max(cur.X+cur.W, x2), max(cur.Y+cur.H, y2)
				cur.X, cur.Y = min(cur.X, x), min(cur.Y, y)
				cur.W, cur.H = right-cur.X, bottom-cur.Y
			}
		}
	}
	return h, nil
}

// boldLines tells, per line of pg (pg.Lines()), whether it is set in
// bold, which OCR does not report: its words' boxes hold much more ink
// than the page's body lines do (a bold stroke is about twice as wide;
// measured on the scanned filings and contract pages of
// formats/ocr/testdata: body lines 0.17–0.19 of their boxes dark,
// headings 0.27–0.41). Nil when the image does not decode.
func boldLines(pngData []byte, pg ocr.Page) []bool {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return nil
	}
	lines := pg.Lines()
	ink := make([]float64, len(lines))
	var body []float64
	for i, l := range lines {
		ink[i] = inkShare(img, image.Rect(l.Left, l.Top, l.Left+l.Width, l.Top+l.Height))
		if len([]rune(l.Text)) >= minBodyLine {
			body = append(body, ink[i])
		}
	}
	if len(body) < 3 {
		return make([]bool, len(lines)) // too little body text to compare with
	}
	slices.Sort(body)
	median := body[len(body)/2]
	out := make([]bool, len(lines))
	for i := range lines {
		out[i] = median > 0 && ink[i] >= boldInk*median
	}
	return out
}

// minHeadingConf is the least mean confidence (0-100) of an OCR'd line's
// words for it to be a heading: Tesseract reads body text and headings
// at 90 or more, and the text of charts and logos far lower.
const minHeadingConf = 70

// minBodyLine is the least characters of a line that measures the body
// text's ink; boldInk how much more ink than the body's median a bold line
// holds.
const (
	minBodyLine = 40
	boldInk     = 1.4
)

// inkShare is the share of dark pixels of img in r.
func inkShare(img image.Image, r image.Rectangle) float64 {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return 0
	}
	dark := 0
	switch m := img.(type) {
	case *image.Gray:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for _, v := range m.Pix[m.PixOffset(r.Min.X, y):m.PixOffset(r.Max.X, y)] {
				if v < 128 {
					dark++
				}
			}
		}
	case *image.NRGBA, *image.RGBA:
		pix, off := rgbaPix(m)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := pix[off(r.Min.X, y):off(r.Max.X, y)]
			for i := 0; i+2 < len(row); i += 4 {
				// the luma of color.GrayModel, on 8-bit values
				if (299*int(row[i])+587*int(row[i+1])+114*int(row[i+2]))/1000 < 128 {
					dark++
				}
			}
		}
	default:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y < 128 {
					dark++
				}
			}
		}
	}
	return float64(dark) / float64(r.Dx()*r.Dy())
}

// rgbaPix returns the pixels of an *image.NRGBA or *image.RGBA and their
// offset function.
func rgbaPix(img image.Image) ([]uint8, func(x, y int) int) {
	if m, ok := img.(*image.NRGBA); ok {
		return m.Pix, m.PixOffset
	}
	m := img.(*image.RGBA)
	return m.Pix, m.PixOffset
}
