package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// BenchmarkLexicalFloor compares DocMind's lexical search with the floor
// (floorIndex: in-memory BM25 with MaxScore) on the synthetic corpus of
// BenchmarkLexical, query by query in one process, and measures the
// suspected costs of the search each on its own: the context field and
// the read transaction, both on the exhaustive path (every posting of
// every query term scored, as before pruning). Each timed pass runs every
// query once through every variant, interleaved, so that load on the
// machine falls on all of them alike. 100k sections; 1M with
// DOCMIND_BENCH_1M=1. DOCMIND_BENCH_FIGURES=FILE writes the figures as a
// "measurements" report body (scripts/benchtable wrap).
//
//	go test ./index -run '^$' -bench LexicalFloor -benchtime 1x -timeout 30m
func BenchmarkLexicalFloor(b *testing.B) {
	ns := []int{100_000}
	if os.Getenv("DOCMIND_BENCH_1M") != "" {
		ns = append(ns, 1_000_000)
	}
	var figures []map[string]string
	for _, n := range ns {
		for _, optimized := range []bool{false, true} {
			name, label := sizeName(n), sizeName(n)+" sections as written"
			if optimized {
				name, label = name+"/optimized", sizeName(n)+" sections optimized"
			}
			b.Run(name, func(b *testing.B) {
				figures = append(figures, runLexicalFloor(b, n, optimized, label)...)
			})
		}
	}
	if f := os.Getenv("DOCMIND_BENCH_FIGURES"); f != "" && len(figures) > 0 {
		data, _ := json.MarshalIndent(map[string]any{"figures": figures}, "", "  ")
		if err := os.WriteFile(f, append(data, '\n'), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

type floorVariant struct {
	name string
	opt  SearchOptions
	cold bool // the list cache is emptied before each search
	lat  []time.Duration
	cpu  time.Duration // CPU time (user + system) of the process during its searches
	st   searchStats
}

func runLexicalFloor(b *testing.B, n int, optimized bool, name string) []map[string]string {
	ctx := context.Background()
	ix, _ := openBenchIndex(b, n, optimized)
	defer ix.Close()
	floor := benchFloor(n)
	s := newSynth(3)
	qs := make([]string, benchQueries)
	for i := range qs {
		qs[i] = s.query()
	}
	noCtx := func(o SearchOptions) SearchOptions { o.SetContextWeight = true; return o }
	variants := []*floorVariant{
		{name: "docmind", opt: SearchOptions{}},
		{name: "docmind, no list cache", opt: SearchOptions{noCache: true}},
		{name: "docmind, list cache emptied before each query", cold: true},
		{name: "exhaustive", opt: SearchOptions{exhaustive: true, noCache: true}},
		{name: "exhaustive, no context field", opt: noCtx(SearchOptions{exhaustive: true, noCache: true})},
		{name: "exhaustive, no read transaction", opt: SearchOptions{exhaustive: true, noSnapshot: true, noCache: true}},
	}
	for _, v := range variants {
		v.opt.stats = &v.st
	}
	var floorLat []time.Duration
	var floorCPU time.Duration
	floorScored := 0
	same := 0
	for _, q := range qs[:200] { // warm the page cache and pools
		for _, v := range variants {
			if _, err := ix.SearchWith(ctx, q, 10, v.opt); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, v := range variants {
		v.st = searchStats{}
	}
	b.ResetTimer()
	for range b.N {
		for qi, q := range qs {
			start, cpu0 := time.Now(), cpuTime()
			top, scored := floor.search(q, 10, DefaultK1, DefaultB)
			floorLat = append(floorLat, time.Since(start))
			floorCPU += cpuTime() - cpu0
			floorScored += scored
			for j := range variants {
				// each query starts with another variant: none always
				// runs right after the floor
				i := (qi + j) % len(variants)
				v := variants[i]
				// the cold variant runs with an empty cache, and leaves
				// the others' as it was
				lc := &ix.lists
				terms, clock, gen, size := lc.terms, lc.clock, lc.gen, lc.bytes
				if v.cold {
					lc.terms = nil
				}
				start, cpu0 := time.Now(), cpuTime()
				hits, err := ix.SearchWith(ctx, q, 10, v.opt)
				v.lat = append(v.lat, time.Since(start))
				v.cpu += cpuTime() - cpu0
				if v.cold {
					lc.terms, lc.clock, lc.gen, lc.bytes = terms, clock, gen, size
				}
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 && sameIDs(hits, top) {
					same++
				}
			}
		}
	}
	b.StopTimer()
	fp50, fp99 := percentiles(floorLat)
	b.ReportMetric(fp50, "floor-p50-ms")
	var figs []map[string]string
	fig := func(label, format string, args ...any) {
		label, value := name+": "+label, fmt.Sprintf(format, args...)
		b.Logf("%s: %s", label, value)
		figs = append(figs, map[string]string{"label": label, "value": value})
	}
	p50 := func(v *floorVariant) float64 { p, _ := percentiles(v.lat); return p }
	share := func(scored, postings int64) float64 { return 100 * float64(scored) / float64(max(1, postings)) }
	dm, cold, empty, ex, bare, noTx := variants[0], variants[1], variants[2], variants[3], variants[4], variants[5]
	dp50, dp99 := percentiles(dm.lat)
	b.ReportMetric(dp50, "p50-ms")
	b.ReportMetric(dp99, "p99-ms")
	b.ReportMetric(dp50/fp50, "x-floor")
	fig("lexical search vs the MaxScore floor", "%.2f× (p50 %.3f ms vs %.3f ms; p99 %.2f ms vs %.2f ms); scores %.1f%% of the query terms' postings, the floor %.1f%%",
		dp50/fp50, dp50, fp50, dp99, fp99, share(dm.st.scored, dm.st.postings), share(int64(floorScored), ex.st.postings))
	perQuery := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(len(qs)*b.N) }
	fig("CPU time per query vs the floor's", "%.2f× (%.3f ms vs %.3f ms; without the list cache %.3f ms)",
		perQuery(dm.cpu)/perQuery(floorCPU), perQuery(dm.cpu), perQuery(floorCPU), perQuery(cold.cpu))
	fig("without the list cache (every list read from the index)", "%.2f× the floor (p50 %.3f ms); the cache makes the search %.2f× as long",
		p50(cold)/fp50, p50(cold), dp50/p50(cold))
	fig("with the list cache emptied before each query (a one-shot search)", "%.2f× the floor (p50 %.3f ms); %.2f× the search without the cache",
		p50(empty)/fp50, p50(empty), p50(empty)/p50(cold))
	fig("MaxScore vs exhaustive scoring (both without the cache)", "%.2f× (p50 %.3f ms vs %.3f ms)", p50(cold)/p50(ex), p50(cold), p50(ex))
	fig("cost of the context field (exhaustive scoring)", "%.2f× the search without it (p50 %.3f ms vs %.3f ms)", p50(ex)/p50(bare), p50(ex), p50(bare))
	fig("cost of the read transaction (exhaustive scoring)", "%.2f× the search without it (p50 %.3f ms vs %.3f ms)", p50(ex)/p50(noTx), p50(ex), p50(noTx))
	fig("top 10 ids equal to the floor's", "%d of %d queries", same, len(qs)*b.N)
	return figs
}

// sameIDs reports whether hits and the floor's top have the same ids in
// the same order.
func sameIDs(hits []Hit, top []floorHit) bool {
	if len(hits) != len(top) {
		return false
	}
	for i := range hits {
		if hits[i].rowid != int64(top[i].id) {
			return false
		}
	}
	return true
}

// benchFloor builds the floor over the sections benchIndex writes, with
// the same ids (benchIndex writes sections from id 1 in order).
func benchFloor(n int) *floorIndex {
	f := newFloorIndex()
	s := newSynth(1)
	an := newAnalyzer()
	id := 1
	for d := 0; d < n/benchPerDoc; d++ {
		for _, sec := range s.doc(d).Sections {
			tfs, length := an.termFreqs(sec.Title + "\n" + sec.Content)
			f.add(id, tfs, length)
			id++
		}
	}
	return f
}
