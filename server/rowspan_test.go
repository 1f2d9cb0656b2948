package server

import (
	"testing"

	"github.com/docmind/docmind/schema"
)

// A table row the answer states with its headers is found in its section
// as the row's cells, so that the viewer highlights them.
func TestRowSpan(t *testing.T) {
	content := "Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022 Total Revenues by Geography: " +
		"Americas $ 31,226 32% 32% $ 23,679 EMEA 12,109 1% 8% 12,011 Total revenues 49,954 18% 22% 42,440 Total Operating Expenses 36,861 17% 19% 31,514"
	for _, tt := range []struct{ quote, want string }{
		{"Total revenues: 2023 49,954; Actual 18%; Constant 22%; 2022 42,440", "Total revenues 49,954 18% 22% 42,440"},
		{"Americas: 2023 $31,226; Actual 32%; Constant 32%; 2022 $23,679", "Americas $ 31,226 32% 32% $ 23,679"},
		{"EMEA 12,109 1% 8% 12,011", "EMEA 12,109 1% 8% 12,011"},
	} {
		i, j, ok := rowSpan(content, tt.quote)
		if !ok || content[i:j] != tt.want {
			t.Errorf("%q: %v %q, want %q", tt.quote, ok, content[i:min(j, len(content))], tt.want)
		}
	}
	if _, _, ok := rowSpan(content, "Total revenues: 2023 99,999; 2022 42,440"); ok {
		t.Error("a row whose values are not in the text was found")
	}
	// a sentence with figures is not a row
	prose := "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month."
	if _, _, ok := rowSpan(prose, "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month."); ok {
		t.Error("a sentence was read as a table row")
	}
	fedex := "Consolidated revenue $ 90,155 $ 93,512 (4 ) Operating income"
	if i, j, ok := rowSpan(fedex, "Consolidated revenue: 2023 $90,155; 2022 $93,512; Percent Change (4)"); !ok || fedex[i:j] != "Consolidated revenue $ 90,155 $ 93,512 (4 )" {
		t.Errorf("parenthesised value: %v %q", ok, fedex[i:j])
	}
}

// The API's citation of a table row carries the row's cells as its quote
// (before, "This source was cited without a quoted passage").
func TestCitationOfATableRowQuotesItsCells(t *testing.T) {
	out := "Total revenues: 2023 49,954; 2022 42,440 (See Total Revenues, page 43)"
	sec := schema.Section{ID: "s", Title: "Total Revenues", Source: "acme.pdf", Page: 45, PageLabel: "43",
		Content: "Year Ended May 31, 2023 2022 Total revenues 49,954 42,440 Total Operating Expenses 36,861 31,514"}
	st := &schema.State{FinalOutput: &out, RetrievedSections: []schema.Section{sec}, JudgeVerdict: &schema.Verdict{ShouldReturn: true,
		Claims: []schema.ClaimCheck{{Claim: "Total revenues: 2023 49,954; 2022 42,440", Supported: true,
			Evidence: &schema.Evidence{SectionID: "s", Quote: "Total revenues: 2023 49,954; 2022 42,440"}}}}}
	cs := citations(st)
	if len(cs) != 1 || len(cs[0].Quotes) != 1 || cs[0].Quotes[0].Text != "Total revenues 49,954 42,440" {
		t.Fatalf("citations %+v", cs)
	}
	// evidence quoting the whole table: the row, not the table
	st.JudgeVerdict.Claims[0].Evidence.Quote = sec.Content
	if cs := citations(st); len(cs) != 1 || len(cs[0].Quotes) != 1 || cs[0].Quotes[0].Text != "Total revenues 49,954 42,440" {
		t.Fatalf("with the whole table as evidence: %+v", cs)
	}
}
