package pdf

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/docmind/docmind/formats"
	pdfium "github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
)

// rawDoc is what PDFium gives us, before layout heuristics.
type rawDoc struct {
	title     string
	pages     int
	labels    map[int]string
	bookmarks []bookmark
	lines     []line
	// loaded counts the pages that loaded (failed pages are skipped), and
	// unread lists the others (1-based).
	loaded int
	unread []int
}

// bookmark is one outline entry, flattened.
type bookmark struct {
	title string
	level int // 1 = top of the outline
	page  int // 1-based; 0 when the bookmark has no page destination
}

// line is one text line as PDFium laid it out.
type line struct {
	page int // 1-based
	text string
	// size is the font size in points (median of a few sampled
	// characters); 0 when unknown.
	size float64
	// y is the baseline of the first character, in points from the page
	// bottom; fromTop is the distance from the page top.
	y, fromTop float64
	bold       bool
	// unsure is true for a line OCR read with low confidence (text in a
	// chart, a logo, a stamp): it is never a heading
	unsure bool
}

// extract opens the document and reads metadata, outline and the lines of
// every page that loads. more, when not nil, lends idle PDFium instances
// to read pages alongside inst (see readPages).
func extract(ctx context.Context, inst pdfium.Pdfium, source string, data []byte, more lender) (*rawDoc, error) {
	od, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return nil, openError(source, err)
	}
	doc := od.Document
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc})

	pc, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil || pc.PageCount <= 0 {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "damaged PDF: no readable pages")
	}
	raw := &rawDoc{pages: pc.PageCount}
	if m, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Title"}); err == nil {
		raw.title = cleanText(m.Value)
	}
	if bm, err := inst.GetBookmarks(&requests.GetBookmarks{Document: doc}); err == nil {
		raw.bookmarks = flattenBookmarks(bm.Bookmarks, 1, nil, 0)
	}
	for i := 0; i < raw.pages; i++ {
		l, err := inst.FPDF_GetPageLabel(&requests.FPDF_GetPageLabel{Document: doc, Page: i})
		if err == nil && strings.TrimSpace(l.Label) != "" {
			if raw.labels == nil {
				raw.labels = map[int]string{}
			}
			raw.labels[i+1] = strings.TrimSpace(l.Label)
		}
	}
	pages, err := readPages(ctx, inst, doc, source, data, raw.pages, more)
	if err != nil {
		return nil, err
	}
	for i, p := range pages {
		if !p.ok {
			raw.unread = append(raw.unread, i+1)
			continue
		}
		raw.loaded++
		raw.lines = append(raw.lines, p.lines...)
	}
	if raw.loaded == 0 {
		return nil, formats.Errorf(source, formats.ErrCorrupt, "damaged PDF: none of its %d pages could be read", raw.pages)
	}
	return raw, nil
}

// maxBookmarks bounds the outline walk (outlines can be cyclic or huge in
// broken files).
const maxBookmarks = 10000

func flattenBookmarks(bs []responses.GetBookmarksBookmark, level int, out []bookmark, depth int) []bookmark {
	if depth > 32 {
		return out
	}
	for _, b := range bs {
		if len(out) >= maxBookmarks {
			return out
		}
		page := 0
		if b.DestInfo != nil {
			page = b.DestInfo.PageIndex + 1
		} else if b.ActionInfo != nil && b.ActionInfo.DestInfo != nil {
			page = b.ActionInfo.DestInfo.PageIndex + 1
		}
		if t := cleanText(b.Title); t != "" {
			out = append(out, bookmark{title: t, level: level, page: page})
		}
		out = flattenBookmarks(b.Children, level+1, out, depth+1)
	}
	return out
}

// pageLines returns the text lines of page i (0-based), or ok=false when
// the page cannot be loaded.
func pageLines(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (lines []line, ok bool) {
	pg, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return nil, false
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: pg.Page})
	page := requests.Page{ByReference: &pg.Page}
	height := 0.0
	if h, err := inst.FPDF_GetPageHeight(&requests.FPDF_GetPageHeight{Page: page}); err == nil {
		height = h.Height
	}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return nil, false
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cc, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || cc.Count <= 0 {
		return nil, err == nil
	}
	gt, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: cc.Count})
	if err != nil {
		return nil, true
	}
	runes := []rune(strings.TrimRight(gt.Text, "\x00"))
	// FPDFText_GetText gives one UTF-16 unit per character index; when the
	// rune count matches (no surrogate pairs) rune i is character i and
	// fonts can be sampled. Otherwise the page has text but no font info.
	aligned := len(runes) == cc.Count
	if !aligned && len(runes) < cc.Count {
		// FPDFText_GetText leaves out characters without Unicode (ligature
		// glyphs missing from the font's ToUnicode map); read the page
		// character by character so that they can be repaired and the
		// fonts sampled.
		runes, aligned = pageRunes(inst, tp.TextPage, cc.Count)
	}
	if aligned {
		markLigatures(inst, tp.TextPage, runes)
	}
	start := 0
	emit := func(end int) {
		text := cleanText(string(runes[start:end]))
		if text == "" {
			return
		}
		l := line{page: i + 1, text: text}
		if aligned {
			sampleFont(inst, tp.TextPage, runes, start, end, height, &l)
		}
		lines = append(lines, l)
	}
	for j, r := range runes {
		if r == '\n' {
			emit(j)
			start = j + 1
		}
	}
	emit(len(runes))
	return lines, true
}

// sampleFont reads the font size at up to three characters of the line
// (first, middle and last visible ones), the baseline of the first and
// whether the first and middle ones are bold.
func sampleFont(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune, start, end int, height float64, l *line) {
	var idx []int
	for j := start; j < end; j++ {
		if r := runes[j]; r > ' ' && r != '\ufffe' {
			idx = append(idx, j)
		}
	}
	if len(idx) == 0 {
		return
	}
	picks := []int{idx[0], idx[len(idx)/2], idx[len(idx)-1]}
	var sizes []float64
	bold := 0
	for k, j := range picks {
		if fs, err := inst.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: j}); err == nil && fs.FontSize > 0 {
			sizes = append(sizes, fs.FontSize)
		}
		if k < 2 {
			if fw, err := inst.FPDFText_GetFontWeight(&requests.FPDFText_GetFontWeight{TextPage: tp, Index: j}); err == nil && fw.FontWeight >= 600 {
				bold++
			} else if fi, err := inst.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp, Index: j}); err == nil && boldFont(fi.FontName, fi.Flags) {
				// Fonts without a weight in their descriptor say it in
				// their name ("Arial-BoldMT") or flags (ForceBold).
				bold++
			}
		}
	}
	if len(sizes) > 0 {
		sort.Float64s(sizes)
		l.size = sizes[len(sizes)/2]
	}
	l.bold = bold == 2
	if o, err := inst.FPDFText_GetCharOrigin(&requests.FPDFText_GetCharOrigin{TextPage: tp, Index: idx[0]}); err == nil {
		l.y = o.Y
		if height > 0 {
			l.fromTop = height - o.Y
		}
	}
}

// pageRunes reads the n characters of a text page one by one, U+0000
// for those without Unicode; ok is false when a character cannot be read.
func pageRunes(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, n int) ([]rune, bool) {
	runes := make([]rune, n)
	for j := range runes {
		u, err := inst.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: j})
		if err != nil {
			return nil, false
		}
		r := rune(u.Unicode)
		if r >= 0xd800 && r < 0xe000 || r > unicode.MaxRune {
			r = '\ufffd'
		}
		runes[j] = r
	}
	return runes, true
}

// boldFont reports whether a font's name or descriptor flags say bold.
func boldFont(name string, flags int) bool {
	const forceBold = 1 << 18
	if flags&forceBold != 0 {
		return true
	}
	n := strings.ToLower(name)
	return strings.Contains(n, "bold") || strings.Contains(n, "black") || strings.Contains(n, "heavy") || strings.Contains(n, "semibold") || strings.Contains(n, "demi")
}

// cleanText normalises one line: PDFium's hyphenation marker U+FFFE is
// dropped between lower-case letters (a word broken at a line end) and
// becomes "-" elsewhere; control characters become spaces; runs of spaces
// collapse.
func cleanText(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\ufffe' || r == '\u0002':
			next := rune(0)
			if i+1 < len(rs) {
				next = rs[i+1]
			}
			if !(next >= 'a' && next <= 'z' || next > 0x7f && unicode.IsLower(next)) {
				b.WriteRune('-')
			}
		case r == '\u00ad':
		case r == ligGlyph || r == ligGap:
			b.WriteRune(r)
		case r < ' ' || r == 0x7f || r == '\ufeff':
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	return formats.CleanText(b.String())
}
