package docmind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/docmind/docmind/index"
)

// FromDocuments reads the documents at path (a folder, recursively, or
// one file; see LoadDocuments) and returns a Pipeline that answers from
// them, with opts added (WithLLM, WithMinConfidence, ...). The sections
// are kept in memory; for a large folder read many times, build an index
// with docmind ingest and Open it. Files that could not be read are
// skipped (LoadDocuments reports them); an error means none could.
func FromDocuments(ctx context.Context, path string, opts ...Option) (*Pipeline, error) {
	secs, _, err := LoadDocuments(ctx, path)
	if err != nil {
		return nil, err
	}
	root := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		root = filepath.Dir(path)
	}
	return New(append([]Option{WithSections(secs), WithSourceRoot(root)}, opts...)...)
}

// Open returns a Pipeline that answers from the index in dir, as built by
// docmind ingest --index dir (or by package ingest), with opts added. The
// index is opened for reading and searching; Close closes it. The judge
// weighs a question's terms by their rarity in the whole index.
func Open(ctx context.Context, dir string, opts ...Option) (*Pipeline, error) {
	path := index.PathInDir(dir)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no index in %s: build one with docmind ingest --index %s FOLDER", dir, dir)
		}
		return nil, fmt.Errorf("open index: %w", err)
	}
	ix, err := index.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	docs, err := ix.Documents(ctx)
	if err != nil {
		ix.Close()
		return nil, err
	}
	paths := make([]string, len(docs))
	for i, d := range docs {
		paths[i] = d.Path
	}
	base := []Option{WithRetriever(ix.Retriever()), WithCorpus(ix.Corpus())}
	if len(paths) > 0 {
		base = append(base, WithSourceRoot(SourceRoot(paths...)))
	}
	p, err := New(append(base, opts...)...)
	if err != nil {
		ix.Close()
		return nil, err
	}
	p.closers = append(p.closers, ix.Close)
	return p, nil
}
