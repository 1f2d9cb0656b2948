package index

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	lcschema "github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/vectorstores"

	"github.com/docmind/docmind/schema"
)

// Metadata keys Store writes into (and reads from) langchaingo documents.
const (
	MetaID        = "id"
	MetaTitle     = "title"
	MetaSource    = "source"
	MetaPage      = "page"
	MetaPageEnd   = "page_end"
	MetaPageLabel = "page_label"
	MetaChunk     = "chunk"
	MetaFormat    = "format"
	// Document context of a section (schema.Section.DocTitle, DocEntity,
	// DocPeriod) and whether its page number is the printed one.
	MetaDocTitle    = "doc_title"
	MetaDocEntity   = "doc_entity"
	MetaDocPeriod   = "doc_period"
	MetaPagePrinted = "page_printed"
	// MetaKind is the section's kind (schema.Section.Kind) when not body.
	MetaKind = "kind"
	// MetaScore is the raw score of the ranking (BM25, cosine or RRF);
	// Document.Score holds the relevance in [0,1].
	MetaScore = "score_raw"
)

// Filter can be passed with vectorstores.WithFilters to Store searches.
type Filter struct {
	// Exclude lists section keys never to return.
	Exclude []string
	// Where keeps only the sections it matches.
	Where Where
}

// Store implements langchaingo's vectorstores.VectorStore over an Index:
// AddDocuments stores documents as sections (embedding them when the
// index has an embedder), SimilaritySearch runs HybridSearch (BM25 alone
// without an embedder).
type Store struct {
	ix     *Index
	search Searcher
	name   string
}

// Searcher is what Store searches: an Index, or another store ranking the
// same way (package store's backends).
type Searcher interface {
	HybridSearch(ctx context.Context, query string, k int, opt SearchOptions) ([]Hit, error)
}

// NewSearcherStore returns a read-only VectorStore over s (AddDocuments
// fails); name says where s is, for messages.
func NewSearcherStore(s Searcher, name string) *Store { return &Store{search: s, name: name} }

// NewSearcherRetriever returns a retriever over s with the relevance
// floor of Index.Retriever: LexicalMinRelevance when s ranks by BM25
// alone, DefaultMinRelevance with dense vectors.
func NewSearcherRetriever(s Searcher, name string, dense bool) *Retriever {
	r := NewRetriever(NewSearcherStore(s, name))
	if !dense {
		r.MinRelevance = LexicalMinRelevance
	}
	return r
}

var _ vectorstores.VectorStore = (*Store)(nil)

// NewStore returns a VectorStore over ix.
func NewStore(ix *Index) *Store { return &Store{ix: ix, search: ix, name: ix.path} }

// Index returns the underlying index.
func (s *Store) Index() *Index { return s.ix }

func storeOptions(opts []vectorstores.Option) (vectorstores.Options, error) {
	var o vectorstores.Options
	for _, f := range opts {
		f(&o)
	}
	if o.Embedder != nil {
		return o, errors.New("per-call embedders are not supported: configure the embedder with index.WithEmbedder when opening the index (the index records its model)")
	}
	if o.NameSpace != "" {
		return o, errors.New("name spaces are not supported: use one index file per name space")
	}
	return o, nil
}

// AddDocuments adds langchaingo documents as sections. Documents are
// grouped by their "source" metadata (default "langchaingo") into index
// documents and appended to them. Other recognised metadata: title, page,
// page_end, page_label, chunk, id, format. It returns the section keys.
func (s *Store) AddDocuments(ctx context.Context, docs []lcschema.Document, opts ...vectorstores.Option) ([]string, error) {
	if s.ix == nil {
		return nil, fmt.Errorf("add documents to %s: this store is read-only (ingest the documents instead)", s.name)
	}
	o, err := storeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("add documents to index %s: %w", s.ix.path, err)
	}
	var batch []DocumentSections
	bySource := map[string]int{}
	var ids []string
	for _, d := range docs {
		if o.Deduplicater != nil && o.Deduplicater(ctx, d) {
			continue
		}
		sec := SectionFromDocument(d)
		if sec.Source == "" {
			sec.Source = "langchaingo"
		}
		if sec.ID == "" {
			sec.ID = StableID(sec.Source, sec.Title+"\x00"+sec.Content, sec.Page, sec.Chunk)
		}
		i, ok := bySource[sec.Source]
		if !ok {
			i = len(batch)
			bySource[sec.Source] = i
			format, _ := d.Metadata[MetaFormat].(string)
			if format == "" {
				format = "langchaingo"
			}
			batch = append(batch, DocumentSections{Doc: Document{Path: sec.Source, Format: format}, Append: true})
		}
		batch[i].Sections = append(batch[i].Sections, sec)
		ids = append(ids, sec.ID)
	}
	if err := s.ix.PutDocuments(ctx, batch); err != nil {
		return nil, err
	}
	return ids, nil
}

// SimilaritySearch returns the numDocuments best sections for the query,
// as documents whose Score is the relevance in [0,1] and whose metadata
// carries the section fields. vectorstores.WithScoreThreshold drops
// results under that relevance; vectorstores.WithFilters accepts a Filter.
func (s *Store) SimilaritySearch(ctx context.Context, query string, numDocuments int, opts ...vectorstores.Option) ([]lcschema.Document, error) {
	o, err := storeOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", s.name, err)
	}
	var so SearchOptions
	switch f := o.Filters.(type) {
	case nil:
	case Filter:
		so.Exclude, so.Where = keySet(f.Exclude), f.Where
	case *Filter:
		so.Exclude, so.Where = keySet(f.Exclude), f.Where
	default:
		return nil, fmt.Errorf("search %s: unsupported filter type %T (use index.Filter)", s.name, o.Filters)
	}
	hits, err := s.search.HybridSearch(ctx, query, numDocuments, so)
	if err != nil {
		return nil, err
	}
	out := make([]lcschema.Document, 0, len(hits))
	for _, h := range hits {
		if float32(h.Section.RelevanceScore) < o.ScoreThreshold {
			continue
		}
		d := DocumentFromSection(h.Section)
		d.Metadata[MetaScore] = h.Score
		out = append(out, d)
	}
	return out, nil
}

func keySet(keys []string) map[string]bool {
	if len(keys) == 0 {
		return nil
	}
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// DocumentFromSection converts a section to a langchaingo document.
func DocumentFromSection(s schema.Section) lcschema.Document {
	md := map[string]any{
		MetaID:     s.Key(),
		MetaTitle:  s.Title,
		MetaSource: s.Source,
		MetaPage:   s.Page,
		MetaChunk:  s.Chunk,
	}
	if s.PageEnd != 0 {
		md[MetaPageEnd] = s.PageEnd
	}
	if s.PageLabel != "" {
		md[MetaPageLabel] = s.PageLabel
	}
	if s.PagePrinted {
		md[MetaPagePrinted] = true
	}
	for k, v := range map[string]string{MetaDocTitle: s.DocTitle, MetaDocEntity: s.DocEntity, MetaDocPeriod: s.DocPeriod, MetaKind: string(s.Kind)} {
		if v != "" {
			md[k] = v
		}
	}
	return lcschema.Document{PageContent: s.Content, Metadata: md, Score: float32(s.RelevanceScore)}
}

// SectionFromDocument converts a langchaingo document (from any vector
// store) to a section, reading the metadata keys above; numbers may be any
// integer or float type or a decimal string. RelevanceScore is the
// document's Score clipped to [0,1].
func SectionFromDocument(d lcschema.Document) schema.Section {
	str := func(k string) string {
		v, _ := d.Metadata[k].(string)
		return v
	}
	printed, _ := d.Metadata[MetaPagePrinted].(bool)
	return schema.Section{
		ID:             str(MetaID),
		Title:          str(MetaTitle),
		Content:        d.PageContent,
		Source:         str(MetaSource),
		Page:           metaInt(d.Metadata[MetaPage]),
		PageEnd:        metaInt(d.Metadata[MetaPageEnd]),
		PageLabel:      str(MetaPageLabel),
		Chunk:          metaInt(d.Metadata[MetaChunk]),
		PagePrinted:    printed,
		DocTitle:       str(MetaDocTitle),
		DocEntity:      str(MetaDocEntity),
		DocPeriod:      str(MetaDocPeriod),
		Kind:           schema.SectionKind(str(MetaKind)),
		RelevanceScore: max(0, min(1, float64(d.Score))),
	}
}

func metaInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int32:
		return int(x)
	case int64:
		return int(x)
	case float64:
		return int(x)
	case float32:
		return int(x)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}
