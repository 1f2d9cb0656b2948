// Package storetest is the conformance suite of store.Store: every
// backend runs Run against a new, empty store of its own.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/spell"
	"github.com/docmind/docmind/store"
)

// Paths of the suite's documents.
const (
	AcmeContract  = "/docs/acme/contract.md"
	AcmeReport    = "/docs/acme/report.md"
	GlobexContact = "/docs/globex/contract.md"
)

// Doc is one of the suite's documents with its sections.
type Doc struct {
	Doc      index.Document
	Sections []schema.Section
}

var mtime = time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)

// Corpus returns the suite's documents: two organisations, two periods,
// two folders.
func Corpus() []Doc {
	sec := func(title, content string, page int, entity, period string) schema.Section {
		return schema.Section{Title: title, Content: content, Page: page, PageEnd: page, PageLabel: fmt.Sprint(page),
			DocTitle: entity + " " + period, DocEntity: entity, DocPeriod: period}
	}
	return []Doc{{
		Doc: index.Document{Path: AcmeContract, Hash: "h-acme-contract", Size: 120, ModTime: mtime, Format: "markdown", Pages: 2, Title: "Acme services agreement"},
		Sections: []schema.Section{
			sec("Agreement > Payment terms", "Invoices are payable within 30 days. Late payments incur a penalty of 1.5% per month on the outstanding amount.", 1, "Acme Corp", "2023"),
			sec("Agreement > Termination", "Either party may terminate this agreement with 60 days written notice.", 2, "Acme Corp", "2023"),
		},
	}, {
		Doc: index.Document{Path: AcmeReport, Hash: "h-acme-report", Size: 80, ModTime: mtime, Format: "markdown", Pages: 1, Title: "Acme annual report"},
		Sections: []schema.Section{
			sec("Report > Revenue", "Revenue grew 12% to 4.2 million, driven by new service contracts.", 1, "Acme Corp", "2024"),
		},
	}, {
		Doc: index.Document{Path: GlobexContact, Hash: "h-globex-contract", Size: 90, ModTime: mtime, Format: "markdown", Pages: 1, Title: "Globex supply contract"},
		Sections: []schema.Section{
			sec("Contract > Payment schedule", "Globex pays invoices within 45 days; a late payment penalty of 2% applies.", 1, "Globex", "2023"),
		},
	}}
}

// Load writes the suite's documents into s.
func Load(t testing.TB, s store.Store) {
	t.Helper()
	for _, d := range Corpus() {
		if err := s.PutDocument(context.Background(), d.Doc, d.Sections); err != nil {
			t.Fatalf("PutDocument %s: %v", d.Doc.Path, err)
		}
	}
}

// Run runs the conformance suite; newStore returns a new, empty store
// (closed by the caller's cleanup).
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	ctx := context.Background()
	loaded := func(t *testing.T) store.Store {
		s := newStore(t)
		Load(t, s)
		return s
	}

	t.Run("DocumentsReadBack", func(t *testing.T) {
		s := loaded(t)
		docs, err := s.Documents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := Corpus()
		if len(docs) != len(want) {
			t.Fatalf("Documents: %d documents, want %d: %+v", len(docs), len(want), docs)
		}
		// ordered by path: the acme contract, the acme report, globex
		for i, d := range docs {
			w := want[i]
			if d.Path != w.Doc.Path || d.Hash != w.Doc.Hash || d.Size != w.Doc.Size || d.Format != w.Doc.Format ||
				d.Pages != w.Doc.Pages || d.Title != w.Doc.Title || !d.ModTime.Equal(w.Doc.ModTime) || d.Sections != len(w.Sections) {
				t.Errorf("document %d = %+v, want %+v with %d sections", i, d, w.Doc, len(w.Sections))
			}
		}
		d, ok, err := s.Document(ctx, GlobexContact)
		if err != nil || !ok || d.Hash != "h-globex-contract" || d.Sections != 1 {
			t.Errorf("Document(%s) = %+v, %v, %v", GlobexContact, d, ok, err)
		}
		if _, ok, err := s.Document(ctx, "/docs/none.md"); ok || err != nil {
			t.Errorf("Document of an absent path: ok %v, err %v", ok, err)
		}
	})

	t.Run("SectionsReadBack", func(t *testing.T) {
		s := loaded(t)
		secs, err := s.Sections(ctx, AcmeContract)
		if err != nil {
			t.Fatal(err)
		}
		want := Corpus()[0].Sections
		if len(secs) != len(want) {
			t.Fatalf("Sections: %d, want %d", len(secs), len(want))
		}
		for i, got := range secs {
			w := want[i]
			if got.Title != w.Title || got.Content != w.Content || got.Source != AcmeContract || got.Page != w.Page ||
				got.PageEnd != w.PageEnd || got.PageLabel != w.PageLabel || got.DocEntity != w.DocEntity ||
				got.DocPeriod != w.DocPeriod || got.DocTitle != w.DocTitle || got.ID == "" {
				t.Errorf("section %d = %+v, want %+v", i, got, w)
			}
		}
		one, ok, err := s.Section(ctx, secs[1].ID)
		if err != nil || !ok || one.Content != secs[1].Content || one.Source != AcmeContract {
			t.Errorf("Section(%s) = %+v, %v, %v", secs[1].ID, one, ok, err)
		}
		if _, ok, err := s.Section(ctx, "no-such-section"); ok || err != nil {
			t.Errorf("Section of an absent id: ok %v, err %v", ok, err)
		}
		if secs, err := s.Sections(ctx, "/docs/none.md"); len(secs) != 0 || err != nil {
			t.Errorf("Sections of an absent document: %v, %v", secs, err)
		}
	})

	t.Run("Search", func(t *testing.T) {
		s := loaded(t)
		hits, err := s.HybridSearch(ctx, "What are the late payment penalties?", 5, index.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) < 2 {
			t.Fatalf("%d hits, want the two payment sections: %+v", len(hits), hits)
		}
		for _, h := range hits[:2] {
			if !strings.Contains(h.Section.Content, "penalty") {
				t.Errorf("a top hit is not about penalties: %q", h.Section.Content)
			}
			if h.Section.RelevanceScore <= index.LexicalMinRelevance || h.Section.RelevanceScore > 1 {
				t.Errorf("relevance %v of %q outside (floor, 1]", h.Section.RelevanceScore, h.Section.Title)
			}
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("hits not ranked: %v after %v", hits[i].Score, hits[i-1].Score)
			}
		}
		if hits, err := s.HybridSearch(ctx, "the of and", 5, index.SearchOptions{}); err != nil || len(hits) != 0 {
			t.Errorf("a query of stop words: %d hits, %v", len(hits), err)
		}
		if hits, err := s.HybridSearch(ctx, "zeppelin", 5, index.SearchOptions{}); err != nil || len(hits) != 0 {
			t.Errorf("a query no section matches: %d hits, %v", len(hits), err)
		}
		if hits, err := s.HybridSearch(ctx, "payment", 1, index.SearchOptions{}); err != nil || len(hits) != 1 {
			t.Errorf("k=1: %d hits, %v", len(hits), err)
		}
	})

	t.Run("Filters", func(t *testing.T) {
		s := loaded(t)
		cases := []struct {
			name  string
			query string
			where index.Where
			want  []string // document paths of the hits
		}{
			{"organisation", "late payment penalty", index.Where{Entity: "globex"}, []string{GlobexContact}},
			{"folder", "payment invoices revenue", index.Where{Folder: "/docs/acme"}, []string{AcmeContract, AcmeReport}},
			{"folder boundary", "payment", index.Where{Folder: "/docs/acm"}, nil},
			{"period", "revenue payment", index.Where{Period: "2024"}, []string{AcmeReport}},
			{"documents", "payment penalty", index.Where{Documents: []string{GlobexContact, AcmeReport}}, []string{GlobexContact}},
			{"organisation and period", "payment revenue", index.Where{Entity: "Acme Corp", Period: "2023"}, []string{AcmeContract}},
		}
		for _, c := range cases {
			hits, err := s.HybridSearch(ctx, c.query, 10, index.SearchOptions{Where: c.where})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var got []string
			for _, h := range hits {
				if !slices.Contains(got, h.Section.Source) {
					got = append(got, h.Section.Source)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s (%+v): documents %v, want %v", c.name, c.where, got, c.want)
			}
		}
	})

	t.Run("Exclude", func(t *testing.T) {
		s := loaded(t)
		all, err := s.HybridSearch(ctx, "late payment penalty", 5, index.SearchOptions{})
		if err != nil || len(all) == 0 {
			t.Fatalf("search: %d hits, %v", len(all), err)
		}
		top := all[0].Section.Key()
		hits, err := s.HybridSearch(ctx, "late payment penalty", 5, index.SearchOptions{Exclude: map[string]bool{top: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Section.Key() == top {
				t.Errorf("excluded section %s returned", top)
			}
		}
		if len(hits) != len(all)-1 {
			t.Errorf("%d hits with one excluded, want %d", len(hits), len(all)-1)
		}
	})

	t.Run("Replace", func(t *testing.T) {
		s := loaded(t)
		d := Corpus()[0].Doc
		d.Hash = "h2"
		if err := s.PutDocument(ctx, d, []schema.Section{{Title: "Payment", Content: "Late payments incur interest of 3% per month."}}); err != nil {
			t.Fatal(err)
		}
		hits, err := s.HybridSearch(ctx, "late payment penalty interest", 10, index.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var sawNew bool
		for _, h := range hits {
			if strings.Contains(h.Section.Content, "1.5%") || strings.Contains(h.Section.Content, "terminate") {
				t.Errorf("an old section is still found: %q", h.Section.Content)
			}
			sawNew = sawNew || strings.Contains(h.Section.Content, "3%")
		}
		if !sawNew {
			t.Errorf("the new section is not found: %+v", hits)
		}
		got, ok, err := s.Document(ctx, AcmeContract)
		if err != nil || !ok || got.Hash != "h2" || got.Sections != 1 {
			t.Errorf("replaced document = %+v, %v, %v", got, ok, err)
		}
		secs, err := s.Sections(ctx, AcmeContract)
		if err != nil || len(secs) != 1 {
			t.Errorf("sections after the replacement: %d, %v", len(secs), err)
		}
		if n, err := s.Corpus().Size(ctx); err != nil || n != 3 {
			t.Errorf("corpus size after the replacement: %d, %v; want 3", n, err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		s := loaded(t)
		ok, err := s.DeleteDocument(ctx, GlobexContact)
		if err != nil || !ok {
			t.Fatalf("DeleteDocument: %v, %v", ok, err)
		}
		if ok, err := s.DeleteDocument(ctx, GlobexContact); ok || err != nil {
			t.Errorf("second DeleteDocument: %v, %v", ok, err)
		}
		hits, err := s.HybridSearch(ctx, "Globex payment penalty", 10, index.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Section.Source == GlobexContact {
				t.Errorf("a deleted document's section is found: %q", h.Section.Content)
			}
		}
		docs, err := s.Documents(ctx)
		if err != nil || len(docs) != 2 {
			t.Errorf("Documents after a delete: %d, %v", len(docs), err)
		}
		if n, err := s.Corpus().Size(ctx); err != nil || n != 3 {
			t.Errorf("corpus size after a delete: %d, %v; want 3", n, err)
		}
	})

	t.Run("Corpus", func(t *testing.T) {
		s := loaded(t)
		c := s.Corpus()
		if n, err := c.Size(ctx); err != nil || n != 4 {
			t.Errorf("Size = %d, %v; want 4", n, err)
		}
		for term, want := range map[string]int{"penalty": 2, "late payment": 2, "invoices": 2, "revenue": 1, "terminate": 1, "zeppelin": 0, "payment revenue": 0} {
			n, err := c.GroupDocFreq(ctx, term, nil)
			if err != nil || n != want {
				t.Errorf("GroupDocFreq(%q) = %d, %v; want %d", term, n, err, want)
			}
		}
		// a synonym phrase counts where its words stand in order: Globex's
		// "late payment penalty", not Acme's "payments incur a penalty";
		// so does a phrase holding one indexed word and a stop word
		// (Acme's "Invoices are payable", not Globex's "pays invoices")
		lex := lexicon.New([][]string{{"surcharge", "payment penalty"}, {"levy", "invoices are"}})
		for term, phrase := range map[string]string{"surcharge": "payment penalty", "levy": "invoices are"} {
			if n, err := c.GroupDocFreq(ctx, term, lex); err != nil || n != 1 {
				t.Errorf("GroupDocFreq(%q) with the synonym phrase %q = %d, %v; want 1", term, phrase, n, err)
			}
		}
		// the spelling corrector's batch of stems (package spell)
		v, ok := c.(spell.Vocabulary)
		if !ok {
			t.Fatalf("the store's corpus %T cannot count stems in batches (spell.Vocabulary)", c)
		}
		stems := []string{"penalti", "invoic", "zeppelin", "revenu", "penalti", "termin"}
		if got, err := v.DocFreqs(ctx, stems); err != nil || !slices.Equal(got, []int{2, 2, 0, 1, 2, 1}) {
			t.Errorf("DocFreqs(%q) = %v, %v; want [2 2 0 1 2 1]", stems, got, err)
		}
	})

	t.Run("Stream", func(t *testing.T) {
		s := loaded(t)
		d := Corpus()[2].Doc
		d.Hash = "h-stream"
		boom := errors.New("parser failed")
		err := s.PutDocumentStream(ctx, d, func(doc *index.Document, put func(schema.Section) error) error {
			if err := put(schema.Section{Title: "Half", Content: "A half-written replacement quuxly."}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("PutDocumentStream returned %v, want the producer's error", err)
		}
		got, _, err := s.Document(ctx, GlobexContact)
		if err != nil || got.Hash != "h-globex-contract" {
			t.Errorf("after a failed stream the document is %+v, %v; want the old one", got, err)
		}
		hits, _ := s.HybridSearch(ctx, "quuxly", 5, index.SearchOptions{})
		if len(hits) != 0 {
			t.Errorf("sections of a failed stream are found: %+v", hits)
		}
		err = s.PutDocumentStream(ctx, d, func(doc *index.Document, put func(schema.Section) error) error {
			for i := range 5 {
				if err := put(schema.Section{Title: fmt.Sprint("Part ", i), Content: fmt.Sprintf("Streamed part %d on shipping schedules.", i), Chunk: i}); err != nil {
					return err
				}
			}
			doc.Title, doc.Pages = "Streamed", 5
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err = s.Document(ctx, GlobexContact)
		if err != nil || got.Hash != "h-stream" || got.Title != "Streamed" || got.Pages != 5 || got.Sections != 5 {
			t.Errorf("streamed document = %+v, %v", got, err)
		}
		secs, err := s.Sections(ctx, GlobexContact)
		if err != nil || len(secs) != 5 || secs[4].Title != "Part 4" {
			t.Errorf("streamed sections: %d, %v", len(secs), err)
		}
	})

	t.Run("Touch", func(t *testing.T) {
		s := loaded(t)
		later := mtime.Add(time.Hour)
		if err := s.TouchDocument(ctx, AcmeReport, later); err != nil {
			t.Fatal(err)
		}
		d, _, err := s.Document(ctx, AcmeReport)
		if err != nil || !d.ModTime.Equal(later) || d.Hash != "h-acme-report" || d.Sections != 1 {
			t.Errorf("touched document = %+v, %v", d, err)
		}
		if hits, err := s.HybridSearch(ctx, "revenue", 5, index.SearchOptions{}); err != nil || len(hits) != 1 {
			t.Errorf("a touched document's sections: %d hits, %v", len(hits), err)
		}
	})

	t.Run("EmbeddingModel", func(t *testing.T) {
		s := loaded(t)
		m, d, err := s.EmbeddingModel(ctx)
		if err != nil || m != "" || d != 0 {
			t.Errorf("EmbeddingModel of a store without an embedder = %q, %d, %v", m, d, err)
		}
		if miss, err := s.MissingVectors(ctx, AcmeContract); err != nil || miss {
			t.Errorf("MissingVectors without an embedder = %v, %v", miss, err)
		}
	})

	t.Run("Retriever", func(t *testing.T) {
		s := loaded(t)
		secs, err := s.Retriever().Retrieve(ctx, schema.RetrieveRequest{Query: "What are the late payment penalties?"})
		if err != nil {
			t.Fatal(err)
		}
		if len(secs) == 0 || !strings.Contains(secs[0].Content, "penalty") {
			t.Fatalf("retrieved %+v, want a penalty section first", secs)
		}
	})

	t.Run("AtomicReplace", func(t *testing.T) {
		s := loaded(t)
		version := func(v, n int) []schema.Section {
			out := make([]schema.Section, n)
			for i := range out {
				out[i] = schema.Section{Title: fmt.Sprint("Clause ", i), Content: fmt.Sprintf("Warranty clause version v%d part %d.", v, i), Chunk: i}
			}
			return out
		}
		d := Corpus()[1].Doc
		if err := s.PutDocument(ctx, d, version(0, 3)); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		var wg sync.WaitGroup
		var mixed []string
		var mu sync.Mutex
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				hits, err := s.HybridSearch(ctx, "warranty clause", 20, index.SearchOptions{})
				if err != nil {
					mu.Lock()
					mixed = append(mixed, "search: "+err.Error())
					mu.Unlock()
					return
				}
				versions := map[string]bool{}
				for _, h := range hits {
					f := strings.Fields(h.Section.Content)
					versions[f[3]] = true
				}
				if len(versions) > 1 || (len(hits) != 3 && len(hits) != 5) {
					mu.Lock()
					mixed = append(mixed, fmt.Sprintf("%d hits of versions %v", len(hits), versions))
					mu.Unlock()
				}
			}
		}()
		for v := 1; v <= 8; v++ {
			if err := s.PutDocument(ctx, d, version(v, 3+2*(v%2))); err != nil {
				t.Fatal(err)
			}
		}
		close(done)
		wg.Wait()
		if len(mixed) > 0 {
			t.Errorf("readers saw a document half replaced %d times, first: %s", len(mixed), mixed[0])
		}
	})
}
