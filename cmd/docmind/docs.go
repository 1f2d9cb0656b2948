package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// docsIndex answers --docs PATH (a folder or one file) the way the
// persistent index answers: it ingests PATH — same walker, parsers,
// sectioning and BM25 as docmind ingest — into an index kept for that
// folder under the user's cache directory (index.CacheDirForIn), so that a
// second run only re-reads changed files; files that are gone are pruned.
// A server (served) keeps its own cache of the folder, which also holds
// the files uploaded to it (index.ServedCacheDirForIn).
// When the cache cannot be used (no cache directory, read-only, an index
// this version cannot read) it builds the index in a temporary directory
// removed when the command ends. Skipped files are reported on stderr;
// stdout is untouched.
//
// With a question (a one-shot ask), the index is handed over as soon as
// it answers the question, while the rest of the folder is still read:
// see ingestDocs.
func (a *app) docsIndex(ctx context.Context, docs string, follow bool, question string, served bool) (*index.Index, error) {
	abs, err := filepath.Abs(docs)
	if err != nil {
		return nil, fmt.Errorf("documents %s: %w", docs, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("documents folder %s does not exist", docs)
		}
		return nil, fmt.Errorf("cannot open documents %s: %s", docs, loader.DescribeFSError(err))
	}
	// A single path that cannot be a document (a pipe, a device) gets no
	// cache of its own.
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		if files, _, err := loader.Walk([]string{docs}, loader.WalkOptions{}); err == nil && len(files) == 1 && files[0].Skip != "" {
			return nil, fmt.Errorf("%s: %s", docs, files[0].Skip)
		}
	}
	var cacheErr error
	cacheDir := index.CacheDirForIn
	if served {
		cacheDir = index.ServedCacheDirForIn
	}
	if dir, err := cacheDir(abs, a.getenv); err == nil {
		_, statErr := os.Stat(dir)
		created := errors.Is(statErr, fs.ErrNotExist)
		ix, sum, stop, err := a.ingestDocs(ctx, dir, abs, follow, question)
		if err == nil {
			// the cache's last use, which docmind gc's --cache-days reads
			now := time.Now()
			os.Chtimes(dir, now, now)
			out, err := a.docsReady(ix, sum, docs, stop, nil)
			if err != nil && created && !served {
				// a folder with no usable document leaves no cache of
				// its own behind (a server's also holds its uploads)
				os.RemoveAll(dir)
			}
			return out, err
		}
		if ctx.Err() != nil {
			return nil, err // what was read is kept for the next run
		}
		if created && !served {
			os.RemoveAll(dir)
		}
		cacheErr = err
	} else {
		cacheErr = err
	}
	tmp, err := os.MkdirTemp("", "docmind-docs-")
	if err != nil {
		return nil, fmt.Errorf("cannot index %s: no usable cache (%v) nor temporary directory: %w", docs, cacheErr, err)
	}
	if a.verbose > 0 {
		fmt.Fprintf(a.stderr, "docmind: index cache unusable (%s); indexing into a temporary directory\n", oneLine(cacheErr))
	}
	ix, sum, stop, err := a.ingestDocs(ctx, tmp, abs, follow, question)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return a.docsReady(ix, sum, docs, stop, func() { os.RemoveAll(tmp) })
}

// ingestDocs opens (creating) the index in dir and brings it up to date
// with the files at abs (follow: read symbolic links out of the folder).
// stop ends what is still being read, when it returns early (below), and
// waits for it; call it before closing the index.
//
// With a question, it returns as soon as the question names documents
// that are read (the index's own resolution, index.Index.Resolve,
// decides: documents it names, no name it cannot find) while others are
// still being read: the answer comes from the part read so far, one line
// on stderr says so, and the reading goes on while the question is
// answered, then stops (the next run reads the rest). A question that
// names none of the documents read waits for the whole folder.
func (a *app) ingestDocs(ctx context.Context, dir, abs string, follow bool, question string) (ix *index.Index, sum *ingest.Summary, stop func(), err error) {
	if err := os.MkdirAll(dir, sqlitedb.DirMode); err != nil {
		return nil, nil, nil, fmt.Errorf("create index directory: %w", err)
	}
	ix, err = index.Open(ctx, index.PathInDir(dir))
	if err != nil {
		return nil, nil, nil, err
	}
	l, closeLoader := docmind.NewLoader()
	opt := ingest.Options{Parser: ingest.LoaderParser(l), Prune: true, FollowSymlinks: follow}
	restore := a.boundIngestMemory()
	// Reading a folder can take a while: say what is read, file by file
	// (files unchanged since the last ask are not read and not listed;
	// docsReady reports skipped ones).
	bar := a.showProgress(&opt, false)
	show := opt.Progress
	var (
		mu      sync.Mutex
		results []ingest.Result
		early   = make(chan earlyRead, 1)
		quiet   bool // early: the progress is no longer shown
	)
	// the files not read yet, whose names a question may give
	var unread map[string]bool
	if question != "" {
		if files, _, err := loader.Walk([]string{abs}, loader.WalkOptions{FollowSymlinks: follow}); err == nil {
			unread = map[string]bool{}
			for _, f := range files {
				unread[f.Path] = true
			}
		}
	}
	opt.Progress = func(pr ingest.Progress) {
		delete(unread, pr.Last.Path)
		mu.Lock()
		results = append(results, pr.Last)
		hush := quiet
		mu.Unlock()
		if show != nil && !hush {
			show(pr)
		}
		if question == "" || hush || pr.FilesDone >= pr.FilesTotal || (pr.Last.Status != ingest.Indexed && pr.Last.Status != ingest.Unchanged) {
			return
		}
		// Called between two writes: the index holds every file read so far.
		if res, err := ix.Resolve(ctx, question); err == nil && len(res.Documents) > 0 && len(res.Missing) == 0 && namedForSure(ctx, ix, res, slices.Sorted(maps.Keys(unread))) {
			mu.Lock()
			quiet = true
			mu.Unlock()
			early <- earlyRead{named: res.Documents, total: pr.FilesTotal}
		}
	}
	ictx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var runErr error
	go func() {
		defer close(done)
		defer closeLoader()
		sum, runErr = ingest.Run(ictx, ix, []string{abs}, opt)
	}()
	stop = func() { cancel(); <-done; restore() }
	select {
	case <-done:
	case e := <-early:
		if bar != nil {
			bar.finish()
		}
		mu.Lock()
		part := &ingest.Summary{Results: slices.Clone(results)}
		mu.Unlock()
		read := 0
		for _, r := range part.Results {
			part.NeedOCR += r.NeedOCR
			if r.Status == ingest.Indexed || r.Status == ingest.Unchanged {
				read++
			}
		}
		fmt.Fprintf(a.stderr, "docmind: answered from %d of %d documents read so far; the question names %s, which %s read; the others are read on the next run\n",
			read, e.total, namedFiles(e.named, abs), plural(len(e.named), "is", "are"))
		return ix, part, stop, nil
	}
	stop()
	if bar != nil {
		bar.finish()
	}
	if runErr != nil {
		ix.Close()
		return nil, nil, nil, runErr
	}
	return ix, sum, func() {}, nil
}

// namedForSure reports that a resolution over part of a folder can be
// trusted: the documents it names are named by their own names (a naming
// term begins a word of a document's file name or entity, as
// "2022" and the company's name do in a filing's), and no file still
// unread has a name that holds every such term (a question naming a
// company's 2022 filing when only its 2021 one is read). A question that
// names documents only by words of their text ("which company ...") is
// not: a term that picks out some of the documents read may be common to
// those not read yet.
func namedForSure(ctx context.Context, ix *index.Index, res index.Resolution, unread []string) bool {
	profiles, err := ix.Profiles(ctx)
	if err != nil {
		return false
	}
	byPath := map[string]index.DocumentProfile{}
	for _, p := range profiles {
		byPath[p.Path] = p
	}
	var naming []string // the terms that name the documents by their names
	for _, t := range res.Naming {
		for _, d := range res.Documents {
			p := byPath[d]
			if wordStarts(t, index.FileNameWords(d)+" "+p.Entity) {
				naming = append(naming, t)
				break
			}
		}
	}
	if len(naming) == 0 {
		return false
	}
	for _, f := range unread {
		all := true
		for _, t := range naming {
			all = all && wordStarts(t, index.FileNameWords(f))
		}
		if all {
			return false
		}
	}
	return true
}

// wordStarts reports that term (analysed: lower case, perhaps stemmed)
// begins a word of text.
func wordStarts(term, text string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.HasPrefix(w, term) {
			return true
		}
	}
	return false
}

// earlyRead is what ingestDocs learns when the documents read so far
// answer the question: the documents it names, of total files.
type earlyRead struct {
	named []string
	total int
}

// namedFiles lists the documents a question names by their paths under
// root: "a.pdf", "a.pdf and b.pdf", "a.pdf, b.pdf and 2 others".
func namedFiles(paths []string, root string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			names[i] = rel
		}
	}
	switch {
	case len(names) == 1:
		return names[0]
	case len(names) <= 3:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return fmt.Sprintf("%s, %s and %d others", names[0], names[1], len(names)-2)
}

// docsReady reports skipped files, checks that something usable was
// indexed and registers, for when the command ends, stop (what ingestDocs
// still reads), then the index's closing, then cleanup.
func (a *app) docsReady(ix *index.Index, sum *ingest.Summary, docs string, stop, cleanup func()) (*index.Index, error) {
	release := func() {
		stop() // what is still being read, before the index closes
		ix.Close()
		if cleanup != nil {
			cleanup()
		}
	}
	var skipped []ingest.Result
	usable := 0
	for _, r := range sum.Results {
		switch r.Status {
		case ingest.Skipped:
			skipped = append(skipped, r)
		case ingest.Indexed, ingest.Unchanged:
			usable++
		}
	}
	if usable == 0 {
		release()
		if len(skipped) == 0 {
			return nil, fmt.Errorf("no documents found in %s", docs)
		}
		s := skipped[0]
		if len(sum.Results) == 1 {
			return nil, fmt.Errorf("%s: %s", s.Path, s.Reason)
		}
		return nil, fmt.Errorf("no usable documents in %s: %d file(s) skipped, e.g. %s: %s", docs, len(skipped), s.Path, s.Reason)
	}
	if n := len(skipped); n > 0 {
		if a.verbose > 0 {
			for _, s := range skipped {
				fmt.Fprintf(a.stderr, "docmind: skipped %s: %s\n", shown(s.Path), s.Reason)
			}
		} else {
			fmt.Fprintf(a.stderr, "docmind: skipped %d of %d files (run with -v to see why)\n", n, n+usable)
		}
	}
	printOCRNotice(a.stderr, sum)
	a.closers = append(a.closers, release)
	return ix, nil
}

// relativeSources shows the sources of sections found under root (an
// absolute path) as paths under docs, the --docs argument the user typed,
// as LoadDocuments would name them.
type relativeSources struct {
	schema.Retriever
	root, docs string
}

func (r relativeSources) Retrieve(ctx context.Context, req schema.RetrieveRequest) ([]schema.Section, error) {
	secs, err := r.Retriever.Retrieve(ctx, req)
	for i := range secs {
		secs[i].Source = r.display(secs[i].Source)
	}
	return secs, err
}

func (r relativeSources) display(src string) string {
	if src == r.root {
		return r.docs
	}
	rel, err := filepath.Rel(r.root, src)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return src
	}
	return filepath.Join(r.docs, rel)
}
