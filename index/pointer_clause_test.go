package index

import (
	"context"
	"strings"
	"testing"

	"github.com/docmind/docmind/document"
	"github.com/docmind/docmind/loader"
	"github.com/docmind/docmind/schema"
)

// A pointer to a clause ("as described in Section 1.3") leads to that
// clause when the clause is a section of its own, as the loader now reads
// clauses that a PDF gives several to a paragraph.
func TestPointerLeadsToTheClause(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	filler := strings.Repeat("The parties shall keep records of every delivery made under this Agreement. ", 12)
	doc := &document.Document{Source: "/c/supply.pdf", Format: "pdf", Blocks: []document.Block{
		{Kind: document.Heading, Level: 1, Text: "SUPPLY AGREEMENT", Page: 1},
		{Kind: document.Paragraph, Page: 1, Text: "1. TERM AND TERMINATION. 1.1. Initial Term. The initial term is three years. " + filler +
			"1.2. Renewal. The term renews for one year unless terminated as described in Section 1.3. " + filler +
			"1.3. Termination for Cause. Either party may terminate on thirty (30) days notice of a material breach. " + filler},
	}}
	secs := loader.Sections(doc, loader.SectionOptions{Clauses: true})
	if err := ix.PutDocument(ctx, Document{Path: doc.Source, Hash: "h", Format: "pdf"}, secs); err != nil {
		t.Fatal(err)
	}
	stored, err := ix.Sections(ctx, doc.Source)
	if err != nil {
		t.Fatal(err)
	}
	var renewal schema.Section
	for _, s := range stored {
		if s.Title == "Renewal" {
			renewal = s
		}
	}
	out := followPointers(ctx, ix, []schema.Section{renewal}, 5, nil)
	if len(out) != 2 || out[1].Title != "Termination for Cause" || !strings.HasPrefix(out[1].Content, "1.3. Termination for Cause. Either party may terminate") {
		t.Errorf("followed to %v", secTitles(out))
	}
}
