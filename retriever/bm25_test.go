package retriever

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

var (
	contractOnce sync.Once
	contract     []schema.Section
	contractErr  error
)

// contractSections loads the sample corpus once.
func contractSections(t testing.TB) []schema.Section {
	t.Helper()
	contractOnce.Do(func() {
		contract, _, contractErr = loader.New().LoadDir(context.Background(), filepath.Join("..", "examples", "contract"))
	})
	if contractErr != nil {
		t.Fatal(contractErr)
	}
	return contract
}

func retrieve(t *testing.T, r *BM25, req schema.RetrieveRequest) []schema.Section {
	t.Helper()
	res, err := r.Retrieve(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res {
		if s.RelevanceScore < 0 || s.RelevanceScore > 1 {
			t.Errorf("%s: relevance %v outside [0,1]", s.Title, s.RelevanceScore)
		}
		if i > 0 && s.RelevanceScore > res[i-1].RelevanceScore {
			t.Errorf("results not sorted: %v after %v", s.RelevanceScore, res[i-1].RelevanceScore)
		}
	}
	return res
}

func titles(secs []schema.Section) string {
	var out []string
	for _, s := range secs {
		out = append(out, fmt.Sprintf("%s (%s) %.2f", s.Title, s.PageRef(), s.RelevanceScore))
	}
	return strings.Join(out, "; ")
}

func TestContractRanking(t *testing.T) {
	r := NewBM25(contractSections(t))
	tests := []struct {
		query, top string
		page       int
	}{
		{"What are the late payment penalties?", "Late Payment Penalties", 8},
		{"What are the penalties?", "Late Payment Penalties", 8},
		{"late fee", "Late Payment Penalties", 8},
		{"When can the provider suspend the services?", "Suspension of Services", 8},
		{"How much notice is needed to terminate for convenience?", "Termination for Convenience", 9},
		{"What is the early termination fee?", "Early Termination Fee", 10},
		{"How long do confidentiality obligations last?", "Duration of Confidentiality", 11},
		{"What is the governing law?", "Governing Law", 12},
		{"What service credits apply when availability is missed?", "Service Credits", 6},
		{"How quickly must a personal data breach be notified?", "Personal Data Breaches", 2},
		{"How long is the initial term?", "Initial Term", 9},
		{"What is the monthly fee for enterprise clients?", "Enterprise Clients", 7},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res := retrieve(t, r, schema.RetrieveRequest{Query: tt.query})
			if len(res) == 0 || res[0].Title != tt.top || res[0].Page != tt.page {
				t.Fatalf("top = %s; want %s (page %d)", titles(res), tt.top, tt.page)
			}
			if len(res) > DefaultMaxResults {
				t.Errorf("%d results", len(res))
			}
		})
	}
}

func TestLatePaymentSeedQuestion(t *testing.T) {
	res := retrieve(t, NewBM25(contractSections(t)), schema.RetrieveRequest{
		Query: "What are the late payment penalties?",
		Decomposition: &schema.Decomposition{
			Intent: "amount", SubQueries: []string{"What are the late payment penalties?"},
			KeyTerms: []string{"late", "payment", "penalties"},
		},
	})
	if len(res) < DefaultMinResults || len(res) > DefaultMaxResults {
		t.Fatalf("got %d results: %s", len(res), titles(res))
	}
	top := res[0]
	if top.Title != "Late Payment Penalties" || top.Page != 8 || top.RelevanceScore < 0.8 {
		t.Fatalf("top = %s", titles(res))
	}
	if !strings.Contains(top.Content, "late fee of 1.5% per month") || !strings.HasSuffix(top.Source, ".md") {
		t.Errorf("top section content/source wrong: %+v", top)
	}
	if top.RelevanceScore-res[1].RelevanceScore < 0.3 {
		t.Errorf("the right section does not stand out: %s", titles(res))
	}
}

// The contract has no warranty clause: no section passes the default
// floor, and what matches at all (on "period") is weak.
func TestWarrantyQuestionFindsNothing(t *testing.T) {
	secs := contractSections(t)
	q := schema.RetrieveRequest{
		Query:         "What is the warranty period?",
		Decomposition: &schema.Decomposition{SubQueries: []string{"What is the warranty period?"}, KeyTerms: []string{"warranty", "period"}},
	}
	if res := retrieve(t, NewBM25(secs), q); len(res) != 0 {
		t.Errorf("warranty question returned %s", titles(res))
	}
	weak := retrieve(t, NewBM25(secs, WithFloor(0), WithResults(0, 50)), q)
	if len(weak) == 0 {
		t.Fatal("with no floor, sections matching \"period\" should come back")
	}
	for _, s := range weak {
		if s.RelevanceScore >= DefaultFloor {
			t.Errorf("%s scores %.3f, at or above the floor", s.Title, s.RelevanceScore)
		}
	}
	// Even the second retry, with its lowered floor, finds only weak matches.
	q.Attempt = 2
	q.Feedback = &schema.Feedback{UnsupportedClaims: []string{"No warranty is mentioned."}}
	for _, s := range retrieve(t, NewBM25(secs), q) {
		if s.RelevanceScore >= DefaultFloor {
			t.Errorf("retry returned %s at %.3f", s.Title, s.RelevanceScore)
		}
	}
}

func TestUnknownTopicsFindNothing(t *testing.T) {
	r := NewBM25(contractSections(t))
	for _, q := range []string{"What is the refund policy?", "Who is the chief executive officer?", "what is it", ""} {
		if res := retrieve(t, r, schema.RetrieveRequest{Query: q}); len(res) != 0 {
			t.Errorf("%q returned %s", q, titles(res))
		}
	}
}

func TestRetryExcludesEarlierSections(t *testing.T) {
	r := NewBM25(contractSections(t))
	req := schema.RetrieveRequest{Query: "What are the penalties?"}
	first := retrieve(t, r, req)
	if len(first) == 0 {
		t.Fatal("no first-pass results")
	}
	fb := &schema.Feedback{UnsupportedClaims: []string{"Client pays a late fee of 5% per month (See Service Credits, page 6)."}}
	for _, s := range first {
		fb.Excluded = append(fb.Excluded, s.Key())
	}
	req.Attempt, req.Feedback = 1, fb
	second := retrieve(t, r, req)
	if len(second) == 0 {
		t.Fatal("the retry found nothing new")
	}
	for _, s := range second {
		for _, k := range fb.Excluded {
			if s.Key() == k {
				t.Errorf("retry returned excluded section %s", s.Title)
			}
		}
	}
	// Excluding only the rejected section keeps the rest available.
	req.Feedback = &schema.Feedback{Excluded: []string{first[0].Key()}}
	third := retrieve(t, r, req)
	if len(third) == 0 || third[0].Key() == first[0].Key() {
		t.Errorf("third pass: %s", titles(third))
	}
}

func TestRetryLowersFloor(t *testing.T) {
	secs := contractSections(t)
	r := NewBM25(secs, WithResults(0, 100))
	q := "Who owns the deliverables and the client data?"
	first := retrieve(t, r, schema.RetrieveRequest{Query: q})
	retry := retrieve(t, r, schema.RetrieveRequest{Query: q, Attempt: 1, Feedback: &schema.Feedback{}})
	if len(retry) <= len(first) {
		t.Errorf("retry floor not lowered: %d results vs %d", len(retry), len(first))
	}
	for _, s := range retry {
		if s.RelevanceScore < DefaultFloor*DefaultRetryFloorFactor*DefaultPadRatio {
			t.Errorf("%s below the lowered floor: %.3f", s.Title, s.RelevanceScore)
		}
	}
}

func TestResultBounds(t *testing.T) {
	secs := contractSections(t)
	q := schema.RetrieveRequest{Query: "termination notice fee payment days"}
	tests := []struct {
		min, max int
		wantLen  int
	}{
		{0, 1, 1}, {0, 2, 2}, {3, 5, 5}, {5, 3, 3},
	}
	for _, tt := range tests {
		res := retrieve(t, NewBM25(secs, WithResults(tt.min, tt.max)), q)
		if len(res) != tt.wantLen {
			t.Errorf("WithResults(%d,%d): %d results", tt.min, tt.max, len(res))
		}
	}
	// Padding: one strong match plus weaker ones up to the minimum.
	res := retrieve(t, NewBM25(secs, WithResults(3, 5)), schema.RetrieveRequest{Query: "governing law"})
	if len(res) < 1 || res[0].Title != "Governing Law" {
		t.Fatalf("got %s", titles(res))
	}
	for _, s := range res[1:] {
		if s.RelevanceScore < DefaultFloor*DefaultPadRatio {
			t.Errorf("padded with %s at %.3f", s.Title, s.RelevanceScore)
		}
	}
}

func TestSubQueriesEachGetASection(t *testing.T) {
	r := NewBM25(contractSections(t), WithResults(2, 3))
	res := retrieve(t, r, schema.RetrieveRequest{
		Query: "What is the late fee and which law governs the agreement?",
		Decomposition: &schema.Decomposition{SubQueries: []string{
			"What is the late fee?", "Which law governs the agreement?",
		}},
	})
	got := map[string]bool{}
	for _, s := range res {
		got[s.Title] = true
	}
	if !got["Late Payment Penalties"] || !got["Governing Law"] {
		t.Errorf("want both parts answered, got %s", titles(res))
	}
}

func TestTitleBoostAndTieBreaking(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "General", Content: "The fee is due. Interest applies to late amounts."},
		{ID: "b", Title: "Interest", Content: "Amounts bear interest."},
		{ID: "c", Title: "Same", Content: "identical text about deposits"},
		{ID: "d", Title: "Same", Content: "identical text about deposits"},
	}
	res := retrieve(t, NewBM25(secs, WithFloor(0)), schema.RetrieveRequest{Query: "interest"})
	if len(res) != 2 || res[0].ID != "b" {
		t.Errorf("title match should win: %s", titles(res))
	}
	res = retrieve(t, NewBM25(secs, WithFloor(0), WithTitleWeight(0)), schema.RetrieveRequest{Query: "interest late"})
	if len(res) == 0 || res[0].ID != "a" {
		t.Errorf("without title weight the text match should win: %s", titles(res))
	}
	for i := 0; i < 5; i++ {
		res = retrieve(t, NewBM25(secs, WithFloor(0)), schema.RetrieveRequest{Query: "deposits"})
		if len(res) != 2 || res[0].ID != "c" || res[1].ID != "d" {
			t.Fatalf("ties not broken by corpus order: %v, %v", res[0].ID, res[1].ID)
		}
	}
}

func TestRetrieveEdgeCases(t *testing.T) {
	if res := retrieve(t, NewBM25(nil), schema.RetrieveRequest{Query: "fees"}); len(res) != 0 {
		t.Errorf("empty index returned %v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBM25(contractSections(t)).Retrieve(ctx, schema.RetrieveRequest{Query: "fees"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	// The index keeps its own copy of the sections.
	secs := []schema.Section{{ID: "x", Title: "Fees", Content: "fees"}}
	r := NewBM25(secs)
	secs[0].Title = "changed"
	if res := retrieve(t, r, schema.RetrieveRequest{Query: "fees"}); len(res) != 1 || res[0].Title != "Fees" {
		t.Errorf("index aliases caller's slice: %v", res)
	}
	if r.Len() != 1 {
		t.Errorf("Len = %d", r.Len())
	}
}

func TestConcurrentRetrieve(t *testing.T) {
	r := NewBM25(contractSections(t))
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Retrieve(context.Background(), schema.RetrieveRequest{Query: "late payment penalties"})
			if err != nil || len(res) == 0 || res[0].Title != "Late Payment Penalties" {
				t.Errorf("concurrent retrieve: %v %v", err, res)
			}
		}()
	}
	wg.Wait()
}

// A model's search terms (schema.Decomposition.SearchTerms) stand for the
// question's words in the documents' wording: the things "the provider
// builds for us" are the contract's "Deliverables".
func TestSearchTermsFindAParaphrase(t *testing.T) {
	r := NewBM25(contractSections(t))
	const q = "Who owns the stuff the provider builds for us?"
	dec := &schema.Decomposition{SubQueries: []string{q}, KeyTerms: []string{"owns", "stuff", "provider", "builds"}}
	top := func(res []schema.Section) string {
		if len(res) == 0 {
			return ""
		}
		return res[0].Title
	}
	if got := retrieve(t, r, schema.RetrieveRequest{Query: q, Decomposition: dec}); top(got) == "Ownership of Deliverables" {
		t.Fatalf("the question's own words already find the clause (%s): the case tests nothing", titles(got))
	}
	dec.SearchTerms = []string{"ownership", "deliverables", "intellectual property"}
	if got := retrieve(t, r, schema.RetrieveRequest{Query: q, Decomposition: dec}); top(got) != "Ownership of Deliverables" {
		t.Errorf("with search terms the top sections are %s, want Ownership of Deliverables first", titles(got))
	}
}
