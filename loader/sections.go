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
	seen := map[string]int{}
	for _, g := range groupBlocks(doc, opts) {
		if len(g.blocks) == 0 {
			continue
		}
		pathKey := strings.Join(g.path, "\x1f")
		seen[pathKey]++
		if n := seen[pathKey]; n > 1 {
			pathKey += "\x1f#" + strconv.Itoa(n)
		}
		for i, c := range chunkGroup(g, opts) {
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
			if l, ok := doc.PageLabels[c.page]; ok && c.page > 0 {
				s.PageLabel = l
				s.PagePrinted = doc.PrintedPages[c.page]
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
			out = append(out, s)
		}
	}
	return out
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
	for _, bl := range doc.Blocks {
		if bl.Kind != document.Heading {
			cur.blocks = append(cur.blocks, bl)
			continue
		}
		groups = append(groups, cur)
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
		}
		cur = group{path: path, title: title}
	}
	return append(groups, cur)
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
}

// unit is a sentence (or a piece of an over-long one) of a block.
type unit struct {
	text  string
	page  int
	block int
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
		texts := make([]string, len(g.blocks))
		c := chunk{page: g.blocks[0].Page}
		for i, bl := range g.blocks {
			texts[i] = bl.Text
			c.pageEnd = max(c.pageEnd, bl.Page)
		}
		c.text = strings.Join(texts, "\n\n")
		return []chunk{c}
	}

	var units []unit
	for bi, bl := range g.blocks {
		var parts []string
		if bl.Kind == document.Table {
			parts = strings.Split(bl.Text, "\n")
		} else {
			parts = textproc.Sentences(bl.Text)
		}
		for _, p := range parts {
			for _, piece := range splitLong(p, opts.ChunkSize) {
				units = append(units, unit{text: piece, page: bl.Page, block: bi})
			}
		}
	}

	var out []chunk
	for i := 0; i < len(units); {
		size := 0
		j := i
		for j < len(units) {
			n := utf8.RuneCountInString(units[j].text)
			if j > i {
				n += 2
			}
			if j > i && size+n > opts.ChunkSize {
				break
			}
			size += n
			j++
		}
		out = append(out, joinUnits(units[i:j], g.blocks))
		if j >= len(units) {
			break
		}
		// Start the next chunk far enough back to share Overlap characters.
		k, shared := j, 0
		for k > i+1 && shared < opts.Overlap {
			k--
			shared += utf8.RuneCountInString(units[k].text)
		}
		if opts.Overlap == 0 {
			k = j
		}
		i = k
	}
	return out
}

func joinUnits(us []unit, blocks []document.Block) chunk {
	var sb strings.Builder
	c := chunk{page: us[0].page}
	for i, u := range us {
		if i > 0 {
			switch {
			case u.block != us[i-1].block:
				sb.WriteString("\n\n")
			case blocks[u.block].Kind == document.Table:
				sb.WriteString("\n")
			default:
				sb.WriteString(" ")
			}
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
