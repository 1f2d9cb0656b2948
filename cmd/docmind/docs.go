package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
// When the cache cannot be used (no cache directory, read-only, an index
// this version cannot read) it builds the index in a temporary directory
// removed when the command ends. Skipped files are reported on stderr;
// stdout is untouched.
func (a *app) docsIndex(ctx context.Context, docs string, follow bool) (*index.Index, error) {
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
	if dir, err := index.CacheDirForIn(abs, a.getenv); err == nil {
		ix, sum, err := a.ingestDocs(ctx, dir, abs, follow)
		if err == nil {
			// the cache's last use, which docmind gc's --cache-days reads
			now := time.Now()
			os.Chtimes(dir, now, now)
			return a.docsReady(ix, sum, docs, nil)
		}
		if ctx.Err() != nil {
			return nil, err
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
	ix, sum, err := a.ingestDocs(ctx, tmp, abs, follow)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return a.docsReady(ix, sum, docs, func() { os.RemoveAll(tmp) })
}

// ingestDocs opens (creating) the index in dir and brings it up to date
// with the files at abs (follow: read symbolic links out of the folder).
func (a *app) ingestDocs(ctx context.Context, dir, abs string, follow bool) (*index.Index, *ingest.Summary, error) {
	if err := os.MkdirAll(dir, sqlitedb.DirMode); err != nil {
		return nil, nil, fmt.Errorf("create index directory: %w", err)
	}
	ix, err := index.Open(ctx, index.PathInDir(dir))
	if err != nil {
		return nil, nil, err
	}
	l, closeLoader := docmind.NewLoader()
	defer closeLoader()
	opt := ingest.Options{Parser: ingest.LoaderParser(l), Prune: true, FollowSymlinks: follow}
	defer a.boundIngestMemory()()
	// Reading a folder can take a while: say what is read, file by file
	// (files unchanged since the last ask are not read and not listed;
	// docsReady reports skipped ones).
	bar := a.showProgress(&opt, false)
	sum, err := ingest.Run(ctx, ix, []string{abs}, opt)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		ix.Close()
		return nil, nil, err
	}
	return ix, sum, nil
}

// docsReady reports skipped files, checks that something usable was
// indexed and registers the index to be closed (then cleanup run) when the
// command ends.
func (a *app) docsReady(ix *index.Index, sum *ingest.Summary, docs string, cleanup func()) (*index.Index, error) {
	release := func() {
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
				fmt.Fprintf(a.stderr, "docmind: skipped %s: %s\n", s.Path, s.Reason)
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
