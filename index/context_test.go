package index

import (
	"context"
	"database/sql"
	"testing"

	"github.com/docmind/docmind/internal/sqlitedb"
	"github.com/docmind/docmind/schema"
)

func TestFileNameWords(t *testing.T) {
	for in, want := range map[string]string{
		"/x/ORACLE_2023_10K.pdf":         "ORACLE 2023 10K",
		"EBAY_2023Q1_EARNINGS.pdf":       "EBAY 2023 Q1 EARNINGS",
		"annualReport2023Q1.md":          "annual Report 2023 Q1",
		"master-services-agreement.md":   "master services agreement",
		"beir:1234":                      "beir:1234",
		`C:\docs\Data.Processing.v2.txt`: "Data Processing v2",
	} {
		if got := FileNameWords(in); got != want {
			t.Errorf("FileNameWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// The context field (file name, document title, entity, period) ranks the
// sections of the document a question names first, and never changes a
// section's relevance.
func TestContextFieldRanksNamedDocument(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	text := "Total revenues were 50,000 million, up 10% from the prior fiscal year, driven by cloud services."
	for _, p := range []string{"/f/ACME_2022_10K.pdf", "/f/ACME_2023_10K.pdf", "/f/GLOBEX_2023_10K.pdf"} {
		secs := []schema.Section{
			{Title: "Revenues", Content: text, Page: 3},
			{Title: "Risk factors", Content: "Competition and regulation may harm results.", Page: 5},
		}
		if err := ix.PutDocument(ctx, Document{Path: p, Hash: p, Format: "pdf"}, secs); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.PutDocument(ctx, Document{Path: "/f/report.md", Hash: "r", Format: "markdown"},
		[]schema.Section{{Title: "Revenues", Content: text, DocTitle: "Initech annual report", DocEntity: "Initech Inc.", DocPeriod: "fiscal year 2021", PagePrinted: true}}); err != nil {
		t.Fatal(err)
	}
	q := "What were Acme's total revenues in 2023?"
	hits, err := ix.Search(ctx, q, 4)
	if err != nil || len(hits) < 3 {
		t.Fatalf("search: %v, %d hits", err, len(hits))
	}
	if hits[0].Section.Source != "/f/ACME_2023_10K.pdf" || hits[1].Section.Source != "/f/ACME_2022_10K.pdf" {
		t.Errorf("want ACME 2023 then ACME 2022 first, got %s, %s", hits[0].Section.Source, hits[1].Section.Source)
	}
	plain, err := ix.SearchWith(ctx, q, 4, SearchOptions{SetContextWeight: true})
	if err != nil {
		t.Fatal(err)
	}
	rel := map[string]float64{}
	for _, h := range plain {
		rel[h.Section.Key()] = h.Section.RelevanceScore
	}
	for _, h := range hits {
		if r, ok := rel[h.Section.Key()]; ok && r != h.Section.RelevanceScore {
			t.Errorf("%s: relevance %.4f with context, %.4f without", h.Section.Source, h.Section.RelevanceScore, r)
		}
	}
	hits, err = ix.Search(ctx, "Initech revenues 2021", 1)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search: %v", err)
	}
	s := hits[0].Section
	if s.Source != "/f/report.md" || s.DocTitle != "Initech annual report" || s.DocEntity != "Initech Inc." || s.DocPeriod != "fiscal year 2021" || !s.PagePrinted {
		t.Errorf("document context not returned: %+v", s)
	}
	// through the retriever (langchaingo documents) too
	secs, err := ix.Retriever().Retrieve(ctx, schema.RetrieveRequest{Query: "Initech total revenues"})
	if err != nil || len(secs) == 0 || secs[0].DocEntity != "Initech Inc." || !secs[0].PagePrinted {
		t.Errorf("retriever: %v %+v", err, secs)
	}
}

// An index written before the context columns opens: the columns are
// added and the documents are marked for re-reading by the next ingest.
func TestOpenMigratesContextColumns(t *testing.T) {
	ctx := context.Background()
	ix, path := openTest(t)
	if err := ix.PutDocument(ctx, Document{Path: "/a.txt", Hash: "h1"}, []schema.Section{{Title: "A", Content: "alpha beta"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range contextColumns {
		if _, err := ix.db.ExecContext(ctx, `ALTER TABLE sections DROP COLUMN `+c[0]); err != nil {
			t.Fatal(err)
		}
	}
	ix.Close()
	ix, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("old index does not open: %v", err)
	}
	defer ix.Close()
	cols, err := sqlitedb.Column[string](ctx, ix.db, `SELECT name FROM pragma_table_info('sections')`)
	if err != nil || len(cols) < 15 {
		t.Fatalf("columns %v, %v", cols, err)
	}
	d, ok, err := ix.Document(ctx, "/a.txt")
	if err != nil || !ok || d.Hash != "" {
		t.Errorf("document after migration: %+v %v %v (want its hash cleared)", d, ok, err)
	}
	if hits, err := ix.Search(ctx, "alpha", 1); err != nil || len(hits) != 1 {
		t.Errorf("search after migration: %v %v", hits, err)
	}
	var _ *sql.DB = ix.DB()
}
