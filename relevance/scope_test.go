package relevance

import (
	"slices"
	"testing"
)

// Tables as the PDF loader flattens them (Oracle Corporation's fiscal
// 2023 Form 10-K, pages 45 and 49).
const (
	segmentTable = "Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022\n\n" +
		"Hardware Revenues: Americas $ 1,702 9% 10% $ 1,558 EMEA 933 -2% 3% 949 Asia Pacific 639 -5% 3% 676 " +
		"Total revenues 3,274 3% 6% 3,183 Expenses: Hardware products and support 1,011 7% 10% 944 " +
		"Sales and marketing 331 -8% -5% 361 Total expenses 1,342 3% 6% 1,305"
	wholeTable = "Year Ended May 31, Percent Change (Dollars in millions) 2023 Actual Constant 2022\n\n" +
		"Total Revenues by Geography: Americas $ 31,226 32% 32% $ 23,679 EMEA 12,109 1% 8% 12,011 " +
		"Asia Pacific 6,619 -2% 8% 6,750 Total revenues 49,954 18% 22% 42,440 Total Operating Expenses 36,861 17% 19% 31,514"
	prose = "Our revenues are reported by geography as follows: Americas, EMEA and Asia Pacific. " +
		"Total revenues 49,954 were reported in the table."
)

func TestRowScope(t *testing.T) {
	for _, tt := range []struct {
		content, claim, scope string
		row                   bool
	}{
		{segmentTable, "Total revenues 3,274 3% 6% 3,183", "Hardware Revenues", true},
		{segmentTable, "Total revenues: 2023 $3,274; 2022 $3,183", "Hardware Revenues", true},
		{segmentTable, "Total expenses 1,342 3% 6% 1,305", "Expenses", true},
		{segmentTable, "Expenses: Hardware products and support 1,011 7% 10% 944", "Expenses", true},
		{wholeTable, "Total revenues 49,954 18% 22% 42,440", "Total Revenues by Geography", true},
		{segmentTable, "Our hardware revenues grew.", "", false},
		{segmentTable, "Net income 812 790", "", false}, // not a row of this table
		// a sentence with a date and figures is prose, not a row labelled "At May"
		{"At May 31, 2023, we had $3,274 of cash. " + segmentTable, "At May 31, 2023, we had $3,274 of cash.", "", false},
		{"Total revenues were 3,274 in 2023. " + segmentTable, "Total revenues were 3,274 in 2023.", "", false},
		// a colon of prose a sentence before is no group label
		{prose, "Total revenues 49,954", "", true},
		// a sentence that cites a number on the way is prose, not a row
		// labelled by the words before that number
		{clause + " " + segmentTable, clause, "", false},
		{"Within thirty (30) days after termination, each Party shall return the information. " + segmentTable,
			"Within thirty (30) days after termination, each Party shall return the information.", "", false},
	} {
		scope, row := RowScope(tt.content, tt.claim)
		if scope != tt.scope || row != tt.row {
			t.Errorf("RowScope(%.30q…, %q) = %q, %v; want %q, %v", tt.content, tt.claim, scope, row, tt.scope, tt.row)
		}
	}
}

// clause is a contract's sentence with a section number in it.
const clause = "The obligations in this Section 12 continue during the Term and for five (5) years after the expiry or termination of this Agreement."

// A sentence read as a row would be judged by its own words and its
// heading only: the sentence after it, which the check reads for a
// statement, would not count.
func TestSentenceWithANumberReadsItsPassage(t *testing.T) {
	content := clause + " Obligations relating to trade secrets continue for as long as the information remains a trade secret."
	c := Context{Claim: clause, Passage: content, Heading: "Duration of Confidentiality"}
	c.Scope, c.Row = RowScope(content, clause)
	res := Analyze("How long do obligations about trade secrets continue?").Check(c, float64(0.5), nil, nil)
	if !res.OK() || res.Focus < 1 {
		t.Errorf("focus %.2f, missing %v, findings %v; want the passage's \"trade secret\" read", res.Focus, res.MissingFocus, res.Findings)
	}
}

func TestScopeAndRowFocus(t *testing.T) {
	doc := "Oracle Corporation Form 10-K\nORACLE_2023_10K\nOracle Corporation\nfiscal year ended May 31, 2023"
	check := func(q, content, claim, heading string) Result {
		c := Context{Claim: claim, Passage: content, Heading: heading, Document: doc}
		c.Scope, c.Row = RowScope(content, claim)
		return Analyze(q).Check(c, float64(0.5), nil, nil)
	}
	total := "What were Oracle's total revenues in fiscal 2023?"
	if res := check(total, wholeTable, "Total revenues 49,954 18% 22% 42,440", "Total Revenues and Operating Expenses"); !res.OK() {
		t.Errorf("the company's total row is rejected: %v", res.Findings)
	}
	res := check(total, segmentTable, "Total revenues 3,274 3% 6% 3,183", "Hardware Business")
	if !hasCheck(res, "scope") {
		t.Errorf("a segment's total answers a question about the company's total: %v", res.Findings)
	}
	// the same row answers the question about the segment
	if res := check("What were Oracle's hardware revenues in fiscal 2023?", segmentTable, "Total revenues 3,274 3% 6% 3,183", "Hardware Business"); !res.OK() {
		t.Errorf("the segment's total does not answer the segment question: %v", res.Findings)
	}
	// a member of the company's total is a part of it
	if res := check(total, wholeTable, "Total Revenues by Geography: Americas $31,226 32% 32% $23,679", "Total Revenues and Operating Expenses"); !hasCheck(res, "scope") {
		t.Errorf("one region's revenues answer the total: %v", res.Findings)
	}
	if res := check("What were Oracle's revenues in the Americas in fiscal 2023?", wholeTable, "Total Revenues by Geography: Americas $31,226 32% 32% $23,679", "Total Revenues and Operating Expenses"); !res.OK() {
		t.Errorf("the Americas row does not answer the question about the Americas: %v", res.Findings)
	}
	if res := check(total, wholeTable, "EMEA 12,109 1% 8% 12,011", "Total Revenues and Operating Expenses"); !hasCheck(res, "scope") {
		t.Errorf("one region's revenues answer the total: %v", res.Findings)
	}
	// a row's subject is its label, group and heading: an expenses row of
	// a table that also lists revenues does not address revenues
	if res := check(total, segmentTable, "Expenses: Hardware products and support 1,011 7% 10% 944", "Hardware Business"); !hasCheck(res, "focus") {
		t.Errorf("an expenses row addresses revenues: %v", res.Findings)
	}
}

func TestFigureQuestionsWantFigures(t *testing.T) {
	q := "What were Oracle's total revenues in fiscal 2023?"
	c := Context{Claim: "Our total revenues increased across our three businesses during fiscal 2023.", Document: "Oracle Corporation\nfiscal year ended May 31, 2023"}
	if res := Analyze(q).Check(c, float64(0), nil, nil); !hasCheck(res, "type") {
		t.Errorf("a count of businesses states the revenues: %v", res.Findings)
	}
	c.Claim = "Our total revenues were about fifty billion dollars in fiscal 2023."
	if res := Analyze(q).Check(c, float64(0), nil, nil); !res.OK() {
		t.Errorf("a scaled spelled amount is rejected: %v", res.Findings)
	}
	// "how much" keeps accepting spelled counts
	c = Context{Claim: "The Provider gives three weeks of notice."}
	if res := Analyze("How much notice must the Provider give?").Check(c, float64(0), nil, nil); hasCheck(res, "type") {
		t.Errorf("how much: %v", res.Findings)
	}
}

func TestMoneyIsNotACount(t *testing.T) {
	q := Analyze("How many employees did Salesforce have as of October 31, 2022?")
	for claim, want := range map[string]bool{
		"The increase was due to approximately $84 million in employee related costs.": false,
		"Employee related costs rose by 12 million dollars.":                           false,
		"As of October 31, 2022, Salesforce had approximately 79,000 employees.":       true,
	} {
		if got := states(q, claim); got != want {
			t.Errorf("%q states a count: %v, want %v", claim, got, want)
		}
	}
}

func TestPeriodQualifiersAreNotFocus(t *testing.T) {
	for _, q := range []string{"What were Oracle's total revenues in fiscal 2023?", "What was revenue in calendar year 2022?"} {
		for _, st := range Analyze(q).Focus {
			if st != "revenu" {
				t.Errorf("%q: focus %q", q, Analyze(q).Focus)
			}
		}
	}
	if f := Analyze("What is the company's fiscal policy?"); !slices.Contains(f.Focus, "fiscal") {
		t.Errorf("without a period, \"fiscal\" is the subject: %q", f.Focus)
	}
}

// The unit a figure is asked in says how to state it, not what it is of.
func TestUnitsAreNotFocus(t *testing.T) {
	for q, want := range map[string][]string{
		"What was Boston Properties' total revenue for 2015, in thousands of dollars?":       {"revenu"},
		"What was Intel's headcount, in thousands, at the end of the first quarter of 2023?": {"headcount"},
		"What was revenue in millions in 2023?":                                              {"revenu"},
		// a scale before what it counts is the subject's
		"How many people live in millions of homes?": {"peopl", "live", "million", "home"},
	} {
		if got := Analyze(q).Focus; !slices.Equal(got, want) {
			t.Errorf("%q: focus %q, want %q", q, got, want)
		}
	}
}

func hasCheck(r Result, check string) bool {
	for _, f := range r.Findings {
		if f.Check == check {
			return true
		}
	}
	return false
}

// A rate in a period is stated as a percentage or an amount per unit,
// not by a sum that bears on it.
func TestRateInAPeriodWantsAFigure(t *testing.T) {
	f := Analyze("What was Apple's effective tax rate for fiscal 2022?")
	for claim, want := range map[string]bool{
		"Effective tax rate: 2022 16.2%; 2021 13.3%; 2020 14.4%":                                                                           true,
		"the total amount of gross unrecognized tax benefits was $16.8 billion, of which $8.0 billion would impact the effective tax rate": false,
	} {
		if got := states(f, claim); got != want {
			t.Errorf("states(%q) = %v, want %v", claim, got, want)
		}
	}
	if !states(Analyze("What was the hourly rate in 2023?"), "Additional hours are charged at one hundred eighty-five US dollars (US$185) per hour.") {
		t.Error("a sum per hour does not state a rate")
	}
}

// A figure answers only for the measure the question names, as it names
// it: its compound name side by side, per unit when asked per unit, on
// the reported basis unless asked otherwise (Oracle's, FedEx's and Intel's
// filings).
func TestMeasureAsNamed(t *testing.T) {
	check := func(q, claim, heading, content string) Result {
		doc := "Oracle Intel FedEx Form 10-K\nfiscal 2023"
		c := Context{Claim: claim, Passage: claim, Heading: heading, Document: doc}
		c.Scope, c.Row = RowScope(content, claim)
		return Analyze(q).Check(c, float64(0.5), nil, nil)
	}
	netIncome := "What was Oracle's net income for fiscal 2023?"
	for _, tt := range []struct {
		name, q, claim, heading, content, fail string
	}{
		{"net … income apart", netIncome, "In fiscal 2023 our gross unrecognized tax benefits could decrease by as much as $538 million ($442 million net of offsetting tax benefits).",
			"INCOME TAXES", "", "focus"},
		{"the net income row", netIncome, "Net income 8,503 6,717 13,746", "Consolidated Statements of Operations", "Net income 8,503 6,717 13,746", ""},
		{"a row of a table of expenses", "What were Intel's research and development expenses in fiscal 2023?",
			"Research and development 4,109 4,362 Operating expenses 5,476 4,903", "Business Highlights",
			"Research and development 4,109 4,362 Operating expenses 5,476 4,903", ""},
		{"the per-share figure", "What were FedEx's diluted earnings per share for fiscal 2023?",
			"Diluted earnings per common share $ 15.48 $ 14.33 $ 19.45", "NOTE 11", "Diluted earnings per common share $ 15.48 $ 14.33 $ 19.45", ""},
		{"a pro forma figure", netIncome, "Net income $8,456 $4,988", "Unaudited Pro Forma Financial Information", "Net income $8,456 $4,988", "scope"},
		{"GAAP beside non-GAAP, GAAP asked for", "What GAAP gross margin percentage did Intel forecast for fiscal 2023?",
			"GAAP* Non-GAAP* Approximately Approximately Revenue $11.5-12.5 billion $11.5-12.5 billion^ Gross margin 33.2% 37.5%", "Business Outlook", "", ""},
		{"non-GAAP only, GAAP asked for", "What GAAP gross margin percentage did Intel forecast for fiscal 2023?",
			"Non-GAAP gross margin 37.5%", "Business Outlook", "", "scope"},
		{"the company's total for a segment", "What was Mobileye's revenue in Intel's first quarter of 2023?",
			"Total net revenue $11,715 $18,353", "Q1 2023 Business Highlights", "Revenue: Client Computing $5,767 $9,295 Mobileye $458 $394 Total net revenue $11,715 $18,353", "entity"},
		{"the segment's row", "What was Mobileye's revenue in Intel's first quarter of 2023?",
			"Revenue: Mobileye $458 $394", "Q1 2023 Business Highlights", "Revenue: Client Computing $5,767 $9,295 Mobileye $458 $394 Total net revenue $11,715 $18,353", ""},
		{"a pro forma figure asked for", "What was Oracle's pro forma net income for fiscal 2023?", "Net income $8,456 $4,988",
			"Unaudited Pro Forma Financial Information", "Net income $8,456 $4,988", ""},
	} {
		res := check(tt.q, tt.claim, tt.heading, tt.content)
		switch {
		case tt.fail == "" && !res.OK():
			t.Errorf("%s: rejected: %v", tt.name, res.Findings)
		case tt.fail != "" && !hasCheck(res, tt.fail):
			t.Errorf("%s: want a %s finding, got %v", tt.name, tt.fail, res.Findings)
		}
	}
	// the rows around a row do not make it about what they name
	intel := "Revenue: Client Computing $5,767 $9,295 Mobileye $458 $394 Total net revenue $11,715 $18,353"
	c := Context{Claim: "Total net revenue $11,715 $18,353", Passage: intel, Heading: "Q1 2023 Business Highlights", Document: "Intel Corporation\nfirst quarter 2023"}
	c.Scope, c.Row = RowScope(intel, c.Claim)
	if res := Analyze("What was Mobileye's revenue in Intel's first quarter of 2023?").Check(c, float64(0.5), nil, nil); !hasCheck(res, "entity") {
		t.Errorf("the company's total answers for a segment named in the rows beside it: %v", res.Findings)
	}
	// a table's unit is not a figure
	if states(Analyze("What was FedEx Express's total jet fuel cost in fiscal 2023?"), "Total Jet Fuel Cost (in millions)") {
		t.Error(`"(in millions)" states a cost`)
	}
}

// statementTable is an income statement as the PDF loader flattens it
// (eBay's first-quarter 2023 earnings release, page 8).
const statementTable = "Net revenues $ 2,510 $ 2,483 Cost of net revenues (1) 700 689 Gross profit 1,810 1,794 Operating expenses: Sales and marketing (1) 511 478 Product development (1) 352 301 General and administrative (1) 297 226 Provision for transaction losses 84 96 Total operating expenses 1,252 1,102 Income from operations 558 692"

// segmentNote is a segment note's table as the PDF loader flattens it.
const segmentNote = "Year Ended May 31, (in millions) 2023 2022 2021\n\nCloud and license: Revenues $ 41,086 $ 36,052 $ 34,101 Cloud services and license support expenses 7,222 4,915 4,133 Sales and marketing expenses 7,738 7,054 6,799 Margin $ 26,126 $ 24,083 $ 23,169 Hardware: Revenues $ 3,274 $ 3,183 $ 3,359 Hardware products and support expenses 1,011 944 945 Sales and marketing expenses 331 361 388 Margin $ 1,932 $ 1,878 $ 2,026 Totals: Revenues $ 49,954 $ 42,440 $ 40,481 Expenses 20,792 15,813 14,658"

// A label that recurs under another group is in the group of the row
// quoted.
func TestRowScopeOfARecurringLabel(t *testing.T) {
	for claim, want := range map[string]string{
		"Sales and marketing expenses 7,738 7,054 6,799": "Cloud and license",
		"Sales and marketing expenses 331 361 388":       "Hardware",
	} {
		if got, row := RowScope(segmentNote, claim); got != want || !row {
			t.Errorf("RowScope(%q) = %q, %v, want %q", claim, got, row, want)
		}
	}
}

func TestTableRow(t *testing.T) {
	for _, tt := range []struct{ q, content, want string }{
		{"What were Oracle's total revenues in fiscal 2023?", wholeTable, "Total revenues"},
		// a segment's total, and prose that names the measure before a year
		{"What were Oracle's total revenues in fiscal 2023?", segmentTable, ""},
		{"What were Oracle's total revenues in fiscal 2023?", "Our total revenues increased in fiscal 2023 by 18%.", ""},
		{"What were Oracle's total revenues in fiscal 2023?", "In reported currency, Cerner contributed $5.9 billion to our total revenues.", ""},
		{"What were the total operating expenses in fiscal 2023?", wholeTable, "Total Operating Expenses"},
		// no figure asked for
		{"Why did Oracle's total revenues grow in fiscal 2023?", wholeTable, ""},
		// a row names its group's head noun: "General and administrative"
		// under "Operating expenses:" is the general and administrative
		// expenses, and "Operating" is its category, not a narrower part
		{"What were the general and administrative expenses in the first quarter of 2023?", statementTable, "General and administrative"},
		{"What were the sales and marketing expenses in the first quarter of 2023?", statementTable, "Operating expenses: Sales and marketing"},
		// a group named for a segment holds that segment's rows: none of
		// them is the company's (Oracle's fiscal 2023 Form 10-K, page 103)
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", segmentNote, ""},
		{"What were Oracle's total revenues in fiscal 2023?", segmentNote, "Totals: Revenues"},
		{"What were the hardware sales and marketing expenses in fiscal 2023?", segmentNote, "Sales and marketing expenses"},
		// but a group still narrows a measure its rows do not complete
		{"What were the total operating expenses in the first quarter of 2023?", statementTable, "Total operating expenses"},
	} {
		if got := Analyze(tt.q).TableRow(tt.content); got != tt.want {
			t.Errorf("TableRow(%q, %.40q…) = %q, want %q", tt.q, tt.content, got, tt.want)
		}
	}
}

func TestTabular(t *testing.T) {
	for text, want := range map[string]bool{
		wholeTable:                             true,
		"Total revenues 49,954 18% 22% 42,440": true,
		// a date's day and year are no values
		"As of September 25, 2021, the Company had approximately 154,000 full-time equivalent employees.": false,
		"Our total revenues increased 18% in fiscal 2023.":                                                false,
	} {
		if got := Tabular(text); got != want {
			t.Errorf("Tabular(%.50q) = %v, want %v", text, got, want)
		}
	}
}

// A row's label names what its last word before a comma, parenthesis or
// preposition names: "Employee stock awards" states awards, not employees
// (Salesforce's third-quarter 2023 10-Q, page 27); a segment's group
// holds that segment's rows (Oracle's fiscal 2023 Form 10-K, page 103).
func TestRowHeadAndPart(t *testing.T) {
	check := func(q, content, claim string) Result {
		c := Context{Claim: claim, Passage: claim, Heading: "Results", Document: "Form 10-K\nfiscal year 2023"}
		c.Scope, c.Row = RowScope(content, claim)
		return Analyze(q).Check(c, float64(0.5), nil, nil)
	}
	employees := "How many employees did Salesforce have as of October 31, 2022?"
	const shares = "Weighted-average shares outstanding 998 1,000 Employee stock awards 44 2 37 4"
	if res := check(employees, shares, "Employee stock awards 44 2 37 4"); !hasCheck(res, "scope") {
		t.Errorf("a row of awards counts the employees: %v", res.Findings)
	}
	for q, claim := range map[string]string{
		"How many employees did Intel have at the end of 2023?":           "Number of employees 124,800 131,900",
		"What were Intel's cash and cash equivalents at the end of 2023?": "Cash and cash equivalents, end of period $ 7,079 $ 11,144",
		"What was diluted net income per share in fiscal 2023?":           "Net income per share 3.07 2.41",
		"What were Oracle's revenues from the Americas in fiscal 2023?":   "Americas $ 31,226 $ 23,679",
	} {
		if res := check(q, claim, claim); hasCheck(res, "scope") {
			t.Errorf("%q rejected for %q: %v", claim, q, res.Findings)
		}
	}
	sm := "What were Oracle's sales and marketing expenses in fiscal 2023?"
	if res := check(sm, segmentNote, "Sales and marketing expenses 7,738 7,054 6,799"); !hasCheck(res, "scope") {
		t.Errorf("a segment's row answers for the company: %v", res.Findings)
	}
	if res := check("What were the hardware sales and marketing expenses in fiscal 2023?", segmentNote, "Sales and marketing expenses 331 361 388"); hasCheck(res, "scope") {
		t.Errorf("the segment's row rejected for the segment: %v", res.Findings)
	}
	// a period or a unit is no part
	for _, scope := range []string{"Three Months Ended", "Year Ended December 31", "(In millions)", "Fiscal 2023", "Q1 2023"} {
		if Analyze(sm).partOf(scope) {
			t.Errorf("%q read as a part", scope)
		}
	}
	// a group of measures is a category, not a part
	if res := check("What were the general and administrative expenses in the first quarter of 2023?", statementTable, "General and administrative (1) 297 226"); hasCheck(res, "scope") {
		t.Errorf("a row under \"Operating expenses:\" rejected: %v", res.Findings)
	}
}

// The verb a figure is asked through ("did Salesforce report") is not
// what it is of (Salesforce's third-quarter 2023 10-Q, page 22).
func TestReportingVerbIsNotFocus(t *testing.T) {
	f := Analyze("How much goodwill did Salesforce report on its balance sheet as of October 31, 2022?")
	if slices.Contains(f.Focus, "report") {
		t.Errorf("focus %q", f.Focus)
	}
	c := Context{Claim: "Goodwill 48,555 47,937", Passage: "Goodwill 48,555 47,937", Heading: "Condensed Consolidated Balance Sheets", Document: "salesforce, inc. Form 10-Q\nOctober 31, 2022"}
	if res := f.Check(c, float64(0.5), nil, nil); hasCheck(res, "focus") {
		t.Errorf("the goodwill's row rejected: %v", res.Findings)
	}
	buyers := Analyze("How many active buyers, in millions, did eBay report for the quarter ended March 31, 2023?")
	if !slices.Equal(buyers.Focus, []string{"activ", "buyer"}) {
		t.Errorf("focus %q", buyers.Focus)
	}
	// without a figure asked for, "report" is what is asked about
	if f := Analyze("What did RM 3420 report?"); !slices.Contains(f.Focus, "report") {
		t.Errorf("focus %q", f.Focus)
	}
	// (Oracle's fiscal 2023 Form 10-K, page 13)
	rd := Analyze("Approximately how many Oracle employees worked in research and development as of May 31, 2023?")
	workforce := "As of May 31, 2023, we employed approximately 164,000 full-time employees, of which approximately 47,000 were in research and development."
	c = Context{Claim: workforce, Passage: workforce, Heading: "Workforce", Document: "Oracle Corporation Form 10-K\nfiscal year ended May 31, 2023"}
	if res := rd.Check(c, float64(0.5), nil, nil); hasCheck(res, "focus") {
		t.Errorf("the employees' count rejected: %v", res.Findings)
	}
}

func TestPartHeading(t *testing.T) {
	for _, tt := range []struct {
		q, heading, want string
	}{
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", "Hardware Business\nManagement's Discussion and Analysis", "Hardware Business"},
		{"What were Oracle's cloud revenues in fiscal 2023?", "Cloud and License Business", "Cloud and License Business"},
		// the question asks about the part
		{"What were Oracle's hardware sales and marketing expenses in fiscal 2023?", "Hardware Business", ""},
		// a heading about something else than a part, or whose head is not the part
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", "Segment Information", ""},
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", "Results of Operations by Business", ""},
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", "Total Business", ""},
		// a heading that names no one part
		{"What were Oracle's sales and marketing expenses in fiscal 2023?", "Reportable Segments", ""},
		{"What were Oracle's total revenues in fiscal 2023?", "Item 1. Business", ""},
		// a question that names no entity
		{"What were the sales and marketing expenses in fiscal 2023?", "Hardware Business", ""},
	} {
		if got := Analyze(tt.q).partHeading(tt.heading); got != tt.want {
			t.Errorf("%q under %q: part %q, want %q", tt.q, tt.heading, got, tt.want)
		}
	}
}

func TestPartHeadingIsAScopeFinding(t *testing.T) {
	f := Analyze("What were Oracle's sales and marketing expenses in fiscal 2023?")
	c := Context{Claim: "Sales and marketing 331", Heading: "Hardware Business", Row: true}
	if res := f.Check(c, float64(0), nil, nil); !hasCheck(res, "scope") {
		t.Errorf("a row under %q answered for Oracle: %v", c.Heading, res.Findings)
	}
	c.Heading = "Operating Expenses"
	if res := f.Check(c, float64(0), nil, nil); hasCheck(res, "scope") {
		t.Errorf("a row under %q refused: %v", c.Heading, res.Findings)
	}
}

func TestNarrowedMeasure(t *testing.T) {
	for _, tt := range []struct {
		q, claim, want string
	}{
		{"What was Boston Properties' total revenue for 2015?", "Hotel Net Operating Income for the year ended December 31, 2015 is comprised of Hotel Revenue of $46,046 less Hotel Expenses of $32,084.", "Hotel Revenue"},
		{"What was the total population of the region?", "The urban population was 1.2 million.", "urban population"},
		// one mention of the whole is enough
		{"What was Boston Properties' total revenue for 2015?", "Total revenue for 2015 was $2.49 billion, of which rental revenue was $2.2 billion.", ""},
		{"What was the total revenue?", "Revenue of $5 million came from hotels.", ""},
		{"What was the total revenue?", "An increase in revenue of $5 million.", ""},
		// the question's own words, the entity's, numbers and units
		{"What was Oracle's total revenue?", "Oracle's revenues were $50 billion.", ""},
		{"What was the total cloud revenue?", "Cloud revenue was $4 billion.", ""},
		{"What was the total margin?", "It earned a $1.2 billion margin.", ""},
		// a question that does not ask for the whole: a name is the thing
		{"How much is the termination fee?", "Client shall pay an early termination fee of $25,000.", ""},
		// a claim that does not mention the measure
		{"What was the total revenue?", "Sales were $5 million.", ""},
	} {
		if got := Analyze(tt.q).narrowedMeasure(tt.claim); got != tt.want {
			t.Errorf("%q / %q: narrowedMeasure = %q, want %q", tt.q, tt.claim, got, tt.want)
		}
	}
	// the check: a statement, not a row (a row is judged by its group's
	// label)
	q := Analyze("What was Boston Properties' total revenue for 2015?")
	claim := "Hotel Revenue of $46,046 less Hotel Expenses of $32,084 made up its income."
	if res := q.Check(Context{Claim: claim}, 0, nil, nil); !hasRule(res, ScopePartOfTotal.Name) {
		t.Errorf("statement of a part accepted: %v", res.Findings)
	}
	if res := q.Check(Context{Claim: claim, Row: true}, 0, nil, nil); hasRule(res, ScopePartOfTotal.Name) {
		t.Errorf("row refused as a statement: %v", res.Findings)
	}
}
