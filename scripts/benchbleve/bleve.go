package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// bleveDoc is what the bleve index holds: one text field, the section's
// title and text as DocMind indexes them.
type bleveDoc struct {
	Text string `json:"text"`
}

// newBleveMapping is the configuration compared: BM25 scoring (bleve's
// default is TF-IDF; "bm25" exists since v2.5), the "en" analyzer
// (Unicode tokenizer, English possessives, lower case, English stop
// words, Porter stemmer) on one field that is indexed only: not stored,
// no term vectors, no doc values, not copied into _all.
func newBleveMapping() mapping.IndexMapping {
	f := bleve.NewTextFieldMapping()
	f.Analyzer = en.AnalyzerName
	f.Store = false
	f.IncludeTermVectors = false
	f.IncludeInAll = false
	f.DocValues = false
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("text", f)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.DefaultAnalyzer = en.AnalyzerName
	im.ScoringModel = "bm25"
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	return im
}

// bleveBuilder writes documents to a new on-disk bleve index in batches.
type bleveBuilder struct {
	ix    bleve.Index
	batch *bleve.Batch
}

func newBleveBuilder(path string) (*bleveBuilder, error) {
	if err := os.RemoveAll(path); err != nil {
		return nil, err
	}
	ix, err := bleve.NewUsing(path, newBleveMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("bleve: create %s: %w", path, err)
	}
	return &bleveBuilder{ix: ix, batch: ix.NewBatch()}, nil
}

func (b *bleveBuilder) add(id, text string) error {
	if err := b.batch.Index(id, bleveDoc{Text: text}); err != nil {
		return err
	}
	if b.batch.Size() >= 1000 {
		return b.flush()
	}
	return nil
}

func (b *bleveBuilder) flush() error {
	if b.batch.Size() == 0 {
		return nil
	}
	err := b.ix.Batch(b.batch)
	b.batch.Reset()
	return err
}

// finish writes the last batch and merges the index into one segment
// (bleve's counterpart of DocMind's Optimize), so that no merge runs in
// the background while searches are timed.
func (b *bleveBuilder) finish(ctx context.Context) (bleve.Index, error) {
	if err := b.flush(); err != nil {
		return nil, err
	}
	adv, err := b.ix.Advanced()
	if err != nil {
		return nil, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, fmt.Errorf("bleve: the index is not a scorch index")
	}
	// a force merge merges the segments persisted when it starts: wait
	// for the in-memory ones, and merge again until one is left (as
	// bleve's own test of ForceMerge does)
	for i := 0; ; i++ {
		mem, files := scorchSegments(s)
		if mem == 0 && files <= 1 {
			return b.ix, nil
		}
		if i == 100 {
			return nil, fmt.Errorf("bleve: still %d in-memory and %d file segments after %d force merges", mem, files, i)
		}
		if mem > 0 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err := s.ForceMerge(ctx, nil); err != nil {
			return nil, fmt.Errorf("bleve: force merge: %w", err)
		}
	}
}

// scorchSegments returns the number of in-memory and file segments at
// the root of the index.
func scorchSegments(s *scorch.Scorch) (mem, files uint64) {
	m := s.StatsMap()
	mem, _ = m["num_root_memorysegments"].(uint64)
	files, _ = m["num_root_filesegments"].(uint64)
	return mem, files
}

// openBleve opens an index built before (kept with -dir).
func openBleve(path string) (bleve.Index, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return bleve.Open(path)
}

// bleveSearch runs text as a match query (OR of its analyzed terms) and
// returns the ids of the top k.
func bleveSearch(ix bleve.Index, text string, k int) ([]string, error) {
	q := query.NewMatchQuery(text)
	q.SetField("text")
	q.Analyzer = en.AnalyzerName
	q.SetOperator(query.MatchQueryOperatorOr)
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	res, err := ix.Search(req)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}
