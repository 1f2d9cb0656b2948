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
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

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
	// Reason says why a file was skipped.
	Reason   string `json:"reason,omitempty"`
	Format   string `json:"format,omitempty"`
	Pages    int    `json:"pages,omitempty"`
	Sections int    `json:"sections,omitempty"`
	Bytes    int64  `json:"bytes,omitempty"`
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

// Options configure Run.
type Options struct {
	// Parser parses files; required.
	Parser Parser
	// MaxFileSize skips larger files (0 = DefaultMaxFileSize, < 0 = no
	// limit).
	MaxFileSize int64
	// Progress, when set, is called after every file, from one goroutine.
	Progress func(Progress)
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
}

// Summary is the outcome of a run.
type Summary struct {
	// Results has one entry per file, in walk order, then removed ones.
	Results                              []Result
	Indexed, Unchanged, Skipped, Removed int
	Sections, Pages                      int
	Bytes                                int64
	Duration                             time.Duration
}

func (s *Summary) add(r Result) {
	s.Results = append(s.Results, r)
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

// Run ingests the given files and folders (folders recursively) into ix.
// After a bulk load (at least half of the index's sections written by this
// run) it merges the lexical segments (Index.Optimize). It returns an error only when the index itself fails or ctx is
// cancelled; problems with individual files are reported in the summary.
func Run(ctx context.Context, ix *index.Index, paths []string, opt Options) (*Summary, error) {
	if opt.Parser == nil {
		return nil, errors.New("ingest: no parser configured")
	}
	if opt.MaxFileSize == 0 {
		opt.MaxFileSize = DefaultMaxFileSize
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	files, roots, err := walk(paths, ix.Path(), loader.WalkOptions{IncludeHidden: opt.IncludeHidden, FollowSymlinks: opt.FollowSymlinks})
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range files {
		total += f.size
	}

	type job struct {
		i int
		f file
	}
	type done struct {
		i   int
		res Result
		doc *index.Document
		sec []schema.Section
	}
	jobs := make(chan job)
	results := make(chan done, opt.Workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				res, doc, secs := prepareFile(ctx, ix, j.f, opt)
				select {
				case results <- done{j.i, res, doc, secs}:
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

	out := make([]Result, len(files))
	sum := &Summary{}
	prog := Progress{FilesTotal: len(files), BytesTotal: total}
	var werr error
	for d := range results {
		if werr == nil && d.doc != nil {
			if err := ix.PutDocument(ctx, *d.doc, d.sec); err != nil {
				werr = fmt.Errorf("ingest: %w", err) // err names the document
				cancel()
			}
		}
		out[d.i] = d.res
		prog.FilesDone++
		prog.Bytes += d.res.Bytes
		if d.res.Status == Indexed {
			prog.Pages += d.res.Pages
			prog.Sections += d.res.Sections
		}
		prog.Current, prog.Last = d.res.Path, d.res
		prog.Elapsed = time.Since(start)
		if opt.Progress != nil && werr == nil {
			opt.Progress(prog)
		}
	}
	if werr != nil {
		return nil, werr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("ingest interrupted: %w", err)
	}
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
	if sum.Indexed > 1 {
		// After a bulk load (at least half of the index written by this run)
		// merge the lexical segments into one: queries are fastest then, and
		// the cost is proportional to what was just ingested.
		st, err := ix.Stats(ctx)
		if err != nil {
			return nil, err
		}
		if st.Segments > 1 && 2*sum.Sections >= st.Sections {
			if err := ix.Optimize(ctx); err != nil {
				return nil, err
			}
		}
	}
	sum.Duration = time.Since(start)
	return sum, nil
}

// prepareFile reads, hashes and parses one file. It returns the document
// to write (nil when there is nothing to write).
func prepareFile(ctx context.Context, ix *index.Index, f file, opt Options) (Result, *index.Document, []schema.Section) {
	res := Result{Path: f.path, Bytes: f.size}
	skip := func(reason string) (Result, *index.Document, []schema.Section) {
		res.Status, res.Reason = Skipped, reason
		return res, nil, nil
	}
	// The index's errors name the document ("read document /x/a.txt from
	// index ..."); the result already does.
	skipIndex := func(err error) (Result, *index.Document, []schema.Section) {
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
	max := opt.MaxFileSize
	if max < 0 {
		max = 0
	}
	data, fi, err := loader.ReadFile(f.path, max)
	if fi != nil {
		res.Bytes = fi.Size()
	}
	if err != nil {
		return skip(err.Error())
	}
	if len(data) == 0 {
		return skip("empty file")
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
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
		if !old.ModTime.Equal(fi.ModTime()) {
			_ = ix.TouchDocument(ctx, f.path, fi.ModTime())
		}
		res.Status, res.Format, res.Pages, res.Sections = Unchanged, old.Format, old.Pages, old.Sections
		return res, nil, nil
	}
	secs, pages, format, err := safeParse(ctx, opt.Parser, f.path, data)
	res.Format = format
	if err != nil {
		return skip(err.Error())
	}
	var kept []schema.Section
	for _, s := range secs {
		if strings.TrimSpace(s.Content) != "" || strings.TrimSpace(s.Title) != "" {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return skip("no text found")
	}
	title := ""
	if len(kept) > 0 {
		title = kept[0].Title
	}
	doc := &index.Document{Path: f.path, Hash: hash, Size: fi.Size(), ModTime: fi.ModTime(), Format: format, Pages: pages, Title: title}
	res.Status, res.Pages, res.Sections = Indexed, pages, len(kept)
	return res, doc, kept
}

// LoaderParser adapts a loader.Loader to Parser: detect the format,
// parse, and split into sections with the loader's section options — the parsing and
// sectioning every document path of DocMind shares.
func LoaderParser(l *loader.Loader) Parser {
	return ParserFunc(func(ctx context.Context, path string, data []byte) ([]schema.Section, int, string, error) {
		doc, err := l.Parse(ctx, path, data)
		if err != nil {
			return nil, 0, "", err
		}
		return l.Split(doc), doc.Pages, doc.Format, nil
	})
}

// safeParse calls the parser, turning a panic into an error.
func safeParse(ctx context.Context, p Parser, path string, data []byte) (secs []schema.Section, pages int, format string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser failed: %v", r)
		}
	}()
	return p.Parse(ctx, path, data)
}

// walk lists the files under paths (absolute, sorted per argument,
// duplicates removed; loader.Walk, the walker every document path shares)
// and the absolute roots. The index's own files are never listed.
func walk(paths []string, indexPath string, wo loader.WalkOptions) ([]file, []string, error) {
	own := map[string]bool{}
	if abs, err := filepath.Abs(indexPath); err == nil {
		for _, s := range []string{"", "-wal", "-shm", "-journal"} {
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
func Prune(ctx context.Context, ix *index.Index, roots []string) ([]Result, error) {
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
