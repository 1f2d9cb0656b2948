package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Default chunking parameters, in characters.
const (
	DefaultChunkSize = 1200
	DefaultOverlap   = 200
)

// SectionOptions controls how a document is split into sections.
type SectionOptions struct {
	// ChunkSize is the longest section text, in characters, before it is
	// split into chunks; 0 means DefaultChunkSize.
	ChunkSize int
	// Overlap is how many characters of text consecutive chunks share, at
	// least; 0 means DefaultOverlap, a negative value means none.
	Overlap int
	// KeepNumbers keeps leading section numbers ("9.3") in titles.
	KeepNumbers bool
	// Clauses makes every numbered clause found in paragraphs a section
	// of its own, nested by its number (see clauser). Off by default: on
	// CUAD's development rows it left evidence recall@5 as it was (0.654
	// -> 0.663) and lowered recall@1 (0.337 -> 0.298) and the offline
	// answers (jaccard eval qa, 12 -> 9 correct of 220).
	Clauses bool
	// NoTableRows leaves out the sections of kind table-row: by default
	// each headed row of a table of figures (flattened into text, or with
	// its cells apart) is also a section of its own (see withRows). A
	// spreadsheet's rows are sections already and get none.
	NoTableRows bool
}

func (o SectionOptions) normalised() SectionOptions {
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	switch {
	case o.Overlap == 0:
		o.Overlap = DefaultOverlap
	case o.Overlap < 0:
		o.Overlap = 0
	}
	if o.Overlap > o.ChunkSize/2 {
		o.Overlap = o.ChunkSize / 2
	}
	return o
}

// reSectionNumber matches a leading section number: "9.3 ", "7. ", "12) ",
// "Section 4.1 - ", "Article 7: ".
var reSectionNumber = regexp.MustCompile(`^(?i:(?:section|article|clause|§)\s*)?\d{1,3}(?:\.\d{1,3})*[.)]?(?:\s*[-–—:]\s*|\s+)`)

// StripSectionNumber removes a leading section number from a heading:
// "9.3 Late Payment Penalties" -> "Late Payment Penalties". A heading that
// is only a number is returned unchanged.
func StripSectionNumber(heading string) string {
	loc := reSectionNumber.FindStringIndex(heading)
	if loc == nil || loc[1] >= len(heading) {
		return heading
	}
	return strings.TrimSpace(heading[loc[1]:])
}

// group is the text under one heading.
type group struct {
	path   []string
	title  string
	blocks []document.Block
}

// Sections splits doc into sections at its headings, each with a title
// (the heading, see StripSectionNumber), the source, the pages it is on
// and a stable ID; long sections become overlapping chunks. Headings
// without text of their own produce no section. Text before the first
// heading is titled with the document's title, or the file name.
func Sections(doc *document.Document, opts SectionOptions) []schema.Section {
	if doc == nil {
		return nil
	}
	opts = opts.normalised()
	docTitle := DocTitle(doc)
	var out []schema.Section
	var turns [][]pageTurn // of each section of out
	seen := map[string]int{}
	for _, g := range groupBlocks(doc, opts) {
		if len(g.blocks) == 0 {
			continue
		}
		pathKey := groupKey(g.path, seen)
		for i, c := range chunkGroup(g, opts) {
			out = append(out, makeSection(doc, docTitle, g, pathKey, i, c))
			turns = append(turns, c.turns)
		}
	}
	ClassifyKinds(out, doc.Format)
	if !opts.NoTableRows && doc.Format != formats.XLSX && doc.Format != formats.CSV {
		// a spreadsheet's rows are sections already, with their headers
		out = withRows(doc, out, turns)
	}
	return out
}

// makeSection is chunk number i of group g, whose heading path key is
// pathKey.
func makeSection(doc *document.Document, docTitle string, g group, pathKey string, i int, c chunk) schema.Section {
	s := schema.Section{
		ID:      sectionID(doc.Source, pathKey, i),
		Title:   g.title,
		Path:    append([]string(nil), g.path...),
		Content: c.text,
		Source:  doc.Source,
		Page:    c.page,
		Chunk:   i,

		DocTitle:  docTitle,
		DocEntity: doc.Entity,
		DocPeriod: doc.Period,
	}
	if c.pageEnd > c.page {
		s.PageEnd = c.pageEnd
	}
	labelPages(doc, &s)
	return s
}

// labelPages sets s's printed page label from its pages (Page, PageEnd)
// where doc prints labels.
func labelPages(doc *document.Document, s *schema.Section) {
	s.PageLabel, s.PagePrinted = "", false
	if l, ok := doc.PageLabels[s.Page]; ok && s.Page > 0 {
		s.PageLabel = l
		s.PagePrinted = doc.PrintedPages[s.Page]
		if s.PageEnd > 0 {
			le, ok := doc.PageLabels[s.PageEnd]
			if s.PagePrinted && ok && doc.PrintedPages[s.PageEnd] {
				s.PageLabel = l + "–" + le
			} else {
				// The range renders as page indices.
				s.PagePrinted = false
			}
		}
	}
}

// groupKey is the key of a heading path in section ids: the path, and
// from its second group on the group's number among those with that path.
func groupKey(path []string, seen map[string]int) string {
	key := strings.Join(path, "\x1f")
	seen[key]++
	if n := seen[key]; n > 1 {
		key += "\x1f#" + strconv.Itoa(n)
	}
	return key
}

// DocTitle is the title sections give their document: its own title, or
// the file name without extension.
func DocTitle(doc *document.Document) string {
	title := doc.Title
	if title == "" {
		base := filepath.Base(doc.Source)
		title = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if title == "" || title == "." {
		title = "Document"
	}
	return title
}

func groupBlocks(doc *document.Document, opts SectionOptions) []group {
	fallback := DocTitle(doc)
	var groups []group
	cur := group{path: []string{fallback}, title: fallback}
	var stack []document.Block // open headings, outermost first
	cl := clauser{off: !opts.Clauses}
	for _, b := range doc.Blocks {
		for _, bl := range cl.block(b) {
			if bl.Kind != document.Heading {
				cur.blocks = append(cur.blocks, bl)
				continue
			}
			groups = append(groups, cur)
			stack, cur = headingGroup(stack, bl, opts)
		}
	}
	return append(groups, cur)
}

// headingGroup opens the group of heading bl under the open headings in
// stack (outermost first) and returns the headings then open.
func headingGroup(stack []document.Block, bl document.Block, opts SectionOptions) ([]document.Block, group) {
	for len(stack) > 0 && stack[len(stack)-1].Level >= bl.Level {
		stack = stack[:len(stack)-1]
	}
	stack = append(stack, bl)
	path := make([]string, len(stack))
	for i, h := range stack {
		path[i] = h.Text
	}
	title := bl.Text
	if !opts.KeepNumbers {
		title = StripSectionNumber(title)
		if title == bl.Text && len(stack) > 1 && reSectionNumber.MatchString(title+" ") {
			// A clause with a number and no title of its own ("1.5")
			// is titled by the clause it is in: "Definitions 1.5".
			title = StripSectionNumber(stack[len(stack)-2].Text) + " " + strings.TrimRight(title, ".)")
		}
	}
	return stack, group{path: path, title: title}
}

// sectionID hashes the source path, heading path and chunk index.
func sectionID(source, pathKey string, chunk int) string {
	h := sha256.New()
	h.Write([]byte(filepath.ToSlash(filepath.Clean(source))))
	h.Write([]byte{0})
	h.Write([]byte(pathKey))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(chunk)))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

type chunk struct {
	text          string
	page, pageEnd int
	// turns are where the text goes on to another page, in order.
	turns []pageTurn
}

// pageTurn is the byte offset in a chunk's text where its text from page
// Page starts.
type pageTurn struct {
	off, page int
}

// pageAt returns the page of the text at byte offset off of a chunk that
// starts on page first and turns pages at turns.
func pageAt(first int, turns []pageTurn, off int) int {
	p := first
	for _, t := range turns {
		if t.off > off {
			break
		}
		p = t.page
	}
	return p
}

// unit is a sentence (or a piece of an over-long one) of a block.
type unit struct {
	text  string
	runes int
	page  int
	block int
	// table marks a unit of a table block (a row).
	table bool
}

func chunkGroup(g group, opts SectionOptions) []chunk {
	total := 0
	for i, bl := range g.blocks {
		if i > 0 {
			total += 2
		}
		total += utf8.RuneCountInString(bl.Text)
	}
	if total <= opts.ChunkSize {
		return []chunk{joinBlocks(g.blocks)}
	}
	var out []chunk
	p := packer{opts: opts, emit: func(c chunk) error { out = append(out, c); return nil }}
	for bi, bl := range g.blocks {
		_ = p.addBlock(bl, bi)
	}
	_ = p.finish()
	return out
}

// joinBlocks is the one chunk of a group no longer than the chunk size.
func joinBlocks(blocks []document.Block) chunk {
	texts := make([]string, len(blocks))
	c := chunk{page: blocks[0].Page}
	off := 0
	for i, bl := range blocks {
		texts[i] = bl.Text
		c.pageEnd = max(c.pageEnd, bl.Page)
		if i > 0 {
			off += 2
			if bl.Page != blocks[i-1].Page {
				c.turns = append(c.turns, pageTurn{off, bl.Page})
			}
		}
		off += len(bl.Text)
	}
	c.text = strings.Join(texts, "\n\n")
	return c
}

// packer packs the units of a group into chunks of at most ChunkSize
// characters (a unit longer than that alone), consecutive chunks sharing
// at least Overlap characters of whole units. Units are added one at a
// time and a chunk is emitted as soon as the unit that does not fit in it
// arrives, so only the units of the chunk being filled are held.
type packer struct {
	opts   SectionOptions
	emit   func(chunk) error
	window []unit // the units from the start of the chunk being filled
}

// addBlock adds the units of block number bi of the group: its sentences
// (a table's rows), over-long ones split at word boundaries.
func (p *packer) addBlock(bl document.Block, bi int) error {
	var parts []string
	table := bl.Kind == document.Table
	if table {
		parts = strings.Split(bl.Text, "\n")
	} else {
		parts = textproc.Sentences(bl.Text)
	}
	for _, part := range parts {
		for _, piece := range splitLong(part, p.opts.ChunkSize) {
			if err := p.add(unit{text: piece, runes: utf8.RuneCountInString(piece), page: bl.Page, block: bi, table: table}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *packer) add(u unit) error {
	p.window = append(p.window, u)
	return p.pack(false)
}

// finish emits the chunks left.
func (p *packer) finish() error { return p.pack(true) }

// pack emits the chunks the window decides: every chunk that ends before
// a unit in the window, and at the end the rest.
func (p *packer) pack(end bool) error {
	for len(p.window) > 0 {
		us := p.window
		size, j := 0, 0
		for j < len(us) {
			n := us[j].runes
			if j > 0 {
				n += 2
			}
			if j > 0 && size+n > p.opts.ChunkSize {
				break
			}
			size += n
			j++
		}
		if j >= len(us) && !end {
			return nil // the chunk may take more units
		}
		if err := p.emit(joinUnits(us[:j])); err != nil {
			return err
		}
		if j >= len(us) {
			p.window = p.window[:0]
			return nil
		}
		// Start the next chunk far enough back to share Overlap characters.
		k, shared := j, 0
		for k > 1 && shared < p.opts.Overlap {
			k--
			shared += us[k].runes
		}
		if p.opts.Overlap == 0 {
			k = j
		}
		p.window = append(p.window[:0], us[k:]...)
	}
	return nil
}

func joinUnits(us []unit) chunk {
	var sb strings.Builder
	c := chunk{page: us[0].page}
	for i, u := range us {
		if i > 0 {
			switch {
			case u.block != us[i-1].block:
				sb.WriteString("\n\n")
			case u.table:
				sb.WriteString("\n")
			default:
				sb.WriteString(" ")
			}
		}
		if i > 0 && u.page != us[i-1].page {
			c.turns = append(c.turns, pageTurn{sb.Len(), u.page})
		}
		sb.WriteString(u.text)
		c.pageEnd = max(c.pageEnd, u.page)
	}
	c.text = sb.String()
	return c
}

// splitLong cuts text longer than limit characters at word boundaries.
func splitLong(text string, limit int) []string {
	if utf8.RuneCountInString(text) <= limit {
		return []string{text}
	}
	var out []string
	var cur strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		wl := utf8.RuneCountInString(w)
		if n > 0 && n+1+wl > limit {
			out = append(out, cur.String())
			cur.Reset()
			n = 0
		}
		for wl > limit { // a single enormous "word"
			r := []rune(w)
			out = append(out, string(r[:limit]))
			w = string(r[limit:])
			wl = utf8.RuneCountInString(w)
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += wl
	}
	if n > 0 {
		out = append(out, cur.String())
	}
	return out
}
