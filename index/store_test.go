package index

import (
	"context"
	"slices"
	"strings"
	"testing"

	lcschema "github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/vectorstores"

	"github.com/docmind/docmind/schema"
)

func TestStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t, WithEmbedder(&hashEmbedder{dim: 64}, "hash-64"))
	st := NewStore(ix)
	docs := []lcschema.Document{
		{PageContent: "A late fee of 1.5% per month applies.", Metadata: map[string]any{"source": "c.pdf", "title": "Late Payment Penalties", "page": 8, "page_end": 9}},
		{PageContent: "The supplier warrants the goods for twelve months.", Metadata: map[string]any{"source": "c.pdf", "title": "Warranty", "page": float64(10)}},
		{PageContent: "Lunch is served at noon.", Metadata: map[string]any{"source": "menu.txt", "title": "Lunch"}},
	}
	ids, err := st.AddDocuments(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[0] == ids[1] {
		t.Fatalf("ids: %v", ids)
	}
	// Appending more sections keeps the earlier ones of the same source.
	if _, err := st.AddDocuments(ctx, []lcschema.Document{{PageContent: "Payment is due in thirty days.", Metadata: map[string]any{"source": "c.pdf", "title": "Payment"}}}); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := ix.Document(ctx, "c.pdf"); d.Sections != 3 {
		t.Fatalf("c.pdf has %d sections, want 3", d.Sections)
	}
	got, err := st.SimilaritySearch(ctx, "late fee per month", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no results")
	}
	sec := SectionFromDocument(got[0])
	if sec.Title != "Late Payment Penalties" || sec.Page != 8 || sec.PageEnd != 9 || sec.Source != "c.pdf" || sec.ID != ids[0] {
		t.Fatalf("first result: %+v", sec)
	}
	if got[0].Score <= 0 || got[0].Score > 1 {
		t.Fatalf("score %v not a relevance", got[0].Score)
	}
	if _, ok := got[0].Metadata[MetaScore]; !ok {
		t.Fatal("raw score missing from metadata")
	}
	// Filters exclude keys; thresholds drop weak results.
	got, err = st.SimilaritySearch(ctx, "late fee per month", 5, vectorstores.WithFilters(Filter{Exclude: []string{ids[0]}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range got {
		if d.Metadata[MetaID] == ids[0] {
			t.Fatal("excluded id returned")
		}
	}
	got, _ = st.SimilaritySearch(ctx, "late fee per month", 5, vectorstores.WithScoreThreshold(0.99))
	for _, d := range got {
		if d.Score < 0.99 {
			t.Fatalf("threshold not applied: %v", d.Score)
		}
	}
	if _, err := st.SimilaritySearch(ctx, "x", 1, vectorstores.WithFilters(map[string]any{"a": 1})); err == nil {
		t.Fatal("unsupported filter accepted")
	}
	if _, err := st.SimilaritySearch(ctx, "x", 1, vectorstores.WithNameSpace("n")); err == nil {
		t.Fatal("name space accepted")
	}
	// Deduplicater skips documents.
	ids, err = st.AddDocuments(ctx, docs, vectorstores.WithDeduplicater(func(context.Context, lcschema.Document) bool { return true }))
	if err != nil || len(ids) != 0 {
		t.Fatalf("deduplicated add: %v %v", ids, err)
	}
}

// putLines indexes one document c.txt with a section per text, titled
// SA, SB, ... on pages 1, 2, ...
func putLines(t *testing.T, ix *Index, texts ...string) {
	t.Helper()
	var secs []schema.Section
	for i, c := range texts {
		secs = append(secs, schema.Section{Title: "S" + string(rune('A'+i)), Content: c, Page: i + 1})
	}
	if err := ix.PutDocument(context.Background(), Document{Path: "c.txt"}, secs); err != nil {
		t.Fatal(err)
	}
}

// feeLines are sections that all match "late payment fee", to different
// degrees.
var feeLines = []string{
	"late payment fee of 1.5% per month",
	"late payment fee waived for enterprise clients",
	"payment fee schedule for late invoices",
	"late delivery fee",
	"late payment interest and fee",
}

func TestRetrieverHonoursRequest(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	putLines(t, ix, append(feeLines, "payment by wire transfer, fee included, never late", "warranty period of twelve months")...)
	r := NewRetriever(NewStore(ix))
	r.TopK = 3
	first, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "late payment fee"})
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 3 {
		t.Fatalf("got %d sections, want 3", len(first))
	}
	excluded := map[string]bool{}
	var keys []string
	for _, s := range first {
		keys = append(keys, s.Key())
		excluded[s.Key()] = true
		if s.RelevanceScore < r.MinRelevance || s.RelevanceScore > 1 {
			t.Fatalf("relevance %v outside [floor,1]", s.RelevanceScore)
		}
	}
	second, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "late payment fee", Attempt: 1, Feedback: &schema.Feedback{Excluded: keys}})
	if err != nil {
		t.Fatal(err)
	}
	if len(second) == 0 {
		t.Fatal("retry returned nothing although unexcluded matches exist")
	}
	for _, s := range second {
		if excluded[s.Key()] {
			t.Fatalf("excluded section %s returned on retry", s.Key())
		}
		if strings.Contains(s.Content, "warranty") {
			t.Fatalf("irrelevant section returned: %+v", s)
		}
	}
	// The floor drops weak matches entirely.
	r.MinRelevance = 1.01
	if got, _ := r.Retrieve(ctx, schema.RetrieveRequest{Query: "late payment fee"}); len(got) != 0 {
		t.Fatalf("floor not applied: %+v", got)
	}
	// Sub-queries of a multi-part question are searched too.
	r.MinRelevance = DefaultMinRelevance
	got, err := r.Retrieve(ctx, schema.RetrieveRequest{
		Query:         "late payment fee and warranty period",
		Decomposition: &schema.Decomposition{SubQueries: []string{"late payment fee", "warranty period"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range got {
		found = found || strings.Contains(s.Content, "warranty")
	}
	if !found {
		t.Fatalf("warranty section missing for a two-part question: %+v", got)
	}
}

// A retry whose judge rejected no section still gets a different set from
// the pass it rejected (schema.Feedback.Previous), or nothing.
func TestRetrieverWidensOnRetry(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	putLines(t, ix,
		"late payment fee of 1.5% per month",
		"late payment fee waived for enterprise clients",
		"payment fee schedule for late invoices",
		"late delivery fee",
		"warranty period of twelve months",
	)
	r := ix.Retriever()
	r.TopK = 2
	keys := func(ss []schema.Section) []string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Key())
		}
		return out
	}
	req := schema.RetrieveRequest{Query: "late payment fee"}
	first, err := r.Retrieve(ctx, req)
	if err != nil || len(first) != 2 {
		t.Fatalf("first pass: %d sections, %v", len(first), err)
	}
	seen := map[string]bool{}
	prev := keys(first)
	for attempt := 1; attempt <= 3; attempt++ {
		req.Attempt, req.Feedback = attempt, &schema.Feedback{Previous: prev}
		got, err := r.Retrieve(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break // nothing new left: allowed
		}
		if slices.Equal(keys(got), prev) {
			t.Fatalf("retry %d handed back the rejected set %v", attempt, prev)
		}
		for _, s := range got {
			if strings.Contains(s.Content, "warranty") {
				t.Fatalf("retry %d widened to an irrelevant section", attempt)
			}
			seen[s.Key()] = true
		}
		prev = keys(got)
	}
	if len(seen) < 3 {
		t.Errorf("retries reached %d distinct sections, want at least 3 of the 4 relevant ones", len(seen))
	}
}

// otherStore is a different VectorStore (a fixed list) to show the
// retriever only depends on the interface.
type otherStore struct{ docs []lcschema.Document }

func (o otherStore) AddDocuments(context.Context, []lcschema.Document, ...vectorstores.Option) ([]string, error) {
	return nil, nil
}

func (o otherStore) SimilaritySearch(_ context.Context, _ string, n int, _ ...vectorstores.Option) ([]lcschema.Document, error) {
	return o.docs[:min(n, len(o.docs))], nil
}

func TestRetrieverOverAnyStore(t *testing.T) {
	store := otherStore{docs: []lcschema.Document{
		{PageContent: "a", Score: 0.9, Metadata: map[string]any{"id": "k1", "title": "A", "page": "3"}},
		{PageContent: "b", Score: 0.8, Metadata: map[string]any{"id": "k2", "title": "B", "page": int64(4)}},
		{PageContent: "c", Score: 0.05, Metadata: map[string]any{"id": "k3", "title": "C"}},
	}}
	r := NewRetriever(store)
	got, err := r.Retrieve(context.Background(), schema.RetrieveRequest{Query: "q", Feedback: &schema.Feedback{Excluded: []string{"k1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != "k2" || got[0].Page != 4 || got[0].RelevanceScore != float64(float32(0.8)) {
		t.Fatalf("got %+v", got)
	}
}

// With Widen, each retry returns TopK more sections than the pass before.
func TestRetrieverWidenGrowsEachRetry(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	putLines(t, ix, append(feeLines, "warranty period of twelve months")...)
	r := ix.Retriever()
	r.TopK, r.Widen = 2, true
	for attempt, want := range []int{2, 4, 5} {
		got, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "late payment fee", Attempt: attempt, Feedback: &schema.Feedback{}})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("attempt %d: %d sections, want %d", attempt, len(got), want)
		}
	}
}

// A question asking what a measure was gets the table row that states it,
// although BM25 ranks that table below prose that repeats the measure's
// name (Oracle's fiscal 2023 Form 10-K: "Total revenues 49,954" was 10th).
func TestRetrieverFindsTheTableRow(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	prose := []string{
		"Our total revenues increased in fiscal 2023, and revenues grew in every region as total revenues rose.",
		"Total revenues from cloud services grew in fiscal 2023; revenues from licenses fell as total revenues shifted.",
		"In fiscal 2023 total revenues reflected the acquisition, and revenues from hardware were flat.",
		"Revenues and total revenues are discussed by business below for fiscal 2023 and fiscal 2022.",
		"Hardware Revenues: Americas $ 1,702 EMEA 933 Total revenues 3,274 Expenses: Sales and marketing 331",
	}
	table := "Year Ended May 31 2023 2022 Total Revenues by Geography: Americas $ 31,226 $ 23,679 EMEA 12,109 12,011 " +
		"Total revenues 49,954 42,440 Total operating expenses 36,861 31,514"
	putLines(t, ix, append(prose, table, "Warranty claims are handled within thirty days.")...)
	q := schema.RetrieveRequest{Query: "What were the total revenues in fiscal 2023?"}
	r := ix.Retriever()
	r.TopK = 3
	got, err := r.Retrieve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Content != table {
		t.Fatalf("the table stating the total is not in the last place: %v", contents(got))
	}
	// off, the ranking is BM25's alone
	r.TableRows = 0
	got, err = r.Retrieve(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if s.Content == table {
			t.Fatalf("the table ranks in the top 3 by BM25 alone; the test proves nothing: %v", contents(got))
		}
	}
	// a question that asks for no figure keeps BM25's ranking
	r.TableRows = DefaultTableRows
	got, err = r.Retrieve(ctx, schema.RetrieveRequest{Query: "Why did total revenues grow in fiscal 2023?"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if s.Content == table {
			t.Fatalf("a why question got the table: %v", contents(got))
		}
	}
}

// A row of pro forma figures does not state the reported one: a section
// titled so among the best does not stop the search for the table that
// states it (Oracle's fiscal 2023 Form 10-K: "Unaudited Pro Forma
// Financial Information" ranked 2nd for its net income).
func TestRetrieverLooksPastProFormaRows(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	secs := []schema.Section{
		{Title: "Unaudited Pro Forma Financial Information", Page: 1, Content: "Net income for fiscal 2023 and net income for fiscal 2022 are presented below as if the acquisition had closed earlier. (in millions) 2023 2022 Total revenues $ 51,234 $ 48,112 Net income $ 8,722 $ 6,990"},
		{Title: "Liquidity", Page: 2, Content: "Net income for fiscal 2023 is discussed with our cash flows, and net income drives operating cash flow."},
		{Title: "Income Taxes", Page: 3, Content: "Our effective tax rate lowered net income in fiscal 2023 compared with net income in fiscal 2022."},
		{Title: "Results", Page: 4, Content: "Net income grew in fiscal 2023 as net income from cloud services rose."},
		{Title: "Consolidated Statements of Operations", Page: 5, Content: "Year Ended May 31 2023 2022 Total revenues $ 49,954 $ 42,440 Operating income 13,093 10,926 Net income $ 8,503 $ 6,717"},
	}
	if err := ix.PutDocument(ctx, Document{Path: "c.txt"}, secs); err != nil {
		t.Fatal(err)
	}
	r := ix.Retriever()
	r.TopK = 3
	got, err := r.Retrieve(ctx, schema.RetrieveRequest{Query: "What was the net income for fiscal 2023?"})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range got {
		titles = append(titles, s.Title)
	}
	if !slices.Contains(titles, "Unaudited Pro Forma Financial Information") {
		t.Fatalf("the pro forma section is not among the best by BM25; the test proves nothing: %v", titles)
	}
	if titles[len(titles)-1] != "Consolidated Statements of Operations" {
		t.Errorf("the statement of the reported net income is not in the last place: %v", titles)
	}
}

func contents(ss []schema.Section) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Content)
	}
	return out
}
