package index

import (
	"context"
	"slices"
	"testing"

	"github.com/docmind/docmind/schema"
)

// Several filings of one company: three 10-Qs that state only the date
// their quarter ended, an annual report that says when the fiscal year
// ends (January 31), an earnings release that names its quarter, and
// another company's 10-Q. The question's quarter, or "latest", picks the
// filing of that period; the quarter is counted from the fiscal year's
// end.
func TestResolvePeriodPicksTheFiling(t *testing.T) {
	ctx := context.Background()
	ix, _ := openTest(t)
	for _, d := range []struct{ path, entity, period string }{
		{"/f/northwind-10q-a.pdf", "Northwind Traders, Inc.", "quarterly period ended April 30, 2022"},
		{"/f/northwind-10q-b.pdf", "Northwind Traders, Inc.", "quarterly period ended July 31, 2022"},
		{"/f/northwind-10q-c.pdf", "Northwind Traders, Inc.", "quarterly period ended October 31, 2022"},
		{"/f/northwind-10k.pdf", "Northwind Traders, Inc.", "fiscal year ended January 31, 2022"},
		{"/f/contoso-release.pdf", "Contoso Ltd.", "second quarter 2023"},
		{"/f/contoso-10q.pdf", "Contoso Ltd.", "quarterly period ended April 1, 2023"},
	} {
		secs := []schema.Section{{Title: "Revenue", Content: "Total revenues were 9,000 million.", DocEntity: d.entity, DocPeriod: d.period}}
		if err := ix.PutDocument(ctx, Document{Path: d.path, Hash: d.path, Format: "pdf"}, secs); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		question string
		want     []string
	}{
		{"What were Northwind Traders' total revenues in the first quarter of fiscal 2023?", []string{"/f/northwind-10q-a.pdf"}},
		{"What were Northwind Traders' total revenues in Q2?", []string{"/f/northwind-10q-b.pdf"}},
		{"What were Northwind Traders' total revenues in the third quarter?", []string{"/f/northwind-10q-c.pdf"}},
		{"What were Northwind Traders' total revenues in the most recent quarter?", []string{"/f/northwind-10q-c.pdf"}},
		{"What were Northwind Traders' latest total revenues?", []string{"/f/northwind-10q-c.pdf"}},
		{"What were Contoso's total revenues in Q1 2023?", []string{"/f/contoso-10q.pdf"}},
		{"What were Contoso's total revenues in the second quarter of 2023?", []string{"/f/contoso-release.pdf"}},
	} {
		res, err := ix.Resolve(ctx, c.question)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Documents, c.want) {
			t.Errorf("%q: resolved to %v, want %v", c.question, res.Documents, c.want)
		}
	}
}

func TestFiscalQuarter(t *testing.T) {
	for _, c := range []struct{ end, fyEnd, q, y int }{
		{20221031, 1, 3, 2023}, {20220430, 1, 1, 2023}, {20230131, 1, 4, 2023},
		{20230401, 12, 1, 2023}, {20230701, 12, 2, 2023}, {20230331, 12, 1, 2023}, {20221231, 12, 4, 2022},
		{20230831, 5, 1, 2024}, {20230930, 9, 4, 2023},
	} {
		if q, y := fiscalQuarter(c.end, c.fyEnd); q != c.q || y != c.y {
			t.Errorf("%d, fiscal year ending in month %d: Q%d %d, want Q%d %d", c.end, c.fyEnd, q, y, c.q, c.y)
		}
	}
}
