package relevance

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTableSpan(t *testing.T) {
	quarter := "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Net revenue: Client Computing $ 5,767 $ 9,295 Total net revenue $ 11,715 $ 18,353"
	year := "Years Ended (In Millions) Dec 31, 2022 Dec 25, 2021 Net revenue $ 63,054 $ 79,024 Gross margin 26,866 43,815"
	both := "Three Months Ended Sept 30, 2023 Revenue $ 1,200 Nine Months Ended Sept 30, 2023 Revenue $ 3,500"
	for _, tt := range []struct {
		content, claim, want string
	}{
		{quarter, "Total net revenue $ 11,715 $ 18,353", SpanQuarter},
		{year, "Net revenue $ 63,054 $ 79,024", SpanYear},
		// the header nearest before the row
		{both, "Revenue $ 3,500", SpanPartYear},
		{both, "Revenue $ 1,200", SpanQuarter},
		{"Net revenue $ 63,054 $ 79,024", "Net revenue $ 63,054 $ 79,024", ""},
		{"Fiscal Years Ended May 31, 2023 2022 Total revenues $ 49,954 $ 42,440", "Total revenues $ 49,954 $ 42,440", SpanYear},
		{"13 Weeks Ended Revenue $ 900", "Revenue $ 900", SpanQuarter},
	} {
		if got := TableSpan(tt.content, tt.claim); got != tt.want {
			t.Errorf("TableSpan(…, %q) = %q, want %q", tt.claim, got, tt.want)
		}
	}
}

func TestFullYearIsNotAQuarter(t *testing.T) {
	quarter := "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Total net revenue $ 11,715 $ 18,353"
	row := "Total net revenue $ 11,715 $ 18,353"
	for _, tt := range []struct {
		q       string
		c       Context
		refused bool
	}{
		{"What was Intel's total net revenue for full-year 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, true},
		{"What was Intel's annual net revenue in 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, true},
		{"What was Intel's total net revenue for full-year 2022?", Context{Claim: "Net revenue $ 63,054 $ 79,024", Row: true, Span: SpanYear}, false},
		// a question for a figure that names only a year asks for the
		// year's figure
		{"What was Intel's total net revenue in 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, true},
		{"What was Intel's total net revenue in 2022?", Context{Claim: row, Row: true, Span: SpanYear}, false},
		// a row with no header before it, under a heading of interim
		// figures
		{"What was Intel's total net revenue in 2022?", Context{Claim: row, Row: true, Heading: "Selected Interim Financial Information (unaudited)"}, true},
		{"What was Intel's total net revenue in 2022?", Context{Claim: row, Row: true, Heading: "Quarterly and Annual Results"}, false},
		// a question for a figure of each quarter
		{"What was Intel's total net revenue in each quarter of 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, false},
		// a question that does not ask for a figure
		{"Who was Intel's chief executive in 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, false},
		{"What was Intel's total net revenue in the first quarter of 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, false},
		// a statement of a quarter, or of a year
		{"What was Intel's full-year 2022 revenue?", Context{Claim: "In the first quarter of 2022, revenue was $18.4 billion."}, true},
		{"What was Intel's full-year 2022 revenue?", Context{Claim: "Full-year 2022 revenue was $63.1 billion, down 20% from the fourth quarter run rate."}, false},
		{"What was Intel's full-year 2022 revenue?", Context{Claim: "Revenue for 2022 was $63.1 billion."}, false},
	} {
		res := Analyze(tt.q).Check(tt.c, 0, nil, nil)
		got := false
		for _, f := range res.Findings {
			got = got || strings.Contains(f.Detail, "asks for a full year")
		}
		if got != tt.refused {
			t.Errorf("%q / %q: period finding %v, want %v (%v)", tt.q, tt.c.Claim, got, tt.refused, res.Findings)
		}
	}
}

// Tables of real filings, flattened as the PDF loader writes them: a
// header over several paragraphs before the rows (Boston Properties'
// 2015 10-K, page 140; eBay's first-quarter 2023 release, page 10).
var (
	disposed = "Boston Properties Limited Partnership\n\nFor the year ended December 31, 2013 (in thousands)\n\nTotal revenue $ 20,138 Expenses Operating 6,996 Total expenses 11,756"
	columns  = "Those line items have been conformed. Consolidated net revenues are unchanged.\n\neBay Inc. Unaudited Supplemental Operating Data Three Months Ended March 31, 2023\n\nDecember 31, 2022\n\nMarch 31, 2022 (In millions, except percentages)\n\nActive Buyers (1) 133 134 135"
)

func TestTableHeader(t *testing.T) {
	quarter := "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Net revenue: Client Computing $ 5,767 $ 9,295 Total net revenue $ 11,715 $ 18,353"
	prose := "We sold the building in 2013. The results for 2015 follow.\n\nTotal revenue $ 618,476"
	for _, tt := range []struct {
		content, claim, want string
	}{
		// the paragraphs before the row, up to a sentence of prose
		{disposed, "Total revenue $ 20,138 Expenses Operating 6,996 Total expenses 11,756", "Boston Properties Limited Partnership\n\nFor the year ended December 31, 2013 (in thousands)"},
		// (an abbreviation's period reads as the end of a sentence: the
		// header is shorter then, never longer)
		{columns, "Active Buyers (1) 133 134 135", "Unaudited Supplemental Operating Data Three Months Ended March 31, 2023\n\nDecember 31, 2022\n\nMarch 31, 2022 (In millions, except percentages)"},
		// found by its label when the claim is not written as in content
		{disposed, "Total revenue $20,138", "Boston Properties Limited Partnership\n\nFor the year ended December 31, 2013 (in thousands)"},
		// the text before the row in its paragraph
		{quarter, "Total net revenue $ 11,715 $ 18,353", "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Net revenue: Client Computing $ 5,767 $ 9,295"},
		// a sentence of prose is not a header
		{prose, "Total revenue $ 618,476", ""},
		{"Revenue $ 900", "Revenue $ 900", ""},
		{disposed, "Net income $ 5", ""},
	} {
		if got := TableHeader(tt.content, tt.claim); got != tt.want {
			t.Errorf("TableHeader(…, %q) = %q, want %q", tt.claim, got, tt.want)
		}
	}
	long := strings.Repeat("x ", 1000) + "\n\nRevenue $ 900"
	if got := TableHeader(long, "Revenue $ 900"); len(got) > maxHeaderBytes {
		t.Errorf("TableHeader returned %d bytes, want at most %d", len(got), maxHeaderBytes)
	}
	// a row that opens content with a byte inside a rune (found by
	// FuzzCheck)
	if got := TableHeader("\xa1", "\xa1"); got != "" {
		t.Errorf("TableHeader of a lone continuation byte = %q", got)
	}
	// cut at a rune's start, never inside one
	accented := strings.Repeat("é", 1000) + " Revenue $ 900"
	if got := TableHeader(accented, "Revenue $ 900"); !utf8.ValidString(got) || len(got) > maxHeaderBytes {
		t.Errorf("TableHeader returned %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
}

func TestRowIsForItsHeadersYears(t *testing.T) {
	row := "Total revenue $ 20,138 Expenses Operating 6,996"
	annual := "Years Ended December 31, 2015 2014 2013\n\nTotal revenue $ 2,490,821 $ 2,396,998 $ 2,135,539"
	arow := "Total revenue $ 2,490,821 $ 2,396,998 $ 2,135,539"
	for _, tt := range []struct {
		q, content, claim string
		refused           bool
	}{
		{"What was Boston Properties' total revenue for 2015?", disposed, row, true},
		{"What was Boston Properties' total revenue for 2013?", disposed, row, false},
		{"What was Boston Properties' total revenue for 2015?", annual, arow, false},
		{"What was Boston Properties' total revenue for 2012?", annual, arow, true},
		// column headings on lines of their own
		{"How many active buyers did eBay report for the quarter ended March 31, 2023?", columns, "Active Buyers (1) 133 134 135", false},
		{"How many active buyers did eBay report for 2021?", columns, "Active Buyers (1) 133 134 135", true},
		// a question that names no year
		{"What was Boston Properties' total revenue?", disposed, row, false},
		// a year as a bound, not the period asked about
		{"How much revenue came from properties sold since 2012?", disposed, row, false},
	} {
		c := Context{Claim: tt.claim, Row: true, Header: TableHeader(tt.content, tt.claim), Document: "Boston Properties 2015"}
		res := Analyze(tt.q).Check(c, 0, nil, nil)
		got := false
		for _, f := range res.Findings {
			got = got || strings.Contains(f.Detail, "answer's table is for")
		}
		if got != tt.refused {
			t.Errorf("%q / %q: table-year finding %v, want %v (%v)", tt.q, tt.claim, got, tt.refused, res.Findings)
		}
	}
}
