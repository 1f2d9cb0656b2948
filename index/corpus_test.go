package index_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/spell"
	"github.com/docmind/docmind/textproc"
)

// corpusDocs are short documents whose words reach the thesaurus in every
// way: exact words, single-word synonyms, synonym phrases in order and out
// of order ("paid not" is not the phrase "not paid").
var corpusDocs = map[string][]schema.Section{
	"a.md": {
		{Title: "Service Levels", Content: "The Provider guarantees 99.9% availability of the Services."},
		{Title: "Fees", Content: "Fees are invoiced per annum and are payable within thirty days."},
		{Title: "Arrears", Content: "Any amount not paid when due accrues interest."},
	},
	"b.md": {
		{Title: "Renewal", Content: "The agreement renews each year unless either party gives notice."},
		{Title: "Order", Content: "Invoices paid not later than the due date get a discount."},
		{Title: "Uptime", Content: "Uptime is measured monthly."},
	},
	"c.md": {
		{Title: "Insurance", Content: "The Client carries general liability insurance."},
		{Title: "Termination", Content: "Either party may cancel with sixty days written notice."},
	},
}

var corpusTerms = []string{
	"uptime", "availability", "annual", "yearly", "unpaid", "overdue", "terminate",
	"insurance", "umbrella", "umbrella insurance", "liability insurance", "fees payable",
	"notice", "discount", "interest", "services", "the", "",
}

func inMemory(docs ...string) []schema.Section {
	var out []schema.Section
	for _, d := range docs {
		out = append(out, corpusDocs[d]...)
	}
	return out
}

// The index's counts agree with the judge's in-memory CorpusStats over the
// same sections, with and without the thesaurus, before and after a
// document is deleted (its postings stay until a merge).
func TestCorpusMatchesInMemoryStats(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, path := range []string{"a.md", "b.md", "c.md"} {
		if err := ix.PutDocument(ctx, index.Document{Path: path, Hash: path}, corpusDocs[path]); err != nil {
			t.Fatal(err)
		}
	}
	var c judge.Corpus = ix.Corpus()
	check := func(t *testing.T, docs ...string) {
		t.Helper()
		mem := judge.NewCorpusStats(inMemory(docs...))
		size, err := c.Size(ctx)
		if err != nil || size != len(inMemory(docs...)) {
			t.Fatalf("Size = %d, %v; want %d", size, err, len(inMemory(docs...)))
		}
		for _, lex := range []*lexicon.Thesaurus{lexicon.Default(), nil} {
			for _, term := range corpusTerms {
				got, err := c.GroupDocFreq(ctx, term, lex)
				if err != nil {
					t.Fatal(err)
				}
				if want := mem.GroupDocFreq(term, lex); got != want {
					t.Errorf("GroupDocFreq(%q, thesaurus %v) = %d, want %d", term, lex != nil, got, want)
				}
			}
		}
		// the stems' counts in one batch, as package spell reads them
		var stems []string
		for _, term := range corpusTerms {
			stems = append(stems, textproc.Terms(term)...)
		}
		stems = append(stems, "uptim", "nosuchstem")
		got, err := ix.Corpus().DocFreqs(ctx, stems)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := judge.NewMemCorpus(inMemory(docs...)).(spell.Vocabulary).DocFreqs(ctx, stems)
		if !slices.Equal(got, want) {
			t.Errorf("DocFreqs(%q) = %v, want %v", stems, got, want)
		}
	}
	check(t, "a.md", "b.md", "c.md")
	// Spot checks that the comparison is not vacuous.
	if got, err := ix.Corpus().DocFreqs(ctx, []string{"uptim", "notic", "notic", "umbrella"}); err != nil || !slices.Equal(got, []int{1, 2, 2, 0}) {
		t.Errorf("DocFreqs(uptim notic notic umbrella) = %v, %v; want [1 2 2 0]", got, err)
	}
	// more stems than one statement takes: read in batches, in order
	many := make([]string, 40000)
	for i := range many {
		many[i] = fmt.Sprintf("nosuch%05d", i)
	}
	many[0], many[39999] = "notic", "uptim"
	if got, err := ix.Corpus().DocFreqs(ctx, many); err != nil || got[0] != 2 || got[39999] != 1 || slices.Max(got[1:39999]) != 0 {
		t.Errorf("DocFreqs of 40,000 stems: %v (first %v, last %v)", err, got[:min(1, len(got))], got[max(0, len(got)-1):])
	}
	for term, want := range map[string]int{"unpaid": 1, "annual": 2, "uptime": 2, "umbrella": 0, "terminate": 1} {
		if got, _ := c.GroupDocFreq(ctx, term, lexicon.Default()); got != want {
			t.Errorf("GroupDocFreq(%q) = %d, want %d", term, got, want)
		}
	}
	if ok, err := ix.DeleteDocument(ctx, "a.md"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	check(t, "b.md", "c.md")
}

// A judge reading the index's statistics rejects an answer to a question
// about a topic no document mentions, as it does with the corpus in memory.
func TestJudgeWithIndexCorpus(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for path, secs := range corpusDocs {
		if err := ix.PutDocument(ctx, index.Document{Path: path, Hash: path}, secs); err != nil {
			t.Fatal(err)
		}
	}
	ins := corpusDocs["c.md"][0]
	ins.Source, ins.Page = "c.md", 1
	req := schema.JudgeRequest{
		Query:    "How much umbrella insurance must the Client carry?",
		Response: fmt.Sprintf("The Client carries general liability insurance (%s).", ins.Citation()),
		Sections: []schema.Section{ins},
	}
	for name, opt := range map[string]judge.Option{
		"index":     judge.WithCorpusStats(ix.Corpus()),
		"in memory": judge.WithCorpus(inMemory("a.md", "b.md", "c.md")),
	} {
		v, err := judge.NewOffline(opt).Judge(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if v.ShouldReturn {
			t.Errorf("%s: the judge accepted an answer about umbrella insurance: %s", name, v.Reasoning)
		}
	}
}

// A term in thousands of sections has its postings stored in chunks, each
// with its own count; the counts read from the blocks' directories (no
// deleted section) add up to the sections that have it, as decoding every
// posting (after a deletion) does.
func TestDocFreqOfAChunkedPostingsList(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	put := func(path string, n int) {
		secs := make([]schema.Section, n)
		for i := range secs {
			secs[i] = schema.Section{Title: fmt.Sprintf("Clause %d", i), Content: fmt.Sprintf("Either party may give notice under clause %d.", i)}
		}
		if err := ix.PutDocument(ctx, index.Document{Path: path, Hash: path}, secs); err != nil {
			t.Fatal(err)
		}
	}
	put("long.md", 4000) // "notic" postings of about 12 KB: two chunks at least
	put("short.md", 3)
	c := ix.Corpus()
	check := func(want int) {
		t.Helper()
		if got, err := c.DocFreqs(ctx, []string{"notic", "parti", "nosuchstem"}); err != nil || !slices.Equal(got, []int{want, want, 0}) {
			t.Errorf("DocFreqs = %v, %v; want [%d %d 0]", got, err, want, want)
		}
		if got, err := c.GroupDocFreq(ctx, "notice", nil); err != nil || got != want {
			t.Errorf("GroupDocFreq(notice) = %d, %v; want %d", got, err, want)
		}
	}
	check(4003)
	if ok, err := ix.DeleteDocument(ctx, "short.md"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	check(4000)
}

// The index gives its documents' and sections' titles to the speller,
// which reads an acronym no section holds as the title it stands for, as
// over the same sections in memory.
func TestCorpusTitlesReadAcronyms(t *testing.T) {
	ctx := context.Background()
	ix, err := index.Open(ctx, filepath.Join(t.TempDir(), index.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	secs := []schema.Section{
		{Title: "Late Payment Penalties", Content: "A late fee of 1.5% per month applies."},
		{Title: "Exhibit B - Statement of Work", Content: "The Services are described here."},
	}
	if err := ix.PutDocument(ctx, index.Document{Path: "msa.md", Hash: "msa", Title: "Master Services Agreement"}, secs); err != nil {
		t.Fatal(err)
	}
	titles, err := ix.Corpus().Titles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Master Services Agreement", "Late Payment Penalties", "Exhibit B - Statement of Work"} {
		if !slices.Contains(titles, want) {
			t.Errorf("Titles() = %q, lacks %q", titles, want)
		}
	}
	got, fixes, err := spell.New(ix.Corpus()).Correct(ctx, "What does the SOW of the MSA describe?")
	if err != nil || got != "What does the Statement of Work of the Master Services Agreement describe?" || len(fixes) != 2 {
		t.Errorf("Correct = %q %v %v", got, fixes, err)
	}
}
