package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/eval"
)

// sciFactResult is nDCG@10 of both engines on one corpus.
type sciFactResult struct {
	sections         int
	docmind, bleve   float64
	dmBuild, blBuild time.Duration
	// p50 and CPU per query of the test queries, top 10: DocMind, bleve
	p50, cpu [2]float64
}

// sciFactOptions are the SciFact part's own flags.
type sciFactOptions struct {
	docmindOnly   bool
	perQuery      string
	contextWeight float64
	k1, b         float64 // BM25's for DocMind; 0 and negative: the defaults
}

// runSciFact measures nDCG@10 on the BEIR data set in beirDir (its test
// split), first on its own corpus, then with distractor paragraphs from
// docRoot added until the corpus has total sections. DocMind indexes and
// searches the corpus as `docmind eval retrieval --beir` does
// (eval.BEIR.BuildIndex, eval.EvaluateBM25 with the default BM25
// parameters); bleve indexes title + "\n" + text with the configuration
// of newBleveMapping and takes the top 100 of a match query.
func runSciFact(ctx context.Context, dir, beirDir, docRoot string, total, rounds int, opt sciFactOptions, log logf) ([]figure, error) {
	b, err := eval.LoadBEIR(beirDir)
	if err != nil {
		return nil, err
	}
	qrels, err := b.LoadQrels("test")
	if err != nil {
		return nil, err
	}
	base, err := sciFactOnce(ctx, dir, b, qrels, rounds, opt, "", log)
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
	with, err := sciFactOnce(ctx, dir, b, qrels, rounds, opt, opt.perQuery, log)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(beirDir))
	at := fmt.Sprintf("@%dk (%d sections: %d of %s, %d distractor paragraphs of %s)", (with.sections+500)/1000, with.sections, base.sections, name, len(paras), docRoot)
	goal := ""
	if (with.sections+500)/1000 == 100 {
		goal = " (issue 37's goal ≥ 0.676)"
	}
	if opt.docmindOnly {
		return []figure{
			{name + " nDCG@10 " + at, fmt.Sprintf("DocMind %.3f%s", with.docmind, goal)},
			{name + " nDCG@10 on its own corpus", fmt.Sprintf("DocMind %.3f: the distractors cost it %.3f", base.docmind, base.docmind-with.docmind)},
		}, nil
	}
	return []figure{
		{name + " nDCG@10 " + at, fmt.Sprintf("DocMind %.3f%s, bleve %.3f", with.docmind, goal, with.bleve)},
		{name + " nDCG@10 on its own corpus", fmt.Sprintf("DocMind %.3f, bleve %.3f: the distractors cost DocMind %.3f and bleve %.3f", base.docmind, base.bleve, base.docmind-with.docmind, base.bleve-with.bleve)},
		{name + " queries, lexical p50 vs bleve " + at, fmt.Sprintf("%.2f× (p50 %.3f ms vs %.3f ms; CPU per query %.3f ms vs %.3f ms; %d test queries, top 10, %d rounds)",
			with.p50[0]/with.p50[1], with.p50[0], with.p50[1], with.cpu[0], with.cpu[1], len(qrels), rounds)},
		{name + " index build " + at, fmt.Sprintf("DocMind %v (optimized), bleve %v (merged to one segment)", with.dmBuild.Round(time.Second), with.blBuild.Round(time.Second))},
	}, nil
}

func sciFactOnce(ctx context.Context, dir string, b *eval.BEIR, qrels eval.Qrels, rounds int, opt sciFactOptions, perQuery string, log logf) (*sciFactResult, error) {
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
	qids := make([]string, 0, len(qrels))
	for id := range qrels {
		qids = append(qids, id)
	}
	sort.Strings(qids)
	per, tops, err := docmindNDCG(ctx, ix, b.Queries, qrels, qids, searchOptions(opt))
	if err != nil {
		return nil, err
	}
	var lines strings.Builder
	for i, qid := range qids {
		res.docmind += per[i]
		fmt.Fprintf(&lines, "%s\t%.4f\t%s\n", qid, per[i], strings.Join(tops[i], ","))
	}
	res.docmind /= float64(max(1, len(qids)))
	log("scifact: %d sections, DocMind nDCG@10 %.3f (%d queries)", len(b.Corpus), res.docmind, len(qids))
	if perQuery != "" {
		if err := os.WriteFile(perQuery, []byte(lines.String()), 0o644); err != nil {
			return nil, err
		}
	}
	if opt.docmindOnly {
		return res, nil
	}

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

	// latency of the same queries, top 10, after one pass to warm both
	qs := make([]string, len(qids))
	for i, qid := range qids {
		qs[i] = b.Queries[qid]
	}
	search := [2]func(string) ([]string, error){
		func(q string) ([]string, error) { _, err := ix.Search(ctx, q, 10); return nil, err },
		func(q string) ([]string, error) { return bleveSearch(bl, q, 10) },
	}
	if _, _, err := compareLatency(qs, search, 1, func(string, ...any) {}); err != nil {
		return nil, err
	}
	lat, cpu, err := compareLatency(qs, search, rounds, log)
	if err != nil {
		return nil, err
	}
	for e := range lat {
		res.p50[e], _ = percentiles(lat[e])
		res.cpu[e] = float64(cpu[e]) / 1e6 / float64(len(qs)*rounds)
	}
	return res, nil
}

// docmindNDCG is nDCG@10 of each query in qids, searched as
// eval.EvaluateBM25 searches them (top 100, the default BM25 parameters),
// and the ids of its top 10.
func docmindNDCG(ctx context.Context, ix *index.Index, queries map[string]string, qrels eval.Qrels, qids []string, so index.SearchOptions) ([]float64, [][]string, error) {
	out := make([]float64, len(qids))
	tops := make([][]string, len(qids))
	for i, qid := range qids {
		text, ok := queries[qid]
		if !ok {
			return nil, nil, fmt.Errorf("qrels name query %q that queries.jsonl lacks", qid)
		}
		hits, err := ix.SearchWith(ctx, text, 100, so)
		if err != nil {
			return nil, nil, err
		}
		ranked := make([]string, len(hits))
		for j, h := range hits {
			ranked[j] = h.Section.ID
		}
		out[i] = eval.NDCG(ranked, qrels[qid], 10)
		tops[i] = ranked[:min(10, len(ranked))]
	}
	return out, tops, nil
}
