package pdf

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// build applies the layout heuristics to the raw lines and returns the
// document.
func build(source string, raw *rawDoc, ignoreBookmarks bool) (*document.Document, error) {
	repairLigatures(raw.lines)
	lines := stripRunning(raw.lines)
	var marked []hline
	if len(raw.bookmarks) > 0 && !ignoreBookmarks {
		marked = placeBookmarks(lines, raw.bookmarks, raw.pages)
	} else {
		marked = detectHeadings(lines)
	}
	blocks := paragraphs(marked)
	if len(blocks) == 0 {
		return nil, formats.Errorf(source, formats.ErrEmpty, "PDF has no text layer (scanned or image-only pages?)")
	}
	labels, printed := pageLabels(raw)
	title, entity, period := docContext(raw.title, lines, marked)
	return &document.Document{
		Source:       source,
		Format:       formats.PDF,
		Title:        title,
		Entity:       entity,
		Period:       period,
		Blocks:       blocks,
		Pages:        raw.pages,
		PageLabels:   labels,
		PrintedPages: printed,
	}, nil
}

// pageLabels merges the labels the file declares with the page numbers
// printed on the pages: a declared label wins unless it is only the page's
// index ("7" on page 7), which many producers write for every page.
func pageLabels(raw *rawDoc) (map[int]string, map[int]bool) {
	labels := map[int]string{}
	printed := map[int]bool{}
	for p, l := range printedLabels(raw.lines) {
		labels[p], printed[p] = l, true
	}
	for p, l := range raw.labels {
		if l != strconv.Itoa(p) {
			labels[p], printed[p] = l, true
		}
	}
	if len(labels) == 0 {
		return nil, nil
	}
	return labels, printed
}

// hline is a line with its heading decision.
type hline struct {
	line
	level int // heading level, 0 for body text
}

var (
	digits    = regexp.MustCompile(`\d+`)
	romanOnly = regexp.MustCompile(`(?i)^[ivxlcdm]+$`)
	// pageNumberish matches normalised keys that are only a page number:
	// "#", "page #", "# of #", "- # -", "page # / #".
	pageNumberish = regexp.MustCompile(`^(page |p\. ?|seite |- )?#( ?(of|/|von) ?#)?( -)?$`)
)

// runningKey normalises a line for header/footer comparison: case and
// spacing folded, every number replaced by "#", a lone roman numeral too.
func runningKey(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	if romanOnly.MatchString(s) {
		return "#"
	}
	return digits.ReplaceAllString(s, "#")
}

// edgeLines is how many lines at the top and at the bottom of a page are
// considered as running header or footer.
const edgeLines = 2

// stripRunning removes running headers and footers: lines among the first
// or last two of a page whose normalised text (numbers ignored) recurs at
// the page edges on at least 3 pages and 40% of the pages with text, or
// which are only a page number ("7", "Page 3 of 12", "- iv -") on at least
// two pages. A page all of whose lines are such lines keeps them all: the
// filter never removes a page's only text.
func stripRunning(lines []line) []line {
	byPage := groupByPage(lines)
	if len(byPage) < 2 {
		return lines
	}
	counts := map[string]int{}
	for _, g := range byPage {
		seen := map[string]bool{}
		for _, i := range edges(g) {
			k := runningKey(lines[i].text)
			if !seen[k] {
				seen[k] = true
				counts[k]++
			}
		}
	}
	need := max(3, int(math.Ceil(0.4*float64(len(byPage)))))
	drop := map[int]bool{}
	for _, g := range byPage {
		for _, i := range edges(g) {
			k := runningKey(lines[i].text)
			if counts[k] >= need || counts[k] >= 2 && pageNumberish.MatchString(k) {
				drop[i] = true
			}
		}
	}
	// A page whose every line looks running (one title or "Page 1 of 3"
	// per page, a blank page with only its header) keeps them: they are
	// the page's text, and dropping them all left documents made of such
	// pages with no text at all, reported as scanned (D14).
	for _, g := range byPage {
		if !slices.ContainsFunc(g, func(i int) bool { return !drop[i] }) {
			for _, i := range g {
				delete(drop, i)
			}
		}
	}
	out := make([]line, 0, len(lines))
	for i, l := range lines {
		if !drop[i] {
			out = append(out, l)
		}
	}
	return out
}

// groupByPage returns, per page in order, the indexes of its lines.
func groupByPage(lines []line) [][]int {
	var groups [][]int
	for i, l := range lines {
		if i == 0 || l.page != lines[i-1].page {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], i)
	}
	return groups
}

func edges(g []int) []int {
	if len(g) <= 2*edgeLines {
		return g
	}
	out := append([]int{}, g[:edgeLines]...)
	return append(out, g[len(g)-edgeLines:]...)
}

// matchKey folds a heading for comparison with bookmark titles: letters
// and digits only, lower case.
func matchKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// placeBookmarks turns outline entries into headings. On the bookmark's
// page the first line (or two or three consecutive lines, for wrapped
// titles) from the current position whose letters and digits equal the
// title's becomes the heading; when no line matches, the heading is
// inserted before the next unclaimed line of that page. Bookmarks without
// a page destination are matched anywhere after the previous heading, and
// dropped when nothing matches.
func placeBookmarks(lines []line, bms []bookmark, pages int) []hline {
	out := make([]hline, len(lines))
	for i, l := range lines {
		out[i] = hline{line: l}
	}
	dropped := make([]bool, len(lines))
	inserts := map[int][]hline{} // headings to insert before line index
	pageStart := map[int]int{}   // first line index of each page
	pageEnd := map[int]int{}
	for i, l := range lines {
		if _, ok := pageStart[l.page]; !ok {
			pageStart[l.page] = i
		}
		pageEnd[l.page] = i + 1
	}
	cursor := map[int]int{} // per page: next line that may match
	globalPos := 0
	// Outline order is normally document order; sort by page (stable) so a
	// misordered outline still lands each entry on its page.
	ordered := append([]bookmark(nil), bms...)
	sort.SliceStable(ordered, func(a, b int) bool {
		pa, pb := ordered[a].page, ordered[b].page
		if pa == 0 || pb == 0 {
			return false
		}
		return pa < pb
	})
	// match finds the line(s) from..to whose letters and digits spell
	// key, allowing a section number the title leaves out ("4.1 ASN.1
	// schema functions" for the bookmark "ASN.1 schema functions"). It
	// returns the first line, the number of lines and whether the line
	// carried such a number.
	match := func(from, to int, key string) (int, int, bool) {
		for k := from; k < to; k++ {
			first := lines[k].text
			variants := []string{matchKey(first)}
			if loc := numbered.FindStringSubmatchIndex(first); loc != nil {
				variants = append(variants, matchKey(first[loc[3]:]))
			}
			for vi, v := range variants {
				joined := v
				for m := 1; m <= 3 && k+m <= to; m++ {
					if dropped[k+m-1] || out[k+m-1].level > 0 {
						break
					}
					if m > 1 {
						joined += matchKey(lines[k+m-1].text)
					}
					if joined == key {
						return k, m, vi == 1
					}
					if !strings.HasPrefix(key, joined) {
						break
					}
				}
			}
		}
		return -1, 0, false
	}
	for _, bm := range ordered {
		key := matchKey(bm.title)
		if bm.page < 1 || bm.page > pages {
			if bm.page != 0 || key == "" {
				continue
			}
			if k, m, num := match(globalPos, len(lines), key); k >= 0 {
				claim(out, dropped, k, m, num, bm)
				globalPos = k + m
			}
			continue
		}
		start, ok := pageStart[bm.page]
		if !ok {
			// Page without text: the heading still marks where it starts.
			pos := sort.Search(len(lines), func(i int) bool { return lines[i].page > bm.page })
			inserts[pos] = append(inserts[pos], hline{line: line{page: bm.page, text: bm.title}, level: bm.level})
			continue
		}
		from := max(start, cursor[bm.page])
		if k, m, num := match(from, pageEnd[bm.page], key); k >= 0 && key != "" {
			claim(out, dropped, k, m, num, bm)
			cursor[bm.page] = k + m
			globalPos = max(globalPos, k+m)
			continue
		}
		inserts[from] = append(inserts[from], hline{line: line{page: bm.page, text: bm.title}, level: bm.level})
	}
	result := make([]hline, 0, len(lines)+len(bms))
	for i := 0; i <= len(lines); i++ {
		result = append(result, inserts[i]...)
		if i < len(lines) && !dropped[i] {
			result = append(result, out[i])
		}
	}
	return result
}

// claim makes lines k..k+m-1 the heading for bm. The heading text is the
// bookmark title, or the printed text when that adds a section number.
func claim(out []hline, dropped []bool, k, m int, withNumber bool, bm bookmark) {
	text := bm.title
	if withNumber {
		parts := make([]string, 0, m)
		for j := k; j < k+m; j++ {
			parts = append(parts, out[j].text)
		}
		text = strings.Join(parts, " ")
	}
	out[k].level = bm.level
	out[k].text = text
	for j := k + 1; j < k+m; j++ {
		dropped[j] = true
	}
}

var (
	// numbered matches "7. Title", "7.1 Title", "A.2 Title" and captures
	// the number.
	numbered = regexp.MustCompile(`^((?:\d{1,3}|[A-Z])(?:\.\d{1,3}){0,5})\.?\s+\S`)
	// namedPart matches "Appendix A", "Chapter 3", "Annex II" headings.
	namedPart = regexp.MustCompile(`(?i)^(appendix|annex|chapter|part|schedule|anhang|kapitel|annexe|chapitre)\s+[\dA-Z]`)
)

var (
	// itemHeading matches the items of SEC forms: "Item 7. Management's
	// Discussion ...", "ITEM 1A. RISK FACTORS".
	itemHeading = regexp.MustCompile(`(?i)^item\s+\d{1,2}[A-C]?\.?(?:\s|$)`)
	partHeading = regexp.MustCompile(`(?i)^part\s+(?:[IV]{1,4}|\d)\b\.?\s*(?:[-–—:]|$|[A-Z])`)
)

// boldHeadingShape is the shape of an unnumbered bold heading at body
// size: at most 12 words, starting with a capital, not a sentence.
func boldHeadingShape(s string) bool {
	words := strings.Fields(s)
	if len(words) == 0 || len(words) > 12 || !headingShape(s) {
		return false
	}
	r := []rune(s)[0]
	if !unicode.IsUpper(r) {
		return false
	}
	if strings.HasSuffix(s, ".") && !itemHeading.MatchString(s) || strings.HasSuffix(s, ":") {
		return false
	}
	// Figures in a bold table row ("Total 1,234 5,678", "Effective tax
	// rate 6.8% 12.2%", "Q2 2023 GAAP* Non-GAAP*").
	figures := 0
	for _, w := range words {
		if strings.ContainsFunc(w, unicode.IsDigit) {
			figures++
		}
	}
	return figures < 2
}

// endsInNumber matches a contents row ending in its page number.
var endsInNumber = regexp.MustCompile(`\s\d{1,4}$`)

// nextBold reports whether the line after i on the same page is bold too
// (a bold paragraph or a run of bold table rows rather than a heading).
func nextBold(lines []line, i int) bool {
	if i+1 >= len(lines) || lines[i+1].page != lines[i].page {
		return false
	}
	n := lines[i+1]
	return n.bold && math.Abs(n.size-lines[i].size) < 0.3 && !boldHeadingShape(n.text)
}

// numberDepth returns the depth of a heading number ("7" -> 1, "7.1" ->
// 2) or 0 when the line is not numbered.
func numberDepth(s string) int {
	m := numbered.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	return strings.Count(m[1], ".") + 1
}

// headingShape reports whether a line could be a heading at all: short,
// not ending like a sentence fragment, with letters.
func headingShape(s string) bool {
	words := len(strings.Fields(s))
	if words == 0 || words > 16 || len(s) > 140 {
		return false
	}
	if strings.HasSuffix(s, ",") || strings.HasSuffix(s, ";") {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters >= 2
}

func isUpperText(s string) bool {
	up, low := 0, 0
	for _, r := range s {
		if unicode.IsUpper(r) {
			up++
		} else if unicode.IsLower(r) {
			low++
		}
	}
	return up >= 3 && low == 0
}

// bodySize is the font size of most of the text: the median over
// characters of the sampled line sizes.
func bodySize(lines []line) float64 {
	type sz struct {
		size float64
		n    int
	}
	var all []sz
	total := 0
	for _, l := range lines {
		if l.size > 0 {
			n := len([]rune(l.text))
			all = append(all, sz{l.size, n})
			total += n
		}
	}
	if total == 0 {
		return 0
	}
	sort.Slice(all, func(i, j int) bool { return all[i].size < all[j].size })
	acc := 0
	for _, s := range all {
		acc += s.n
		if acc*2 >= total {
			return s.size
		}
	}
	return all[len(all)-1].size
}

// detectHeadings marks headings when the file has no outline. A line is a
// heading when it is heading-shaped (short, no trailing comma) and
//   - its font is at least 15% larger than the body text, or
//   - at least 5% larger and numbered, in capitals, bold or named
//     ("Appendix A"), or
//   - bold, body-sized and numbered ("7.1 Interest").
//
// Consecutive heading lines of the same size on one page (a wrapped title)
// merge into one. The level comes from the numbering depth ("7." -> 1,
// "7.1" -> 2); unnumbered headings take the level most common among
// numbered headings of the same size, else the rank of their size among
// heading sizes (largest = 1).
func detectHeadings(lines []line) []hline {
	out := make([]hline, len(lines))
	for i, l := range lines {
		out[i] = hline{line: l}
	}
	body := bodySize(lines)
	if body == 0 {
		return out
	}
	isHead := make([]bool, len(lines))
	for i := range lines {
		isHead[i] = isHeadingLine(lines, i, body)
	}
	mergeWrappedHeadings(lines, out, isHead)
	levels := numberedLevelsBySize(lines, out, isHead)
	for i := range lines {
		if isHead[i] {
			out[i].level = levels.level(out[i].text, lines[i].size)
		}
	}
	res := out[:0]
	for _, h := range out {
		if h.level >= 0 {
			res = append(res, h)
		}
	}
	return res
}

// isHeadingLine reports whether line i is a heading by detectHeadings's
// rules, body being the font size of the body text.
func isHeadingLine(lines []line, i int, body float64) bool {
	l := lines[i]
	if l.size == 0 || l.unsure || !headingShape(l.text) {
		return false
	}
	num := numberDepth(l.text) > 0
	ratio := l.size / body
	// Each case is one way to be a heading; a line that meets none is
	// body text.
	switch {
	case ratio >= 1.15:
	case ratio >= 1.05 && (num || isUpperText(l.text) || l.bold || namedPart.MatchString(l.text)):
	case ratio >= 0.95 && l.bold && (num || namedPart.MatchString(l.text)) && !strings.HasSuffix(l.text, "."):
	case ratio >= 0.95 && (itemHeading.MatchString(l.text) || partHeading.MatchString(l.text)) &&
		len(strings.Fields(l.text)) <= 14 && !endsInNumber.MatchString(l.text):
		// "Item 1. Business", "PART II" (not a contents row "Item 1.
		// Business 3").
	case ratio >= 0.95 && l.bold && boldHeadingShape(l.text) && !nextBold(lines, i):
		// A short bold line over body text: "Results of Operations",
		// a table's title.
	default:
		return false
	}
	return !junkHeading(l.text)
}

// mergeWrappedHeadings joins to each heading the up to two heading lines
// that continue it (a wrapped title): their text is appended to out[i],
// and they stop being headings and are marked merged away (level -1).
func mergeWrappedHeadings(lines []line, out []hline, isHead []bool) {
	for i := 0; i < len(lines); i++ {
		if !isHead[i] {
			continue
		}
		for j := i + 1; j < len(lines) && j <= i+2 && isHead[j] && continuesHeading(lines, i, j); j++ {
			out[i].text += " " + lines[j].text
			isHead[j] = false
			out[j].level = -1 // merged away
		}
	}
}

// continuesHeading reports whether heading line j, below the heading
// starting at line i, is the next line of the same title: same page and
// size, not numbered or named itself, not a repeat, and close below the
// line before it.
func continuesHeading(lines []line, i, j int) bool {
	return lines[j].page == lines[i].page &&
		math.Abs(lines[j].size-lines[i].size) < 0.3 && numberDepth(lines[j].text) == 0 &&
		!namedPart.MatchString(lines[j].text) && lines[j].text != lines[i].text &&
		lines[j].y < lines[i].y && lines[j-1].y-lines[j].y <= 1.6*lines[j].size
}

// sizeLevels is what levels the unnumbered headings of a file: per
// heading font size (rounded to half a point), how many numbered headings
// of that size have each level, and the heading sizes, largest first.
type sizeLevels struct {
	bySize map[float64]map[int]int
	sizes  []float64
}

// headingSizeKey rounds a font size to half a point.
func headingSizeKey(s float64) float64 { return math.Round(s*2) / 2 }

// numberedLevelsBySize counts the levels of the numbered headings (after
// merging, out's text) per heading size.
func numberedLevelsBySize(lines []line, out []hline, isHead []bool) sizeLevels {
	sl := sizeLevels{bySize: map[float64]map[int]int{}}
	for i := range lines {
		if !isHead[i] {
			continue
		}
		k := headingSizeKey(lines[i].size)
		if sl.bySize[k] == nil {
			sl.bySize[k] = map[int]int{}
			sl.sizes = append(sl.sizes, k)
		}
		if d := numberDepth(out[i].text); d > 0 {
			sl.bySize[k][d]++
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sl.sizes)))
	return sl
}

// level is the level of a heading with this text and font size: 1 for a
// part, 2 for an item, the numbering depth, else the level most common
// among numbered headings of its size, else the rank of its size (at most
// 6).
func (sl sizeLevels) level(text string, size float64) int {
	switch {
	case partHeading.MatchString(text):
		return 1
	case itemHeading.MatchString(text):
		return 2
	}
	if d := numberDepth(text); d > 0 {
		return min(d, 6)
	}
	k := headingSizeKey(size)
	best, bestN := 0, 0
	for lvl, n := range sl.bySize[k] {
		if n > bestN || n == bestN && lvl < best {
			best, bestN = lvl, n
		}
	}
	if best == 0 {
		best = sort.Search(len(sl.sizes), func(j int) bool { return sl.sizes[j] <= k }) + 1
	}
	return min(best, 6)
}

// paragraphs groups body lines into paragraph blocks. A new paragraph
// starts at a heading, a new page, a gap larger than 1.6 times the usual
// line pitch, a jump upwards (next column) or a font size change.
func paragraphs(lines []hline) []document.Block {
	pitch := linePitch(lines)
	var blocks []document.Block
	var cur []string
	curPage := 0
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, document.Block{Kind: document.Paragraph, Text: joinLines(cur), Page: curPage})
			cur = nil
		}
	}
	for i, l := range lines {
		if l.level > 0 {
			flush()
			blocks = append(blocks, document.Block{Kind: document.Heading, Level: l.level, Text: l.text, Page: l.page})
			continue
		}
		if len(cur) > 0 {
			p := lines[i-1]
			switch {
			case p.page != l.page, p.level > 0:
				flush()
			case p.y != 0 && l.y != 0 && (l.y > p.y+1 || pitch > 0 && p.y-l.y > 1.6*pitch):
				flush()
			case p.size > 0 && l.size > 0 && math.Abs(p.size-l.size) > 1.5:
				flush()
			}
		}
		if len(cur) == 0 {
			curPage = l.page
		}
		cur = append(cur, l.text)
	}
	flush()
	return blocks
}

// linePitch is the median distance between consecutive baselines of
// same-size lines on a page.
func linePitch(lines []hline) float64 {
	var d []float64
	for i := 1; i < len(lines); i++ {
		p, l := lines[i-1], lines[i]
		if p.page == l.page && p.y > l.y && l.y != 0 && math.Abs(p.size-l.size) < 0.5 {
			d = append(d, p.y-l.y)
		}
	}
	if len(d) == 0 {
		return 0
	}
	sort.Float64s(d)
	return d[len(d)/2]
}

// joinLines joins the lines of a paragraph with spaces; a line ending in a
// hyphen after a letter joins the next without a space (PDFium already
// removed the hyphens it knows to be soft, so this one is kept).
func joinLines(ls []string) string {
	var b strings.Builder
	for i, s := range ls {
		if i > 0 {
			prev := ls[i-1]
			if !(strings.HasSuffix(prev, "-") && len(prev) > 1 && unicode.IsLetter(rune(prev[len(prev)-2]))) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(s)
	}
	return b.String()
}
