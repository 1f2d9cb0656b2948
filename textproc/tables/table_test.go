package tables

import (
	"reflect"
	"testing"
)

func TestTableRows(t *testing.T) {
	got := Rows("In millions 2022 2021 2020 U.S. federal $ 517.3 $ 887.6 $ 554.1 Deferred tax provision (345.7) (428.3) 6.4 Provision for income taxes $ 1,648.0 $ 1,582.7 $ 1,410.2")
	want := []string{
		"U.S. federal: 2022 $517.3; 2021 $887.6; 2020 $554.1 (in millions)",
		"Deferred tax provision: 2022 (345.7); 2021 (428.3); 2020 6.4 (in millions)",
		"Provision for income taxes: 2022 $1,648.0; 2021 $1,582.7; 2020 $1,410.2 (in millions)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows:\n got %q\nwant %q", got, want)
	}
	// columns between the years: the header runs from year to year
	got = Rows("Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022 Americas $ 31,226 32% 32% $ 23,679 EMEA 12,109 1% 8% 12,011")
	want = []string{
		"Americas: 2023 $31,226; Actual 32%; Constant 32%; 2022 $23,679 (in millions)",
		"EMEA: 2023 12,109; Actual 1%; Constant 8%; 2022 12,011 (in millions)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %q\nwant %q", got, want)
	}
	// a header on its own line before the table
	above := headerLine("Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022")
	got = rowsUnder("Total Revenues by Geography: Americas $ 31,226 32% 32% $ 23,679 EMEA 12,109 1% 8% 12,011", above, "")
	want = []string{
		"Total Revenues by Geography: Americas: 2023 $31,226; Actual 32%; Constant 32%; 2022 $23,679",
		"EMEA: 2023 12,109; Actual 1%; Constant 8%; 2022 12,011",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows under a header line:\n got %q\nwant %q", got, want)
	}
	// a table with a header of its own keeps it
	if rows := rowsUnder("2022 2021 Revenue $ 1,645 $ 1,582 Net income 812 790", above, ""); rows != nil {
		t.Errorf("rows with their own header relabelled: %q", rows)
	}
	if h := headerLine("Total revenues grew 18% from 2022 to 2023."); h != nil {
		t.Errorf("a sentence read as a header line: %q", h)
	}
	// but a row label after the years is not a column
	got = Rows("2022 2021 Revenue $ 1,645 $ 1,582 Net income 812 790 Margin 49 50")
	want = []string{"Revenue: 2022 $1,645; 2021 $1,582", "Net income: 2022 812; 2021 790", "Margin: 2022 49; 2021 50"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %q\nwant %q", got, want)
	}
	// values before their labels (Oracle's 2023 10-K, page 15)
	got = Rows("27,000 Cloud services and license support operations 39,000 Services 35,000 Sales and marketing 47,000 Research and development 3,000 Hardware 13,000 General and administrative")
	want = []string{"Cloud services and license support operations 27,000", "Services 39,000", "Sales and marketing 35,000", "Research and development 47,000", "Hardware 3,000", "General and administrative 13,000"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("value-first rows:\n got %q\nwant %q", got, want)
	}
	// a table cut after a row's label, and before the next row's values,
	// is still read label first: its rows do not have one count of values
	got = Rows("4,362 Marketing, general, and administrative 1,303 1,752 Restructuring and other charges 64 (1,211) Operating expenses 5,476 4,903 Operating income")
	want = []string{"Marketing, general, and administrative 1,303 1,752", "Restructuring and other charges 64 (1,211)", "Operating expenses 5,476 4,903"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("label-first rows after a cut:\n got %q\nwant %q", got, want)
	}
	// nor when the text after the last values is a footnote (Oracle's 2022
	// 10-K, page 90)
	got = Rows("$ 49 $ 13 Total restructuring plans $ 262 $ 278 Other 108 59 Restructuring costs recorded to each of the operating segments presented primarily related to employee severance costs.")
	want = []string{"Total restructuring plans $262 $278", "Other 108 59"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows before a footnote:\n got %q\nwant %q", got, want)
	}
	for _, prose := range []string{
		"The fee is 1.5% per month on amounts unpaid after 30 days.",
		// many figures, but mostly words: one sentence of a filing
		"The amount of revenues recognized during the year ended May 31, 2023 and 2022 that were included in the opening deferred revenues balance as of May 31, 2022 and 2021, respectively, was approximately $8.3 billion and $8.8 billion, and our remaining performance obligations were $67.9 billion, of which we expect to recognize approximately 35% as revenues over the next twelve months.",
	} {
		if rows := Rows(prose); rows != nil {
			t.Errorf("prose split into rows: %q", rows)
		}
	}
}

// A row whose label states its own unit keeps it: the table's "(in
// millions)" is not added to "Employees (in thousands)".
func TestRenderRowOwnUnit(t *testing.T) {
	header := []string{"Apr 1, 2023", "Apr 2, 2022"}
	if got, want := renderRow("Employees (in thousands)", []string{"125.5", "122.9"}, header, "in millions"),
		"Employees (in thousands): Apr 1, 2023 125.5; Apr 2, 2022 122.9"; got != want {
		t.Errorf("renderRow = %q, want %q", got, want)
	}
	if got, want := renderRow("Net revenue", []string{"$11,715", "$18,353"}, header, "in millions"),
		"Net revenue: Apr 1, 2023 $11,715; Apr 2, 2022 $18,353 (in millions)"; got != want {
		t.Errorf("renderRow = %q, want %q", got, want)
	}
}

// A balance sheet as the PDF reader gives it: the unit on a line of its
// own, each column's date on a line of its own, the rows flattened, and
// the rows after a page's paragraph break too few to be read as a table
// alone. ReadRows reads every row under the two dates, in the unit.
func TestReadRowsUnderHeadersOnTheirOwnLines(t *testing.T) {
	sents := []string{
		"(In millions, except number of shares which are reflected in thousands and par value)",
		"September 25, 2021",
		"September 26, 2020",
		"ASSETS: Current assets: Cash and cash equivalents $ 34,940 $ 38,016 Marketable securities 27,699 52,927 Inventories 6,580 4,061 Total current assets 134,836 143,713",
		"Non-current assets: Marketable securities 127,877 100,887 Property, plant and equipment, net 39,440 36,766",
		"See accompanying Notes to Consolidated Financial Statements.",
		"Total assets 351,002 323,888",
	}
	var r Reader
	var got []Row
	for _, s := range sents {
		got = append(got, r.ReadRows(s)...)
	}
	want := []Row{
		{"ASSETS: Current assets: Cash and cash equivalents: September 25, 2021 $34,940; September 26, 2020 $38,016 (in millions)", true},
		{"Marketable securities: September 25, 2021 27,699; September 26, 2020 52,927 (in millions)", true},
		{"Inventories: September 25, 2021 6,580; September 26, 2020 4,061 (in millions)", true},
		{"Total current assets: September 25, 2021 134,836; September 26, 2020 143,713 (in millions)", true},
		{"Non-current assets: Marketable securities: September 25, 2021 127,877; September 26, 2020 100,887 (in millions)", true},
		{"Property, plant and equipment, net: September 25, 2021 39,440; September 26, 2020 36,766 (in millions)", true},
	}
	// prose ends the table: the row after it has no header to go on from
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", got, want)
	}
	// the generator's reading (Read) labels the flattened rows the same way
	var g Reader
	var shown []string
	for _, s := range sents[:4] {
		_, sh := g.Read(s)
		shown = append(shown, sh...)
	}
	if len(shown) != 4 || shown[0] != want[0].Text {
		t.Errorf("Read under the header lines: %q", shown)
	}
	// rows whose values do not each stand under a header are not headed
	var u Reader
	for _, row := range u.ReadRows("Revenue $ 1,645 $ 1,582 $ 1,400 Net income 812 790 700 Margin 49 50 51") {
		if row.Headed {
			t.Errorf("a row with no header read as headed: %q", row.Text)
		}
	}
}

// Tables whose cells the text keeps apart (HTML, DOCX, Markdown): the
// spacer, "$" and ")" cells of a filing's HTML table are folded into the
// values, the row of years is the header, the unit comes from the line
// above; a table of words gives no rows.
func TestPipeRows(t *testing.T) {
	html := "(in thousands, except per share amounts)\n" +
		" | Year Ended December 31, | \n" +
		" | 2015 | | 2014 | | 2013\n" +
		"Revenue | | | | | \n" +
		"Base rent | $ | 1,964,732 | | $ | 1,886,339 | | $ | 1,675,412\n" +
		"Total revenue | | 2,490,821 | | 2,396,998 | | 2,135,539\n" +
		"Net loss | | (1,234 | ) | 5 | % | —"
	want := []Row{
		{"Base rent: 2015 $1,964,732; 2014 $1,886,339; 2013 $1,675,412 (in thousands)", true},
		{"Total revenue: 2015 2,490,821; 2014 2,396,998; 2013 2,135,539 (in thousands)", true},
		{"Net loss: 2015 (1,234); 2014 5%; 2013 — (in thousands)", true},
	}
	if got := PipeRows(html); !reflect.DeepEqual(got, want) {
		t.Errorf("HTML table rows:\n got %+v\nwant %+v", got, want)
	}
	md := "| In millions | 2022 | 2021 |\n|---|---|---|\n| Revenue | $ 1,645 | $ 1,582 |\n| Net income | 812 | 790 |\n| Margin | 49% |"
	want = []Row{
		{"Revenue: 2022 $1,645; 2021 $1,582 (in millions)", true},
		{"Net income: 2022 812; 2021 790 (in millions)", true},
		{"Margin 49%", false},
	}
	if got := PipeRows(md); !reflect.DeepEqual(got, want) {
		t.Errorf("Markdown table rows:\n got %+v\nwant %+v", got, want)
	}
	words := "| Severity | Description | Standard tier | Enterprise tier |\n|---|---|---|---|\n| Severity 1 | Platform unavailable or data loss | 1 hour | 30 minutes |"
	if got := PipeRows(words); len(got) != 0 {
		t.Errorf("a table of words read as figures: %+v", got)
	}
}
