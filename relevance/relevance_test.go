package relevance

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/wordvec"
)

func TestAnalyze(t *testing.T) {
	f := Analyze("What were Oracle's total revenues in fiscal 2023?")
	if f.Type != TypeAmount || len(f.Entities) != 1 || f.Entities[0] != "Oracle's" || len(f.Periods) != 1 || f.Periods[0] != "2023" {
		t.Fatalf("frame: %+v", f)
	}
	if f := Analyze("What were Apple's iPhone net sales in fiscal 2022?"); !reflect.DeepEqual(f.Entities, []string{"Apple's", "iPhone"}) {
		t.Errorf("a possessive ends a name: entities %q", f.Entities)
	}
	// a contraction names no subject
	if f := Analyze("What right do private schools have that public schools don't?"); slices.ContainsFunc(f.Focus, func(st string) bool { return strings.ContainsAny(st, "'’") }) {
		t.Errorf("a contraction in the focus: %q", f.Focus)
	}
	// "whether or not" asks both ways
	if f := Analyze("What field studies whether or not a problem can be solved?"); f.Negated {
		t.Error(`"whether or not" read as a negation`)
	}
	if f := Analyze("What field does not study whether a problem can be solved?"); !f.Negated {
		t.Error(`"does not study" not read as a negation`)
	}
	// a preposition or conjunction is capitalised only because it opens
	// the question
	for _, q := range []string{
		"Within how many days may the customer raise an objection?",
		"Along with trusts, what other non-profits may run schools?",
		"Though the council supported it, what did it apply?",
	} {
		if f := Analyze(q); len(f.Entities) != 0 {
			t.Errorf("%q: entities %q", q, f.Entities)
		}
	}
	if f := Analyze("What gross margin did Intel forecast for the second quarter of 2023?"); !reflect.DeepEqual(f.Focus, []string{"gross", "margin", "forecast"}) {
		t.Errorf("the ordinal of a quarter is part of the period: focus %q", f.Focus)
	}
	// a period's wording is not the subject: "the year ended May 31,
	// 2023", "the three months ended October 31, 2022"
	for q, want := range map[string][]string{
		"What was FedEx's consolidated revenue for fiscal 2023 (the year ended May 31, 2023)?": {"consolid", "revenu"},
		"What were Salesforce's total revenues for the three months ended October 31, 2022?":   {"revenu"},
	} {
		if f := Analyze(q); !reflect.DeepEqual(f.Focus, want) {
			t.Errorf("%q: focus %q, want %q", q, f.Focus, want)
		}
	}
	if f := Analyze("What happens if an invoice is unpaid?"); len(f.Focus) != 2 {
		t.Errorf("\"what happens\" frames the question: focus %q", f.Focus)
	}
	for q, want := range map[string]AnswerType{
		"How many weeks of parental leave do employees get?":    TypeDuration,
		"How many restaurants were there at year-end 2022?":     TypeCount,
		"What percentage of Victorians are Christian?":          TypePercent,
		"How long must records be kept?":                        TypeDuration,
		"When were the Normans in Normandy?":                    TypeTime,
		"Who was the Norse leader?":                             TypeAgent,
		"Is the late fee 1.5% per month?":                       TypeYesNo,
		"What is the purpose of the agreement?":                 TypeAny,
		"What GAAP gross margin percentage did Intel forecast?": TypePercent,
		// what a rate was in a period is a figure; what a rate is, is
		// not necessarily
		"What was Apple's effective tax rate for fiscal 2022?":               TypePercent,
		"What was the unemployment rate in 2010?":                            TypePercent,
		"What is the time rate of change of electric charge?":                TypeAny,
		"What is the hourly rate for additional hours on the Standard tier?": TypeAny,
		"How often may the Client audit the Provider's compliance?":          TypeFrequency,
		"How many times may the Client audit the Provider?":                  TypeFrequency,
	} {
		if got := Analyze(q).Type; got != want {
			t.Errorf("%q: type %v, want %v", q, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	checks := float64(0.5)
	tests := []struct {
		name, q string
		c       Context
		fail    string // the failing check, "" when it must pass
	}{
		{"right entity and period", "What were Oracle's total revenues in fiscal 2023?",
			Context{Claim: "Total revenues were $49,954 million.", Heading: "Total Revenues", Document: "Oracle Corporation Form 10-K\nORACLE_2023_10K\nOracle Corporation\nfiscal year ended May 31, 2023"}, ""},
		{"other company", "What were Costco's total revenues in fiscal 2023?",
			Context{Claim: "Total revenues were $49,954 million.", Heading: "Total Revenues", Document: "Oracle Corporation Form 10-K\nORACLE_2023_10K\nOracle Corporation\nfiscal year ended May 31, 2023"}, "entity"},
		{"other year", "What were Oracle's total revenues in fiscal 2018?",
			Context{Claim: "Total revenues were $49,954 million.", Heading: "Total Revenues", Document: "Oracle Corporation Form 10-K\nORACLE_2023_10K\nOracle Corporation\nfiscal year ended May 31, 2023"}, "period"},
		{"a statement dated the year asked", "What was McDonald's net income in 2023?",
			Context{Claim: "Net income was $8,468.8 million in 2023, up from $6,177.4 million in 2022.", Heading: "Net Income", Document: "McDonald's Corporation\nfiscal year ended December 31, 2023"}, ""},
		{"a span holding the year asked", "How many soldiers served in 1943?",
			Context{Claim: "From 1939 to 1945, 1.2 million soldiers served.", Document: "The army in 1943"}, ""},
		{"a decade holding the year asked", "How many soldiers served in 1943?",
			Context{Claim: "In the 1940s, 1.2 million soldiers served.", Document: "The army in 1943"}, ""},
		{"a fiscal year ending in the next calendar year", "What were the company's net sales in fiscal 2023?",
			Context{Claim: "Net sales were $611.3 billion for the year ended January 31, 2024.", Document: "Annual report for fiscal 2023"}, ""},
		{"a month abbreviated before its day", "What were Intel's cash and cash equivalents as of April 1, 2023?",
			Context{Claim: "Assets Current assets: Cash and cash equivalents $ 8,232 $ 11,144", Heading: "(In Millions) Apr 1, 2023 Dec 31, 2022", Document: "Intel Corporation\nfirst quarter 2023"}, ""},
		{"another month abbreviated", "What were Intel's cash and cash equivalents as of April 1, 2023?",
			Context{Claim: "Assets Current assets: Cash and cash equivalents $ 8,232 $ 11,144", Heading: "(In Millions) Mar 1, 2023 Dec 31, 2022", Document: "Intel Corporation\nfirst quarter 2023"}, "period"},
		{"a frequency", "How often may the Client audit the Provider's compliance?",
			Context{Claim: "Client may audit Provider's compliance with this Addendum once in any twelve (12) month period."}, ""},
		{"no frequency", "How often must authorised users change their passwords?",
			Context{Claim: "Client shall ensure that each authorised user keeps its passwords confidential and changes them when compromised."}, "type"},
		{"a negation that bounds the change asked about", "By how much may the Provider increase the Fees at renewal?",
			Context{Claim: "No increase shall exceed four percent (4%) of the Fees in effect immediately before the increase.", Passage: "Provider may increase the Fees at the start of any Renewal Term."}, ""},
		{"a year as a bound", "How many soldiers served after 1943?",
			Context{Claim: "In 1944, 1.2 million soldiers served.", Document: "The army in 1943"}, ""},
		{"a length of time is not a sum of a measure", "How much revenue did Slack generate in the three months ended October 31, 2022?",
			Context{Claim: "For three months ended October 31, 2022, general and administrative revenue costs were relatively consistent with the prior period.", Document: "Slack revenue report 2022"}, "type"},
		{"but answers how much notice", "How much notice must the Provider give?",
			Context{Claim: "The Provider must give thirty days' notice."}, ""},
		{"no count", "How many weeks of parental leave do employees get?",
			Context{Claim: "Employees are entitled to parental leave under the policy."}, "type"},
		{"other focus", "How many weeks of parental leave do employees get?",
			Context{Claim: "Employees get 25 days of annual leave."}, "focus"},
		{"answers", "How many weeks of parental leave do employees get?",
			Context{Claim: "Employees get 16 weeks of parental leave."}, ""},
		{"negated", "Who had to let the jurors know about the verdict?",
			Context{Claim: "The Judge need not inform jurors about the verdict."}, "polarity"},
		{"a negation in a clause about a noun", "How often may the Client audit the Provider's compliance?",
			Context{Claim: "Client may audit Provider's compliance once in any twelve (12) month period, in a way that does not disrupt Provider's operations."}, ""},
		{"or after which", "How often may the Client audit the Provider's compliance?",
			Context{Claim: "Client may audit Provider's compliance once a year, which does not oblige the Provider to pay for the audit."}, ""},
		{"but a clause about a noun can negate the focus", "What part of the immune system directly attacks microbes?",
			Context{Claim: "NK cells are a part of the immune system which does not directly attack microbes."}, "polarity"},
		{"a negation in a clause a verb reports", "Who had to let the jurors know about the verdict?",
			Context{Claim: "The court ruled that the Judge need not inform jurors about the verdict."}, "polarity"},
		{"a negated condition on what the answer states", "Within how many days are invoices payable?",
			Context{Claim: "Invoices are payable within forty-five (45) days of the invoice date, and a late fee applies to amounts not received within that period."}, ""},
		{"the same negation alone", "Within how many days are invoices payable?",
			Context{Claim: "A late fee applies to invoices not paid within forty-five (45) days."}, "polarity"},
		{"a negative question answered by the same negation", "What do encrypted broadcasts not require?",
			Context{Claim: "Some broadcasts are encrypted but do not require a monthly subscription."}, ""},
		{"or a negative prefix", "Which broadcasts are not encrypted?",
			Context{Claim: "Some broadcasts are free-to-air and unencrypted."}, ""},
		{"a negation after \"able to be\"", "Which refusal was not able to be justified?",
			Context{Claim: "The refusal to admit him to the bar could not be justified."}, ""},
		{"a negation of another word", "What did the government not fail to implement?",
			Context{Claim: "If a member state has failed to implement a Directive, a citizen may not be able to bring claims."}, "polarity"},
		{"double negation is positive", "How much notice must the Provider give before replacing Key Personnel?",
			Context{Claim: "Provider shall not replace Key Personnel without giving at least fifteen (15) days' notice."}, ""},
		{"stated quantity", "Who formulated laws not improved on for three thousand years?",
			Context{Claim: "Newton formulated laws that were not improved on for three hundred years."}, "quantity"},
		{"a period's length is not an amount", "What was FedEx Express's total jet fuel cost in fiscal 2023?",
			Context{Claim: "The following table sets forth FedEx Express's costs for jet fuel for the last five fiscal years:", Document: "FedEx Corporation\nfiscal year ended May 31, 2023"}, "type"},
		{"nor a count", "How many employees did the company have?",
			Context{Claim: "The company has employed staff for 30 years."}, "type"},
		{"an amount beside a period", "What was FedEx Express's total jet fuel cost in fiscal 2023?",
			Context{Claim: "Jet fuel cost FedEx Express $4,588 million in the last 12 months of fiscal 2023.", Document: "FedEx Corporation\nfiscal year ended May 31, 2023"}, ""},
		{"a percentage is not an amount", "What were Oracle's revenues from the Americas region in fiscal 2023?",
			Context{Claim: "In constant currency, the Americas, the EMEA and the Asia Pacific regions contributed 84%, 10% and 6%, respectively, of the total revenue growth during fiscal 2023.", Document: "Oracle Corporation\nfiscal year ended May 31, 2023"}, "type"},
		{"nor a count", "How many full-time employees did the company have?",
			Context{Claim: "About 27 percent of our full-time employees work remotely."}, "type"},
		{"a rate is an amount", "What are the late payment penalties?",
			Context{Claim: "Client shall be assessed a late fee of 1.5% per month on the overdue amount.", Heading: "Late Payment Penalties"}, ""},
		{"the size of a change is not the level", "What was Apple's total net sales in fiscal 2022?",
			Context{Claim: "Total net sales increased 8% or $28.5 billion during 2022 compared to 2021.", Document: "Apple Inc.\nfiscal year ended September 24, 2022"}, "type"},
		{"the level a change reached is", "What was Apple's total net sales in fiscal 2022?",
			Context{Claim: "Total net sales increased to $394.3 billion during 2022.", Document: "Apple Inc.\nfiscal year ended September 24, 2022"}, ""},
		{"a change asked about", "By how much did Apple's total net sales increase in fiscal 2022?",
			Context{Claim: "Total net sales increased 8% or $28.5 billion during 2022 compared to 2021.", Document: "Apple Inc.\nfiscal year ended September 24, 2022"}, ""},
		{"a part is not the whole's level", "What were Oracle's total revenues in fiscal 2023?",
			Context{Claim: "In reported currency, Cerner contributed $5.9 billion to our total revenues during fiscal 2023.", Document: "Oracle Corporation\nfiscal year ended May 31, 2023"}, "type"},
		{"a part asked about", "How much did Cerner contribute to Oracle's total revenues in fiscal 2023?",
			Context{Claim: "In reported currency, Cerner contributed $5.9 billion to our total revenues during fiscal 2023.", Document: "Oracle Corporation\nfiscal year ended May 31, 2023"}, ""},
		{"nor what a segment accounted for", "What were the company's total revenues in 2022?",
			Context{Claim: "Our cloud segment accounted for $12.1 billion of total revenues in 2022."}, "type"},
		{"'one' as a determiner is not a count", "How many restaurants did the company operate in 2020?",
			Context{Claim: "In 2020 the company began reporting its restaurants as one segment under one brand."}, "type"},
		{"a day of a date is not an amount", "What was Apple's balance of cash and cash equivalents as of September 26, 2020?",
			Context{Claim: "We have audited the consolidated balance sheets of Apple Inc. as of September 25, 2021 and September 26, 2020, and the related statements of cash flows.", Document: "Apple Inc.\nfiscal year ended September 25, 2021"}, "type"},
		{"nor a reference's label", "What were the company's total revenues in 2022?",
			Context{Claim: "Total revenues for 2022 are disaggregated in Note 11 of the financial statements in Item 8 of this Form 10-K."}, "type"},
		{"nor are the lengths of periods in a row", "What were Salesforce's total revenues for the full fiscal year ended January 31, 2023?",
			Context{Claim: "The results for the three and nine months ended October 31, 2022 are not necessarily indicative of the results for the fiscal year ending January 31, 2023.", Document: "Salesforce, Inc.\nquarterly period ended October 31, 2022"}, "type"},
		{"a number of qualified days is a duration", "How many business days does the supplier have to fix a deliverable?",
			Context{Claim: "Provider shall correct the Deliverable within ten (10) Business Days.", Heading: "Acceptance of Deliverables"}, ""},
		{"nor is a share without 'of'", "What were Oracle's revenues from the Americas region in fiscal 2023?",
			Context{Claim: "The Americas, the EMEA and the Asia Pacific regions contributed 86%, 11% and 3%, respectively, to the revenue growth during fiscal 2023.", Document: "Oracle Corporation\nfiscal year ended May 31, 2023"}, "type"},
		{"a unit with an article is not a quantity", "How many earthquakes does southern California experience in a year?",
			Context{Claim: "Each year, the southern California area has about 10,000 earthquakes."}, ""},
		{"but a number of units is", "How many earthquakes does southern California experience in three years?",
			Context{Claim: "Each year, the southern California area has about 10,000 earthquakes."}, "quantity"},
		{"a name in the sentence before", "Who commissioned the Tapestry?",
			Context{Claim: "It was commissioned by Odo, the Bishop of Bayeux.", Passage: "The Tapestry is an embroidered cloth. It was commissioned by Odo, the Bishop of Bayeux. It is kept in Bayeux.", Before: "The Tapestry is an embroidered cloth. It was commissioned by Odo, the Bishop of Bayeux."}, ""},
		{"a name only in the sentence after", "What was invented by Savery?",
			Context{Claim: "The atmospheric engine was invented by Thomas Newcomen around 1712.", Passage: "The atmospheric engine was invented by Thomas Newcomen around 1712. It was an improvement over Savery's steam pump.", Before: "The atmospheric engine was invented by Thomas Newcomen around 1712."}, "entity"},
		{"two-word name in a row", "When was Michigan Network formed?",
			Context{Claim: "Merit Network, governed by Michigan's public universities, was formed in 1966."}, "entity"},
	}
	for _, tt := range tests {
		// rarity weights as the judge computes them: "parental" is rarer
		// than "leave" or "employees"
		weigh := func(st string) float64 {
			if st == "parent" {
				return 4
			}
			return 1
		}
		res := Analyze(tt.q).Check(tt.c, checks, nil, weigh)
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.Check)
		}
		switch {
		case tt.fail == "" && !res.OK():
			t.Errorf("%s: rejected: %v", tt.name, res.Findings)
		case tt.fail != "" && !strings.Contains(strings.Join(got, ","), tt.fail):
			t.Errorf("%s: want a %s finding, got %v", tt.name, tt.fail, res.Findings)
		}
	}
}

func TestFold(t *testing.T) {
	if wordvec.Fold("Möngke") != "mongke" {
		t.Fatal(wordvec.Fold("Möngke"))
	}
}
