package generator

import (
	"context"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
)

// A question about one product's figure is answered by that product's
// row of a table whose header names the measure, not by another
// product's row (whose footnote references "(1)(2)" once hid it from the
// row checks) nor by the table's footnotes.
func TestAnswerIsTheRowOfTheEntityAsked(t *testing.T) {
	content := "Net sales by product for 2024 and 2023 were as follows (in millions): 2024 2023 " +
		"Phones (1) $ 1,200 $ 1,100 Tablets (1) 300 280 Watches, Rings and Bands (1)(2) 410 380 " +
		"Total net sales (3) $ 1,910 $ 1,760\n\n" +
		"(1) Products net sales include the deferred value of software upgrades bundled in the price of the product. " +
		"(2) Watches, Rings and Bands net sales include sales of straps and chargers."
	sec := schema.Section{Title: "Note 2 – Revenue", Content: content, Source: "acme.pdf", Page: 37,
		DocEntity: "Acme Inc.", DocPeriod: "fiscal year ended September 28, 2024", RelevanceScore: 1}
	got, err := NewOffline().Generate(context.Background(), schema.GenerateRequest{
		Query: "What were Acme's Phones net sales in fiscal 2024?", Sections: []schema.Section{sec}})
	if err != nil {
		t.Fatal(err)
	}
	lead, _, _ := strings.Cut(got, "\n")
	if !strings.HasPrefix(lead, "Phones: 2024 $1,200") {
		t.Errorf("answer:\n%s\nwant it to lead with the Phones row", got)
	}
	if strings.Contains(got, "Watches") || strings.Contains(got, "deferred value") {
		t.Errorf("answer quotes another product's row or a footnote:\n%s", got)
	}
}
