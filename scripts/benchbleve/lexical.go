package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/docmind/docmind/index"
)

// buildDocMindSynth writes the n synthetic sections of the floor benchmark
// (benchIndex in index/bench_test.go: 20 documents of 50 sections per
// PutDocuments) and optimizes the index, as BenchmarkLexicalFloor's
// "optimized" case does.
func buildDocMindSynth(ctx context.Context, path string, n int, log logf) (*index.Index, error) {
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		return nil, err
	}
	ix, err := index.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	s := newSynth(1)
	var batch []index.DocumentSections
	for d := 0; d < n/benchPerDoc; d++ {
		batch = append(batch, s.doc(d))
		if len(batch) == 20 {
			if err := ix.PutDocuments(ctx, batch); err != nil {
				ix.Close()
				return nil, err
			}
			batch = batch[:0]
		}
		if (d+1)*benchPerDoc%50_000 == 0 {
			log("docmind: %d of %d sections written", (d+1)*benchPerDoc, n)
		}
	}
	if err := ix.PutDocuments(ctx, batch); err != nil {
		ix.Close()
		return nil, err
	}
	log("docmind: optimizing")
	if err := ix.Optimize(ctx); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// buildBleveSynth writes the same sections into a bleve index, id = the
// section's title ("Doc D part I", unique), text = title + "\n" + text
// (what DocMind's lexical index reads of a section).
func buildBleveSynth(ctx context.Context, path string, n int, log logf) (bleve.Index, error) {
	b, err := newBleveBuilder(path)
	if err != nil {
		return nil, err
	}
	s := newSynth(1)
	for d := 0; d < n/benchPerDoc; d++ {
		for _, sec := range s.doc(d).Sections {
			if err := b.add(sec.Title, sec.Title+"\n"+sec.Content); err != nil {
				b.ix.Close()
				return nil, err
			}
		}
		if (d+1)*benchPerDoc%50_000 == 0 {
			log("bleve: %d of %d sections written", (d+1)*benchPerDoc, n)
		}
	}
	log("bleve: merging into one segment")
	ix, err := b.finish(ctx)
	if err != nil {
		b.ix.Close()
	}
	return ix, err
}

// runLexical compares DocMind's lexical search with bleve's on the
// synthetic corpus of n sections and the floor benchmark's 2,000 queries:
// every query through both, alternately (which one goes first changes
// from query to query and round to round), rounds times.
func runLexical(ctx context.Context, dir string, n, rounds int, log logf) ([]figure, error) {
	name := sizeName(n)
	start := time.Now()
	dm, err := buildDocMindSynth(ctx, index.PathInDir(filepath.Join(dir, "docmind-"+name)), n, log)
	if err != nil {
		return nil, fmt.Errorf("docmind index: %w", err)
	}
	defer dm.Close()
	dmBuild := time.Since(start)
	log("docmind: %d sections indexed and optimized in %v", n, dmBuild.Round(time.Second))
	start = time.Now()
	bl, err := buildBleveSynth(ctx, filepath.Join(dir, "bleve-"+name), n, log)
	if err != nil {
		return nil, fmt.Errorf("bleve index: %w", err)
	}
	defer bl.Close()
	blBuild := time.Since(start)
	log("bleve: %d sections indexed and merged in %v", n, blBuild.Round(time.Second))

	s := newSynth(3)
	qs := make([]string, benchQueries)
	for i := range qs {
		qs[i] = s.query()
	}
	search := [2]func(q string) ([]string, error){
		func(q string) ([]string, error) {
			hits, err := dm.Search(ctx, q, 10)
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.Section.Title
			}
			return ids, err
		},
		func(q string) ([]string, error) { return bleveSearch(bl, q, 10) },
	}
	// warm the page cache, pools and DocMind's list cache, as the floor
	// benchmark does; count the shared ids of the top 10 on the way
	shared, hits := 0, 0
	for _, q := range qs {
		a, err := search[0](q)
		if err != nil {
			return nil, err
		}
		b, err := search[1](q)
		if err != nil {
			return nil, err
		}
		hits += len(a)
		for _, id := range a {
			if slices.Contains(b, id) {
				shared++
			}
		}
	}
	lat, cpu, err := compareLatency(qs, search, rounds, log)
	if err != nil {
		return nil, err
	}
	dp50, dp99 := percentiles(lat[0])
	bp50, bp99 := percentiles(lat[1])
	per := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(len(qs)*rounds) }
	label := "@" + name + " synthetic sections"
	goal := map[int]string{100_000: " (goal ≤ 0.3×)", 1_000_000: " (goal ≤ 0.15×)"}[n]
	return []figure{
		{"lexical p50 vs bleve " + label, fmt.Sprintf("%.2f×%s: p50 %.3f ms vs %.3f ms, p99 %.2f ms vs %.2f ms (BenchmarkLexicalFloor's corpus and 2,000 queries, top 10, %d rounds)", dp50/bp50, goal, dp50, bp50, dp99, bp99, rounds)},
		{"lexical CPU per query vs bleve " + label, fmt.Sprintf("%.2f× (%.3f ms vs %.3f ms)", per(cpu[0])/per(cpu[1]), per(cpu[0]), per(cpu[1]))},
		{"DocMind's top-10 ids also in bleve's top 10 " + label, fmt.Sprintf("%.1f%% (%d of %d; different BM25 variants and analyzers)", 100*float64(shared)/float64(max(1, hits)), shared, hits)},
		{"index build " + label, fmt.Sprintf("DocMind %v (written and optimized, %s), bleve %v (written and merged to one segment, %s)",
			dmBuild.Round(time.Second), dirSize(filepath.Join(dir, "docmind-"+name)), blBuild.Round(time.Second), dirSize(filepath.Join(dir, "bleve-"+name)))},
	}, nil
}

// compareLatency runs every query through both searches alternately
// (which one goes first changes from query to query and round to round),
// rounds times, and returns each one's latencies and CPU time.
func compareLatency(qs []string, search [2]func(string) ([]string, error), rounds int, log logf) (lat [2][]time.Duration, cpu [2]time.Duration, err error) {
	for r := 0; r < rounds; r++ {
		for qi, q := range qs {
			for j := 0; j < 2; j++ {
				e := (qi + r + j) % 2
				t0, c0 := time.Now(), cpuTime()
				if _, err := search[e](q); err != nil {
					return lat, cpu, err
				}
				lat[e] = append(lat[e], time.Since(t0))
				cpu[e] += cpuTime() - c0
			}
		}
		log("round %d of %d done", r+1, rounds)
	}
	return lat, cpu, nil
}

func sizeName(n int) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dk", n/1000)
}

// percentiles returns p50 and p99 in milliseconds.
func percentiles(d []time.Duration) (p50, p99 float64) {
	slices.Sort(d)
	ms := func(x time.Duration) float64 { return float64(x) / float64(time.Millisecond) }
	return ms(d[len(d)/2]), ms(d[len(d)*99/100])
}

// dirSize is the size of the files under dir, in MiB.
func dirSize(dir string) string {
	var total int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return fmt.Sprintf("%.0f MiB", float64(total)/(1<<20))
}
