package weaviate_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/store"
	"github.com/docmind/docmind/textproc"
)

// TestStoreBenchmark compares ingest throughput and search latency of the
// SQLite index and Weaviate in the same run, over real text: the BEIR
// SciFact abstracts (../shared/data/scifact), repeated under new document
// paths up to $DOCMIND_BENCH_SECTIONS sections (default: the 5,183
// abstracts once; later copies each leave out one sentence and take one
// from another abstract), 50 sections per document, and SciFact's claims as
// queries (top 10 for the search, $DOCMIND_BENCH_QUERIES of them, 300 by
// default; a third of them, 100 by default, through the offline
// answer path: the store's retriever and the offline judge reading its
// corpus statistics). It runs only with $DOCMIND_BENCH_WEAVIATE=1 and
// $DOCMIND_WEAVIATE_URL set, and prints a table for BENCHMARKS.md.
func TestStoreBenchmark(t *testing.T) {
	if os.Getenv("DOCMIND_BENCH_WEAVIATE") != "1" {
		t.Skip("set DOCMIND_BENCH_WEAVIATE=1 (and DOCMIND_WEAVIATE_URL) to run the store benchmark")
	}
	u := serverURL(t, "DOCMIND_WEAVIATE_URL")
	ctx := context.Background()
	abstracts := readJSONL(t, "../../../shared/data/scifact/corpus.jsonl")
	queries := readJSONL(t, "../../../shared/data/scifact/queries.jsonl")
	want := len(abstracts)
	if n, err := strconv.Atoi(os.Getenv("DOCMIND_BENCH_SECTIONS")); err == nil && n > 0 {
		want = n
	}
	const perDoc = 50
	var docs [][]schema.Section
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < want; i += perDoc {
		var secs []schema.Section
		for j := i; j < min(i+perDoc, want); j++ {
			a := abstracts[j%len(abstracts)]
			text := a["text"]
			if j >= len(abstracts) {
				// a later copy of an abstract is not the same text: one
				// of its sentences is left out and one of another
				// abstract's added, so that sections do not tie
				sents := textproc.Sentences(text)
				if len(sents) > 1 {
					drop := rng.IntN(len(sents))
					sents = append(sents[:drop:drop], sents[drop+1:]...)
				}
				if other := textproc.Sentences(abstracts[rng.IntN(len(abstracts))]["text"]); len(other) > 0 {
					sents = append(sents, other[rng.IntN(len(other))])
				}
				text = strings.Join(sents, " ")
			}
			secs = append(secs, schema.Section{Title: a["title"], Content: text, Chunk: j - i})
		}
		docs = append(docs, secs)
	}
	nq, na := min(len(queries), 300), min(len(queries), 100)
	if n, err := strconv.Atoi(os.Getenv("DOCMIND_BENCH_QUERIES")); err == nil && n > 0 {
		nq, na = min(len(queries), n), min(len(queries), max(1, n/3))
	}

	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	w := openTemp(t, u, "Bench")
	type result struct {
		name             string
		ingest           time.Duration
		p50, p99, avg    time.Duration
		ap50, ap99, aavg time.Duration
	}
	var results []result
	for _, s := range []store.Store{store.SQLite{Index: ix}, w} {
		start := time.Now()
		for d, secs := range docs {
			doc := index.Document{Path: fmt.Sprintf("/bench/scifact-%05d.txt", d), Hash: strconv.Itoa(d), Format: "text", Title: "SciFact " + strconv.Itoa(d)}
			if err := s.PutDocument(ctx, doc, secs); err != nil {
				t.Fatal(err)
			}
			if (d+1)%max(1, len(docs)/10) == 0 {
				t.Logf("%s: %d of %d documents in %v", s.Name(), d+1, len(docs), time.Since(start).Round(time.Second))
			}
		}
		if sq, ok := s.(store.SQLite); ok {
			if err := sq.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
		}
		ingest := time.Since(start)
		if run := os.Getenv("DOCMIND_BENCH_WEAVIATE_RUN"); run != "" && s == store.Store(w) {
			// the nodes' disk and memory after the ingest (scripts/weaviate.sh's run folder)
			disk, rss := serverCost(t, run)
			t.Logf("Weaviate after ingest: data folders %.1f MiB, nodes' resident memory %.1f MiB (%.0f MiB and %.0f MiB per million sections)",
				disk, rss, disk*1e6/float64(want), rss*1e6/float64(want))
		}
		for i := range 10 { // warm up
			_, _ = s.HybridSearch(ctx, queries[i]["text"], 10, index.SearchOptions{})
		}
		search := make([]time.Duration, nq)
		for i := range nq {
			qs := time.Now()
			if _, err := s.HybridSearch(ctx, queries[i]["text"], 10, index.SearchOptions{}); err != nil {
				t.Fatal(err)
			}
			search[i] = time.Since(qs)
		}
		// the offline answer path, as index.BenchmarkAnswerPath: the
		// pipeline's retriever over the store, an extractive answer from
		// the best section and the offline judge reading the store's
		// corpus statistics
		ret, jd := s.Retriever(), judge.NewOffline(judge.WithCorpusStats(s.Corpus()))
		answer := make([]time.Duration, na)
		for i := range na {
			q := queries[i]["text"]
			qs := time.Now()
			secs, err := ret.Retrieve(ctx, schema.RetrieveRequest{Query: q})
			if err != nil {
				t.Fatal(err)
			}
			resp := "I could not find this in the documents."
			if len(secs) > 0 {
				if first := textproc.Sentences(secs[0].Content); len(first) > 0 {
					resp = first[0] + fmt.Sprintf(" (See %s, page %d)", secs[0].Title, secs[0].Page)
				}
			}
			if _, err := jd.Judge(ctx, schema.JudgeRequest{Query: q, Response: resp, Sections: secs}); err != nil {
				t.Fatal(err)
			}
			answer[i] = time.Since(qs)
		}
		r := result{name: s.Name(), ingest: ingest}
		r.p50, r.p99, r.avg = percentiles(search)
		r.ap50, r.ap99, r.aavg = percentiles(answer)
		results = append(results, r)
		t.Logf("%s: ingest %v, search p50 %.1f ms, answer path p50 %.1f ms", s.Name(), ingest.Round(time.Millisecond), ms(r.p50), ms(r.ap50))
	}
	t.Logf("%d sections (%d documents), top 10; search: %d queries, answer path: %d", want, len(docs), nq, na)
	t.Logf("| store | ingest | sections/s | search p50 | search p99 | answer path p50 | answer path p99 | answer path mean |")
	for _, r := range results {
		t.Logf("| %s | %v | %.0f | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms |", r.name, r.ingest.Round(time.Millisecond),
			float64(want)/r.ingest.Seconds(), ms(r.p50), ms(r.p99), ms(r.ap50), ms(r.ap99), ms(r.aavg))
	}
	a, b := results[0], results[1]
	t.Logf("Weaviate / SQLite: ingest time x%.1f, search p50 x%.1f, p99 x%.1f, answer path p50 x%.1f, p99 x%.1f",
		b.ingest.Seconds()/a.ingest.Seconds(), ms(b.p50)/ms(a.p50), ms(b.p99)/ms(a.p99), ms(b.ap50)/ms(a.ap50), ms(b.ap99)/ms(a.ap99))
}

// percentiles returns the median, 99th percentile and mean of lat.
func percentiles(lat []time.Duration) (p50, p99, mean time.Duration) {
	if len(lat) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	var total time.Duration
	for _, d := range s {
		total += d
	}
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)], total / time.Duration(len(s))
}

// serverCost returns the size of the nodes' data folders under run and
// the sum of their resident memory, in MiB.
func serverCost(t *testing.T, run string) (disk, rss float64) {
	t.Helper()
	_ = filepath.WalkDir(filepath.Join(run, "data"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				disk += float64(fi.Size())
			}
		}
		return nil
	})
	pids, _ := filepath.Glob(filepath.Join(run, "node*.pid"))
	for _, f := range pids {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		status, err := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseFloat(f[1], 64)
				rss += kb * 1024
			}
		}
	}
	return disk / (1 << 20), rss / (1 << 20)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func readJSONL(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("benchmark data absent: %v", err)
	}
	defer f.Close()
	var out []map[string]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for k, v := range row {
			if s, ok := v.(string); ok {
				m[k] = s
			}
		}
		out = append(out, m)
	}
	return out
}
