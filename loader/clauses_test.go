package loader

import (
	"context"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/schema"
)

// A contract as a PDF reader gives it: a few headings, and clauses as
// paragraphs, several to a paragraph, with run-in titles.
func clauseContract() *document.Document {
	p := func(page int, text string) document.Block {
		return document.Block{Kind: document.Paragraph, Text: text, Page: page}
	}
	return &document.Document{Source: "supply.pdf", Format: "pdf", Blocks: []document.Block{
		{Kind: document.Heading, Level: 1, Text: "SUPPLY AGREEMENT", Page: 1},
		p(1, `THIS SUPPLY AGREEMENT (the "Agreement") is made between Acme Corp. ("Acme") and Beta LLC ("Beta").`),
		p(1, "1. DEFINITIONS."),
		p(1, `1.1. "Affiliate" means any entity controlling a party. 1.2. "Product" means the goods in Exhibit A.`),
		p(2, "2. PRICE AND PAYMENT. 2.1. Fees. Acme shall pay the fees below. 1. Year 1. $100. 2. Year 2. $200. 2.2. Late Payment. Unpaid fees bear interest at 1.5% per month."),
		{Kind: document.Heading, Level: 1, Text: "4. TERM AND TERMINATION", Page: 3},
		p(3, "4.1. Initial Term. The initial term is three years. In 2019. 10 Employees were hired."),
		p(3, "4.2. Termination for Convenience. Either party may terminate on ninety (90) days notice."),
		p(3, "(a) Notice shall be in writing."),
		{Kind: document.Heading, Level: 1, Text: "EXHIBIT A", Page: 4},
		p(4, "1. Widgets. Blue widgets of every size."),
	}}
}

func sectionsByTitle(secs []schema.Section) map[string]schema.Section {
	m := map[string]schema.Section{}
	for _, s := range secs {
		if _, ok := m[s.Title]; !ok {
			m[s.Title] = s
		}
	}
	return m
}

func TestClausesAreSectionsWithTheirHeadingPath(t *testing.T) {
	secs := Sections(clauseContract(), SectionOptions{Clauses: true})
	byTitle := sectionsByTitle(secs)
	for _, c := range []struct {
		title, path, starts string
		page                int
	}{
		{"DEFINITIONS 1.1", "SUPPLY AGREEMENT > 1. DEFINITIONS > 1.1.", `1.1. "Affiliate" means`, 1},
		{"DEFINITIONS 1.2", "SUPPLY AGREEMENT > 1. DEFINITIONS > 1.2.", `1.2. "Product" means`, 1},
		{"Fees", "SUPPLY AGREEMENT > 2. PRICE AND PAYMENT > 2.1. Fees", "2.1. Fees. Acme shall pay", 2},
		{"Late Payment", "SUPPLY AGREEMENT > 2. PRICE AND PAYMENT > 2.2. Late Payment", "2.2. Late Payment. Unpaid", 2},
		{"Initial Term", "4. TERM AND TERMINATION > 4.1. Initial Term", "4.1. Initial Term.", 3},
		{"Termination for Convenience", "4. TERM AND TERMINATION > 4.2. Termination for Convenience", "4.2. Termination for Convenience.", 3},
		{"Widgets", "EXHIBIT A > 1. Widgets", "1. Widgets.", 4},
	} {
		s, ok := byTitle[c.title]
		if !ok {
			t.Errorf("no section titled %q; sections: %v", c.title, titles(secs))
			continue
		}
		if got := strings.Join(s.Path, " > "); got != c.path {
			t.Errorf("%q: path %q, want %q", c.title, got, c.path)
		}
		if !strings.HasPrefix(s.Content, c.starts) || s.Page != c.page {
			t.Errorf("%q: page %d content %q, want page %d starting %q", c.title, s.Page, s.Content, c.page, c.starts)
		}
	}
	// The list inside clause 2.1 and the sentence opening with a number
	// inside 4.1 stay in their clause; the sub-clause (a) stays in 4.2.
	if s := byTitle["Fees"]; !strings.Contains(s.Content, "1. Year 1. $100. 2. Year 2. $200.") || strings.Contains(s.Content, "Late Payment") {
		t.Errorf("clause 2.1: %q", s.Content)
	}
	if s := byTitle["Initial Term"]; !strings.Contains(s.Content, "10 Employees were hired") {
		t.Errorf("clause 4.1: %q", s.Content)
	}
	if s := byTitle["Termination for Convenience"]; !strings.Contains(s.Content, "(a) Notice shall be in writing.") {
		t.Errorf("clause 4.2: %q", s.Content)
	}
	// No text is lost or repeated: every sentence of a clause is in one
	// section (a heading alone, "1. DEFINITIONS.", is in the path).
	var all []string
	for _, s := range secs {
		all = append(all, s.Content)
	}
	joined := strings.Join(all, "\n")
	for _, sentence := range []string{"is made between Acme Corp.", `"Affiliate" means any entity`, "Acme shall pay the fees below.",
		"Unpaid fees bear interest", "The initial term is three years.", "Either party may terminate", "Blue widgets of every size."} {
		if n := strings.Count(joined, sentence); n != 1 {
			t.Errorf("%q is in %d sections", sentence, n)
		}
	}
}

func titles(secs []schema.Section) []string {
	var out []string
	for _, s := range secs {
		out = append(out, s.Title)
	}
	return out
}

// The same contract as plain text, read whole and streamed, gives the
// clause sections.
func TestTextClausesWholeAndStreamed(t *testing.T) {
	text := `SERVICES AGREEMENT

This Services Agreement is made between Acme Corp. and Beta LLC.

1. SERVICES

1.1 Scope. Beta shall provide the services in Schedule 1. 1.2 Standards. Beta shall perform the services with due care.

2. TERMINATION

2.1 Termination for Cause. Either party may terminate for a material breach not cured within thirty (30) days.
`
	doc := ParseText("services.txt", text)
	whole := Sections(doc, SectionOptions{Clauses: true})
	byTitle := sectionsByTitle(whole)
	s, ok := byTitle["Termination for Cause"]
	if !ok || strings.Join(s.Path, " > ") != "2. TERMINATION > 2.1 Termination for Cause" {
		t.Fatalf("clause 2.1: %+v; titles %v", s, titles(whole))
	}
	if s := byTitle["Standards"]; !strings.HasPrefix(s.Content, "1.2 Standards. Beta shall perform") {
		t.Errorf("clause 1.2: %+v", s)
	}
	l := New(WithSectionOptions(SectionOptions{Clauses: true}))
	p := l.NewProbe("services.txt")
	p.Write([]byte(text))
	st, ok := p.Stream()
	if !ok {
		t.Fatal("text is not streamed")
	}
	var streamed []schema.Section
	if _, err := st.Sections(context.Background(), strings.NewReader(text), func(s schema.Section) error {
		streamed = append(streamed, s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(streamed) != len(whole) {
		t.Fatalf("streamed %d sections, whole %d", len(streamed), len(whole))
	}
	for i := range whole {
		if streamed[i].ID != whole[i].ID || streamed[i].Title != whole[i].Title || streamed[i].Content != whole[i].Content {
			t.Errorf("section %d: streamed %+v, whole %+v", i, streamed[i], whole[i])
		}
	}
}

func TestClauseNumberFollows(t *testing.T) {
	for _, c := range []struct {
		n, prev string
		want    bool
	}{
		{"1", "", true}, {"1.1", "", true}, {"12", "", false}, {"2", "1", true}, {"4.4", "4.3", true},
		{"5", "4.3", true}, {"4.3.1", "4.3", true}, {"1", "4.3", false}, {"17", "4.3", false},
		{"4.2", "4.3", false}, {"4.6", "4.3", true}, {"4.7", "4.3", false}, {"5.1", "4.3", true},
		{"5.4", "4.3", false}, {"1.2.3.4.5", "1.2.3.4", false},
	} {
		var prev clauseNumber
		if c.prev != "" {
			prev = parseClauseNumber(c.prev)
		}
		if got := parseClauseNumber(c.n).follows(prev); got != c.want {
			t.Errorf("%s after %q: %v, want %v", c.n, c.prev, got, c.want)
		}
	}
}

// What is not a clause: a date after a colon, the lines of a table of
// contents, a number without its dot heading a filing's table ("3 Three
// Months Ended …", Salesforce's 10-Q); an upper-case run-in title is the
// clause's title.
func TestNotClauses(t *testing.T) {
	doc := &document.Document{Source: "policy.pdf", Format: "pdf", Blocks: []document.Block{
		{Kind: document.Heading, Level: 1, Text: "Information Security Policy", Page: 1},
		{Kind: document.Paragraph, Text: "Effective date: 1 January 2025. This policy applies to all staff.", Page: 1},
		{Kind: document.Paragraph, Text: "1 Introduction . . . . . . . . . . 1\n2 Access Control . . . . . . . . 3", Page: 1},
		{Kind: document.Paragraph, Text: "3 Three Months Ended October 31, Nine Months Ended October 31,", Page: 1},
		{Kind: document.Paragraph, Text: "1. APPLICABILITY AND DEFINITIONS This policy applies to every device.", Page: 2},
	}}
	secs := Sections(doc, SectionOptions{Clauses: true})
	if len(secs) != 2 || secs[0].Content != "Effective date: 1 January 2025. This policy applies to all staff.\n\n1 Introduction . . . . . . . . . . 1\n2 Access Control . . . . . . . . 3\n\n3 Three Months Ended October 31, Nine Months Ended October 31," {
		t.Fatalf("sections: %q", titles(secs))
	}
	if s := secs[1]; s.Title != "APPLICABILITY AND DEFINITIONS" || s.Page != 2 {
		t.Errorf("upper-case run-in title: %q on page %d", s.Title, s.Page)
	}
}

// Without SectionOptions.Clauses (the default) clauses in paragraphs stay
// text under the headings the reader found.
func TestClausesOffByDefault(t *testing.T) {
	on := Sections(clauseContract(), SectionOptions{Clauses: true})
	off := Sections(clauseContract(), SectionOptions{})
	if len(off) >= len(on) {
		t.Fatalf("%d sections without clauses, %d with", len(off), len(on))
	}
	for _, s := range off {
		if s.Title == "Late Payment" || s.Title == "Initial Term" {
			t.Errorf("clause section %q without Clauses", s.Title)
		}
	}
}
