package loader

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// MarkdownParser parses Markdown into a Document: headings, paragraphs and
// pipe tables, with pages from page markers and form feeds (see the package
// documentation). It expects UTF-8; invalid bytes are replaced.
type MarkdownParser struct{}

// Parse implements Parser. It never fails on malformed Markdown; it only
// returns the context's error when ctx is done.
func (MarkdownParser) Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ParseMarkdown(source, string(data)), nil
}

var (
	reATXLine     = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	reATXClose    = regexp.MustCompile(`(?:^|[ \t]+)#+[ \t]*$`)
	reSetextH1    = regexp.MustCompile(`^ {0,3}=+[ \t]*$`)
	reSetextH2    = regexp.MustCompile(`^ {0,3}-+[ \t]*$`)
	reThematic    = regexp.MustCompile(`^ {0,3}((\*[ \t]*){3,}|(-[ \t]*){3,}|(_[ \t]*){3,})$`)
	reFenceOpen   = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	reImage       = regexp.MustCompile(`!\[([^\]\n]*)\]\([^)\n]*\)`)
	reLink        = regexp.MustCompile(`\[([^\]\n]+)\]\([^)\n]*\)`)
	reRefLink     = regexp.MustCompile(`\[([^\]\n]+)\]\[[^\]\n]*\]`)
	reStrong      = regexp.MustCompile(`(\*\*|__)([^\s*_](?:.*?[^\s])??)(\*\*|__)`)
	reEm          = regexp.MustCompile(`\*([^\s*](?:[^*]*?[^\s*])?)\*`)
	reCode        = regexp.MustCompile("`+([^`]*)`+")
	reEscape      = regexp.MustCompile("\\\\([\\\\`*_{}\\[\\]()#+\\-.!|>~])")
	reHTMLComment = regexp.MustCompile(`<!--.*?-->`)
)

// ParseMarkdown parses Markdown text. It is the function behind
// MarkdownParser; source is recorded as Document.Source.
func ParseMarkdown(source, text string) *document.Document {
	text = normaliseText(text)
	lines := strings.Split(text, "\n")
	doc := &document.Document{Source: source, Format: formats.Markdown}
	b := newBuilder(doc, hasMarkdownPages(lines))
	b.titleFromH1 = true

	start := 0
	if title, end, ok := frontMatter(lines); ok {
		doc.Title = title
		start = end
	}
	r := &mdReader{b: b, lines: lines}
	for i := start; i < len(lines); i++ {
		i = r.line(i)
	}
	if r.fence != "" && len(r.code) > 0 {
		b.add(document.Paragraph, 0, strings.Join(r.code, "\n"))
	}
	r.flush()
	b.finish()
	return doc
}

// mdReader is ParseMarkdown's state as it reads the lines one by one.
// Each of its steps after line handles the line when it is of the step's
// kind and reports whether it did.
type mdReader struct {
	b         *builder
	lines     []string
	para      []string // current paragraph's lines
	table     []string // current table's rows
	fence     string   // the open fence's marker, "" outside code
	code      []string // the open fence's lines
	inComment bool     // inside a multi-line HTML comment
}

// flush adds the open table and paragraph as blocks.
func (r *mdReader) flush() {
	if len(r.table) > 0 {
		r.b.add(document.Table, 0, strings.Join(r.table, "\n"))
		r.table = nil
	}
	if len(r.para) > 0 {
		r.b.add(document.Paragraph, 0, strings.Join(r.para, "\n"))
		r.para = nil
	}
}

// line reads line i and returns the index of the last line it used: i,
// or i+1 when a table's delimiter row follows its header.
func (r *mdReader) line(i int) int {
	line := r.lines[i]
	trimmed := strings.TrimSpace(line)
	switch {
	case line == "\f":
		if r.fence == "" {
			r.flush()
		}
		r.b.nextPage()
	case r.fence != "":
		r.codeLine(line, trimmed)
	case r.inComment:
		if strings.Contains(line, "-->") {
			r.inComment = false
		}
	case r.markup(line, trimmed), r.tableLine(line, trimmed), r.atxHeading(line), r.setextHeading(line):
		// Handled by the first step that took it, in this order; the
		// steps after it were not called.
	case reThematic.MatchString(line):
		r.flush()
	case r.tableHeader(i, line, trimmed):
		return i + 1 // the delimiter row
	default:
		r.text(trimmed)
	}
	return i
}

// codeLine reads a line inside a fence: the closing fence adds the code
// as a paragraph, any other non-blank line is kept.
func (r *mdReader) codeLine(line, trimmed string) {
	if strings.HasPrefix(trimmed, r.fence) && strings.Trim(trimmed, r.fence[:1]) == "" {
		r.fence = ""
		if len(r.code) > 0 {
			r.b.add(document.Paragraph, 0, strings.Join(r.code, "\n"))
		}
		r.code = nil
		return
	}
	if trimmed != "" {
		r.code = append(r.code, strings.TrimRight(line, " \t"))
	}
}

// markup handles a line that ends the open block without text of its
// own: a page marker, a fence's opening, a blank line, a line of HTML
// comments or the start of a multi-line one.
func (r *mdReader) markup(line, trimmed string) bool {
	if m := rePageMarker.FindStringSubmatch(trimmed); m != nil {
		r.flush()
		r.b.setPage(m[1])
		return true
	}
	if m := reFenceOpen.FindStringSubmatch(line); m != nil {
		r.flush()
		r.fence = m[1]
		return true
	}
	if trimmed == "" {
		r.flush()
		return true
	}
	if strings.HasPrefix(trimmed, "<!--") {
		rest := reHTMLComment.ReplaceAllString(trimmed, "")
		if !strings.Contains(rest, "<!--") && strings.TrimSpace(rest) == "" {
			r.flush()
			return true
		}
		if !strings.Contains(trimmed, "-->") {
			r.flush()
			r.inComment = true
			return true
		}
	}
	return false
}

// tableLine handles a row of the open table (its delimiter row is
// dropped); a line without a pipe ends the table and is not handled.
func (r *mdReader) tableLine(line, trimmed string) bool {
	if len(r.table) == 0 {
		return false
	}
	if strings.Contains(line, "|") {
		if !reTableDelimLine(trimmed) {
			r.table = append(r.table, tableRow(trimmed))
		}
		return true
	}
	r.flush()
	return false
}

// atxHeading handles a "# Title" heading (an empty one adds nothing).
func (r *mdReader) atxHeading(line string) bool {
	m := reATXLine.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	r.flush()
	title := reATXClose.ReplaceAllString(m[2], "")
	if title = cleanInline(title); title != "" {
		r.b.add(document.Heading, len(m[1]), title)
	}
	return true
}

// setextHeading handles a "===" or "---" underline, which makes the open
// paragraph a heading (a "---" under a list item does not).
func (r *mdReader) setextHeading(line string) bool {
	if len(r.para) == 0 || !(reSetextH1.MatchString(line) || (reSetextH2.MatchString(line) && !isListItem(r.para[0]))) {
		return false
	}
	level := 1
	if strings.Contains(line, "-") {
		level = 2
	}
	title := cleanInline(strings.Join(r.para, " "))
	r.para = nil
	if title != "" {
		r.b.add(document.Heading, level, title)
	}
	return true
}

// tableHeader handles line i, outside a paragraph, as a table's header
// row when a delimiter row follows it.
func (r *mdReader) tableHeader(i int, line, trimmed string) bool {
	if len(r.para) == 0 && strings.Contains(line, "|") && i+1 < len(r.lines) && reTableDelimLine(strings.TrimSpace(r.lines[i+1])) {
		r.table = append(r.table, tableRow(trimmed))
		return true
	}
	return false
}

// text adds a line of text to the open paragraph, without a block
// quote's markers and inline markup.
func (r *mdReader) text(trimmed string) {
	if strings.HasPrefix(trimmed, ">") {
		trimmed = strings.TrimSpace(strings.TrimLeft(trimmed, "> \t"))
		if trimmed == "" {
			return
		}
	}
	if l := cleanInline(trimmed); l != "" {
		r.para = append(r.para, l)
	}
}

func reTableDelimLine(s string) bool {
	return strings.Contains(s, "-") && reTableDelim.MatchString(s)
}

// tableRow renders "| a | b |" as "a | b".
func tableRow(line string) string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = cleanInline(strings.TrimSpace(c))
	}
	return strings.Join(cells, " | ")
}

func isListItem(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "+ ")
}

// cleanInline removes inline Markdown markup, keeping the text.
func cleanInline(s string) string {
	if !strings.ContainsAny(s, "*_`[]!\\<") {
		return strings.TrimSpace(s)
	}
	s = reImage.ReplaceAllString(s, "$1")
	s = reLink.ReplaceAllString(s, "$1")
	s = reRefLink.ReplaceAllString(s, "$1")
	s = reCode.ReplaceAllString(s, "$1")
	s = reStrong.ReplaceAllString(s, "$2")
	s = reEm.ReplaceAllString(s, "$1")
	s = reHTMLComment.ReplaceAllString(s, "")
	s = reEscape.ReplaceAllString(s, "$1")
	return strings.TrimSpace(s)
}

// frontMatter recognises a YAML front matter block at the start and returns
// its title and the index of the first line after it.
func frontMatter(lines []string) (title string, end int, ok bool) {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return "", 0, false
	}
	for i := 1; i < len(lines) && i < 200; i++ {
		l := strings.TrimSpace(lines[i])
		if l == "---" || l == "..." {
			return title, i + 1, true
		}
		if k, v, found := strings.Cut(l, ":"); found && strings.EqualFold(strings.TrimSpace(k), "title") {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
		if l == "\f" {
			break
		}
	}
	return "", 0, false
}

func hasMarkdownPages(lines []string) bool {
	fence := false
	for _, l := range lines {
		if l == "\f" {
			return true
		}
		if reFenceOpen.MatchString(l) {
			fence = !fence
			continue
		}
		if !fence && rePageMarker.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// normaliseText strips a byte order mark, replaces invalid UTF-8, unifies
// line ends and puts every form feed on a line of its own.
func normaliseText(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if strings.Contains(s, "\f") {
		s = strings.ReplaceAll(s, "\f", "\n\f\n")
	}
	return s
}

// builder accumulates blocks and tracks the current page.
type builder struct {
	doc  *document.Document
	page int
	// titleFromH1 makes the first level-1 heading the document's title.
	titleFromH1 bool
}

func newBuilder(doc *document.Document, paged bool) *builder {
	b := &builder{doc: doc}
	if paged {
		b.page = 1
	}
	return b
}

func (b *builder) add(kind document.Kind, level int, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if b.titleFromH1 && kind == document.Heading && b.doc.Title == "" && level == 1 {
		b.doc.Title = text
	}
	b.doc.Blocks = append(b.doc.Blocks, document.Block{Kind: kind, Level: level, Text: text, Page: b.page})
	if b.page > b.doc.Pages {
		b.doc.Pages = b.page
	}
}

func (b *builder) nextPage() {
	if b.page == 0 {
		b.page = 1
	}
	b.page++
}

// setPage applies a page marker's label: a number sets the page, any other
// label starts the next page and is recorded as its printed label.
func (b *builder) setPage(label string) {
	if n, err := strconv.Atoi(label); err == nil && n > 0 && n < 1_000_000 {
		b.page = n
		return
	}
	b.page++
	if b.doc.PageLabels == nil {
		b.doc.PageLabels = map[int]string{}
	}
	b.doc.PageLabels[b.page] = label
}

func (b *builder) finish() {
	if b.page > b.doc.Pages {
		b.doc.Pages = b.page
	}
}
