package index

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/spell"
	"github.com/docmind/docmind/textproc"
)

// englishIndex builds an index of n sections that mix
// the synthetic Zipf vocabulary with runs of real English: 8-word runs of
// the example contract's text make up about a third of every section, so
// that the thesaurus's synonym phrases ("late fee", "notice period") have
// real candidates to verify, as in a large corpus of English documents.
// The index is kept in <tmp>/docmind-bench-answer-<n> (the data are
// deterministic) so that runs before and after a change read the same
// file; delete it to rebuild.
func englishIndex(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("docmind-bench-answer-%d", n))
	path := PathInDir(dir)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	var words []string
	for _, f := range []string{"master-services-agreement.md", "data-processing-addendum.md"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "contract", f))
		if err != nil {
			b.Skipf("example contract: %v", err)
		}
		words = append(words, strings.Fields(string(data))...)
	}
	ctx := context.Background()
	tmp := path + ".building"
	os.Remove(tmp)
	ix, err := Open(ctx, tmp)
	if err != nil {
		b.Fatal(err)
	}
	s := newSynth(11)
	var batch []DocumentSections
	for d := 0; d < n/benchPerDoc; d++ {
		ds := DocumentSections{Doc: Document{Path: fmt.Sprintf("/synthetic/en%07d.txt", d), Hash: "x", Format: "text", Pages: benchPerDoc / 5}}
		for i := 0; i < benchPerDoc; i++ {
			sec := s.section(d, i)
			var sb strings.Builder
			for _, w := range strings.Fields(sec.Content) {
				sb.WriteString(w)
				sb.WriteByte(' ')
				if s.rng.IntN(24) == 0 {
					at := s.rng.IntN(len(words) - 8)
					sb.WriteString(strings.Join(words[at:at+8], " "))
					sb.WriteByte(' ')
				}
			}
			sec.Content = sb.String()
			ds.Sections = append(ds.Sections, sec)
		}
		batch = append(batch, ds)
		if len(batch) == 20 {
			if err := ix.PutDocuments(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ix.PutDocuments(ctx, batch); err != nil {
		b.Fatal(err)
	}
	if err := ix.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := ix.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	ix.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// contractQuestions reads the development questions over the example
// contract.
func contractQuestions(b *testing.B) []string {
	data, err := os.ReadFile(filepath.Join("..", "internal", "eval", "testdata", "qa", "contract.jsonl"))
	if err != nil {
		b.Skipf("questions: %v", err)
	}
	var qs []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row struct{ Question string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			b.Fatal(err)
		}
		qs = append(qs, row.Question)
	}
	return qs
}

// BenchmarkAnswerPath measures what an offline `docmind ask` spends on
// the index per question at 100k sections: the spelling corrector
// (spell.New(ix.Corpus())), the index retriever
// (Index.Retriever) and the deterministic judge reading corpus statistics
// from the index (judge.WithCorpusStats(ix.Corpus())), on the 55
// development questions of the example contract, with an extractive
// answer (the best section's first sentence, cited). It reports p50/p99 of
// retrieval plus judging (wall time) and the process's CPU time per
// question (cpu-ms/op, which a loaded machine distorts less), the p99 of
// retrieval and of judging alone, and the garbage collections per
// question (gcs/op): on a loaded machine a collection's stop-the-world
// phases can wait hundreds of milliseconds for a descheduled thread, so
// they make the slow tail.
//
// The 55 questions repeat, so after the first round the judge finds its
// key terms' sets of sections (postingSets) in the cache; the "-cold" run
// empties that cache before every question, as for questions whose words
// are all new.
//
//	go test ./index -run '^$' -bench AnswerPath -benchtime 200x
func BenchmarkAnswerPath(b *testing.B) {
	n := 100_000
	for _, cold := range []bool{false, true} {
		name := sizeName(n)
		if cold {
			name += "-cold"
		}
		b.Run(name, func(b *testing.B) { benchmarkAnswerPath(b, n, cold) })
	}
}

func benchmarkAnswerPath(b *testing.B, n int, cold bool) {
	ctx := context.Background()
	ix, err := Open(ctx, englishIndex(b, n))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	qs := contractQuestions(b)
	ret := ix.Retriever()
	jd := judge.NewOffline(judge.WithCorpusStats(ix.Corpus()))
	sp := spell.New(ix.Corpus())
	// ask answers q and returns how long spelling, retrieval and
	// judging took.
	ask := func(q string) (spelling, retrieve, judging time.Duration) {
		if cold {
			ix.postingSets.reset()
		}
		start := time.Now()
		q, _, err := sp.Correct(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		spelling = time.Since(start)
		start = time.Now()
		secs, err := ret.Retrieve(ctx, schema.RetrieveRequest{Query: q})
		if err != nil {
			b.Fatal(err)
		}
		retrieve = time.Since(start)
		answer := "I could not find this in the documents."
		if len(secs) > 0 {
			first := textproc.Sentences(secs[0].Content)
			if len(first) > 0 {
				answer = first[0] + fmt.Sprintf(" (See %s, page %d)", secs[0].Title, secs[0].Page)
			}
		}
		start = time.Now()
		if _, err := jd.Judge(ctx, schema.JudgeRequest{Query: q, Response: answer, Sections: secs}); err != nil {
			b.Fatal(err)
		}
		return spelling, retrieve, time.Since(start)
	}
	for _, q := range qs[:5] { // warm the page cache
		ask(q)
	}
	lat := make([]time.Duration, 0, b.N)
	retLat := make([]time.Duration, 0, b.N)
	judgeLat := make([]time.Duration, 0, b.N)
	spellLat := make([]time.Duration, 0, b.N)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gc0 := ms.NumGC
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		sp, r, j := ask(qs[i%len(qs)])
		lat = append(lat, time.Since(start))
		retLat = append(retLat, r)
		judgeLat = append(judgeLat, j)
		spellLat = append(spellLat, sp)
	}
	cpu := cpuTime() - cpu0
	b.StopTimer()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(ms.NumGC-gc0)/float64(b.N), "gcs/op")
	p50, p99 := percentiles(lat)
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	_, p99 = percentiles(retLat)
	b.ReportMetric(p99, "retrieve-p99-ms")
	_, p99 = percentiles(judgeLat)
	b.ReportMetric(p99, "judge-p99-ms")
	_, p99 = percentiles(spellLat)
	b.ReportMetric(p99, "spell-p99-ms")
}
