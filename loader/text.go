package loader

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
)

// TextParser parses plain text into a Document: paragraphs separated by
// blank lines, headings found heuristically and pages from form feeds (see
// the package documentation). It expects UTF-8; invalid bytes are replaced.
type TextParser struct{}

// Parse implements Parser. It never fails on malformed text; it only
// returns the context's error when ctx is done.
func (TextParser) Parse(ctx context.Context, source string, data []byte) (*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ParseText(source, string(data)), nil
}

// Limits of the plain-text heading heuristics.
const (
	maxHeadingLen   = 80
	maxHeadingWords = 12
	maxTitleWords   = 8
)

var reNumbered = regexp.MustCompile(`^(\d{1,3}(?:\.\d{1,3})*)\.?[ \t]+(\S.*)$`)

// ParseText parses plain text. It is the function behind TextParser;
// source is recorded as Document.Source.
func ParseText(source, text string) *document.Document {
	text = normaliseText(text)
	doc := &document.Document{Source: source, Format: formats.Text}
	t := textLines{b: newBuilder(doc, strings.Contains(text, "\f"))}
	for _, line := range strings.Split(text, "\n") {
		t.line(line)
	}
	t.end()
	headingsOnly(doc)
	if len(doc.Blocks) > 0 && doc.Blocks[0].Kind == document.Heading {
		doc.Title = doc.Blocks[0].Text
	}
	return doc
}

// maxHeadingsOnly bounds the text of a file of headings alone that
// headingsOnly reads as paragraphs: the stream holds it until the file
// ends (TextStream.Sections).
const maxHeadingsOnly = 64 << 10

// headingsOnly makes the lines of a text that the heading heuristics read
// as headings, and nothing else, its paragraphs: a short note ("Café – 5
// €") is text to answer from, not a title over nothing. A longer file of
// such lines (over maxHeadingsOnly) stays without text.
func headingsOnly(doc *document.Document) {
	n := 0
	for _, b := range doc.Blocks {
		if b.Kind != document.Heading {
			return
		}
		n += len(b.Text)
	}
	if n > maxHeadingsOnly {
		return
	}
	for i := range doc.Blocks {
		doc.Blocks[i].Kind, doc.Blocks[i].Level = document.Paragraph, 0
	}
}

// Long lines and paragraphs are split, so that a file without line
// breaks or blank lines is read, streamed or whole, holding a bounded
// piece of it: a line longer than maxLineBytes is cut after its last
// sentence end (else its last space) within the first maxLineBytes bytes
// (cutLong), each piece a line of its own, and a paragraph is closed once
// its lines reach maxParagraphBytes.
const (
	maxLineBytes      = 64 << 10
	maxParagraphBytes = 256 << 10
)

// cutLong returns where to cut a line longer than maxLineBytes: after the
// last sentence end (". ", "! ", "? ") within its first maxLineBytes
// bytes, else after the last space or tab there, else at the last rune
// start. It looks at no more than those bytes, so that a line read in
// pieces (readTextLines) is cut where the whole line is.
func cutLong(line string) int {
	head := line[:min(len(line), maxLineBytes)]
	best := -1
	for i := len(head) - 2; i > 0; i-- {
		if (head[i+1] == ' ' || head[i+1] == '\t') && (head[i] == '.' || head[i] == '!' || head[i] == '?') {
			best = i + 2
			break
		}
	}
	if best > 0 {
		return best
	}
	if i := strings.LastIndexAny(head, " \t"); i > 0 {
		return i + 1
	}
	cut := len(head)
	for cut > 1 && !utf8.RuneStart(head[cut-1]) {
		cut--
	}
	if cut > 1 {
		cut-- // before the rune that head may split
	}
	return cut
}

// textLines turns the lines of normalised plain text (a form feed is a
// line of its own) into blocks: lines are grouped into paragraphs, and a
// paragraph is added when the blank line, form feed or end that closes it
// arrives, or when it reaches maxParagraphBytes.
type textLines struct {
	b     *builder
	para  []string
	bytes int // of para
}

func (t *textLines) line(line string) {
	for len(line) > maxLineBytes {
		cut := cutLong(line)
		t.piece(line[:cut])
		line = line[cut:]
	}
	t.piece(line)
}

// piece handles a line of at most maxLineBytes.
func (t *textLines) piece(line string) {
	switch tr := strings.TrimSpace(line); {
	case line == "\f":
		t.flush()
		t.b.nextPage()
	case tr == "":
		t.flush()
	default:
		t.para = append(t.para, tr)
		t.bytes += len(tr)
		if t.bytes >= maxParagraphBytes {
			emitTextParagraph(t.b, t.para, false)
			t.para, t.bytes = t.para[:0], 0
		}
	}
}

func (t *textLines) flush() {
	if len(t.para) == 0 {
		return
	}
	emitTextParagraph(t.b, t.para, true)
	t.para, t.bytes = t.para[:0], 0
}

func (t *textLines) end() {
	t.flush()
	t.b.finish()
}

// emitTextParagraph adds a paragraph of consecutive non-blank lines,
// splitting off a heading on its first line when the heuristics say so.
func emitTextParagraph(b *builder, para []string, followedByBlank bool) {
	first := para[0]
	if level, ok := textHeading(first, len(para) == 1 && followedByBlank, len(para) > 1 && startsNumbered(para[1])); ok {
		b.add(document.Heading, level, first)
		para = para[1:]
	}
	if len(para) > 0 {
		b.add(document.Paragraph, 0, strings.Join(para, "\n"))
	}
}

func startsNumbered(s string) bool { return reNumbered.MatchString(s) }

// textHeading decides whether a line of plain text is a heading and at
// which level. alone says the line is a paragraph of its own followed by a
// blank line; nextNumbered says the following line also starts with a
// number (then the line is a list item rather than a heading).
func textHeading(line string, alone, nextNumbered bool) (int, bool) {
	if utf8.RuneCountInString(line) > maxHeadingLen || strings.HasSuffix(line, ",") || strings.HasSuffix(line, ";") {
		return 0, false
	}
	words := len(strings.Fields(line))
	endsLikeSentence := strings.HasSuffix(line, ".") || strings.HasSuffix(line, ":") ||
		strings.HasSuffix(line, "!") || strings.HasSuffix(line, "?")
	if m := reNumbered.FindStringSubmatch(line); m != nil {
		rest := m[2]
		r, _ := utf8.DecodeRuneInString(rest)
		if unicode.IsUpper(r) && !endsLikeSentence && words <= maxHeadingWords && !nextNumbered {
			return strings.Count(m[1], ".") + 1, true
		}
		return 0, false
	}
	if isAllCaps(line) && words <= maxHeadingWords && !strings.HasSuffix(line, ".") {
		return 1, true
	}
	r, _ := utf8.DecodeRuneInString(line)
	if alone && unicode.IsUpper(r) && !endsLikeSentence && words <= maxTitleWords {
		return 2, true
	}
	return 0, false
}

// isAllCaps reports a line with at least three letters, all upper case.
func isAllCaps(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters >= 3
}
