package relevance

import (
	"slices"
	"testing"
)

// productTable is a table of sales by product as a PDF loader flattens
// it, with footnote references after its labels and a "$" before the
// first and the total rows' values.
const productTable = "Net sales by product for 2024 and 2023 were as follows (in millions): 2024 2023 " +
	"Phones (1) $ 1,200 $ 1,100 Tablets (1) 300 280 Watches, Rings and Bands (1)(2) 410 380 " +
	"Total net sales (3) $ 1,910 $ 1,760\n\n" +
	"(1) Products net sales include the deferred value of software upgrades. (2) Watches, Rings and Bands net sales include sales of straps."

// A row's label followed by footnote references ("(1)(2)") before its
// values is still a row of the table.
func TestRowWithFootnoteReferences(t *testing.T) {
	for _, claim := range []string{
		"Watches, Rings and Bands: 2024 410; 2023 380",
		"Tablets: 2024 300; 2023 280",
	} {
		if _, row := RowScope(productTable, claim); !row {
			t.Errorf("%q is not read as a row of its table", claim)
		}
	}
}

// A row labelled with what the question names states the measure its
// table's header names; the other products' rows do not answer.
func TestRowNamedByEntityUnderMeasureHeader(t *testing.T) {
	f := Analyze("What were Acme's Phones net sales in fiscal 2024?")
	if !f.NamesRow(productTable, "Phones: 2024 $1,200; 2023 $1,100") {
		t.Errorf("the row of the product asked about does not name the measure")
	}
	for _, row := range []string{"Tablets: 2024 300; 2023 280", "Watches, Rings and Bands: 2024 410; 2023 380"} {
		if f.NamesRow(productTable, row) {
			t.Errorf("%q names the measure asked about for Phones", row)
		}
	}
	// under a header that does not name the measure, the label alone
	// does not
	other := "Units shipped (in thousands): 2024 2023 Phones 1,200 1,100 Tablets 300 280 Watches 410 380"
	if f.NamesRow(other, "Phones: 2024 1,200; 2023 1,100") {
		t.Errorf("a row of units shipped names net sales")
	}
	// the judge reads the header as the row's subject: the measure is
	// addressed in its own words
	c := Context{Claim: "Phones: 2024 $1,200; 2023 $1,100", Heading: "Note 2 – Revenue", Document: "Acme Inc.\nfiscal year 2024"}
	c.ReadTable(productTable)
	if res := f.Check(c, float64(0), nil, nil); res.Focus < 1 {
		t.Errorf("focus %.2f in the question's own words, want 1: the header names net sales", res.Focus)
	}
}

// A row written under its columns' years ("Total stores: 2024 1,310")
// is labelled by the words before the years, not grouped under them.
func TestRowLabelBeforeYears(t *testing.T) {
	f := Analyze("How many Acme stores were there at year-end 2024?")
	content := "Stores by ownership type: 2024 2023 Franchised 1,200 1,150 Company-operated 110 105 Total Systemwide stores 1,310 1,255"
	if !f.NamesRow(content, "Total Systemwide stores: 2024 1,310; 2023 1,255") {
		t.Errorf("the total row does not name the stores counted")
	}
	if f.NamesRow(content, "Franchised: 2024 1,200; 2023 1,150") {
		t.Errorf("a member row names the stores counted")
	}
}

// A footnote's number is not the figure a question asks for.
func TestFootnoteNumberIsNoFigure(t *testing.T) {
	f := Analyze("What were Acme's Phones net sales in fiscal 2024?")
	c := Context{Claim: "(1) Products net sales include the deferred value of software upgrades."}
	if res := f.Check(c, float64(0), nil, nil); !hasRule(res, TypeMissing.Name) {
		t.Errorf("a footnote states the amount: %v", res.Findings)
	}
	c.Claim = "(1) Products net sales were $1,200 million."
	if res := f.Check(c, float64(0), nil, nil); hasRule(res, TypeMissing.Name) {
		t.Errorf("a footnote with an amount is refused: %v", res.Findings)
	}
}

// A number in a name or a model's designation ("5G", "M2") is no
// quantity; a scaled figure ("$5M") is.
func TestNumberInANameIsNoQuantity(t *testing.T) {
	f := Analyze("What were Acme's Phones net sales in fiscal 2024?")
	for claim, want := range map[string]bool{
		"• Updated Phones with 5G technology;":             false,
		"• All-new Studio, powered by the Acme M2 chip;":   false,
		"• Phones net sales were $5M in the quarter;":      true,
		"• Phones net sales reached 1,200 in fiscal 2024;": true,
	} {
		if got := states(f, claim); got != want {
			t.Errorf("%q states an amount: %v, want %v", claim, got, want)
		}
	}
}

func hasRule(res Result, rule string) bool {
	return slices.ContainsFunc(res.Findings, func(f Finding) bool { return f.Rule == rule })
}

// A count of what the question counts stated as where something is ("in
// over 1,000 stores") counts a subset: the stores that have it.
func TestSubsetCount(t *testing.T) {
	for _, tt := range []struct {
		q, claim string
		want     bool
	}{
		{"How many Acme stores were there at year-end 2024?", "The Company has pharmacy counters in over 1,000 stores globally, including most stores in the U.S.", true},
		{"How many Acme stores were there at year-end 2024?", "The Company operated 1,310 stores at year-end 2024.", false},
		{"How many Acme stores were there at year-end 2024?", "The fire resulted in 3 stores closing.", false},
		// the question itself counts where something is
		{"In how many stores does Acme have pharmacy counters?", "The Company has pharmacy counters in over 1,000 stores.", false},
	} {
		res := Analyze(tt.q).Check(Context{Claim: tt.claim}, float64(0), nil, nil)
		if got := hasRule(res, ScopePartOfTotal.Name); got != tt.want {
			t.Errorf("%q / %q: part of total %v, want %v (%v)", tt.q, tt.claim, got, tt.want, res.Findings)
		}
	}
}
