// Package store is the contract every DocMind document store implements:
// the SQLite index (package index) and Weaviate (package store/weaviate).
// A store holds documents as sections, replaces a document's sections as
// a whole (readers see the old sections or the new ones, never a mix),
// searches them lexically (and densely when an embedding model is
// configured) with filters, gives the offline judge its corpus statistics
// and records the embedding model its vectors were made with.
//
// Every implementation must pass the conformance suite in
// store/storetest.
package store

import (
	"context"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

// Store is a document store.
type Store interface {
	// Name says where the store is, for messages (a file path, a URL).
	Name() string

	// PutDocument writes a document and its sections, replacing any
	// document with the same path as a whole: a search sees the old
	// sections or the new ones, never a mix. Sections without an ID get a
	// stable one; Section.Source is the document's path.
	PutDocument(ctx context.Context, doc index.Document, sections []schema.Section) error
	// PutDocumentStream is PutDocument for a document produced section by
	// section (see index.Index.PutDocumentStream).
	PutDocumentStream(ctx context.Context, doc index.Document, write func(doc *index.Document, put func(schema.Section) error) error) error
	// DeleteDocument removes a document and its sections; ok is false when
	// there was none.
	DeleteDocument(ctx context.Context, path string) (ok bool, err error)
	// TouchDocument records a new modification time for an unchanged
	// document.
	TouchDocument(ctx context.Context, path string, mtime time.Time) error
	// MissingVectors reports whether the store embeds sections and the
	// document has sections without vectors.
	MissingVectors(ctx context.Context, path string) (bool, error)

	// Document returns a document (with its number of sections); ok is
	// false when absent.
	Document(ctx context.Context, path string) (doc index.Document, ok bool, err error)
	// Documents lists every document, ordered by path.
	Documents(ctx context.Context) ([]index.Document, error)
	// Sections returns a document's sections in their order.
	Sections(ctx context.Context, path string) ([]schema.Section, error)
	// Section returns the section with this ID.
	Section(ctx context.Context, id string) (s schema.Section, ok bool, err error)

	// HybridSearch returns the best k sections for query, lexically (BM25)
	// and, with an embedding model, densely, fused; RelevanceScore is in
	// [0,1] (for BM25, the score over that of an average section holding
	// every query term once). opt.Exclude and opt.Where filter the hits.
	HybridSearch(ctx context.Context, query string, k int, opt index.SearchOptions) ([]index.Hit, error)
	// Corpus gives the statistics the offline judge weighs terms with.
	Corpus() judge.Corpus
	// EmbeddingModel returns the model and dimension of the stored
	// vectors, or "" and 0 when there are none.
	EmbeddingModel(ctx context.Context) (model string, dim int, err error)
	// Retriever returns the pipeline's retriever over the store.
	Retriever() schema.Retriever

	Close() error
}

// SQLite adapts an index.Index to Store.
type SQLite struct{ *index.Index }

var _ Store = SQLite{}

// Name returns the database path.
func (s SQLite) Name() string { return s.Path() }

// Corpus returns the index's corpus statistics.
func (s SQLite) Corpus() judge.Corpus { return s.Index.Corpus() }

// Retriever returns the index's retriever.
func (s SQLite) Retriever() schema.Retriever { return s.Index.Retriever() }
