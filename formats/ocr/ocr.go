// Package ocr reads the text of page images with Tesseract
// (https://github.com/tesseract-ocr/tesseract), run as an external
// program when it is installed: DocMind itself stays a single static
// binary, and without Tesseract a page that needs OCR is reported, never
// silently dropped.
//
// Tesseract is run once per image ("tesseract stdin stdout -l LANG tsv")
// and its TSV output is kept word by word with each word's box in the
// image's pixels, so that OCR'd passages can be placed on the page.
// Pages whose text layer is empty or garbage go to OCR (NeedsOCR); the
// mode (auto, always, never) and the languages are set by Options.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// Mode says which pages go to OCR.
type Mode string

// Modes.
const (
	// Auto sends the pages without a usable text layer (NeedsOCR) and
	// images.
	Auto Mode = "auto"
	// Always sends every page, replacing its text layer.
	Always Mode = "always"
	// Never reads no page by OCR: the pages that need it are counted.
	Never Mode = "never"
)

// ParseMode reads "auto", "always" or "never".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Auto, Always, Never:
		return m, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("--ocr %q: want auto, always or never", s)
}

// MaxPages bounds the pages of one image (a multi-page TIFF).
const MaxPages = 10000

// DefaultDPI is the resolution PDF pages are rendered at for OCR.
const DefaultDPI = 300

// DefaultPageTimeout bounds Tesseract's time on one image.
const DefaultPageTimeout = 2 * time.Minute

// InstallHint says how to install Tesseract.
const InstallHint = "install Tesseract to read them: apt install tesseract-ocr tesseract-ocr-eng (Debian, Ubuntu), brew install tesseract (macOS), or the installer at https://github.com/UB-Mannheim/tesseract/wiki (Windows)"

// Options configure an Engine.
type Options struct {
	// Mode is auto (default), always or never.
	Mode Mode
	// Lang is Tesseract's language list, e.g. "eng" (default) or
	// "eng+deu"; each needs its traineddata (Debian: tesseract-ocr-LANG).
	Lang string
	// Command is the Tesseract program (default "tesseract" on PATH).
	Command string
	// DPI is the resolution PDF pages are rendered at (default
	// DefaultDPI).
	DPI int
	// PageTimeout bounds one run of Tesseract (default
	// DefaultPageTimeout).
	PageTimeout time.Duration
	// Progress, when set, is called as the pages of a file go through
	// OCR: with done = 0 before the first, then after each (done of
	// total). Files are read in parallel: it is called concurrently.
	Progress func(source string, done, total int)
}

// Engine runs Tesseract. It is safe for concurrent use.
type Engine struct {
	opts Options
	once sync.Once
	path string
	err  error
}

// New returns an Engine; Tesseract is looked up on first use.
func New(opts Options) *Engine {
	if opts.Mode == "" {
		opts.Mode = Auto
	}
	if opts.Lang == "" {
		opts.Lang = "eng"
	}
	if opts.Command == "" {
		opts.Command = "tesseract"
	}
	if opts.DPI <= 0 {
		opts.DPI = DefaultDPI
	}
	if opts.PageTimeout <= 0 {
		opts.PageTimeout = DefaultPageTimeout
	}
	return &Engine{opts: opts}
}

var defaultEngine = sync.OnceValue(func() *Engine { return New(Options{}) })

// Default is the engine of the default options (auto, eng, tesseract on
// PATH).
func Default() *Engine { return defaultEngine() }

type ctxKey struct{}

// NewContext returns ctx carrying e, for the parsers that OCR (package
// loader's WithOCR sets it).
func NewContext(ctx context.Context, e *Engine) context.Context {
	return context.WithValue(ctx, ctxKey{}, e)
}

// FromContext returns the engine ctx carries, or Default().
func FromContext(ctx context.Context) *Engine {
	if e, ok := ctx.Value(ctxKey{}).(*Engine); ok && e != nil {
		return e
	}
	return Default()
}

// Progress reports that done of the total pages of source to read by OCR
// are read (Options.Progress).
func (e *Engine) Progress(source string, done, total int) {
	if e.opts.Progress != nil {
		e.opts.Progress(source, done, total)
	}
}

// Mode is the engine's mode.
func (e *Engine) Mode() Mode { return e.opts.Mode }

// DPI is the resolution pages are rendered at for OCR.
func (e *Engine) DPI() int { return e.opts.DPI }

// Lang is the engine's language list.
func (e *Engine) Lang() string { return e.opts.Lang }

// Available reports whether Tesseract can be run (and the mode is not
// never); err says why not.
func (e *Engine) Available() error {
	if e.opts.Mode == Never {
		return errors.New("OCR is off (--ocr never)")
	}
	e.once.Do(func() {
		e.path, e.err = exec.LookPath(e.opts.Command)
		if e.err != nil {
			e.err = fmt.Errorf("Tesseract (%s) is not installed", e.opts.Command)
		}
	})
	return e.err
}

// Word is one word Tesseract read, with its box in the image's pixels.
type Word struct {
	Text                     string
	Left, Top, Width, Height int
	// Conf is Tesseract's confidence, 0 to 100.
	Conf float64
	// Block, Par and Line number the word's block, paragraph and line
	// on its page, as Tesseract laid them out.
	Block, Par, Line int
}

// Page is the words of one image (one page of a multi-page TIFF).
type Page struct {
	// Number is the 1-based page of the image.
	Number        int
	Width, Height int
	Words         []Word
}

// Line is a line of words.
type Line struct {
	Text                     string
	Left, Top, Width, Height int
	Block, Par               int
	// TypeHeight is the height of the line's type from ascender to
	// descender, in pixels, estimated from its words (TypeHeight); 0 when
	// no word has a letter. Unlike Height it does not depend on which
	// letters the line has, nor on a bullet's box.
	TypeHeight float64
	// Conf is the mean of its words' confidences (Word.Conf), 0 to 100.
	Conf float64
}

// Lines groups the page's words into lines, in reading order.
func (p Page) Lines() []Line {
	var out []Line
	var heights [][]float64 // per line, its words' type heights
	var confs []float64     // per line, the sum of its words' confidences
	var counts []int
	for i, w := range p.Words {
		if i > 0 {
			prev := p.Words[i-1]
			if prev.Block == w.Block && prev.Par == w.Par && prev.Line == w.Line {
				l := &out[len(out)-1]
				l.Text += " " + w.Text
				right := max(l.Left+l.Width, w.Left+w.Width)
				bottom := max(l.Top+l.Height, w.Top+w.Height)
				l.Left, l.Top = min(l.Left, w.Left), min(l.Top, w.Top)
				l.Width, l.Height = right-l.Left, bottom-l.Top
				if h := TypeHeight(w.Text, w.Height); h > 0 {
					heights[len(heights)-1] = append(heights[len(heights)-1], h)
				}
				confs[len(confs)-1] += w.Conf
				counts[len(counts)-1]++
				continue
			}
		}
		out = append(out, Line{Text: w.Text, Left: w.Left, Top: w.Top, Width: w.Width, Height: w.Height, Block: w.Block, Par: w.Par})
		heights = append(heights, nil)
		confs = append(confs, w.Conf)
		counts = append(counts, 1)
		if h := TypeHeight(w.Text, w.Height); h > 0 {
			heights[len(heights)-1] = append(heights[len(heights)-1], h)
		}
	}
	for i, hs := range heights {
		out[i].Conf = confs[i] / float64(counts[i])
		if len(hs) > 0 {
			slices.Sort(hs)
			out[i].TypeHeight = hs[len(hs)/2]
		}
	}
	return out
}

// Shares of the full height of Latin type (ascender to descender) that a
// word's box spans, by whether it has letters that rise above the x-height
// (capitals, digits, "bdfhklt") and that descend below the baseline
// ("gjpqy"): measured on Tesseract's boxes of the scanned filings pages
// of testdata (a line's words with both: 34 px; "General": 26 px).
const (
	ascOnlyShare  = 0.77
	descOnlyShare = 0.73
	xOnlyShare    = 0.5
)

// TypeHeight estimates, from a word's text and its box's height in
// pixels, the full height of its type: a box spans only the parts of the
// type its letters reach. 0 for a word with no letter or digit.
func TypeHeight(word string, height int) float64 {
	asc, desc, letters := false, false, false
	for _, r := range word {
		switch {
		case unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("bdfhklt", r):
			asc, letters = true, true
		case strings.ContainsRune("gjpqy", r):
			desc, letters = true, true
		case unicode.IsLetter(r):
			letters = true
		}
	}
	if !letters || height <= 0 {
		return 0
	}
	share := 1.0
	switch {
	case asc && !desc:
		share = ascOnlyShare
	case desc && !asc:
		share = descOnlyShare
	case !asc && !desc:
		share = xOnlyShare
	}
	return float64(height) / share
}

// Paragraphs is the page's text, one string per paragraph Tesseract
// found.
func (p Page) Paragraphs() []string {
	var out []string
	lines := p.Lines()
	for i, l := range lines {
		if i > 0 && lines[i-1].Block == l.Block && lines[i-1].Par == l.Par {
			out[len(out)-1] += " " + l.Text
			continue
		}
		out = append(out, l.Text)
	}
	return out
}

// Recognize reads the text of an image (PNG, JPEG, TIFF, ...; every page
// of a multi-page TIFF). It returns an error when Tesseract is not
// available, fails or runs past the page timeout.
func (e *Engine) Recognize(ctx context.Context, image []byte) ([]Page, error) {
	if err := e.Available(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.PageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.path, "stdin", "stdout", "-l", e.opts.Lang, "tsv")
	cmd.Stdin = bytes.NewReader(image)
	// One thread per Tesseract: files are read in parallel already.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("tesseract took more than %s on one image", e.opts.PageTimeout)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("tesseract failed: %s", lastLine(stderr.String(), err))
	}
	return ParseTSV(out.Bytes())
}

// lastLine is Tesseract's message on a failure: the first line saying
// what failed ("Failed loading language 'deu'", with the package to
// install), else the last non-empty line, else err.
func lastLine(msg string, err error) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if lang, ok := strings.CutPrefix(l, "Failed loading language '"); ok {
			lang = strings.TrimSuffix(lang, "'")
			return fmt.Sprintf("%s (install the language's data, e.g. apt install tesseract-ocr-%s)", l, strings.ToLower(lang))
		}
	}
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Error") || strings.HasPrefix(l, "Failed") {
			return l
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return err.Error()
}

// ParseTSV reads Tesseract's TSV output: level, page_num, block_num,
// par_num, line_num, word_num, left, top, width, height, conf, text.
// Level 1 rows give a page's size, level 5 rows its words.
func ParseTSV(data []byte) ([]Page, error) {
	var pages []Page
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if i == 0 || line == "" {
			continue // the header
		}
		f := strings.Split(line, "\t")
		if len(f) < 11 {
			return nil, fmt.Errorf("tesseract TSV line %d has %d fields, want 12", i+1, len(f))
		}
		var n [10]int
		for j := range n {
			v, err := strconv.Atoi(f[j])
			if err != nil {
				return nil, fmt.Errorf("tesseract TSV line %d: field %d is %q, want a number", i+1, j+1, f[j])
			}
			n[j] = v
		}
		level, page := n[0], n[1]
		if page < 1 {
			page = 1
		}
		if page > MaxPages {
			return nil, fmt.Errorf("tesseract TSV line %d: page %d, beyond the limit of %d pages per image", i+1, page, MaxPages)
		}
		for len(pages) < page {
			pages = append(pages, Page{Number: len(pages) + 1})
		}
		p := &pages[page-1]
		switch level {
		case 1:
			p.Width, p.Height = n[8], n[9]
		case 5:
			text := ""
			if len(f) > 11 {
				text = strings.TrimSpace(f[11])
			}
			if text == "" {
				continue
			}
			conf, _ := strconv.ParseFloat(f[10], 64)
			p.Words = append(p.Words, Word{Text: text, Block: n[2], Par: n[3], Line: n[4], Left: n[6], Top: n[7], Width: n[8], Height: n[9], Conf: conf})
		}
	}
	for i := range pages {
		pages[i].Words = rejoin(pages[i].Words)
	}
	return pages, nil
}

// rejoin mends the words Tesseract split in two where the type is kerned
// ("Development A greement"): a word of the same line that opens with a
// lower-case letter and is no English word (nor a function word), after
// one that together with it makes one ("A" and "greement." are "Agreement."), becomes part of
// it, with the two boxes' union and the lower confidence. The vocabulary
// is the embedded word vectors' (100,000 words, package wordvec); a word
// it lacks is left as read.
func rejoin(words []Word) []Word {
	out := words[:0:0]
	for _, w := range words {
		if n := len(out); n > 0 {
			prev := &out[n-1]
			if prev.Block == w.Block && prev.Par == w.Par && prev.Line == w.Line && splitOf(prev.Text, w.Text) {
				right, bottom := max(prev.Left+prev.Width, w.Left+w.Width), max(prev.Top+prev.Height, w.Top+w.Height)
				prev.Left, prev.Top = min(prev.Left, w.Left), min(prev.Top, w.Top)
				prev.Width, prev.Height = right-prev.Left, bottom-prev.Top
				prev.Text += w.Text
				prev.Conf = min(prev.Conf, w.Conf)
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// splitOf reports whether b is the rest of the word a begins: b opens
// with a lower-case letter, neither is punctuated where they meet, b
// (without its closing punctuation) is not a word, and a and b together
// are.
func splitOf(a, b string) bool {
	first, _ := utf8.DecodeRuneInString(b)
	last, _ := utf8.DecodeLastRuneInString(a)
	if !unicode.IsLower(first) || !unicode.IsLetter(last) {
		return false
	}
	tail := strings.TrimRightFunc(b, func(r rune) bool { return !unicode.IsLetter(r) })
	if strings.IndexFunc(tail, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return false
	}
	head := a
	if i := strings.LastIndexFunc(a, func(r rune) bool { return !unicode.IsLetter(r) }); i >= 0 {
		_, size := utf8.DecodeRuneInString(a[i:])
		head = a[i+size:]
	}
	// the vectors leave out the function words ("a", "of"), which are words
	m := wordvec.Default()
	return !textproc.IsStopWord(strings.ToLower(tail)) && !m.Has(tail) && m.Has(head+tail)
}

// NeedsOCR reports a page text layer that is no use: no letters or
// digits at all, or mostly characters that are not text (replacement
// characters, private-use glyphs, controls) — a scanned page, or a font
// without a Unicode map.
func NeedsOCR(text string) bool {
	good, bad := 0, 0
	for _, r := range text {
		switch {
		case r == utf8.RuneError || r == '\ufffe' || unicode.Is(unicode.Co, r) || unicode.IsControl(r) && !unicode.IsSpace(r):
			bad++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			good++
		}
	}
	return good == 0 || bad > good
}

// NeededError is the error of a file that has no text without OCR and
// was not read by OCR: Pages pages need it.
type NeededError struct {
	// What is the file's kind: "scanned PDF", "PNG image".
	What   string
	Pages  int
	Reason string
}

func (e *NeededError) Error() string {
	msg := fmt.Sprintf("%s: %d %s need%s OCR; %s", e.What, e.Pages, plural(e.Pages, "page"), verbS(e.Pages), e.Reason)
	if strings.Contains(e.Reason, "not installed") {
		msg += ": " + InstallHint
	}
	return msg
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}
