package loader

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/docmind/docmind/document"
)

func TestStripSectionNumber(t *testing.T) {
	tests := map[string]string{
		"9.3 Late Payment Penalties": "Late Payment Penalties",
		"7. Fees":                    "Fees",
		"12) Notices":                "Notices",
		"Section 4.1 - Scope":        "Scope",
		"Article 7: Termination":     "Termination",
		"Late Payment Penalties":     "Late Payment Penalties",
		"2024 Pricing":               "2024 Pricing", // a year, not a number
		"7.":                         "7.",
		"3D Printing":                "3D Printing",
		"1.5% Late Fee":              "1.5% Late Fee",
		"Sectional Furniture":        "Sectional Furniture",
	}
	for in, want := range tests {
		if got := StripSectionNumber(in); got != want {
			t.Errorf("StripSectionNumber(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSectionsTitlesPathsAndPages(t *testing.T) {
	doc := ParseMarkdown("docs/msa.md", "<!-- page: 1 -->\n# Agreement\n\nParties.\n\n"+
		"## 9. Payment\n\n### 9.3 Late Payment Penalties\n\nLate fee text.\n<!-- page: 2 -->\nContinues here.\n\n"+
		"### 9.4 Disputes\n\nDispute text.\n")
	secs := Sections(doc, SectionOptions{})
	if len(secs) != 3 {
		t.Fatalf("got %d sections: %+v", len(secs), secs)
	}
	want := []struct {
		title         string
		path          string
		page, pageEnd int
	}{
		{"Agreement", "Agreement", 1, 0},
		{"Late Payment Penalties", "Agreement > 9. Payment > 9.3 Late Payment Penalties", 1, 2},
		{"Disputes", "Agreement > 9. Payment > 9.4 Disputes", 2, 0},
	}
	for i, w := range want {
		s := secs[i]
		if s.Title != w.title || strings.Join(s.Path, " > ") != w.path || s.Page != w.page || s.PageEnd != w.pageEnd {
			t.Errorf("section %d = %q %v p%d-%d, want %q %q p%d-%d", i, s.Title, s.Path, s.Page, s.PageEnd, w.title, w.path, w.page, w.pageEnd)
		}
		if s.Source != "docs/msa.md" || s.ID == "" || s.Chunk != 0 {
			t.Errorf("section %d: source %q id %q chunk %d", i, s.Source, s.ID, s.Chunk)
		}
	}
	if secs[1].PageRef() != "pages 1–2" {
		t.Errorf("PageRef = %q", secs[1].PageRef())
	}
	if got := Sections(doc, SectionOptions{KeepNumbers: true})[1].Title; got != "9.3 Late Payment Penalties" {
		t.Errorf("KeepNumbers title = %q", got)
	}
}

func TestSectionsFallbackTitleAndLabels(t *testing.T) {
	doc := &document.Document{Source: "dir/notes.txt", Blocks: []document.Block{
		{Kind: document.Paragraph, Text: "No heading here.", Page: 3},
	}, PageLabels: map[int]string{3: "iii"}}
	secs := Sections(doc, SectionOptions{})
	if len(secs) != 1 || secs[0].Title != "notes" || secs[0].PageLabel != "iii" || secs[0].PageRef() != "page iii" {
		t.Fatalf("got %+v", secs)
	}
	if Sections(nil, SectionOptions{}) != nil {
		t.Error("nil document should give no sections")
	}
}

// longSection builds a section with n numbered sentences, split over two
// pages after sentence split.
func longSection(n, split int) *document.Document {
	var p1, p2 []string
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("Sentence number %03d says something about the fees payable.", i)
		if i < split {
			p1 = append(p1, s)
		} else {
			p2 = append(p2, s)
		}
	}
	return &document.Document{Source: "long.md", Blocks: []document.Block{
		{Kind: document.Heading, Level: 1, Text: "Fees", Page: 4},
		{Kind: document.Paragraph, Text: strings.Join(p1, " "), Page: 4},
		{Kind: document.Paragraph, Text: strings.Join(p2, " "), Page: 5},
	}}
}

func TestSectionsChunking(t *testing.T) {
	doc := longSection(60, 30) // ~60 chars a sentence, 3600 chars in all
	secs := Sections(doc, SectionOptions{ChunkSize: 500, Overlap: 120})
	if len(secs) < 7 {
		t.Fatalf("got %d chunks, want at least 7", len(secs))
	}
	seenSpan := false
	for i, s := range secs {
		if n := utf8.RuneCountInString(s.Content); n > 500 {
			t.Errorf("chunk %d has %d chars", i, n)
		}
		if s.Chunk != i || s.Title != "Fees" {
			t.Errorf("chunk %d: index %d title %q", i, s.Chunk, s.Title)
		}
		if !strings.HasPrefix(s.Content, "Sentence number") || !strings.HasSuffix(s.Content, ".") {
			t.Errorf("chunk %d does not start/end on a sentence: %q", i, s.Content)
		}
		if s.PageEnd == 5 && s.Page == 4 {
			seenSpan = true
		}
		if i > 0 {
			prev := secs[i-1].Content
			// The last sentence(s) of the previous chunk open this one.
			last := prev[strings.LastIndex(prev, "Sentence number"):]
			if !strings.Contains(s.Content, last) {
				t.Errorf("chunk %d does not overlap chunk %d (missing %q)", i, i-1, last)
			}
			if s.ID == secs[i-1].ID {
				t.Errorf("chunks %d and %d share ID %s", i-1, i, s.ID)
			}
		}
	}
	if !seenSpan {
		t.Error("no chunk spans pages 4–5")
	}
	if secs[0].Page != 4 || secs[len(secs)-1].Page != 5 {
		t.Errorf("first chunk page %d, last %d", secs[0].Page, secs[len(secs)-1].Page)
	}
	// Every sentence is in some chunk.
	all := ""
	for _, s := range secs {
		all += s.Content + "\n"
	}
	for i := 0; i < 60; i++ {
		if !strings.Contains(all, fmt.Sprintf("number %03d", i)) {
			t.Errorf("sentence %d lost", i)
		}
	}
	// No overlap when asked for none.
	noOv := Sections(doc, SectionOptions{ChunkSize: 500, Overlap: -1})
	total := 0
	for _, s := range noOv {
		total += strings.Count(s.Content, "Sentence number")
	}
	if total != 60 {
		t.Errorf("without overlap sentences appear %d times, want 60", total)
	}
}

func TestSectionsSplitsOverlongSentence(t *testing.T) {
	word := strings.Repeat("x", 30)
	doc := &document.Document{Source: "w.txt", Blocks: []document.Block{
		{Kind: document.Paragraph, Text: strings.Repeat(word+" ", 100) + strings.Repeat("y", 700)},
	}}
	secs := Sections(doc, SectionOptions{ChunkSize: 300, Overlap: 50})
	if len(secs) < 10 {
		t.Fatalf("got %d chunks", len(secs))
	}
	for _, s := range secs {
		if utf8.RuneCountInString(s.Content) > 300 {
			t.Errorf("chunk of %d chars", utf8.RuneCountInString(s.Content))
		}
	}
}

func TestSectionIDsAreStable(t *testing.T) {
	mk := func(src, body string) []string {
		doc := ParseMarkdown(src, "# A\n\n"+body+"\n\n# B\n\ntext\n\n# A\n\nsecond A")
		var ids []string
		for _, s := range Sections(doc, SectionOptions{}) {
			ids = append(ids, s.ID)
		}
		return ids
	}
	a, b := mk("x/doc.md", "one"), mk("x/doc.md", "changed text")
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("IDs depend on content: %v vs %v", a, b)
	}
	if c := mk("./x//doc.md", "one"); strings.Join(a, ",") != strings.Join(c, ",") {
		t.Errorf("IDs depend on path spelling: %v vs %v", a, c)
	}
	if d := mk("y/doc.md", "one"); d[0] == a[0] {
		t.Error("IDs do not depend on the source")
	}
	seen := map[string]bool{}
	for _, id := range a {
		if seen[id] {
			t.Errorf("duplicate ID %s in %v", id, a)
		}
		seen[id] = true
	}
	if len(a) != 3 || len(a[0]) != 16 {
		t.Errorf("IDs %v", a)
	}
}

func TestSectionsPrintedPagesAndContext(t *testing.T) {
	doc := &document.Document{
		Source: "/x/ORACLE_2023_10K.pdf",
		Entity: "Oracle Corporation",
		Period: "fiscal year ended May 31, 2023",
		Blocks: []document.Block{
			{Kind: document.Heading, Level: 1, Text: "Results", Page: 31},
			{Kind: document.Paragraph, Text: "Revenues grew.", Page: 31},
			{Kind: document.Paragraph, Text: "Margins fell.", Page: 32},
			{Kind: document.Heading, Level: 1, Text: "Cover", Page: 1},
			{Kind: document.Paragraph, Text: "Cover text.", Page: 1},
			{Kind: document.Heading, Level: 1, Text: "Notes", Page: 33},
			{Kind: document.Paragraph, Text: "Note text.", Page: 33},
			{Kind: document.Paragraph, Text: "More.", Page: 34},
		},
		PageLabels:   map[int]string{31: "29", 32: "30", 33: "31"},
		PrintedPages: map[int]bool{31: true, 32: true, 33: true},
	}
	secs := Sections(doc, SectionOptions{})
	if len(secs) != 3 {
		t.Fatalf("got %d sections", len(secs))
	}
	want := []struct {
		cite    string
		printed bool
	}{
		{"Results, pages 29–30", true},
		{"Cover, page 1", false},
		{"Notes, pages 33–34", false}, // page 34 prints no number
	}
	for i, w := range want {
		s := secs[i]
		if s.Citation() != w.cite || s.PagePrinted != w.printed {
			t.Errorf("section %d: %q printed=%v, want %q printed=%v", i, s.Citation(), s.PagePrinted, w.cite, w.printed)
		}
		if s.DocTitle != "ORACLE_2023_10K" || s.DocEntity != "Oracle Corporation" || s.DocPeriod != doc.Period {
			t.Errorf("section %d context: %q %q %q", i, s.DocTitle, s.DocEntity, s.DocPeriod)
		}
	}
	// A single printed page.
	doc.Blocks = doc.Blocks[:2]
	s := Sections(doc, SectionOptions{})[0]
	if s.Citation() != "Results, page 29" || !s.PagePrinted {
		t.Errorf("single page: %q printed=%v", s.Citation(), s.PagePrinted)
	}
}
