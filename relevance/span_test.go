package relevance

import (
	"strings"
	"testing"
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
		// a question that does not ask for a whole year
		{"What was Intel's total net revenue in 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, false},
		{"What was Intel's total net revenue in the first quarter of 2022?", Context{Claim: row, Row: true, Span: TableSpan(quarter, row)}, false},
		// a statement of a quarter, or of a year
		{"What was Intel's full-year 2022 revenue?", Context{Claim: "In the first quarter of 2022, revenue was $18.4 billion."}, true},
		{"What was Intel's full-year 2022 revenue?", Context{Claim: "Full-year 2022 revenue was $63.1 billion, down 20% from the fourth quarter run rate."}, false},
		{"What was Intel's full-year 2022 revenue?", Context{Claim: "Revenue for 2022 was $63.1 billion."}, false},
	} {
		res := Analyze(tt.q).Check(tt.c, Checks{Period: true}, nil, nil)
		got := false
		for _, f := range res.Findings {
			got = got || strings.Contains(f.Detail, "asks for a full year")
		}
		if got != tt.refused {
			t.Errorf("%q / %q: period finding %v, want %v (%v)", tt.q, tt.c.Claim, got, tt.refused, res.Findings)
		}
	}
}
