package tables

import (
	"slices"
	"strings"
	"testing"
)

// Every table layout of the filings reads as rows stated with their column
// headers: footnote references are not values, a percent sign set apart
// belongs to its value, and a header with change columns between the
// years labels every value (no stray "$394,328 8" or "%" fragments).
func TestTableLayoutsOfTheFilings(t *testing.T) {
	tests := []rowCase{
		{"footnote references",
			"Net sales (in millions): 2022 2021 2020 iPhone (1) $ 205,489 $ 191,973 $ 137,781 Mac (1) 40,177 35,190 28,622 " +
				"Wearables, Home and Accessories (1)(2) 41,241 38,367 30,620 Total net sales (4) $ 394,328 $ 365,817 $ 274,515",
			[]string{
				"iPhone: 2022 $205,489; 2021 $191,973; 2020 $137,781 (in millions)",
				"Mac: 2022 40,177; 2021 35,190; 2020 28,622 (in millions)",
				"Wearables, Home and Accessories: 2022 41,241; 2021 38,367; 2020 30,620 (in millions)",
				"Total net sales: 2022 $394,328; 2021 $365,817; 2020 $274,515 (in millions)",
			}},
		{"change columns with a percent sign apart",
			"2022 Change 2021 Change 2020 Net sales by category: iPhone (1) $ 205,489 7 % $ 191,973 39 % $ 137,781 " +
				"iPad (1) 29,292 (8) % 31,862 34 % 23,724 Total net sales $ 394,328 8 % $ 365,817 33 % $ 274,515",
			[]string{
				"Net sales by category: iPhone: 2022 $205,489; Change 7%; 2021 $191,973; Change 39%; 2020 $137,781",
				"iPad: 2022 29,292; Change (8)%; 2021 31,862; Change 34%; 2020 23,724",
				"Total net sales: 2022 $394,328; Change 8%; 2021 $365,817; Change 33%; 2020 $274,515",
			}},
		{"a sentence with years before the header",
			"The following table shows net sales by category for 2022, 2021 and 2020 (dollars in millions): 2022 Change 2021 Change 2020 " +
				"Net sales by category: iPhone (1) $ 205,489 7 % $ 191,973 39 % $ 137,781 Total net sales $ 394,328 8 % $ 365,817 33 % $ 274,515",
			[]string{
				"Net sales by category: iPhone: 2022 $205,489; Change 7%; 2021 $191,973; Change 39%; 2020 $137,781 (in millions)",
				"Total net sales: 2022 $394,328; Change 8%; 2021 $365,817; Change 33%; 2020 $274,515 (in millions)",
			}},
		{"a closing parenthesis set apart",
			"2023 2022 Consolidated revenue $ 90,155 $ 93,512 (4 ) Operating income 4,912 6,245 (21 ) Net income 3,972 3,826 4",
			[]string{
				"Consolidated revenue $90,155 $93,512 (4)",
				"Operating income 4,912 6,245 (21)",
				"Net income 3,972 3,826 4",
			}},
		{"numbers inside labels",
			"as of September 25, 2021 (in millions): Due after 1 year through 5 years $ 83,755 Due after 5 years through 10 years 23,915 Due after 10 years 20,207 Total fair value $ 127,877",
			[]string{
				"as of September 25, 2021 (in millions): Due after 1 year through 5 years $83,755",
				"Due after 5 years through 10 years 23,915 (in millions)",
				"Due after 10 years 20,207 (in millions)",
				"Total fair value $127,877 (in millions)",
			}},
	}
	checkRows(t, tests)
}

// A header standing apart whose last column is named by words ("2023 2022
// Percent Change") labels the rows after it.
func TestHeaderLineWithAChangeColumn(t *testing.T) {
	h := headerLine("The following table compares summary operating results for the years ended May 31: 2023 2022 Percent Change")
	if !slices.Equal(h, []string{"2023", "2022", "Percent Change"}) {
		t.Fatalf("header %q", h)
	}
	got := rowsUnder("Consolidated revenue $ 90,155 $ 93,512 (4 ) Operating income 4,912 6,245 (21 )", h, "")
	want := []string{"Consolidated revenue: 2023 $90,155; 2022 $93,512; Percent Change (4)", "Operating income: 2023 4,912; 2022 6,245; Percent Change (21)"}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
}

// Columns headed by dates or quarters label their values as years do, and
// the unit the table states goes with every row of amounts (Intel's first
// quarter 2023 release, page 6, as the PDF loader reads it).
func TestDateAndQuarterHeadersAndTheUnit(t *testing.T) {
	tests := []rowCase{
		{"dates",
			"Three Months Ended (In Millions, Except Per Share Amounts; Unaudited) Apr 1, 2023 Apr 2, 2022 Net revenue $ 11,715 $ 18,353 " +
				"Cost of sales 7,707 9,109 Research and development 4,109 4,362",
			[]string{
				"Net revenue: Apr 1, 2023 $11,715; Apr 2, 2022 $18,353 (in millions)",
				"Cost of sales: Apr 1, 2023 7,707; Apr 2, 2022 9,109 (in millions)",
				"Research and development: Apr 1, 2023 4,109; Apr 2, 2022 4,362 (in millions)",
			}},
		{"quarters, percentages without the unit",
			"(in thousands) Q1 2023 Q4 2022 Q1 2022 Active buyers 133 134 138 Growth rate (7) % (9) % (12) %",
			[]string{
				"Active buyers: Q1 2023 133; Q4 2022 134; Q1 2022 138 (in thousands)",
				"Growth rate: Q1 2023 (7)%; Q4 2022 (9)%; Q1 2022 (12)%",
			}},
		{"a date inside a row's label is not a value",
			"(in millions) 2023 2022 Balance as of January 31, 2022 $ 47,937 $ 47,150 Other acquisitions 325 787",
			[]string{
				"Balance as of January 31, 2022: 2023 $47,937; 2022 $47,150 (in millions)",
				"Other acquisitions: 2023 325; 2022 787 (in millions)",
			}},
	}
	checkRows(t, tests)
}

// A negative percentage is a value ("-2%", Oracle's change columns), a
// parenthesis opened inside a label is not one, and an amount the PDF
// split apart ("(10,18 9 )") is read whole: no row is left without its
// label.
func TestNegativePercentsAndParentheses(t *testing.T) {
	tests := []rowCase{
		{"negative percentages",
			"(Dollars in millions) 2023 Actual Constant 2022 Americas $ 31,226 32% 32% $ 23,679 Asia Pacific 6,619 -2% 8% 6,750 Total revenues 49,954 18% 22% 42,440",
			[]string{
				"Americas: 2023 $31,226; Actual 32%; Constant 32%; 2022 $23,679 (in millions)",
				"Asia Pacific: 2023 6,619; Actual -2%; Constant 8%; 2022 6,750 (in millions)",
				"Total revenues: 2023 49,954; Actual 18%; Constant 22%; 2022 42,440 (in millions)",
			}},
		{"a parenthesis inside a label",
			"(In Millions) Apr 1, 2023 Dec 31, 2022 Debt 48,836 37,684 Common stock and capital in excess of par value (4,137 issued and outstanding as of December 31, 2022) 32,829 31,580 Retained earnings 65,649 70,405",
			[]string{
				"Debt: Apr 1, 2023 48,836; Dec 31, 2022 37,684 (in millions)",
				"Common stock and capital in excess of par value (4,137 issued and outstanding as of December 31, 2022): Apr 1, 2023 32,829; Dec 31, 2022 31,580 (in millions)",
				"Retained earnings: Apr 1, 2023 65,649; Dec 31, 2022 70,405 (in millions)",
			}},
		{"an amount split apart",
			"(in millions) 2023 2022 Accumulated amortization (10,18 9 ) (8,140 ) Net 1,440 9,837",
			[]string{
				"Accumulated amortization: 2023 (10,189); 2022 (8,140) (in millions)",
				"Net: 2023 1,440; 2022 9,837 (in millions)",
			}},
	}
	checkRows(t, tests)
}

// A header that states the day once before the years ("December 31,
// 2022 2021 2020") labels the columns by their years.
func TestDateBeforeYearsHeader(t *testing.T) {
	got := Rows("December 31, 2022 2021 2020 Conventional franchised 21,720 21,685 21,331 Developmental licensed 8,024 7,991 7,663 Total Systemwide restaurants 40,275 40,031 39,198")
	want := []string{
		"Conventional franchised: 2022 21,720; 2021 21,685; 2020 21,331",
		"Developmental licensed: 2022 8,024; 2021 7,991; 2020 7,663",
		"Total Systemwide restaurants: 2022 40,275; 2021 40,031; 2020 39,198",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
}

// rowCase is a table's flattened text and the rows it reads as.
type rowCase struct {
	name, text string
	want       []string
}

// checkRows checks the rows Rows reads from each case's text, none
// with a no-break space (mergeHeads's) left in.
func checkRows(t *testing.T, cases []rowCase) {
	t.Helper()
	for _, tt := range cases {
		got := Rows(tt.text)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		for _, r := range got {
			if strings.Contains(r, "\u00a0") {
				t.Errorf("%s: a no-break space left in %q", tt.name, r)
			}
		}
	}
}

// A contents list of dated statements (Apple's 2021 10-K, page 28) reads
// as a table whether or not its dates are merged into column headers, as
// it did before dates were headers: read as prose it was quoted whole.
func TestDatedContentsStayATable(t *testing.T) {
	text := "Consolidated Statements of Operations for the years ended September 25, 2021, September 26, 2020 and September 28, 2019 29 " +
		"Consolidated Balance Sheets as of September 25, 2021 and September 26, 2020 31 Notes to Consolidated Financial Statements 34 " +
		"Reports of Independent Registered Public Accounting Firm 52"
	if rows := Rows(text); rows == nil {
		t.Errorf("read as prose: %q", text)
	}
}
