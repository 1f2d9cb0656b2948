// Package eval measures DocMind: retrieval quality on BEIR-format data
// (this file) and, in other files, answer quality.
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/schema"
)

// BEIR is a BEIR-format data set: corpus.jsonl, queries.jsonl and
// qrels/<split>.tsv.
type BEIR struct {
	Dir     string
	Corpus  []BEIRDoc
	Queries map[string]string
}

// BEIRDoc is one corpus document.
type BEIRDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Qrels maps query id -> document id -> graded relevance.
type Qrels map[string]map[string]int

// LoadBEIR reads corpus.jsonl and queries.jsonl from dir.
func LoadBEIR(dir string) (*BEIR, error) {
	b := &BEIR{Dir: dir, Queries: map[string]string{}}
	err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d BEIRDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		if d.ID == "" {
			return errors.New(`document without "_id"`)
		}
		b.Corpus = append(b.Corpus, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = readJSONL(filepath.Join(dir, "queries.jsonl"), func(line []byte) error {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		b.Queries[q.ID] = q.Text
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

func readJSONL(path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read BEIR data: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("read BEIR data %s line %d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read BEIR data %s: %w", path, err)
	}
	return nil
}

// LoadQrels reads qrels/<split>.tsv (query-id, corpus-id, score; a header
// line is skipped).
func (b *BEIR) LoadQrels(split string) (Qrels, error) {
	path := filepath.Join(b.Dir, "qrels", split+".tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read BEIR qrels for split %q: %w", split, err)
	}
	q := Qrels{}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("read BEIR qrels %s line %d: want 3 columns, got %d", path, i+1, len(f))
		}
		score, err := strconv.Atoi(f[2])
		if err != nil {
			if i == 0 {
				continue // header
			}
			return nil, fmt.Errorf("read BEIR qrels %s line %d: score %q is not an integer", path, i+1, f[2])
		}
		if q[f[0]] == nil {
			q[f[0]] = map[string]int{}
		}
		q[f[0]][f[1]] = score
	}
	return q, nil
}

// BuildIndex writes the corpus (title + text) into the index, one section
// per document whose ID is the BEIR document id, in batches.
func (b *BEIR) BuildIndex(ctx context.Context, ix *index.Index) error {
	const batchSize = 2000
	var batch []index.DocumentSections
	flush := func() error {
		err := ix.PutDocuments(ctx, batch)
		batch = batch[:0]
		return err
	}
	for _, d := range b.Corpus {
		batch = append(batch, index.DocumentSections{
			Doc:      index.Document{Path: "beir:" + d.ID, Format: "beir", Title: d.Title},
			Sections: []schema.Section{{ID: d.ID, Title: d.Title, Content: d.Text}},
		})
		if len(batch) == batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return ix.Optimize(ctx)
}

// RetrievalOptions configures Retrieval.
type RetrievalOptions struct {
	// Split is the qrels split to evaluate (default "test").
	Split string
	// K1 and B set BM25's parameters; zero values mean the index defaults.
	K1, B float64
}

// RetrievalReport is the result of a retrieval evaluation.
type RetrievalReport struct {
	NDCGAt10    float64 `json:"ndcg_at_10"`
	RecallAt100 float64 `json:"recall_at_100"`
	Queries     int     `json:"queries"`
	Split       string  `json:"split"`
	Corpus      int     `json:"corpus"`
	K1          float64 `json:"k1"`
	B           float64 `json:"b"`
	// IndexMS and SearchMS are wall times of the two phases, in
	// milliseconds.
	IndexMS  float64 `json:"index_ms"`
	SearchMS float64 `json:"search_ms"`
}

// Retrieval indexes a BEIR data set into a temporary index, runs every
// query of the split with BM25 and reports nDCG@10 and recall@100.
func Retrieval(ctx context.Context, dir string, opt RetrievalOptions) (*RetrievalReport, error) {
	if opt.Split == "" {
		opt.Split = "test"
	}
	ds, err := openDataset(ctx, dir, opt.Split)
	if err != nil {
		return nil, err
	}
	defer ds.close()
	k1, bb := opt.K1, opt.B
	if k1 == 0 && bb == 0 {
		k1, bb = index.DefaultK1, index.DefaultB
	}
	start := time.Now()
	rep, err := EvaluateBM25(ctx, ds.ix, ds.beir.Queries, ds.qrels, k1, bb)
	if err != nil {
		return nil, err
	}
	rep.Split = opt.Split
	rep.Corpus = len(ds.beir.Corpus)
	rep.IndexMS = float64(ds.indexTime) / float64(time.Millisecond)
	rep.SearchMS = float64(time.Since(start)) / float64(time.Millisecond)
	return rep, nil
}

// dataset is a BEIR data set loaded and indexed into a temporary index.
type dataset struct {
	beir      *BEIR
	qrels     Qrels
	ix        *index.Index
	tmp       string
	indexTime time.Duration
}

func openDataset(ctx context.Context, dir, split string) (*dataset, error) {
	b, err := LoadBEIR(dir)
	if err != nil {
		return nil, err
	}
	qrels, err := b.LoadQrels(split)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "docmind-eval-")
	if err != nil {
		return nil, fmt.Errorf("retrieval eval: temporary index: %w", err)
	}
	ix, err := index.Open(ctx, index.PathInDir(tmp))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	ds := &dataset{beir: b, qrels: qrels, ix: ix, tmp: tmp}
	start := time.Now()
	if err := b.BuildIndex(ctx, ix); err != nil {
		ds.close()
		return nil, fmt.Errorf("retrieval eval: index %s: %w", dir, err)
	}
	ds.indexTime = time.Since(start)
	return ds, nil
}

func (d *dataset) close() {
	d.ix.Close()
	os.RemoveAll(d.tmp)
}

// EvaluateBM25 runs every query that has qrels against an index built by
// BuildIndex, with the given BM25 parameters. Queries with judgements but
// no results count as 0.
func EvaluateBM25(ctx context.Context, ix *index.Index, queries map[string]string, qrels Qrels, k1, b float64) (*RetrievalReport, error) {
	rep := &RetrievalReport{K1: k1, B: b}
	ids := make([]string, 0, len(qrels))
	for id := range qrels {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, qid := range ids {
		text, ok := queries[qid]
		if !ok {
			return nil, fmt.Errorf("retrieval eval: qrels name query %q that queries.jsonl lacks", qid)
		}
		hits, err := ix.SearchWith(ctx, text, 100, index.SearchOptions{K1: k1, B: b, SetBM25: true})
		if err != nil {
			return nil, err
		}
		ranked := make([]string, len(hits))
		for i, h := range hits {
			ranked[i] = h.Section.ID
		}
		rep.NDCGAt10 += NDCG(ranked, qrels[qid], 10)
		rep.RecallAt100 += Recall(ranked, qrels[qid], 100)
		rep.Queries++
	}
	if rep.Queries > 0 {
		rep.NDCGAt10 /= float64(rep.Queries)
		rep.RecallAt100 /= float64(rep.Queries)
	}
	return rep, nil
}

// NDCG is nDCG@k with graded gains (gain = relevance, discount
// log2(rank+1)), as trec_eval's ndcg_cut computes it.
func NDCG(ranked []string, rels map[string]int, k int) float64 {
	dcg := 0.0
	for i, id := range ranked {
		if i == k {
			break
		}
		if r := rels[id]; r > 0 {
			dcg += float64(r) / math.Log2(float64(i+2))
		}
	}
	var ideal []int
	for _, r := range rels {
		if r > 0 {
			ideal = append(ideal, r)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, r := range ideal {
		if i == k {
			break
		}
		idcg += float64(r) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall is the fraction of relevant documents (relevance > 0) found in
// the first k.
func Recall(ranked []string, rels map[string]int, k int) float64 {
	total := 0
	for _, r := range rels {
		if r > 0 {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	found := 0
	for i, id := range ranked {
		if i == k {
			break
		}
		if rels[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(total)
}

// TuneBM25 evaluates every (k1, b) pair of the grid on one split and
// returns the reports, best nDCG@10 first. Tune on a training split only.
func TuneBM25(ctx context.Context, dir, split string, k1s, bs []float64) ([]RetrievalReport, error) {
	ds, err := openDataset(ctx, dir, split)
	if err != nil {
		return nil, err
	}
	defer ds.close()
	var out []RetrievalReport
	for _, k1 := range k1s {
		for _, bb := range bs {
			rep, err := EvaluateBM25(ctx, ds.ix, ds.beir.Queries, ds.qrels, k1, bb)
			if err != nil {
				return nil, err
			}
			rep.Split, rep.Corpus = split, len(ds.beir.Corpus)
			out = append(out, *rep)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].NDCGAt10 > out[j].NDCGAt10 })
	return out, nil
}
