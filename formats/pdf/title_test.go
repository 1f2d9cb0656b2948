package pdf

import "testing"

// An exhibit's label and a copy's stamp are not its title.
func TestBareTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Exhibit 10.16 ENDORSEMENT AGREEMENT": "ENDORSEMENT AGREEMENT",
		"EXHIBIT B":                           "",
		"Exhibit 2.7":                         "",
		"EXHIBIT 10.2 EXECUTION VERSION":      "",
		"Annex A-1: Pricing":                  "Pricing",
		"Redacted Copy":                       "",
		"CONFIDENTIAL TREATMENT REQUESTED":    "",
		"Exhibitions and Events Agreement":    "Exhibitions and Events Agreement",
		"Confidentiality Agreement":           "Confidentiality Agreement",
		"SUPPLY AGREEMENT":                    "SUPPLY AGREEMENT",
		"Appendix to the Report":              "Appendix to the Report",
		"EXHIBIT TO THE MERGER AGREEMENT":     "EXHIBIT TO THE MERGER AGREEMENT",
		"Exhibit 99.1 Press Release":          "Press Release",
	} {
		if got := bareTitle(in); got != want {
			t.Errorf("bareTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// A contract filed as an exhibit is titled by its own heading, not by
// the exhibit's number, an address, a clause or a legend.
func TestCoverTitleOfExhibit(t *testing.T) {
	h := func(level int, text string) hline { return hline{line: line{page: 1, text: text}, level: level} }
	for _, c := range []struct {
		marked []hline
		want   string
	}{
		{[]hline{h(1, "Exhibit 2.7"), h(0, "FORM OF"), h(1, "TRADEMARK LICENSE AGREEMENT")}, "TRADEMARK LICENSE AGREEMENT"},
		{[]hline{h(1, "Exhibit 2.7"), h(1, "FORM OF"), h(1, "TRADEMARK LICENSE AGREEMENT")}, "FORM OF TRADEMARK LICENSE AGREEMENT"},
		// nothing to join: the next heading is a label
		{[]hline{h(1, "FORM OF"), h(1, "Exhibit 2.7")}, "FORM OF"},
		{[]hline{h(1, "EXHIBIT 10.8"), h(1, "780 Montague Expressway Suite 406"), h(1, "1. Products")}, ""},
		{[]hline{h(1, "REDACTED COPY"), h(1, "CONFIDENTIAL PORTIONS OF THIS DOCUMENT HAVE BEEN REDACTED AND SEPARATELY FILED WITH THE COMMISSION"), h(1, "ENDORSEMENT AGREEMENT")}, "ENDORSEMENT AGREEMENT"},
	} {
		if got := coverTitle(nil, c.marked, ""); got != c.want {
			t.Errorf("coverTitle(%v) = %q, want %q", c.marked, got, c.want)
		}
	}
}
