package weaviate_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmind/docmind"
	_ "github.com/docmind/docmind/formats/pdf" // the filings are PDFs
	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/ingest"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/store"
	"github.com/docmind/docmind/store/storetest"
	"github.com/docmind/docmind/store/weaviate"
)

// serverURL returns the store URL of the live Weaviate the tests run
// against ($DOCMIND_WEAVIATE_URL, as printed by scripts/weaviate.sh
// start). Without it the test is skipped, or fails when
// CI_REQUIRE_WEAVIATE=1 (CI starts a server and must not skip silently).
func serverURL(t *testing.T, env string) string {
	t.Helper()
	u := os.Getenv(env)
	if u == "" {
		if os.Getenv("CI_REQUIRE_WEAVIATE") == "1" {
			t.Fatalf("CI_REQUIRE_WEAVIATE=1 but $%s is unset: start Weaviate with scripts/weaviate.sh start", env)
		}
		t.Skipf("$%s is unset (scripts/weaviate.sh start prints the URL)", env)
	}
	return u
}

// collectionURL is u with a new, unique collection (dropped at cleanup).
func collectionURL(t *testing.T, u, prefix string) string {
	t.Helper()
	cfg, err := weaviate.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	q := ""
	if i := strings.IndexByte(u, '?'); i >= 0 {
		q = u[i:]
	}
	return "weaviate://" + cfg.Host + "/" + prefix + hex.EncodeToString(b[:]) + q
}

func openTemp(t *testing.T, u, prefix string, opts ...weaviate.Option) *weaviate.Store {
	t.Helper()
	ctx := context.Background()
	s, err := weaviate.OpenURL(ctx, collectionURL(t, u, prefix), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Drop(context.Background()); err != nil {
			t.Logf("drop %s: %v", s.Name(), err)
		}
	})
	return s
}

func TestParseURL(t *testing.T) {
	c, err := weaviate.ParseURL("weaviate://127.0.0.1:18080/docs?replication=3&shards=2&consistency=one&timeout=5s&batch=50")
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "127.0.0.1:18080" || c.Collection != "Docs" || c.Replication != 3 || c.Shards != 2 ||
		c.Consistency != "ONE" || c.Timeout != 5*time.Second || c.BatchSize != 50 {
		t.Errorf("parsed %+v", c)
	}
	c, err = weaviate.ParseURL("weaviate://localhost")
	if err != nil || c.Host != "localhost:8080" || c.Collection != "Docs" || c.Replication != 1 || c.Consistency != "QUORUM" {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	for _, bad := range []string{"http://h:1/Docs", "weaviate:///Docs", "weaviate://h:1/9x", "weaviate://h:1/a-b",
		"weaviate://h:1/Docs?replication=0", "weaviate://h:1/Docs?shards=x", "weaviate://h:1/Docs?consistency=SOME",
		"weaviate://h:1/Docs?timeout=-1s", "weaviate://h:1/Docs?color=red"} {
		if _, err := weaviate.ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseURL(%q): error of several lines: %q", bad, err)
		}
	}
}

// TestUnreachable: a Weaviate that is down (a closed loopback port) or
// that accepts connections and never answers gives one clear error line
// at once, never a hang.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() { // accepts and never answers
		var conns []net.Conn
		for {
			c, err := silent.Accept()
			if err != nil {
				for _, c := range conns {
					c.Close()
				}
				return
			}
			conns = append(conns, c)
		}
	}()

	for _, c := range []struct {
		name, host string
		within     time.Duration
		want       string
	}{
		{"closed port", closed, 2 * time.Second, "connection refused"},
		{"silent server", silent.Addr().String(), 8 * time.Second, "unreachable"},
	} {
		start := time.Now()
		_, err := weaviate.OpenURL(context.Background(), "weaviate://"+c.host+"/Docs")
		took := time.Since(start)
		if err == nil {
			t.Fatalf("%s: Open succeeded", c.name)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) || !strings.Contains(msg, c.host) {
			t.Errorf("%s: error %q: want one line naming %s and saying %q", c.name, msg, c.host, c.want)
		}
		if took > c.within {
			t.Errorf("%s: Open took %v, want under %v", c.name, took, c.within)
		}
	}
}

// TestConformance runs the store contract's suite against a live
// Weaviate ($DOCMIND_WEAVIATE_URL), each subtest in a new collection.
func TestConformance(t *testing.T) {
	u := serverURL(t, "DOCMIND_WEAVIATE_URL")
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t, u, "Conf") })
}

// contractQuestions are the questions of the contract development set.
func contractQuestions(t *testing.T) []string {
	t.Helper()
	return questions(t, "../../internal/eval/testdata/qa/contract.jsonl")
}

// questions reads the questions of a QA set (JSONL).
func questions(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var qs []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row struct {
			Question string `json:"question"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		qs = append(qs, row.Question)
	}
	return qs
}

// ingestContract ingests examples/contract into s.
func ingestContract(t *testing.T, s ingest.Store) {
	t.Helper()
	ingestFolder(t, s, "../../examples/contract")
}

// ingestFolder ingests the documents of dir into s.
func ingestFolder(t *testing.T, s ingest.Store, dir string) {
	t.Helper()
	l, closeLoader := docmind.NewLoader()
	defer closeLoader()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := ingest.Run(context.Background(), s, []string{abs}, ingest.Options{Parser: ingest.LoaderParser(l)})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed == 0 {
		t.Fatalf("nothing ingested: %+v", sum)
	}
}

// TestSameRankingAsSQLite: over examples/contract, every question of the
// contract development set finds the same sections, in the same order
// and with the same relevance, in Weaviate as in the SQLite index.
func TestSameRankingAsSQLite(t *testing.T) {
	u := serverURL(t, "DOCMIND_WEAVIATE_URL")
	ctx := context.Background()
	w := openTemp(t, u, "Same")
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ingestContract(t, w)
	ingestContract(t, ix)
	qs := contractQuestions(t)
	differ := compareRankings(t, ix, w, qs, 5)
	if differ > len(qs)/5 {
		t.Errorf("%d of %d questions rank differently (more than a fifth)", differ, len(qs))
	}
}

// TestSameRankingOnFilings: over the ten SEC filings of ../shared (5,517
// sections; every section of a filing shares its document context, the
// company and the period), every question of the filings set finds the
// same ten sections in the same order with the same relevance. Taking
// Weaviate's BM25F best sections as the only candidates left out sections
// the index ranks in the top five (7 of 80 answers differed), because
// BM25F normalises the shared context field into the score.
func TestSameRankingOnFilings(t *testing.T) {
	u := serverURL(t, "DOCMIND_WEAVIATE_URL")
	const dir = "../../../shared/fixtures/filings"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("filings absent: %v", err)
	}
	ctx := context.Background()
	w := openTemp(t, u, "Filings")
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ingestFolder(t, w, dir)
	ingestFolder(t, ix, dir)
	qs := questions(t, "../../../shared/data/filings/qa.jsonl")
	if differ := compareRankings(t, ix, w, qs, 10); differ > 0 {
		t.Errorf("%d of %d questions rank their top 10 differently", differ, len(qs))
	}
}

// compareRankings searches both stores with every question and returns
// how many rank their top k differently (other sections, order or
// relevance); the best section, which the answer quotes, must agree.
func compareRankings(t *testing.T, ix *index.Index, w *weaviate.Store, qs []string, k int) (differ int) {
	t.Helper()
	ctx := context.Background()
	for _, q := range qs {
		a, err := ix.HybridSearch(ctx, q, k, index.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := w.HybridSearch(ctx, q, k, index.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !sameHits(a, b) {
			differ++
			t.Logf("%q:\n  sqlite   %s\n  weaviate %s", q, describeHits(a), describeHits(b))
		}
		if len(a) > 0 && (len(b) == 0 || a[0].Section.Key() != b[0].Section.Key()) {
			t.Errorf("%q: best section differs: sqlite %s, weaviate %s", q, describeHits(a[:1]), describeHits(b))
		}
	}
	t.Logf("%d of %d questions rank their top %d differently", differ, len(qs), k)
	return differ
}

// sameHits reports whether a and b hold the same sections in the same
// order with the same relevance; sections that tie (the same relevance to
// 1e-9) may come in either order, since the stores break ties by their own
// insertion order and sum the terms' scores in their own order. A tie
// that reaches the end of the lists may go on past it: each store then
// keeps its own members of it (a cut through sections of equal
// relevance), and only their relevance must agree.
func sameHits(a, b []index.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && math.Abs(a[j].Section.RelevanceScore-a[i].Section.RelevanceScore) < 1e-9 {
			j++
		}
		var ka, kb []string
		for x := i; x < j; x++ {
			if math.Abs(a[x].Section.RelevanceScore-b[x].Section.RelevanceScore) >= 1e-6 {
				return false
			}
			ka, kb = append(ka, a[x].Section.Key()), append(kb, b[x].Section.Key())
		}
		slices.Sort(ka)
		slices.Sort(kb)
		if !slices.Equal(ka, kb) && j < len(a) {
			return false
		}
		i = j
	}
	return true
}

func describeHits(hs []index.Hit) string {
	var b strings.Builder
	for _, h := range hs {
		b.WriteString(h.Section.Key())
		b.WriteString(" ")
		b.WriteString(strings.TrimSpace(strings.Fields(h.Section.Title + " -")[0]))
		b.WriteString("(")
		b.WriteString(strings.TrimRight(strings.TrimRight(strings.TrimSpace(formatFloat(h.Section.RelevanceScore)), "0"), "."))
		b.WriteString(") ")
	}
	return b.String()
}

func formatFloat(f float64) string {
	b, _ := json.Marshal(math.Round(f*1e4) / 1e4)
	return string(b)
}

// TestLongQueryFindsTheFullMatch: a section holding all seven terms of a
// question ranks first, above sections holding a few of them. Weaviate
// v1.35.2's BlockMax WAND (its default for new collections) returned
// sections holding two terms and left this one out; scripts/weaviate.sh
// starts servers with USE_INVERTED_SEARCHABLE=false, and a collection
// created with BlockMax WAND gets Store.Warning.
func TestLongQueryFindsTheFullMatch(t *testing.T) {
	u := serverURL(t, "DOCMIND_WEAVIATE_URL")
	ctx := context.Background()
	s := openTemp(t, u, "Long")
	if s.Warning() != "" {
		t.Logf("warning: %s", s.Warning())
	}
	ingestContract(t, s)
	q := "What commercial general liability insurance and what professional liability insurance must the Provider maintain?"
	hits, err := s.HybridSearch(ctx, q, 5, index.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Section.Title != "Insurance" {
		var got []string
		for _, h := range hits {
			got = append(got, h.Section.Title)
		}
		t.Fatalf("%q ranks %q; want the Insurance section first (warning: %q)", q, got, s.Warning())
	}
}

// TestStatisticsSeeOtherWriters: the corpus statistics a store caches
// (document frequencies, the corpus totals, synonym-group counts) are
// read again after another process's store writes to or deletes from the
// collection, and after its own writes.
func TestStatisticsSeeOtherWriters(t *testing.T) {
	u := serverURL(t, "DOCMIND_WEAVIATE_URL")
	ctx := context.Background()
	reader := openTemp(t, u, "Gen")
	writer, err := weaviate.OpenURL(ctx, reader.Name())
	if err != nil {
		t.Fatal(err)
	}
	lex := lexicon.New([][]string{{"surcharge", "late fee"}})
	doc := func(i int) index.Document {
		return index.Document{Path: fmt.Sprintf("/gen/doc%d.md", i), Hash: strconv.Itoa(i), Format: "markdown", Title: "Doc"}
	}
	sections := []schema.Section{{Title: "Fees", Content: "A late fee of 1.5% applies to unpaid invoices."}}
	check := func(step string, wantDocs, wantFee int) {
		t.Helper()
		c := reader.Corpus()
		for range 2 { // the second read comes from the cache
			if n, err := c.Size(ctx); err != nil || n != wantDocs {
				t.Errorf("%s: Size = %d, %v; want %d", step, n, err, wantDocs)
			}
			if n, err := c.GroupDocFreq(ctx, "surcharge", lex); err != nil || n != wantFee {
				t.Errorf("%s: GroupDocFreq(surcharge) = %d, %v; want %d", step, n, err, wantFee)
			}
			hits, err := reader.HybridSearch(ctx, "late fee invoices", 5, index.SearchOptions{})
			if err != nil || len(hits) != wantFee {
				t.Errorf("%s: %d hits, %v; want %d", step, len(hits), err, wantFee)
			}
		}
	}
	if err := reader.PutDocument(ctx, doc(1), sections); err != nil {
		t.Fatal(err)
	}
	check("own write", 1, 1)
	if err := writer.PutDocument(ctx, doc(2), sections); err != nil {
		t.Fatal(err)
	}
	check("another store's write", 2, 2)
	if err := writer.PutDocument(ctx, doc(2), []schema.Section{{Title: "Scope", Content: "The services are described in Schedule A."}}); err != nil {
		t.Fatal(err)
	}
	check("another store's replacement", 2, 1)
	if ok, err := writer.DeleteDocument(ctx, doc(2).Path); err != nil || !ok {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	check("another store's delete", 1, 1)
}
