package index

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/docmind/docmind/schema"
	"github.com/viterin/vek/vek32"
)

// BenchmarkDenseInt8Scan is BenchmarkDenseScan's scan on int8 codes: the
// dense file's scan at 100k x 1536, a quarter of the bytes (sign-bits
// pass off, as below signMin).
func BenchmarkDenseInt8Scan(b *testing.B) {
	const n, dim = 100_000, 1536
	rng := rand.New(rand.NewPCG(5, 5))
	v := make([]float32, dim)
	df, err := memDenseFile(context.Background(), "m", "1", dim, n, func(f func(int64, []byte) error) error {
		for i := 0; i < n; i++ {
			for j := range v {
				v[j] = rng.Float32() - 0.5
			}
			if err := f(int64(i+1), encodeVector(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for j := range v {
		v[j] = rng.Float32() - 0.5
	}
	qc := make([]int8, dim)
	qs := quantize(qc, v)
	b.SetBytes(int64(n * dim))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sims, err := df.scan(qc, qs)
		if err != nil {
			b.Fatal(err)
		}
		topSims(sims, rescoreDepth(10), nil)
	}
}

// procStatus returns a /proc/self/status field in MiB (0 where there is
// no such file).
func procStatus(field string) float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// percentile returns the p-th percentile (0-100) of ds in milliseconds.
func percentile(ds []time.Duration, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, int(p/100*float64(len(s))))
	return float64(s[i]) / float64(time.Millisecond)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// syntheticVector fills dst with the benchmark vector of id (uniform
// components, normalised): regenerated on demand, so that a million of
// them need not be held to rescore or to compute the exact top 10.
func syntheticVector(id int64, dst []float32) {
	rng := rand.New(rand.NewPCG(uint64(id), 17))
	for i := range dst {
		dst[i] = rng.Float32() - 0.5
	}
	Normalize(dst)
}

// benchQueryVectors returns n unit query vectors drawn like the stored
// ones.
func benchQueryVectors(n, dim int) [][]float32 {
	qv := make([][]float32, n)
	for i := range qv {
		qv[i] = make([]float32, dim)
		syntheticVector(int64(1_000_000_000+i), qv[i])
	}
	return qv
}

// BenchmarkDenseFileSynthetic measures the dense file alone at 100k x
// 1536 (and 1M with DOCMIND_BENCH_1M=1): writing it, opening and verifying
// it, query latency (int8 scan, top rescoreDepth(10), rescoring with the
// float32 vectors), the process's RSS against the codes' size, and
// recall@10 against the exact scan. Run with -benchtime=1x.
func BenchmarkDenseFileSynthetic(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("DOCMIND_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(sizeName(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchDenseSynthetic(b, n)
			}
		})
	}
}

func benchDenseSynthetic(b *testing.B, n int) {
	const dim, queries, recallQueries = 1536, 200, 10
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "synthetic"+DenseFileSuffix)
	start := time.Now()
	err := writeDenseFile(ctx, path, "random-1536", "1", dim, func(f func(int64, []byte) error) error {
		v := make([]float32, dim)
		for id := int64(1); id <= int64(n); id++ {
			syntheticVector(id, v)
			if err := f(id, encodeVector(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	build := time.Since(start)
	runtime.GC()
	debug.FreeOSMemory()
	rssBefore := procStatus("VmRSS")
	start = time.Now()
	df, err := openDenseFile(path)
	if err != nil {
		b.Fatal(err)
	}
	open := time.Since(start)
	qv := benchQueryVectors(queries, dim)
	got := make([][]int, queries)
	lat := make([]time.Duration, queries)
	v := make([]float32, dim)
	cpu0 := cpuTime()
	for i, q := range qv {
		t0 := time.Now()
		qc := make([]int8, dim)
		qs := quantize(qc, q)
		sims, err := df.scan(qc, qs)
		if err != nil {
			b.Fatal(err)
		}
		cand := topSims(sims, rescoreDepth(10), nil)
		exact := make([]float32, len(cand))
		for j, c := range cand {
			syntheticVector(df.ids[c], v)
			exact[j] = vek32.Dot(v, q)
		}
		best := topSims(exact, 10, nil)
		for j, c := range best {
			best[j] = cand[c]
		}
		lat[i], got[i] = time.Since(t0), best
	}
	cpu := cpuTime() - cpu0
	rss, rssFile := procStatus("VmRSS"), procStatus("RssFile")
	floor, floorCPU := readFloor(df.codes, 20)
	runtime.KeepAlive(df)

	// Exact top 10 of the first queries: one pass regenerating every
	// vector.
	sims := make([][]float32, recallQueries)
	for r := range sims {
		sims[r] = make([]float32, n)
	}
	eachRowParallel(n, func(i int) {
		w := make([]float32, dim)
		syntheticVector(int64(i+1), w)
		for r := range sims {
			sims[r][i] = vek32.Dot(w, qv[r])
		}
	})
	found := 0
	for r := range sims {
		for _, e := range topSims(sims[r], 10, nil) {
			if slices.Contains(got[r], e) {
				found++
			}
		}
	}
	int8MiB := float64(n*dim) / (1 << 20)
	b.ReportMetric(build.Seconds(), "write-s")
	b.ReportMetric(ms(open), "open-verify-ms")
	b.ReportMetric(ms(lat[0]), "first-query-ms")
	b.ReportMetric(percentile(lat[1:], 50), "p50-ms")
	b.ReportMetric(percentile(lat[1:], 99), "p99-ms")
	b.ReportMetric(ms(cpu)/queries, "cpu-ms/query")
	b.ReportMetric(floor, "read-floor-p50-ms")
	b.ReportMetric(floorCPU, "read-floor-cpu-ms")
	b.ReportMetric(percentile(lat[1:], 50)/floor, "p50/floor")
	b.ReportMetric(rss, "rss-MiB")
	b.ReportMetric(rss-rssBefore, "rss-added-MiB")
	b.ReportMetric(rssFile, "rss-file-MiB")
	b.ReportMetric(int8MiB, "int8-MiB")
	b.ReportMetric(rss/int8MiB, "rss/int8")
	b.ReportMetric(float64(found)/float64(10*recallQueries), "recall@10")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
}

// readFloor is the memory-bandwidth floor of a scan of codes: the median
// wall time (ms) of passes that only read every byte (summing 64-bit
// words over the cores, as the scan splits its rows), and their mean CPU
// time per pass.
func readFloor(codes []int8, passes int) (p50, cpuMs float64) {
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&codes[0])), len(codes)/8)
	lat := make([]time.Duration, passes)
	sums := make([]uint64, runtime.GOMAXPROCS(0)+1)
	cpu0 := cpuTime()
	for p := range lat {
		t0 := time.Now()
		var mu sync.Mutex
		eachRangeParallel(len(words), func(lo, hi int) {
			var s uint64
			for _, w := range words[lo:hi] {
				s += w
			}
			mu.Lock()
			sums[0] += s
			mu.Unlock()
		})
		lat[p] = time.Since(t0)
	}
	return percentile(lat, 50), ms(cpuTime()-cpu0) / float64(passes)
}

// BenchmarkDenseIndex is dense search through the index at 10k, 20k and
// 100k x 1536, with float32 vectors in memory (the exact scan) and with
// the dense file, in one process: first-query time (load the vectors;
// build the file; open and verify an existing file), p50/p99 of
// SearchVector, RSS, and recall@10 of the file's results against the
// exact scan's. Run with -benchtime=1x.
func BenchmarkDenseIndex(b *testing.B) {
	for _, n := range []int{10_000, 20_000, 100_000} {
		b.Run(sizeName(n), func(b *testing.B) { benchDenseIndex(b, n) })
	}
}

func benchDenseIndex(b *testing.B, n int) {
	const dim, queries = 1536, 200
	ctx := context.Background()
	path := PathInDir(b.TempDir())
	emb := &randomEmbedder{dim: dim, rng: rand.New(rand.NewPCG(6, 6))}
	ix, err := Open(ctx, path, WithEmbedder(emb, "random-1536"))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	var batch []DocumentSections
	for d := 0; d < n/benchPerDoc; d++ {
		ds := DocumentSections{Doc: Document{Path: fmt.Sprintf("/synthetic/doc%07d.txt", d), Hash: "x", Format: "text"}}
		for i := 0; i < benchPerDoc; i++ {
			ds.Sections = append(ds.Sections, schema.Section{Title: fmt.Sprintf("Doc %d part %d", d, i), Content: "s" + strconv.Itoa(i)})
		}
		if batch = append(batch, ds); len(batch) == 20 {
			if err := ix.PutDocuments(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ix.PutDocuments(ctx, batch); err != nil {
		b.Fatal(err)
	}
	ix.Close()
	b.Logf("built %d sections in %v", n, time.Since(start).Round(time.Millisecond))
	qv := benchQueryVectors(queries, dim)
	type pass struct {
		first time.Duration
		lat   []time.Duration
		hits  [][]Hit
		rss   float64
	}
	run := func(fileMin int) pass {
		old := denseFileMin
		denseFileMin = fileMin
		defer func() { denseFileMin = old }()
		runtime.GC()
		debug.FreeOSMemory()
		ix, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		defer ix.Close()
		var p pass
		for i, q := range qv {
			t0 := time.Now()
			hits, err := ix.SearchVector(ctx, q, 10, SearchOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				p.first = time.Since(t0)
			} else {
				p.lat = append(p.lat, time.Since(t0))
			}
			p.hits = append(p.hits, hits)
		}
		p.rss = procStatus("VmRSS")
		return p
	}
	for i := 0; i < b.N; i++ {
		os.Remove(path + DenseFileSuffix)
		exact := run(math.MaxInt)
		build := run(0) // builds the file
		file := run(0)  // opens and verifies it
		found := 0
		for q := range qv {
			for _, e := range exact.hits[q] {
				if slices.ContainsFunc(file.hits[q], func(h Hit) bool { return h.rowid == e.rowid }) {
					found++
				}
			}
		}
		b.ReportMetric(ms(exact.first), "exact-first-ms")
		b.ReportMetric(percentile(exact.lat, 50), "exact-p50-ms")
		b.ReportMetric(percentile(exact.lat, 99), "exact-p99-ms")
		b.ReportMetric(exact.rss, "exact-rss-MiB")
		b.ReportMetric(ms(build.first), "file-build-first-ms")
		b.ReportMetric(ms(file.first), "file-open-first-ms")
		b.ReportMetric(percentile(file.lat, 50), "file-p50-ms")
		b.ReportMetric(percentile(file.lat, 99), "file-p99-ms")
		b.ReportMetric(file.rss, "file-rss-MiB")
		b.ReportMetric(float64(found)/float64(10*len(qv)), "recall@10")
	}
}
