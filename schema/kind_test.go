package schema

import "testing"

// A preamble or recitals section read as one block may run on into the
// first numbered clauses; a sentence of those clauses is body text.
func TestKindAt(t *testing.T) {
	recitals := Section{Kind: KindRecitals, Content: "Whereas Contoso desires to become a distributor of Northwind's products.\n\n" +
		"NOW, THEREFORE, the parties hereto do hereby agree as follows:\n\n1. APPOINTMENT\n\n" +
		"1.1. Northwind hereby grants to Contoso the non-exclusive right\nand license to distribute the products in North America."}
	for _, c := range []struct {
		s    Section
		text string
		want SectionKind
	}{
		{recitals, "Whereas Contoso desires to become a distributor of Northwind's products.", KindRecitals},
		{recitals, "NOW, THEREFORE, the parties hereto do hereby agree as follows:", KindRecitals},
		// read out of its lines: the line break is a space
		{recitals, "1.1. Northwind hereby grants to Contoso the non-exclusive right and license to distribute the products in North America.", KindBody},
		// a sentence not found keeps the section's kind
		{recitals, "Something the section does not say.", KindRecitals},
		{Section{Kind: KindPreamble, Content: "This Agreement is made between Northwind (\"Seller\") and Contoso (\"Buyer\")."}, "This Agreement is made between Northwind (\"Seller\") and Contoso (\"Buyer\").", KindPreamble},
		// other kinds are the section's throughout
		{Section{Kind: KindSignature, Content: "IN WITNESS WHEREOF\n1. By: Jane Doe"}, "1. By: Jane Doe", KindSignature},
	} {
		if got := c.s.KindAt(c.text); got != c.want {
			t.Errorf("KindAt(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
