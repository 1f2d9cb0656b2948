package loader

import (
	"bytes"
	"context"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/schema"
)

// DecodeCheck is written a file's bytes, in pieces, and then tells whether
// its TextDecoder returns them unchanged, less a UTF-8 byte order mark.
type DecodeCheck interface {
	io.Writer
	Unchanged() bool
}

// StreamDecoder is a TextDecoder that can vouch for a file without holding
// it whole. With one, the Loader can section plain text while reading it
// (see Probe).
type StreamDecoder interface {
	TextDecoder
	NewCheck() DecodeCheck
}

// utf8Decoder is the default decoder: DecodeUTF8.
type utf8Decoder struct{}

func (utf8Decoder) Decode(data []byte) (string, error) { return DecodeUTF8(data) }

func (utf8Decoder) NewCheck() DecodeCheck { return &utf8Check{} }

// utf8Check vouches for valid UTF-8, which DecodeUTF8 returns unchanged
// less a byte order mark.
type utf8Check struct{ formats.UTF8Stream }

func (c *utf8Check) Unchanged() bool { return c.Valid() }

var errNoText = errors.New("no text content")

// Probe learns, from a whole file written to it in pieces, whether the
// Loader can section that file while reading it, with the same sections
// as Parse and Split give from the file read whole (see Stream). It holds
// the file's first 64 KiB.
type Probe struct {
	l        *Loader
	name     string
	head     []byte
	check    DecodeCheck // nil when the decoder cannot vouch for a file
	formFeed bool
	nonSpace bool
}

// NewProbe returns a Probe for the file at path name.
func (l *Loader) NewProbe(name string) *Probe {
	p := &Probe{l: l, name: name}
	if d, ok := l.decoder.(StreamDecoder); ok {
		p.check = d.NewCheck()
	}
	return p
}

// headLen is what a Probe keeps of a file: what detection looks at, after
// a byte order mark.
const headLen = sniffLen + len("\uFEFF")

// Write implements io.Writer; it never fails.
func (p *Probe) Write(b []byte) (int, error) {
	if n := headLen - len(p.head); n > 0 {
		p.head = append(p.head, b[:min(n, len(b))]...)
	}
	if !p.formFeed && bytes.IndexByte(b, '\f') >= 0 {
		p.formFeed = true
	}
	if !p.nonSpace {
		for _, c := range b {
			if c < utf8.RuneSelf && c != ' ' && (c < '\t' || c > '\r') {
				p.nonSpace = true
				break
			}
		}
	}
	if p.check != nil {
		p.check.Write(b)
	}
	return len(b), nil
}

// Stream returns how to section the file while reading it when it is
// plain text (not Markdown or HTML) that the Loader's built-in text parser
// reads and its decoder leaves unchanged; ok is false otherwise, and the
// file must be read whole (ParseFile, or Parse and Split).
func (p *Probe) Stream() (s *TextStream, ok bool) {
	if p.check == nil || !p.check.Unchanged() || !p.nonSpace {
		return nil, false
	}
	if _, builtin := p.l.parsers[formats.Text].(TextParser); !builtin {
		return nil, false
	}
	if bytes.HasPrefix(p.head, []byte("PK")) { // archives are detected from the whole file
		return nil, false
	}
	if f := Detect(p.head, p.name); f != formats.Text && f != formats.Markdown {
		return nil, false
	}
	text := string(bytes.TrimPrefix(p.head, utf8BOM))
	if classifyText(firstN(text, sniffLen), p.name) != formats.Text {
		return nil, false
	}
	return &TextStream{source: p.name, paged: p.formFeed, opts: p.l.sections}, true
}

// TextStream sections a plain-text file while reading it (see
// Probe.Stream).
type TextStream struct {
	source string
	paged  bool
	opts   SectionOptions
}

// Sections reads the file from r and calls emit with its sections in
// order: the sections Split gives for the document Parse reads from the
// whole file (r must give the same bytes the Probe was written). It holds
// one line, one paragraph and the text of one chunk at a time, not the
// file. It returns the page count (0 without form feeds), or an error
// from r or emit, ctx's error, or "no text content" as Parse does.
func (s *TextStream) Sections(ctx context.Context, r io.Reader, emit func(schema.Section) error) (pages int, err error) {
	doc := &document.Document{Source: s.source, Format: formats.Text}
	t := textLines{b: newBuilder(doc, s.paged)}
	newStream := func() *sectionStream {
		ss := &sectionStream{doc: doc, opts: s.opts.normalised(), emit: emit, seen: map[string]int{}, clauses: clauser{off: !s.opts.Clauses}}
		ss.p = packer{opts: ss.opts, emit: ss.chunk}
		return ss
	}
	ss := newStream()
	// the headings read while the file has no other block, kept up to
	// maxHeadingsOnly: a file of headings alone is read as paragraphs
	// (headingsOnly)
	var heads []document.Block
	headBytes, body := 0, false
	// Hand the blocks of each paragraph on as soon as it is added.
	drain := func() error {
		for _, bl := range doc.Blocks {
			switch {
			case body:
			case bl.Kind != document.Heading:
				body, heads = true, nil
			case headBytes+len(bl.Text) <= maxHeadingsOnly:
				heads = append(heads, bl)
				headBytes += len(bl.Text)
			default:
				headBytes, heads = maxHeadingsOnly+1, nil
			}
			if err := ss.block(bl); err != nil {
				return err
			}
		}
		clear(doc.Blocks)
		doc.Blocks = doc.Blocks[:0]
		return nil
	}
	err = readTextLines(ctx, r, func(line string) error {
		t.line(line)
		return drain()
	})
	if err != nil {
		return 0, err
	}
	t.end()
	if err := drain(); err != nil {
		return 0, err
	}
	if err := ss.endGroup(); err != nil {
		return 0, err
	}
	if ss.sections == 0 && !body && len(heads) > 0 {
		doc.Title = "" // as ParseText's: its first block is no heading
		ss = newStream()
		for _, bl := range heads {
			bl.Kind, bl.Level = document.Paragraph, 0
			if err := ss.block(bl); err != nil {
				return 0, err
			}
		}
		if err := ss.endGroup(); err != nil {
			return 0, err
		}
	}
	if ss.sections == 0 {
		return 0, errNoText
	}
	return doc.Pages, nil
}

// readTextLines calls fn with the lines of the text r reads as ParseText
// splits them after normaliseText: a byte order mark (two: the decoder's
// and normaliseText's) dropped from the start, lines ended by LF, CRLF or
// CR, and a form feed a line of its own. A line longer than maxLineBytes
// comes in pieces, cut as textLines cuts it (cutLong), so that it never
// holds more than about maxLineBytes and its buffer of a line.
func readTextLines(ctx context.Context, r io.Reader, fn func(string) error) error {
	buf := make([]byte, 256<<10)
	var line []byte
	prevCR, start := false, true
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := io.ReadFull(r, buf)
		data := buf[:n]
		if start && n > 0 {
			for range 2 {
				data = bytes.TrimPrefix(data, utf8BOM)
			}
			start = false
		}
		for len(data) > 0 {
			i := bytes.IndexAny(data, "\r\n\f")
			if i < 0 {
				line = append(line, data...)
				prevCR = false
				// a long line goes on in pieces, cut where textLines
				// cuts the whole line
				for len(line) > maxLineBytes {
					cut := cutLong(string(line[:maxLineBytes]))
					if err := fn(string(line[:cut])); err != nil {
						return err
					}
					line = append(line[:0], line[cut:]...)
				}
				break
			}
			c := data[i]
			if i == 0 && c == '\n' && prevCR { // the CR ended the line
				prevCR = false
				data = data[1:]
				continue
			}
			line = append(line, data[:i]...)
			if err := fn(string(line)); err != nil {
				return err
			}
			line = line[:0]
			if c == '\f' {
				if err := fn("\f"); err != nil {
					return err
				}
			}
			prevCR = c == '\r'
			data = data[i+1:]
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			return fn(string(line))
		}
		if rerr != nil {
			return rerr
		}
	}
}

// sectionStream is Sections for blocks that arrive one at a time: it
// holds the open headings and the group being read, and of that group
// only its blocks while they fit in one chunk, then the packer's window.
type sectionStream struct {
	doc      *document.Document
	opts     SectionOptions
	emit     func(schema.Section) error
	kinds    kindDoc // the sections so far, for their kinds
	started  bool
	docTitle string
	seen     map[string]int
	stack    []document.Block
	clauses  clauser

	g       group // the blocks only while they fit in one chunk
	key     string
	nblocks int
	runes   int // of the group's blocks, with separators
	packing bool
	p       packer
	chunks  int

	sections int
	rows     rowReader
}

func (s *sectionStream) block(b document.Block) error {
	for _, bl := range s.clauses.block(b) {
		if err := s.oneBlock(bl); err != nil {
			return err
		}
	}
	return nil
}

// oneBlock adds a block of the document as the clauser returns it.
func (s *sectionStream) oneBlock(bl document.Block) error {
	if !s.started {
		// ParseText's title: the first block when it is a heading.
		if bl.Kind == document.Heading {
			s.doc.Title = bl.Text
		}
		s.docTitle = DocTitle(s.doc)
		s.g = group{path: []string{s.docTitle}, title: s.docTitle}
		s.started = true
	}
	if bl.Kind == document.Heading {
		if err := s.endGroup(); err != nil {
			return err
		}
		s.stack, s.g = headingGroup(s.stack, bl, s.opts)
		return nil
	}
	if s.nblocks == 0 {
		s.key = groupKey(s.g.path, s.seen)
	} else {
		s.runes += 2
	}
	s.runes += utf8.RuneCountInString(bl.Text)
	bi := s.nblocks
	s.nblocks++
	if s.packing {
		return s.p.addBlock(bl, bi)
	}
	s.g.blocks = append(s.g.blocks, bl)
	if s.runes <= s.opts.ChunkSize {
		return nil
	}
	// Longer than one chunk: from now on the group is packed.
	s.packing = true
	blocks := s.g.blocks
	s.g.blocks = nil
	for i, b := range blocks {
		if err := s.p.addBlock(b, i); err != nil {
			return err
		}
	}
	return nil
}

func (s *sectionStream) chunk(c chunk) error {
	sec := makeSection(s.doc, s.docTitle, s.g, s.key, s.chunks, c)
	s.chunks++
	s.sections++
	sec = s.kinds.next(sec)
	if err := s.emit(sec); err != nil || s.opts.NoTableRows {
		return err
	}
	for _, row := range s.rows.rows(s.doc, sec, c.turns) {
		if err := s.emit(row); err != nil {
			return err
		}
	}
	return nil
}

// endGroup emits the rest of the group being read and starts an empty
// one.
func (s *sectionStream) endGroup() error {
	var err error
	switch {
	case s.packing:
		err = s.p.finish()
	case s.nblocks > 0:
		err = s.chunk(joinBlocks(s.g.blocks))
	}
	s.g.blocks, s.nblocks, s.runes, s.packing, s.chunks = nil, 0, 0, false, 0
	return err
}
