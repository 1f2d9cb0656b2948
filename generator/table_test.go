package generator

import (
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc/tables"
)

// The organisation and period of a document are what each of its
// sentences is about: a heading that happens to repeat the question's
// period does not outweigh a row that states what was asked (Oracle's
// fiscal 2023 Form 10-K, pages 45 and 89, as the PDF loader reads them).
// A segment's row is not the company's total (relevance.RowScope).
func TestGenerateTableRowsInTheirDocument(t *testing.T) {
	doc := func(s schema.Section) schema.Section {
		s.Source, s.DocTitle, s.DocEntity, s.DocPeriod = "ORACLE_2023_10K.pdf", "Oracle Corporation Form 10-K", "Oracle Corporation", "fiscal year ended May 31, 2023"
		return s
	}
	secs := []schema.Section{
		doc(schema.Section{ID: "plans", Title: "Summary of All Plans Fiscal 2023 Activity", Page: 91,
			Content: "(in millions) May 31, 2022 Initial Costs Adj. to Cost Cash Payments Others May 31, 2023 Fiscal 2023 Oracle Restructuring Plan Cloud and license $ 34 $ 288 $ (6) $ (240) $ (10) $ 66 Oracle Restructuring Plan total $ 60 $ 496 $ (3) $ (412) $ (12) $ 129"}),
		doc(schema.Section{ID: "hardware", Title: "Hardware Business", Page: 49,
			Content: "Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022 Hardware Revenues: Americas $ 1,702 9% 10% $ 1,558 EMEA 933 -2% 3% 949 Asia Pacific 639 -5% 3% 676 Total revenues 3,274 3% 6% 3,183 Expenses: Hardware products and support 1,011 7% 10% 944 Sales and marketing 331 -8% -5% 361 Total expenses 1,342 3% 6% 1,305"}),
		doc(schema.Section{ID: "total", Title: "Total Revenues and Operating Expenses", Page: 45,
			Content: "Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022 Total Revenues by Geography: Americas $ 31,226 32% 32% $ 23,679 EMEA 12,109 1% 8% 12,011 Asia Pacific 6,619 -2% 8% 6,750 Total revenues 49,954 18% 22% 42,440 Total Operating Expenses 36,861 17% 19% 31,514"}),
	}
	a := generate(t, "What were Oracle's total revenues in fiscal 2023?", secs)
	// with its column headers: two percent-change columns between the years
	if !strings.HasPrefix(a, "Total revenues: 2023 49,954; Actual 18%; Constant 22%; 2022 42,440 (in millions) (See Total Revenues and Operating Expenses, page 45)") {
		t.Errorf("answer:\n%s", a)
	}
	// the rows beside it state other measures: they are not quoted
	if strings.Contains(a, "Operating Expenses 36,861") {
		t.Errorf("a row of another measure pads the answer:\n%s", a)
	}
	// nor is a row of one value beside the row that names the measure
	// (FedEx's 2023 10-K, page 48, as the PDF loader reads it)
	fedex := doc(schema.Section{ID: "fedex", Title: "CONSOLIDATED RESULTS", Page: 48,
		Content: "2023 2022 Percent Change Consolidated revenue $ 90,155 $ 93,512 (4 ) Operating income (loss): FedEx Express segment $ 1,388 $ 2,913 (52 ) Corporate, other, and eliminations (1,217 ) (1,083 )"})
	fedex.DocEntity, fedex.DocTitle, fedex.DocPeriod = "FedEx Corporation", "FedEx Corporation Form 10-K", "fiscal year ended May 31, 2023"
	a = generate(t, "What was FedEx's consolidated revenue for fiscal 2023?", []schema.Section{fedex})
	if !strings.Contains(a, "Consolidated revenue $90,155") || strings.Contains(a, "eliminations") {
		t.Errorf("answer:\n%s", a)
	}
	// a row names what its group's label does: "General and
	// administrative" under "Operating expenses:" is the expense asked
	// for, and the prose that repeats the question's period is not
	// (eBay's first-quarter 2023 earnings release, pages 2 and 8)
	ebay := func(s schema.Section) schema.Section {
		s.Source, s.DocTitle, s.DocEntity, s.DocPeriod = "EBAY_2023Q1_EARNINGS.pdf", "eBay Inc. Reports First Quarter 2023 Results", "eBay Inc.", "first quarter 2023"
		return s
	}
	a = generate(t, "What were eBay's general and administrative expenses in the first quarter of 2023?", []schema.Section{
		ebay(schema.Section{ID: "highlights", Title: "Business Highlights", Page: 2,
			Content: "eBay's first-party advertising products delivered $285 million of revenue in the first quarter, up 27% on an as-reported basis."}),
		ebay(schema.Section{ID: "income", Title: "Forward-Looking Statements", Page: 8,
			Content: "Net revenues $ 2,510 $ 2,483 Cost of net revenues (1) 700 689 Gross profit 1,810 1,794 Operating expenses: Sales and marketing (1) 511 478 Product development (1) 352 301 General and administrative (1) 297 226 Provision for transaction losses 84 96 Total operating expenses 1,252 1,102"}),
	})
	if !strings.HasPrefix(a, "General and administrative (1) 297 226") || strings.Contains(a, "advertising") || strings.Contains(a, "511") {
		t.Errorf("answer:\n%s", a)
	}
}

// A header line that stands apart from its table (the PDF loader reads
// Oracle's fiscal 2023 Form 10-K, page 45, so) labels the quoted row, in
// the unit it states.
func TestGenerateRowUnderHeaderLine(t *testing.T) {
	sec := schema.Section{ID: "total", Title: "Total Revenues and Operating Expenses", Page: 45,
		Source: "ORACLE_2023_10K.pdf", DocTitle: "Oracle Corporation Form 10-K", DocEntity: "Oracle Corporation", DocPeriod: "fiscal year ended May 31, 2023",
		Content: "Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022\n\nTotal Revenues by Geography: Americas $ 31,226 32% 32% $ 23,679 EMEA 12,109 1% 8% 12,011 Total revenues 49,954 18% 22% 42,440 Total Operating Expenses 36,861 17% 19% 31,514"}
	a := generate(t, "What were Oracle's total revenues in fiscal 2023?", []schema.Section{sec})
	if !strings.HasPrefix(a, "Total revenues: 2023 49,954; Actual 18%; Constant 22%; 2022 42,440 (in millions) (See Total Revenues and Operating Expenses, page 45)") {
		t.Errorf("answer:\n%s", a)
	}
}

// A sentence of prose that states several figures is quoted whole, not cut
// into "rows" at its figures; a flattened table still is.
func TestProseIsNoTable(t *testing.T) {
	for _, s := range []string{
		"The Company made $1.8 billion, $1.4 billion and $1.5 billion of fixed cash payments related to operating leases in 2022, 2021 and 2020, respectively.",
		"It is approximately 220 miles (350 km) northwest of Los Angeles, 170 miles (270 km) south of the state capital, Sacramento, or 185 miles (300 km) south of San Francisco.",
		"As of 2005, there were about 667,000 firms employing 1 million contractors (200,000 general contractors, 38,000 heavy, and 432,000 specialty); the average contractor employed fewer than 10 employees.",
	} {
		if rows := tables.Rows(s); rows != nil {
			t.Errorf("prose read as a table: %q -> %q", s, rows)
		}
		if units := quotable(s); len(units) != 1 || units[0].text != s {
			t.Errorf("prose not quoted whole: %v", units)
		}
	}
	// a table's rows begin with their labels, whatever the text ends with
	if rows := tables.Rows("In millions 2022 2021 Revenue $ 1,645 $ 1,582 Net income 812 790 Operating expenses 833 792."); len(rows) != 3 {
		t.Errorf("table rows: %q", rows)
	}
}

// A table the PDF reader split into paragraphs (Intel's first-quarter
// 2023 earnings release, page 9) keeps its header and unit in the rows
// that go on from it; prose after it ends it.
func TestTableRowsGoOnUnderTheirHeader(t *testing.T) {
	content := "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Net revenue: Client Computing Desktop $ 1,879 $ 2,641 Notebook 3,407 5,959 Other 481 722 5,767 9,322\n\n" +
		"Data Center and AI 3,718 6,074 Network and Edge 1,489 2,139 Mobileye 458 394 Intel Foundry Services 118 156 All other 165 268 Total net revenue $ 11,715 $ 18,353\n\n" +
		"Revenue was lower in every segment.\n\n" +
		"Gross margin 34.2 % 50.4 % Operating margin (12.8) % 23.2 % Tax rate 24.1 % 11.9 % Diluted EPS (0.66) 1.98 Net margin (20.6) % 44.8 %"
	var got []string
	for _, u := range quotable(content) {
		if u.shown != "" {
			got = append(got, u.shown)
		}
	}
	want := "Total net revenue: Apr 1, 2023 $11,715; Apr 2, 2022 $18,353 (in millions)"
	if !slices.Contains(got, want) {
		t.Errorf("rows under the header: %q, want %q among them", got, want)
	}
	for _, r := range got {
		if strings.HasPrefix(r, "Gross margin") || strings.HasPrefix(r, "Diluted EPS") {
			t.Errorf("a table after prose took the header of the one before it: %q", r)
		}
	}
}

// A row is quoted once although two sections state it: the table-row
// section the loader reads from a table (loader, table rows) and the
// section that holds the table, where the row is read under a header
// line that stands apart (Apple's 2022 10-K, page 3 of a scan read by
// OCR).
func TestRowQuotedOnce(t *testing.T) {
	doc := func(s schema.Section) schema.Section {
		s.Source, s.Title, s.Page = "apple-2022.pdf", "(dollars in millions):", 3
		s.DocEntity, s.DocPeriod = "Apple Inc.", "fiscal year ended September 24, 2022"
		return s
	}
	secs := []schema.Section{
		doc(schema.Section{ID: "table", Content: "2022 2021 2020\n\nProvision for income taxes $ 19,300 $ 14,527 $ 9,680 Effective tax rate 16.2% 13.3% 14.4% Statutory federal income tax rate 21% 21% 21%"}),
		doc(schema.Section{ID: "row", Kind: schema.KindTableRow, Chunk: 1 << 20, Content: "Effective tax rate: 2022 16.2%; 2021 13.3%; 2020 14.4%"}),
	}
	a := generate(t, "What was Apple's effective tax rate for fiscal 2022?", secs)
	if n := strings.Count(a, "Effective tax rate: 2022 16.2%"); n != 1 {
		t.Errorf("the row is quoted %d times:\n%s", n, a)
	}
}
