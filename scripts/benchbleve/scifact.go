package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/eval"
)

// sciFactResult is nDCG@10 of both engines on one corpus.
type sciFactResult struct {
	sections         int
	docmind, bleve   float64
	dmBuild, blBuild time.Duration
}

// runSciFact measures nDCG@10 on the BEIR data set in beirDir (its test
// split), first on its own corpus, then with distractor paragraphs from
// docRoot added until the corpus has total sections. DocMind indexes and
// searches the corpus as `docmind eval retrieval --beir` does
// (eval.BEIR.BuildIndex, eval.EvaluateBM25 with the default BM25
// parameters); bleve indexes title + "\n" + text with the configuration
// of newBleveMapping and takes the top 100 of a match query.
func runSciFact(ctx context.Context, dir, beirDir, docRoot string, total int, log logf) ([]figure, error) {
	b, err := eval.LoadBEIR(beirDir)
	if err != nil {
		return nil, err
	}
	qrels, err := b.LoadQrels("test")
	if err != nil {
		return nil, err
	}
	base, err := sciFactOnce(ctx, dir, b, qrels, log)
	if err != nil {
		return nil, err
	}
	need := total - len(b.Corpus)
	paras, err := distractorParagraphs(docRoot, need, 10)
	if err != nil {
		return nil, fmt.Errorf("distractors from %s: %w", docRoot, err)
	}
	log("scifact: %d distractor paragraphs from %s", len(paras), docRoot)
	for i, p := range paras {
		b.Corpus = append(b.Corpus, eval.BEIRDoc{ID: fmt.Sprintf("distractor-%06d", i), Text: p})
	}
	with, err := sciFactOnce(ctx, dir, b, qrels, log)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(beirDir))
	return []figure{
		{fmt.Sprintf("%s nDCG@10 with %d distractor paragraphs of %s (%d sections)", name, len(paras), docRoot, with.sections),
			fmt.Sprintf("DocMind %.3f, bleve %.3f (goal ≥ 0.676)", with.docmind, with.bleve)},
		{fmt.Sprintf("%s nDCG@10 on its own corpus (%d sections)", name, base.sections),
			fmt.Sprintf("DocMind %.3f, bleve %.3f; the distractors cost DocMind %.3f and bleve %.3f", base.docmind, base.bleve, base.docmind-with.docmind, base.bleve-with.bleve)},
		{fmt.Sprintf("%s index build with the distractors", name),
			fmt.Sprintf("DocMind %v (optimized), bleve %v (merged to one segment)", with.dmBuild.Round(time.Second), with.blBuild.Round(time.Second))},
	}, nil
}

func sciFactOnce(ctx context.Context, dir string, b *eval.BEIR, qrels eval.Qrels, log logf) (*sciFactResult, error) {
	res := &sciFactResult{sections: len(b.Corpus)}
	sub := filepath.Join(dir, fmt.Sprintf("scifact-%d", len(b.Corpus)))
	if err := os.RemoveAll(sub); err != nil {
		return nil, err
	}
	defer os.RemoveAll(sub)
	start := time.Now()
	ix, err := index.Open(ctx, index.PathInDir(filepath.Join(sub, "docmind")))
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if err := b.BuildIndex(ctx, ix); err != nil {
		return nil, err
	}
	res.dmBuild = time.Since(start)
	rep, err := eval.EvaluateBM25(ctx, ix, b.Queries, qrels, index.DefaultK1, index.DefaultB)
	if err != nil {
		return nil, err
	}
	res.docmind = rep.NDCGAt10
	log("scifact: %d sections, DocMind nDCG@10 %.3f (%d queries)", len(b.Corpus), rep.NDCGAt10, rep.Queries)

	start = time.Now()
	bb, err := newBleveBuilder(filepath.Join(sub, "bleve"))
	if err != nil {
		return nil, err
	}
	for _, d := range b.Corpus {
		if err := bb.add(d.ID, d.Title+"\n"+d.Text); err != nil {
			bb.ix.Close()
			return nil, err
		}
	}
	bl, err := bb.finish(ctx)
	if err != nil {
		bb.ix.Close()
		return nil, err
	}
	defer bl.Close()
	res.blBuild = time.Since(start)
	qids := make([]string, 0, len(qrels))
	for id := range qrels {
		qids = append(qids, id)
	}
	sort.Strings(qids)
	n := 0
	for _, qid := range qids {
		text, ok := b.Queries[qid]
		if !ok {
			return nil, fmt.Errorf("qrels name query %q that queries.jsonl lacks", qid)
		}
		ranked, err := bleveSearch(bl, text, 100)
		if err != nil {
			return nil, err
		}
		res.bleve += eval.NDCG(ranked, qrels[qid], 10)
		n++
	}
	if n > 0 {
		res.bleve /= float64(n)
	}
	log("scifact: %d sections, bleve nDCG@10 %.3f", len(b.Corpus), res.bleve)
	return res, nil
}
