// Package ingest brings files into an index: it walks files and folders,
// hashes each file, skips unchanged ones, parses changed or new ones through
// a Parser and replaces each document atomically (one transaction per
// document), so that a crash or kill mid-ingest leaves the previous index
// intact and usable. Bad input never stops a run: every file is reported as
// indexed, unchanged or skipped with a reason.
package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/formats"
	"github.com/docmind/docmind/formats/ocr"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// Parser turns a file's bytes into sections. pages is the page count (0
// for formats without pages) and format names the detected format ("pdf",
// "markdown", ...). An error means the file cannot be used; its text is
// shown to the user as the reason the file was skipped.
type Parser interface {
	Parse(ctx context.Context, path string, data []byte) (sections []schema.Section, pages int, format string, err error)
}

// ParserFunc adapts a function to Parser.
type ParserFunc func(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, error)

// Parse calls f.
func (f ParserFunc) Parse(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, error) {
	return f(ctx, path, data)
}

// StreamParser is a Parser that can section some files while reading
// them, without holding them whole: Run uses it for files of at least
// Options.StreamAbove bytes.
type StreamParser interface {
	Parser
	// NewProbe returns a Probe for the file at path.
	NewProbe(path string) Probe
}

// Probe is written a whole file; Stream then returns how to section it
// while reading it again, or nil when the file must be parsed whole.
type Probe interface {
	io.Writer
	Stream() StreamFunc
}

// StreamFunc sections a file read from r, calling emit with each section
// in order, and returns its page count and format. It returns emit's
// error when emit fails.
type StreamFunc func(ctx context.Context, r io.Reader, emit func(schema.Section) error) (pages int, format string, err error)

// Status is what happened to one file.
type Status string

// Statuses.
const (
	Indexed   Status = "indexed"
	Unchanged Status = "unchanged"
	Skipped   Status = "skipped"
	Removed   Status = "removed"
)

// Result reports one file.
type Result struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
	// Reason says why a file was skipped, or why an unchanged file was
	// indexed again (pages that needed OCR can now be read by it).
	Reason   string `json:"reason,omitempty"`
	Format   string `json:"format,omitempty"`
	Pages    int    `json:"pages,omitempty"`
	Sections int    `json:"sections,omitempty"`
	Bytes    int64  `json:"bytes,omitempty"`
	// OCRPages is the number of pages (or images) read by OCR, and
	// OCRMillis the time that took.
	OCRPages  int     `json:"ocr_pages,omitempty"`
	OCRMillis float64 `json:"ocr_ms,omitempty"`
	// NeedOCR is the number of pages without a usable text layer that
	// were not read by OCR, and OCRReason why (Tesseract not installed,
	// OCR off, Tesseract failed). The file is indexed with the text it
	// has, or skipped when it has none.
	NeedOCR   int    `json:"needs_ocr,omitempty"`
	OCRReason string `json:"ocr_reason,omitempty"`
}

// Progress is reported after every file.
type Progress struct {
	FilesDone, FilesTotal int
	// Pages and Sections count what was indexed so far.
	Pages, Sections int
	// Bytes counts the bytes of files processed so far, of BytesTotal.
	Bytes, BytesTotal int64
	// Current is the file just processed, and Last its result.
	Current string
	Last    Result
	Elapsed time.Duration
}

// DefaultMaxFileSize is the size above which files are skipped.
const DefaultMaxFileSize = 256 << 20

// DefaultStreamAbove is the size from which files are sectioned while
// read (when the parser can, see StreamParser).
const DefaultStreamAbove = 8 << 20

// Options configure Run.
type Options struct {
	// Parser parses files; required.
	Parser Parser
	// MaxFileSize skips larger files (0 = DefaultMaxFileSize, < 0 = no
	// limit).
	MaxFileSize int64
	// Progress, when set, is called after every file, from one goroutine.
	Progress func(Progress)
	// Started, when set, is called with a file's path as a worker starts
	// reading it, before the Progress call that reports it; the workers
	// call it concurrently.
	Started func(path string)
	// Prune removes, after ingesting, the indexed documents under the given
	// paths whose files no longer exist.
	Prune bool
	// IncludeHidden also walks files and folders whose name starts with a
	// dot (skipped by default).
	IncludeHidden bool
	// Workers is the number of files read and parsed in parallel (default
	// GOMAXPROCS). Writes are serial.
	Workers int
	// FollowSymlinks also reads symbolic links to files outside the
	// folders given; by default they are skipped with a reason, and a
	// document an earlier run read through such a link is removed.
	FollowSymlinks bool
	// StreamAbove is the size from which a file the parser can stream (a
	// StreamParser) is read twice — hashed and probed, then sectioned and
	// written in batches within its document's one transaction — rather
	// than held whole with its text and sections (0 = DefaultStreamAbove,
	// < 0 = never).
	StreamAbove int64
}

// Summary is the outcome of a run.
//
// Its JSON (ingest --json) is snake_case with the duration in
// milliseconds: {"indexed", "unchanged", "skipped", "removed", "sections",
// "pages", "bytes", "duration_ms", "pages_per_s", "peak_rss_bytes",
// "results": [{"path", "status", "reason", "format", "pages", "sections",
// "bytes", "ocr_pages", "ocr_ms", "needs_ocr", "ocr_reason"}],
// "ocr_pages", "needs_ocr"}.
type Summary struct {
	// Results has one entry per file, in walk order, then removed ones.
	Results   []Result      `json:"results"`
	Indexed   int           `json:"indexed"`
	Unchanged int           `json:"unchanged"`
	Skipped   int           `json:"skipped"`
	Removed   int           `json:"removed"`
	Sections  int           `json:"sections"`
	Pages     int           `json:"pages"`
	Bytes     int64         `json:"bytes"`
	Duration  time.Duration `json:"-"`

	// OCRPages and NeedOCR add up the results' (see Result).
	OCRPages int `json:"ocr_pages"`
	NeedOCR  int `json:"needs_ocr"`

	// PagesPerSec is Pages (those indexed by this run) over Duration.
	PagesPerSec float64 `json:"pages_per_s"`
	// PeakRSS is the process's peak resident set size when the run
	// ended, in bytes (getrusage's maxrss; 0 where the system does not
	// say): the memory the run needed at most, with whatever the process
	// held before it.
	PeakRSS int64 `json:"peak_rss_bytes"`
}

// MarshalJSON writes the summary with its duration in milliseconds, and
// results as an array even when empty.
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary // without this method
	if s.Results == nil {
		s.Results = []Result{} // "results": [], not null, when no file was seen
	}
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(s), float64(s.Duration.Microseconds()) / 1000})
}

func (s *Summary) add(r Result) {
	s.Results = append(s.Results, r)
	s.OCRPages += r.OCRPages
	s.NeedOCR += r.NeedOCR
	switch r.Status {
	case Indexed:
		s.Indexed++
		s.Sections += r.Sections
		s.Pages += r.Pages
	case Unchanged:
		s.Unchanged++
	case Skipped:
		s.Skipped++
	case Removed:
		s.Removed++
	}
}

type file struct {
	path string // absolute
	size int64
	// skip is set when the walk already knows the file cannot be read.
	skip string
	// outside marks a symbolic link out of the folder, not followed.
	outside bool
}

// Store is what ingest writes to: an *index.Index, or any store.Store
// (the Weaviate store among them).
type Store interface {
	PutDocument(ctx context.Context, doc index.Document, sections []schema.Section) error
	PutDocumentStream(ctx context.Context, doc index.Document, write func(doc *index.Document, put func(schema.Section) error) error) error
	DeleteDocument(ctx context.Context, path string) (bool, error)
	TouchDocument(ctx context.Context, path string, mtime time.Time) error
	MissingVectors(ctx context.Context, path string) (bool, error)
	Document(ctx context.Context, path string) (index.Document, bool, error)
	Documents(ctx context.Context) ([]index.Document, error)
}

// Run ingests the given files and folders (folders recursively) into ix.
// After a bulk load (at least half of the index's sections written by this
// run) it merges the lexical segments (Index.Optimize). It returns an
// error only when the index itself fails or ctx is cancelled; problems
// with individual files are reported in the summary.
func Run(ctx context.Context, ix Store, paths []string, opt Options) (*Summary, error) {
	if opt.Parser == nil {
		return nil, errors.New("ingest: no parser configured")
	}
	opt = opt.withDefaults()
	start := time.Now()
	indexPath := ""
	if p, ok := ix.(interface{ Path() string }); ok {
		indexPath = p.Path() // never ingest the index's own file
	}
	files, roots, err := walk(paths, indexPath, loader.WalkOptions{IncludeHidden: opt.IncludeHidden, FollowSymlinks: opt.FollowSymlinks})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := prepareAll(ctx, ix, files, opt)
	out, err := writeAll(ctx, cancel, ix, files, results, opt, start)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ingest interrupted: %w", err)
	}
	sum := &Summary{}
	for _, r := range out {
		sum.Bytes += r.Bytes
		sum.add(r)
	}
	if opt.Prune {
		removed, err := Prune(ctx, ix, roots)
		if err != nil {
			return nil, err
		}
		for _, r := range removed {
			sum.add(r)
		}
	}
	if err := optimizeAfterBulkLoad(ctx, ix, sum); err != nil {
		return nil, err
	}
	sum.Duration = time.Since(start)
	if s := sum.Duration.Seconds(); s > 0 {
		sum.PagesPerSec = math.Round(float64(sum.Pages)/s*10) / 10
	}
	sum.PeakRSS = PeakRSS()
	return sum, nil
}

// withDefaults fills in the options left at zero: MaxFileSize, Workers and
// StreamAbove.
func (opt Options) withDefaults() Options {
	if opt.MaxFileSize == 0 {
		opt.MaxFileSize = DefaultMaxFileSize
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.StreamAbove == 0 {
		opt.StreamAbove = DefaultStreamAbove
	}
	return opt
}

// prepared is one file read and parsed by a worker (prepareFile), ready
// to be written: i is its position in the walk.
type prepared struct {
	i   int
	res Result
	doc *index.Document
	sec []schema.Section
	str StreamFunc
}

// prepareAll reads and parses files with opt.Workers workers and returns
// the prepared files, in the order they are done; the channel is closed
// when all are, or early once ctx is cancelled.
func prepareAll(ctx context.Context, ix Store, files []file, opt Options) <-chan prepared {
	type job struct {
		i int
		f file
	}
	jobs := make(chan job)
	results := make(chan prepared, opt.Workers)
	var wg sync.WaitGroup
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if opt.Started != nil {
					opt.Started(j.f.path)
				}
				res, doc, secs, str := prepareFile(ctx, ix, j.f, opt)
				select {
				case results <- prepared{j.i, res, doc, secs, str}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i, f := range files {
			select {
			case jobs <- job{i, f}:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	return results
}

// Reordering window of writeAll: a file done before an earlier one in the
// walk is held until the earlier ones are written, so that a fresh build
// of a folder gives every section the same id whatever order the workers
// finish in (retrieval breaks score ties by id). A slow file must not hold
// every later file in memory: past reorderFiles held files or
// reorderBytes of held section text, the earliest held file is written out
// of turn.
const (
	reorderFiles = 64
	reorderBytes = 64 << 20
)

// writeAll writes the prepared files to ix one at a time, in walk order
// within the reordering window above, reporting progress after each, and
// returns their results in walk order. On the first write error it cancels
// the run (cancel), drains the rest without writing them and returns the
// error.
func writeAll(ctx context.Context, cancel context.CancelFunc, ix Store, files []file, results <-chan prepared, opt Options, start time.Time) ([]Result, error) {
	var total int64
	for _, f := range files {
		total += f.size
	}
	out := make([]Result, len(files))
	prog := Progress{FilesTotal: len(files), BytesTotal: total}
	var werr error
	done := make([]bool, len(files))
	write := func(d prepared) {
		done[d.i] = true
		if werr == nil {
			var err error
			if d.res, err = writePrepared(ctx, ix, d, opt); err != nil {
				werr = err
				cancel()
			}
		}
		out[d.i] = d.res
		prog.record(d.res, start)
		if opt.Progress != nil && werr == nil {
			opt.Progress(prog)
		}
	}
	held := map[int]prepared{}
	var heldBytes int64
	next := 0 // the earliest file not yet written
	take := func(i int) {
		d := held[i]
		delete(held, i)
		heldBytes -= d.textBytes()
		write(d)
	}
	for d := range results {
		held[d.i] = d
		heldBytes += d.textBytes()
		for len(held) > 0 {
			if _, ok := held[next]; ok {
				take(next)
			} else if len(held) > reorderFiles || heldBytes > reorderBytes {
				take(minKey(held))
			} else {
				break
			}
			for next < len(files) && done[next] {
				next++
			}
		}
	}
	for len(held) > 0 { // cancelled: the rest as they come in the walk
		take(minKey(held))
	}
	return out, werr
}

// textBytes is the section text a prepared file holds in memory (a file
// to stream holds none: it is read again while written).
func (d prepared) textBytes() int64 {
	var n int64
	for _, s := range d.sec {
		n += int64(len(s.Content))
	}
	return n
}

// minKey returns the smallest key of a non-empty map.
func minKey(m map[int]prepared) int {
	k := -1
	for i := range m {
		if k < 0 || i < k {
			k = i
		}
	}
	return k
}

// writePrepared writes one prepared file: sectioned while read again
// (writeStream) when it streams, else its document and sections in one
// transaction; a file with nothing to write is left alone. It returns the
// file's result.
func writePrepared(ctx context.Context, ix Store, d prepared, opt Options) (Result, error) {
	switch {
	case d.str != nil:
		res, err := writeStream(ctx, ix, *d.doc, d.res, d.str, maxSize(opt))
		if err != nil {
			return res, fmt.Errorf("ingest %s: %w", res.Path, err)
		}
		return res, nil
	case d.doc != nil:
		if err := ix.PutDocument(ctx, *d.doc, d.sec); err != nil {
			return d.res, fmt.Errorf("ingest: %w", err) // err names the document
		}
		if err := noteOCR(ctx, ix, d.res, d.doc.Hash); err != nil { // see ocrstale.go
			return d.res, fmt.Errorf("ingest %s: note the pages that need OCR: %w", d.res.Path, err)
		}
	}
	return d.res, nil
}

// record counts one more file done, with its result r.
func (p *Progress) record(r Result, start time.Time) {
	p.FilesDone++
	p.Bytes += r.Bytes
	if r.Status == Indexed {
		p.Pages += r.Pages
		p.Sections += r.Sections
	}
	p.Current, p.Last = r.Path, r
	p.Elapsed = time.Since(start)
}

// optimizeAfterBulkLoad merges the lexical segments into one after a bulk
// load (at least half of the index written by this run): queries are
// fastest then, and the cost is proportional to what was just ingested.
func optimizeAfterBulkLoad(ctx context.Context, ix Store, sum *Summary) error {
	sq, ok := ix.(*index.Index) // other stores merge on their own
	if sum.Indexed <= 1 || !ok {
		return nil
	}
	st, err := sq.Stats(ctx)
	if err != nil {
		return err
	}
	if st.Segments > 1 && 2*sum.Sections >= st.Sections {
		return sq.Optimize(ctx)
	}
	return nil
}

// prepareFile reads, hashes and parses one file. It returns the document
// to write (nil when there is nothing to write) with its sections, or,
// for a file to section while writing it, the document (without title,
// pages and format) and how to section it.
func prepareFile(ctx context.Context, ix Store, f file, opt Options) (Result, *index.Document, []schema.Section, StreamFunc) {
	res := Result{Path: f.path, Bytes: f.size}
	skip := func(reason string) (Result, *index.Document, []schema.Section, StreamFunc) {
		res.Status, res.Reason = Skipped, reason
		return res, nil, nil, nil
	}
	// The index's errors name the document ("read document /x/a.txt from
	// index ..."); the result already does.
	skipIndex := func(err error) (Result, *index.Document, []schema.Section, StreamFunc) {
		return skip(strings.ReplaceAll(err.Error(), "document "+f.path+" ", "document "))
	}
	if f.outside {
		// Read through a link by an earlier run with FollowSymlinks: the
		// index no longer answers from it.
		if _, err := ix.DeleteDocument(ctx, f.path); err != nil {
			return skipIndex(err)
		}
	}
	if f.skip != "" {
		return skip(f.skip)
	}
	max := maxSize(opt)
	var (
		data   []byte
		fi     fs.FileInfo
		hash   string
		stream StreamFunc
		err    error
	)
	sp, streams := opt.Parser.(StreamParser)
	if streams && opt.StreamAbove > 0 && f.size >= streamAbove(opt.StreamAbove, f.path) {
		hash, fi, stream, err = probeFile(f.path, max, sp)
	} else {
		data, fi, err = loader.ReadFile(f.path, max)
		hash = hashOf(data)
	}
	if fi != nil {
		res.Bytes = fi.Size()
	}
	if err != nil {
		return skip(err.Error())
	}
	if fi.Size() == 0 && len(data) == 0 {
		return skip("empty file")
	}
	old, found, err := ix.Document(ctx, f.path)
	if err != nil {
		return skipIndex(err)
	}
	needVecs := false
	if found && old.Hash == hash {
		// A document ingested before an embedding model was set is
		// re-indexed so that hybrid search sees all of it.
		if needVecs, err = ix.MissingVectors(ctx, f.path); err != nil {
			return skipIndex(err)
		}
	}
	if found && old.Hash == hash && !needVecs {
		res.Reason = ocrAgain(ctx, ix, f.path, hash) // see ocrstale.go
	}
	if found && old.Hash == hash && !needVecs && res.Reason == "" {
		if !old.ModTime.Equal(fi.ModTime()) {
			_ = ix.TouchDocument(ctx, f.path, fi.ModTime())
		}
		res.Status, res.Format, res.Pages, res.Sections = Unchanged, old.Format, old.Pages, old.Sections
		return res, nil, nil, nil
	}
	doc := &index.Document{Path: f.path, Hash: hash, Size: fi.Size(), ModTime: fi.ModTime()}
	if stream != nil {
		return res, doc, nil, stream
	}
	if data == nil { // probed, but to be parsed whole
		if data, fi, err = loader.ReadFile(f.path, max); err != nil {
			return skip(err.Error())
		}
		doc.Hash, doc.Size, doc.ModTime = hashOf(data), fi.Size(), fi.ModTime()
	}
	if len(data) == 0 {
		return skip("empty file")
	}
	secs, pages, format, st, err := safeParse(ctx, opt.Parser, f.path, data)
	res.Format = format
	res.OCRPages, res.OCRMillis = st.Pages, float64(st.Time.Microseconds())/1000
	res.NeedOCR, res.OCRReason = st.Needed, st.Reason
	if err != nil {
		var ne *ocr.NeededError
		if errors.As(err, &ne) {
			res.NeedOCR, res.OCRReason = ne.Pages, ne.Reason
		}
		return skip(err.Error())
	}
	var kept []schema.Section
	for _, s := range secs {
		if hasText(s) {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return skip("no text found")
	}
	doc.Format, doc.Pages, doc.Title = format, pages, kept[0].Title
	res.Status, res.Pages, res.Sections = Indexed, pages, len(kept)
	return res, doc, kept, nil
}

func maxSize(opt Options) int64 { return max(opt.MaxFileSize, 0) }

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// hasText reports a section worth indexing.
func hasText(s schema.Section) bool {
	return strings.TrimSpace(s.Content) != "" || strings.TrimSpace(s.Title) != ""
}

// probeFile reads a file once, hashing it and writing it to the parser's
// probe, and returns its hash and, when the parser can section it while
// reading it, how.
func probeFile(path string, max int64, sp StreamParser) (string, fs.FileInfo, StreamFunc, error) {
	f, fi, err := loader.OpenFile(path, max)
	if err != nil {
		return "", fi, nil, err
	}
	defer f.Close()
	h := sha256.New()
	probe := sp.NewProbe(path)
	n, err := io.Copy(io.MultiWriter(h, probe), loader.LimitReader(f, max))
	if err != nil {
		return "", fi, nil, errors.New(loader.DescribeFSError(err))
	}
	if max > 0 && n > max {
		return "", fi, nil, &loader.TooLargeError{Size: fi.Size(), Max: max}
	}
	return hex.EncodeToString(h.Sum(nil)), fi, probe.Stream(), nil
}

// fileError is a reason to skip a file found while streaming it into the
// index.
type fileError struct{ error }

// writeStream sections a file while writing it to the index in one
// transaction (index.PutDocumentStream): a file that turns out unusable
// (or changed since it was hashed) leaves the index as it was and is
// reported as skipped. An error is the index's, or ctx's.
func writeStream(ctx context.Context, ix Store, doc index.Document, res Result, stream StreamFunc, max int64) (Result, error) {
	var pages, n int
	var format string
	err := ix.PutDocumentStream(ctx, doc, func(d *index.Document, put func(schema.Section) error) error {
		f, _, err := loader.OpenFile(doc.Path, max)
		if err != nil {
			return fileError{err}
		}
		defer f.Close()
		h := sha256.New()
		cr := &countReader{r: loader.LimitReader(f, max)}
		n = 0
		var perr error // put's error: the index's
		pages, format, err = stream(ctx, io.TeeReader(cr, h), func(s schema.Section) error {
			if !hasText(s) {
				return nil
			}
			if n == 0 {
				d.Title = s.Title
			}
			n++
			perr = put(s)
			return perr
		})
		switch {
		case perr != nil:
			return perr
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			return fileError{err}
		case max > 0 && cr.n > max:
			return fileError{&loader.TooLargeError{Size: cr.n, Max: max}}
		case hex.EncodeToString(h.Sum(nil)) != doc.Hash:
			return fileError{errors.New("file changed while being read")}
		case n == 0:
			return fileError{errors.New("no text found")}
		}
		d.Pages, d.Format = pages, format
		return nil
	})
	res.Format = format
	var fe fileError
	if errors.As(err, &fe) {
		res.Status, res.Reason = Skipped, fe.Error()
		return res, nil
	}
	if err != nil {
		return res, err
	}
	res.Status, res.Pages, res.Sections = Indexed, pages, n
	return res, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// LoaderParser adapts a loader.Loader to Parser: detect the format,
// parse, and split into sections with the loader's section options — the parsing and
// sectioning every document path of DocMind shares.
func LoaderParser(l *loader.Loader) Parser {
	return loaderParser{l}
}

// loaderParser is LoaderParser; it streams the plain-text files the
// loader can section while reading them (loader.Probe).
type loaderParser struct{ l *loader.Loader }

func (p loaderParser) Parse(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, error) {
	secs, pages, format, _, err := p.ParseOCR(ctx, path, data)
	return secs, pages, format, err
}

func (p loaderParser) ParseOCR(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, document.OCRStats, error) {
	doc, err := p.l.Parse(ctx, path, data)
	if err != nil {
		return nil, 0, "", document.OCRStats{}, err
	}
	return p.l.Split(doc), doc.Pages, doc.Format, doc.OCR, nil
}

func (p loaderParser) NewProbe(path string) Probe { return newSheetProbe(p.l, path) }

type loaderProbe struct{ *loader.Probe }

func (p loaderProbe) Stream() StreamFunc {
	ts, ok := p.Probe.Stream()
	if !ok {
		return nil
	}
	return func(ctx context.Context, r io.Reader, emit func(schema.Section) error) (int, string, error) {
		pages, err := ts.Sections(ctx, r, emit)
		return pages, formats.Text, err
	}
}

// OCRParser is a Parser that also says what OCR did on the file
// (LoaderParser is one): Run reports it per file.
type OCRParser interface {
	Parser
	ParseOCR(ctx context.Context, path string, data []byte) (sections []schema.Section, pages int, format string, ocr document.OCRStats, err error)
}

// safeParse calls the parser, turning a panic into an error.
func safeParse(ctx context.Context, p Parser, path string, data []byte) (secs []schema.Section, pages int, format string, st document.OCRStats, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser failed: %v", r)
		}
	}()
	if op, ok := p.(OCRParser); ok {
		return op.ParseOCR(ctx, path, data)
	}
	secs, pages, format, err = p.Parse(ctx, path, data)
	return secs, pages, format, st, err
}

// walk lists the files under paths (absolute, sorted per argument,
// duplicates removed; loader.Walk, the walker every document path shares)
// and the absolute roots. The index's own files are never listed.
func walk(paths []string, indexPath string, wo loader.WalkOptions) ([]file, []string, error) {
	own := map[string]bool{}
	if abs, err := filepath.Abs(indexPath); err == nil {
		for _, s := range []string{"", "-wal", "-shm", "-journal", index.DenseFileSuffix} {
			own[abs+s] = true
		}
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, fmt.Errorf("ingest %s: %w", p, err)
		}
		abs[i] = a
	}
	wo.Exclude = func(p string) bool { return own[p] }
	found, roots, err := loader.Walk(abs, wo)
	if err != nil {
		return nil, nil, fmt.Errorf("ingest: %w", err)
	}
	files := make([]file, len(found))
	for i, f := range found {
		files[i] = file{path: f.Path, size: f.Size, skip: f.Skip, outside: f.Outside}
	}
	return files, roots, nil
}

// Prune removes the indexed documents whose files no longer exist. With
// roots, only documents at or under one of them are considered; without,
// every document is.
func Prune(ctx context.Context, ix Store, roots []string) ([]Result, error) {
	docs, err := ix.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var abs []string
	for _, r := range roots {
		a, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("prune %s: %w", r, err)
		}
		abs = append(abs, a)
	}
	var out []Result
	for _, d := range docs {
		if len(abs) > 0 && !under(d.Path, abs) {
			continue
		}
		if _, err := os.Lstat(d.Path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ok, err := ix.DeleteDocument(ctx, d.Path)
		if err != nil {
			return out, fmt.Errorf("prune: %w", err)
		}
		if ok {
			out = append(out, Result{Path: d.Path, Status: Removed, Reason: "file no longer exists", Format: d.Format, Pages: d.Pages, Sections: d.Sections})
		}
	}
	return out, nil
}

func under(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
