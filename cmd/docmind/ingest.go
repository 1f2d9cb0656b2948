package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/formats/ocr"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/llm/providers"
	"github.com/docmind/docmind/loader"
)

// indexFlag is the --index flag shared by ingest, index stats and ask.
func indexFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "index", "", "index directory holding docmind.db (default: $DOCMIND_INDEX, then ~/.cache/docmind/index)")
}

// followFlag is the --follow-symlinks flag of ingest and --docs.
func followFlag(cmd *cobra.Command, dst *bool) {
	cmd.Flags().BoolVar(dst, "follow-symlinks", false, "also read symbolic links to files outside the folder (skipped by default)")
}

// openIndex opens (create: or creates) the index in the directory the
// flag or the environment names.
func (a *app) openIndex(ctx context.Context, flag string, create bool, opts ...index.Option) (*index.Index, error) {
	dir := flag
	if dir == "" {
		var err error
		if dir, err = index.DefaultDirIn(a.getenv); err != nil {
			return nil, err
		}
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().IsRegular() {
		// the database file itself, as ingest prints it
		if filepath.Base(dir) != index.FileName {
			return nil, fmt.Errorf("--index %s is a file: give the index directory (the folder holding %s)", dir, index.FileName)
		}
		dir = filepath.Dir(dir)
	}
	path := index.PathInDir(dir)
	fi, err := os.Stat(path)
	switch {
	case !create && (err != nil || fi.Size() == 0):
		return nil, fmt.Errorf("no index at %s: run docmind ingest PATH first, or pass --docs DIR", path)
	case create && err == nil && sqlitedb.ReadOnly(path):
		return nil, fmt.Errorf("index %s is read-only: ingest needs to write it (other commands can read it)", path)
	case create:
		if err := os.MkdirAll(dir, sqlitedb.DirMode); err != nil {
			return nil, fmt.Errorf("cannot create index directory: %w", err)
		}
	}
	return index.Open(ctx, path, opts...)
}

func (a *app) ingestCmd() *cobra.Command {
	var indexDir, storeArg string
	var ef embedFlags
	var asJSON bool
	var ocrMode, ocrLang string
	opt := ingest.Options{}
	cmd := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "Add files and folders to the index (PDF, DOCX, DOC, ODT, RTF, XLSX, CSV, PPTX, EML, HTML, Markdown, text, scans and images by OCR)",
		Long: `Reads the files and folders given (recursively) into the persistent index.
Unchanged files (same content hash) are skipped, changed ones replaced
atomically, and with --prune documents whose files are gone are removed.
Encrypted, damaged, binary and empty files are listed with the reason;
when nothing is indexed, unchanged or removed (every file given skipped, or
no document in the folders given), ingest exits 1 after the summary. With
--prune, a path that is gone names documents to remove: not an error, even
when none was indexed.
Interrupting an ingest leaves the index as it was before the file in progress.

Scanned PDF pages (no usable text layer) and images (PNG, JPEG, TIFF) are
read by OCR with Tesseract when it is installed; each file's line says how
many pages were OCR'd and how long it took. Without Tesseract such files
are indexed with the text they have, and one line says how many pages need
OCR and how to install it. See docs/formats.md.`,
		Example: `  docmind ingest ~/contracts
  docmind ingest --prune --json docs/ manuals/handbook.pdf
  docmind ingest --ocr-lang eng+deu ~/scans`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("ingest needs at least one file or folder")}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if opt.Workers < 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--workers must be 0 (one per CPU) or more, got %d", opt.Workers)}
			}
			if opt.MaxFileSize <= 0 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--max-file-size must be a positive number of bytes, got %d", opt.MaxFileSize)}
			}
			if !opt.Prune {
				// A path that is not there is a mistake, not an empty
				// folder: say so before the index is opened (with --prune
				// it names documents to remove).
				for _, p := range args {
					if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
						return fmt.Errorf("no such file or folder: %s (nothing was ingested)", p)
					}
				}
			}
			emb, err := a.embedding(ef.config(providers.Config{}))
			if err != nil {
				return err
			}
			var target ingest.Store
			var where string
			var ix *index.Index
			if url := a.storeURL(storeArg); url != "" {
				if indexDir != "" {
					return usageError{cmd: cmdPath(c), err: fmt.Errorf("--index and --store (or $DOCMIND_STORE) both name the index: pass one")}
				}
				st, err := a.openDocStore(ctx, url, emb, true)
				if err != nil {
					return err
				}
				defer st.Close()
				target, where = st, st.Name()
			} else {
				ix, err = a.openIndexEmbedded(ctx, indexDir, true, emb, true)
				if err != nil {
					return err
				}
				defer ix.Close()
				target, where = ix, ix.Path()
			}
			mode, err := ocr.ParseMode(ocrMode)
			if err != nil {
				return usageError{cmd: cmdPath(c), err: err}
			}
			ocrOpts := ocr.Options{Mode: mode, Lang: ocrLang}
			var bar *progressBar
			if !asJSON {
				bar = a.showProgress(&opt, true)
				if bar.tty {
					ocrOpts.Progress = bar.ocrPage
				}
			}
			engine := ocr.New(ocrOpts)
			l, closeLoader := docmind.NewLoader(loader.WithOCR(engine))
			defer closeLoader()
			opt.Parser = ingest.LoaderParser(l)
			defer a.boundIngestMemory()()
			// the engine in the context tells ingest whether files
			// indexed without OCR can be read by it now
			sum, err := ingest.Run(ocr.NewContext(ctx, engine), target, args, opt)
			if bar != nil {
				bar.finish()
			}
			if err != nil {
				return err
			}
			if ix != nil {
				a.warnUnembedded(ctx, ix, emb)
			}
			printOCRNotice(a.stderr, sum)
			if asJSON {
				err = writeJSON(a.stdout, sum)
			} else {
				printIngestSummary(a.stdout, sum, where)
			}
			if err == nil && !opt.Prune && sum.Indexed+sum.Unchanged == 0 {
				// as ask --docs does: what was asked for cannot be answered
				// from (with --prune a path that is gone names what to remove)
				err = fmt.Errorf("no documents found in %s", strings.Join(args, ", "))
				if sum.Skipped > 0 {
					err = fmt.Errorf("nothing indexed: %d %s skipped (reasons above)", sum.Skipped, plural(sum.Skipped, "file", "files"))
				}
			}
			return err
		},
	}
	indexFlag(cmd, &indexDir)
	storeFlag(cmd, &storeArg)
	ef.register(cmd)
	f := cmd.Flags()
	addJSONFlag(cmd, &asJSON, "the summary")
	f.BoolVar(&opt.Prune, "prune", false, "remove indexed documents under the given paths whose files no longer exist")
	f.Int64Var(&opt.MaxFileSize, "max-file-size", ingest.DefaultMaxFileSize, "skip files larger than this many bytes")
	f.IntVar(&opt.Workers, "workers", 0, "files parsed in parallel (default: number of CPUs)")
	f.BoolVar(&opt.IncludeHidden, "hidden", false, "also read hidden files and folders")
	followFlag(cmd, &opt.FollowSymlinks)
	f.StringVar(&ocrMode, "ocr", "auto", "which pages are read by OCR (Tesseract): auto (pages without a usable text layer, and images), always (every page), never")
	f.StringVar(&ocrLang, "ocr-lang", "eng", "Tesseract languages for OCR, e.g. eng or eng+deu (each needs its package, e.g. tesseract-ocr-deu)")
	return cmd
}

// ingestMemoryLimit is the soft limit on the Go runtime's memory that
// ingest sets (debug.SetMemoryLimit) unless $GOMEMLIMIT sets one: the
// garbage collector then runs more often as the heap nears it, rather
// than letting it reach twice what is live. Reading PDFs keeps about 65
// MiB live on two cores (two PDFium instances of 17 MiB each, the
// compiled module's tables, the documents in flight); 100 MiB took the
// peak RSS of ingesting the ten filings from 202 to 144 MiB at no
// measurable CPU cost, where 80 MiB made the collector run six times as
// often for 30% more CPU (docs/performance.md, "Ingest"). It is soft: a
// run that needs more gets more.
const ingestMemoryLimit = 100 << 20

// boundIngestMemory sets ingestMemoryLimit, unless $GOMEMLIMIT is set or
// a lower limit is in force, and returns what puts the previous limit
// back (what follows an ingest, such as answering, keeps its own).
func (a *app) boundIngestMemory() (restore func()) {
	cur := debug.SetMemoryLimit(-1)
	if a.getenv("GOMEMLIMIT") != "" || cur <= ingestMemoryLimit {
		return func() {}
	}
	debug.SetMemoryLimit(ingestMemoryLimit)
	return func() { debug.SetMemoryLimit(cur) }
}

// printOCRNotice says in one line how many pages need OCR and were not
// read, and why (with how to install Tesseract when it is missing).
func printOCRNotice(w io.Writer, s *ingest.Summary) {
	if s.NeedOCR == 0 {
		return
	}
	reason, files := "", 0
	for _, r := range s.Results {
		if r.NeedOCR > 0 {
			files++
			if reason == "" {
				reason = r.OCRReason
			}
		}
	}
	fmt.Fprintf(w, "%s in %s need%s OCR and %s not read: %s", count(s.NeedOCR, "page"), count(files, "file"), plural(s.NeedOCR, "s", ""), plural(s.NeedOCR, "was", "were"), reason)
	if strings.Contains(reason, "not installed") {
		fmt.Fprintf(w, "; %s, then run docmind ingest again", ocr.InstallHint)
	}
	fmt.Fprintln(w)
}

// ocrNote is what a file's line says about OCR: ", 3 pages OCR'd in
// 4.1s", ", 2 pages need OCR", or "".
func ocrNote(r ingest.Result) string {
	note := ""
	if r.OCRPages > 0 {
		note += fmt.Sprintf(", %s OCR'd in %s", count(r.OCRPages, "page"), (time.Duration(r.OCRMillis*1e6) * time.Nanosecond).Round(100*time.Millisecond))
	}
	if r.NeedOCR > 0 && r.Status != ingest.Skipped {
		note += fmt.Sprintf(", %s need%s OCR", count(r.NeedOCR, "page"), plural(r.NeedOCR, "s", ""))
	}
	return note
}

func printIngestSummary(w io.Writer, s *ingest.Summary, path string) {
	fmt.Fprintf(w, "%d indexed, %d unchanged, %d skipped", s.Indexed, s.Unchanged, s.Skipped)
	if s.Removed > 0 {
		fmt.Fprintf(w, ", %d removed", s.Removed)
	}
	fmt.Fprintf(w, " — %s from %s in %s", count(s.Sections, "section"), count(s.Pages, "page"), s.Duration.Round(time.Millisecond))
	if s.OCRPages > 0 {
		fmt.Fprintf(w, " (%s read by OCR)", count(s.OCRPages, "page"))
	}
	fmt.Fprintln(w)
	var perf []string
	if s.Pages > 0 {
		perf = append(perf, fmt.Sprintf("%.1f pages/s", s.PagesPerSec))
	}
	if s.PeakRSS > 0 {
		perf = append(perf, fmt.Sprintf("peak memory (RSS) %.0f MiB", float64(s.PeakRSS)/(1<<20)))
	}
	if len(perf) > 0 {
		fmt.Fprintln(w, strings.Join(perf, " · "))
	}
	for _, r := range s.Results {
		switch {
		case r.Status == ingest.Skipped:
			fmt.Fprintf(w, "  skipped %s: %s\n", r.Path, r.Reason)
		case r.Status == ingest.Indexed && r.Reason != "":
			fmt.Fprintf(w, "  %s: %s\n", r.Path, r.Reason)
		}
	}
	fmt.Fprintf(w, "index: %s\n", path)
}

// printFileLine prints the result of the file just processed, for logs
// and pipes: "[3/120] indexed docs/a.pdf: 12 pages, 40 sections".
// showProgress sets opt to show ingest progress on stderr: a bar on a
// terminal, else a line per file (with all unset, only the files read and
// indexed: the caller reports the others). A file that takes long to read
// is named while it is read: on the bar after 2 s, in a pipe by a line
// after 10 s and then every minute. It returns the progress to finish.
func (a *app) showProgress(opt *ingest.Options, all bool) *progressBar {
	bar := &progressBar{w: a.stderr, tty: isTerminal(a.stderr), inflight: map[string]reading{}, stop: make(chan struct{}), now: time.Now}
	opt.Started = bar.started
	if bar.tty {
		opt.Progress = bar.update
	} else {
		// No terminal to redraw a bar on: a line per file.
		opt.Progress = func(pr ingest.Progress) {
			bar.mu.Lock()
			bar.forget(pr.Last.Path)
			bar.mu.Unlock()
			if all || pr.Last.Status == ingest.Indexed {
				printFileLine(a.stderr, pr)
			}
		}
	}
	go bar.watch()
	return bar
}

func printFileLine(w io.Writer, pr ingest.Progress) {
	r := pr.Last
	fmt.Fprintf(w, "[%d/%d] %s %s", pr.FilesDone, pr.FilesTotal, r.Status, shown(r.Path))
	switch r.Status {
	case ingest.Indexed, ingest.Unchanged:
		if r.Pages > 0 {
			fmt.Fprintf(w, ": %s, %s", count(r.Pages, "page"), count(r.Sections, "section"))
		} else {
			fmt.Fprintf(w, ": %s", count(r.Sections, "section"))
		}
		fmt.Fprint(w, ocrNote(r))
		if r.Reason != "" {
			fmt.Fprintf(w, " (%s)", r.Reason)
		}
	case ingest.Skipped, ingest.Removed:
		fmt.Fprintf(w, ": %s", r.Reason)
	}
	fmt.Fprintln(w)
}

// progressBar renders ingest progress on one terminal line, with the
// page a file being read by OCR is at and a file that takes long to read;
// in a pipe (tty unset) it only names such a file, on a line of its own.
type progressBar struct {
	w     io.Writer
	tty   bool
	mu    sync.Mutex
	last  time.Time
	shown bool
	pr    ingest.Progress // the progress drawn last
	ocr   string          // " · OCR scan.pdf 3/40 pages" while a file is OCR'd
	slow  string          // "reading big.txt (48 MiB) 12s" while a file takes long

	inflight map[string]reading // the files being read, by path
	now      func() time.Time
	stop     chan struct{}
	once     sync.Once
}

// reading is a file being read: since when, its size, and when a line
// last named it (pipe).
type reading struct {
	since, noted time.Time
	size         int64
}

// How long a file is read before the bar names it, and before (and
// between) the lines that name it in a pipe.
const (
	slowOnBar    = 2 * time.Second
	slowInPipe   = 10 * time.Second
	slowPipeNext = time.Minute
)

// started notes that a worker started reading path (ingest.Options.Started).
func (p *progressBar) started(path string) {
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inflight != nil {
		p.inflight[path] = reading{since: p.now(), size: size}
	}
}

// forget notes that path is read. p.mu is held.
func (p *progressBar) forget(path string) { delete(p.inflight, path) }

// watch checks twice a second for a file that takes long, until finish.
func (p *progressBar) watch() {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.tick()
		}
	}
}

// tick names the file read longest, if it has taken long: on the bar, or
// by a line in a pipe.
func (p *progressBar) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inflight == nil {
		return // finished: the bar is cleared for good
	}
	now := p.now()
	path, r := p.oldest()
	age := now.Sub(r.since)
	if !p.tty {
		if path != "" && age >= slowInPipe && now.Sub(r.noted) >= slowPipeNext {
			fmt.Fprintf(p.w, "reading %s%s: %s so far\n", shown(path), sizeNote(r.size), age.Round(time.Second))
			r.noted = now
			p.inflight[path] = r
		}
		return
	}
	if slow := p.slowNote(); slow != p.slow {
		p.slow = slow
		p.draw(true)
	}
}

// oldest is the file read longest ("" when none). p.mu is held.
func (p *progressBar) oldest() (path string, r reading) {
	for k, v := range p.inflight {
		if path == "" || v.since.Before(r.since) || (v.since.Equal(r.since) && k < path) {
			path, r = k, v
		}
	}
	return path, r
}

// slowNote is the bar's note of the file read longest, when it has taken
// over slowOnBar: "reading big.txt (48 MiB) 12s". p.mu is held.
func (p *progressBar) slowNote() string {
	path, r := p.oldest()
	age := p.now().Sub(r.since)
	if path == "" || age < slowOnBar {
		return ""
	}
	return fmt.Sprintf("reading %s%s %s", filepath.Base(path), sizeNote(r.size), age.Round(time.Second))
}

// sizeNote is " (48 MiB)" for a file's size, "" when unknown.
func sizeNote(n int64) string {
	switch {
	case n <= 0:
		return ""
	case n < 1<<20:
		return fmt.Sprintf(" (%d KiB)", (n+1023)>>10)
	default:
		return fmt.Sprintf(" (%.0f MiB)", float64(n)/(1<<20))
	}
}

func (p *progressBar) update(pr ingest.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forget(pr.Last.Path)
	force := pr.FilesDone >= pr.FilesTotal
	if p.now != nil {
		slow := p.slowNote()
		force = force || slow != p.slow // the file named is done
		p.slow = slow
	}
	p.pr = pr
	p.draw(force)
}

// ocrPage notes that done of the total pages of source to read by OCR
// are read (an ocr.Options.Progress).
func (p *progressBar) ocrPage(source string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ocr = ""
	if done < total {
		p.ocr = fmt.Sprintf(" · OCR %s %d/%d pages", filepath.Base(source), done, total)
	}
	p.draw(false)
}

// draw redraws the line, at most every 100 ms unless force.
func (p *progressBar) draw(force bool) {
	if time.Since(p.last) < 100*time.Millisecond && !force {
		return
	}
	p.last = time.Now()
	pr := p.pr
	const width = 24
	frac := 0.0
	if pr.BytesTotal > 0 {
		frac = float64(pr.Bytes) / float64(pr.BytesTotal)
	} else if pr.FilesTotal > 0 {
		frac = float64(pr.FilesDone) / float64(pr.FilesTotal)
	}
	filled := int(frac * width)
	rate := 0.0
	eta := ""
	if s := pr.Elapsed.Seconds(); s > 0 {
		rate = float64(pr.Sections) / s
		if frac > 0 && frac < 1 {
			eta = " · ETA " + (time.Duration(s/frac*(1-frac)) * time.Second).Round(time.Second).String()
		}
	}
	if pr.FilesTotal == 0 {
		// nothing reported yet: only the file that takes long
		if p.slow == "" && p.ocr == "" {
			return
		}
		fmt.Fprintf(p.w, "\r\x1b[K%s", strings.TrimPrefix(p.slow+p.ocr, " · "))
		p.shown = true
		return
	}
	slow := ""
	if p.slow != "" {
		slow = " · " + p.slow
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d files · %d pages · %d sections · %.0f sections/s%s%s%s",
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), pr.FilesDone, pr.FilesTotal, pr.Pages, pr.Sections, rate, eta, p.ocr, slow)
	p.shown = true
}

// finish stops naming slow files and clears the bar; it may be called
// more than once.
func (p *progressBar) finish() {
	p.once.Do(func() {
		if p.stop != nil {
			close(p.stop)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.inflight = nil
		if p.shown {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
	})
}

func (a *app) indexCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "index", Short: "Inspect the persistent index"}
	var indexDir string
	var asJSON bool
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Documents, sections, pages, size and embedding model of the index",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			s, path, err := readIndex(c.Context(), a, indexDir, (*index.Index).Stats)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, s)
			}
			model := "none (BM25 only)"
			if s.EmbeddingModel != "" {
				model = fmt.Sprintf("%s (%d dimensions, %d vectors)", s.EmbeddingModel, s.EmbeddingDim, s.Vectors)
			}
			fmt.Fprintf(a.stdout, "index      %s\ndocuments  %d\nsections   %d\npages      %d\nsize       %.1f MiB\nembeddings %s\n",
				path, s.Documents, s.Sections, s.Pages, float64(s.SizeBytes)/(1<<20), model)
			return nil
		},
	}
	indexFlag(stats, &indexDir)
	addJSONFlag(stats, &asJSON, "the statistics")
	cmd.AddCommand(stats, a.indexDocumentsCmd())
	return cmd
}

// readIndex opens the existing index in dir, reads it with read, closes
// it and returns what read returned and the index file's path.
func readIndex[T any](ctx context.Context, a *app, dir string, read func(*index.Index, context.Context) (T, error)) (T, string, error) {
	ix, err := a.openIndex(ctx, dir, false)
	if err != nil {
		var zero T
		return zero, "", err
	}
	defer ix.Close()
	v, err := read(ix, ctx)
	return v, ix.Path(), err
}

// indexDocumentsCmd is `docmind index documents`: each document's profile,
// what a question's names are resolved against (docs/retrieval.md).
func (a *app) indexDocumentsCmd() *cobra.Command {
	var indexDir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "documents",
		Short: "Each document's title, entity, period, section kinds and parties: what questions are resolved against",
		Long: `Lists every document of the index with what identifies it: its title,
the entity and period it states, how many of its sections are of each kind
other than body text (preamble, signature-block, table-of-contents, …) and
the opening of its preamble or cover page. A question's names are resolved
against these profiles: see docs/retrieval.md.

Documents are listed in path order. --json prints [{path, title, entity,
period, sections, kinds, parties}]; entity and period are there when the
document states them on a cover page (a filing's registrant and fiscal
period), kinds and parties when it has such sections and a preamble or
cover page.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			ps, path, err := readIndex(c.Context(), a, indexDir, (*index.Index).Profiles)
			if err != nil {
				return err
			}
			// in path order, not the order parallel workers wrote them in
			slices.SortFunc(ps, func(x, y index.DocumentProfile) int { return strings.Compare(x.Path, y.Path) })
			if asJSON {
				if ps == nil {
					ps = []index.DocumentProfile{}
				}
				return writeJSON(a.stdout, ps)
			}
			if len(ps) == 0 {
				fmt.Fprintf(a.stdout, "The index at %s has no documents yet: run docmind ingest PATH\n", path)
				return nil
			}
			for _, p := range ps {
				fmt.Fprintf(a.stdout, "%s\n  title     %s\n", shown(p.Path), shown(p.Title))
				if p.Entity != "" {
					fmt.Fprintf(a.stdout, "  entity    %s\n", p.Entity)
				}
				if p.Period != "" {
					fmt.Fprintf(a.stdout, "  period    %s\n", p.Period)
				}
				kinds := make([]string, 0, len(p.Kinds))
				for _, k := range slices.Sorted(maps.Keys(p.Kinds)) {
					kinds = append(kinds, fmt.Sprintf("%d %s", p.Kinds[k], k))
				}
				fmt.Fprintf(a.stdout, "  sections  %d", p.Sections)
				if len(kinds) > 0 {
					fmt.Fprintf(a.stdout, " (%s)", strings.Join(kinds, ", "))
				}
				fmt.Fprintln(a.stdout)
				if p.Parties != "" {
					fmt.Fprintf(a.stdout, "  parties   %s\n", p.Parties)
				}
			}
			return nil
		},
	}
	indexFlag(cmd, &indexDir)
	addJSONFlag(cmd, &asJSON, "the profiles")
	return cmd
}

// count is "1 page" or "n pages".
func count(n int, noun string) string {
	return strconv.Itoa(n) + " " + plural(n, noun, noun+"s")
}
