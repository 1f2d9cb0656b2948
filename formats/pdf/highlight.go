package pdf

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/docmind/docmind/formats"
	pdfium "github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// Highlights are where quotes occur on a rendered page, in the pixels of
// the PNG RenderPage returns for the same page and dpi.
type Highlights struct {
	// DPI is the resolution the page renders at (FitDPI: lower than the
	// one asked for when the page is too large for it).
	DPI int `json:"dpi"`
	// Width and Height are the rendered page's size in pixels.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Rects cover the characters of every occurrence of the quotes, one
	// rectangle per line of text, in pixels from the page's top left.
	Rects []Rect `json:"rects"`
	// Found counts the quotes found on the page (wholly, or a part of at
	// least minPartial letters where a quote runs on to another page).
	Found int `json:"found"`
}

// Rect is a rectangle in pixels from the top left corner.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Highlight limits.
const (
	// maxHighlightRects bounds the rectangles of one answer.
	maxHighlightRects = 500
	// minPartial is the fewest letters and digits of a quote's start or
	// end that count as the quote found on a page it only begins or ends
	// on.
	minPartial = 16
)

// Highlight finds quotes on page n (1-based) of a PDF and returns the
// rectangles PDFium gives for their characters (FPDFText_CountRects,
// FPDFText_GetRect), mapped to the pixels of the page rendered at dpi.
// Quotes are matched on their letters and digits alone, case folded, so
// that the line breaks, hyphenation and spacing the text extraction
// changed do not matter. A quote that runs on to the next or previous
// page is highlighted where its start or end is on this page. A page
// without a text layer (a scan) is read by OCR when Tesseract is there,
// and the quotes are found among its words.
func (r *Reader) Highlight(ctx context.Context, source string, data []byte, n, dpi int, quotes []string) (h *Highlights, err error) {
	defer formats.Recover(source, &err)
	inst, doc, done, err := r.openPage(ctx, source, data, n)
	if err != nil {
		return nil, err
	}
	defer done()
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: n - 1})
	if err != nil {
		return nil, fmt.Errorf("pdf: %s: load page %d: %w", source, n, err)
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	page := requests.Page{ByReference: &pg.Page}
	size, err := inst.GetPageSize(&requests.GetPageSize{Page: page})
	if err != nil {
		return nil, fmt.Errorf("pdf: %s: page %d size: %w", source, n, err)
	}
	// RenderPage's bitmap: the page size at the resolution it renders
	// at, rounded up.
	if dpi, err = FitDPI(size.Width, size.Height, dpi); err != nil {
		return nil, fmt.Errorf("pdf: %s: page %d: %w", source, n, err)
	}
	scale := float64(dpi) / 72
	h = &Highlights{DPI: dpi, Width: int(math.Ceil(size.Width * scale)), Height: int(math.Ceil(size.Height * scale)), Rects: []Rect{}}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return ocrHighlight(ctx, inst, doc, n, dpi, quotes, h) // no text layer: read by OCR
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || cc.Count <= 0 {
		return ocrHighlight(ctx, inst, doc, n, dpi, quotes, h)
	}
	runes, ok := textRunes(inst, tp.TextPage, cc.Count)
	if !ok {
		return nil, fmt.Errorf("pdf: %s: page %d: the text cannot be read", source, n)
	}
	text := foldText(runes)
	for _, q := range quotes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		spans := text.find(foldText([]rune(q)).letters)
		if len(spans) > 0 {
			h.Found++
		}
		for _, sp := range spans {
			for _, rc := range charRects(inst, tp.TextPage, page, sp[0], sp[1]-sp[0], h.Width, h.Height) {
				if len(h.Rects) >= maxHighlightRects {
					return h, nil
				}
				h.Rects = append(h.Rects, rc)
			}
		}
	}
	return h, nil
}

// textRunes returns the n characters of a text page, rune i for
// character i: in one call (FPDFText_GetText) when that gives one rune
// per character, else character by character (pageRunes).
func textRunes(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, n int) ([]rune, bool) {
	gt, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: 0, Count: n})
	if err == nil {
		if runes := []rune(strings.TrimRight(gt.Text, "\x00")); len(runes) == n {
			return runes, true
		}
	}
	return pageRunes(inst, tp, n)
}

// folded is text reduced to its letters and digits, case folded and
// compatibility-decomposed (ligatures become their letters), with the
// character index on the page each folded rune came from.
type folded struct {
	letters []rune
	char    []int
}

// foldText folds runes; rune i is character i of the page.
func foldText(runes []rune) folded {
	var f folded
	for i, r := range runes {
		for _, d := range norm.NFKD.String(string(r)) {
			if !unicode.IsLetter(d) && !unicode.IsDigit(d) {
				continue
			}
			f.letters = append(f.letters, unicode.ToLower(d))
			f.char = append(f.char, i)
		}
	}
	return f
}

// find returns the character spans [start, end) of the page where q
// occurs; when it does not occur whole, the longest start or end of q of
// at least minPartial letters that ends or starts the page's text (a
// quote running on to another page).
func (f folded) find(q []rune) [][2]int {
	if len(q) == 0 {
		return nil
	}
	hay := string(f.letters)
	needle := string(q)
	var spans [][2]int
	// Offsets below are in runes: the folded text is indexed by rune.
	runeAt := runeIndex(hay)
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			break
		}
		start := runeAt[from+i]
		spans = append(spans, f.span(start, start+len(q)))
		from += i + len(needle)
	}
	if len(spans) > 0 {
		return spans
	}
	// A quote that begins on this page and runs on: its longest start
	// that ends the page.
	for k := len(q) - 1; k >= minPartial; k-- {
		if len(f.letters) >= k && string(f.letters[len(f.letters)-k:]) == string(q[:k]) {
			return [][2]int{f.span(len(f.letters)-k, len(f.letters))}
		}
	}
	// A quote that began on the page before: its longest end that starts
	// this page's text.
	for k := len(q) - 1; k >= minPartial; k-- {
		if len(f.letters) >= k && string(f.letters[:k]) == string(q[len(q)-k:]) {
			return [][2]int{f.span(0, k)}
		}
	}
	return nil
}

// span maps folded runes [i, j) to page characters [start, end).
func (f folded) span(i, j int) [2]int { return [2]int{f.char[i], f.char[j-1] + 1} }

// runeIndex maps each byte offset of s that starts a rune to the rune's
// index.
func runeIndex(s string) map[int]int {
	m := make(map[int]int, len(s))
	i := 0
	for off := range s {
		m[off] = i
		i++
	}
	m[len(s)] = i
	return m
}

// charRects returns the rectangles PDFium gives for count characters from
// start, in the pixels of a w×h rendering of the page.
func charRects(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, page requests.Page, start, count, w, h int) []Rect {
	cr, err := inst.FPDFText_CountRects(&requests.FPDFText_CountRects{TextPage: tp, StartIndex: start, Count: count})
	if err != nil || cr.Count <= 0 {
		return nil
	}
	var out []Rect
	for i := 0; i < cr.Count; i++ {
		gr, err := inst.FPDFText_GetRect(&requests.FPDFText_GetRect{TextPage: tp, Index: i})
		if err != nil {
			continue
		}
		x0, y0, ok0 := toDevice(inst, page, w, h, gr.Left, gr.Top)
		x1, y1, ok1 := toDevice(inst, page, w, h, gr.Right, gr.Bottom)
		if !ok0 || !ok1 {
			continue
		}
		rc := Rect{X: min(x0, x1), Y: min(y0, y1), W: abs(x1 - x0), H: abs(y1 - y0)}
		if rc.W > 0 && rc.H > 0 {
			out = append(out, rc)
		}
	}
	return out
}

// toDevice maps a point in page coordinates (points, origin bottom left)
// to the pixels of a w×h rendering, as RenderPage draws it (no rotation
// beyond the page's own).
func toDevice(inst pdfium.Pdfium, page requests.Page, w, h int, x, y float64) (int, int, bool) {
	d, err := inst.FPDF_PageToDevice(&requests.FPDF_PageToDevice{Page: page, SizeX: w, SizeY: h, PageX: x, PageY: y})
	if err != nil {
		return 0, 0, false
	}
	return d.DeviceX, d.DeviceY, true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
