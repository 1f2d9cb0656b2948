package facts

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExtract(t *testing.T) {
	cases := []struct {
		in   string
		want []string // "kind:value unit per" or "date:YYYY-MM-DD"
	}{
		{"a late fee of 1.5% per month", []string{"percent:1.5  month"}},
		{"1.5 percent", []string{"percent:1.5  "}},
		{"fifteen per cent", []string{"percent:15  "}},
		{"within thirty (30) days", []string{"duration:30 day "}},
		{"within 30 (thirty) days", []string{"duration:30 day "}},
		{"sixty (60) days overdue", []string{"duration:60 day "}},
		{"two years", []string{"duration:24 month "}},
		{"a 12-month term", []string{"duration:12 month "}},
		{"ten business days", []string{"duration:10 day "}},
		{"2 weeks", []string{"duration:14 day "}},
		{"$10,000", []string{"money:10000 USD "}},
		{"USD 2.5 million", []string{"money:2.5e+06 USD "}},
		{"€5,000", []string{"money:5000 EUR "}},
		{"5,000 euros", []string{"money:5000 EUR "}},
		{"$500 per month", []string{"money:500 USD month"}},
		{"$1,200 annually", []string{"money:1200 USD year"}},
		{"January 15, 2024", []string{"date:2024-01-15"}},
		{"15 March 2024", []string{"date:2024-03-15"}},
		{"the 1st of March, 2024", []string{"date:2024-03-01"}},
		{"2024-01-15", []string{"date:2024-01-15"}},
		{"March 2024", []string{"date:2024-03-??"}},
		{"31/12/2024", []string{"date:2024-12-31"}},
		{"12/31/2024", []string{"date:2024-12-31"}},
		{"5 employees and 10 contractors", []string{"number:5 employe ", "number:10 contractor "}},
		{"Section 7.1 and page 8", nil},
		{"three options", nil},
		{"Client may 5 units", []string{"number:5 unit "}},
		{"call 555-1234", nil},
		{"A late fee of 1.5% per month applies after thirty (30) days; the cap is $10,000.",
			[]string{"percent:1.5  month", "duration:30 day ", "money:10000 USD "}},
	}
	for _, c := range cases {
		var got []string
		for _, f := range Extract(c.in) {
			if f.Kind == Date {
				got = append(got, "date:"+f.Date.String())
				continue
			}
			got = append(got, fmt.Sprintf("%s:%g %s %s", f.Kind, f.Value, f.Unit, f.Per))
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Extract(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExtractOffsets(t *testing.T) {
	in := "If payment is not received within thirty (30) days, a fee of 1.5% per month applies."
	fs := Extract(in)
	if len(fs) != 2 {
		t.Fatalf("got %d facts, want 2: %+v", len(fs), fs)
	}
	for _, f := range fs {
		if in[f.Start:f.End] != f.Text {
			t.Errorf("offsets %d:%d give %q, Text is %q", f.Start, f.End, in[f.Start:f.End], f.Text)
		}
	}
	if fs[0].Text != "thirty (30) days" || fs[1].Text != "1.5% per month" {
		t.Errorf("texts = %q, %q", fs[0].Text, fs[1].Text)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name, claim, evidence string
		// want: "" = no mismatch, "contradiction" or "unsupported"
		want string
	}{
		{"percent same", "a late fee of 1.5% per month", "assessed a late fee of 1.5% per month", ""},
		{"percent words", "a fee of 1.5 percent", "a fee of 1.5% applies", ""},
		{"percent differs", "late fee is 5% per month", "a late fee of 1.5% per month", "contradiction"},
		{"percent differs reverse", "late fee is 1.5% per month", "a late fee of 5% per month", "contradiction"},
		{"percent other period", "1.5% per year", "1.5% per month", "contradiction"},
		{"percent absent", "a discount of 10%", "no discounts are offered", "unsupported"},
		{"percent present elsewhere", "credits of 5%", "late fee 1.5%; service credits of 5% of fees", ""},
		{"duration words vs digits", "within 30 days", "within thirty (30) days", ""},
		{"duration digits vs words", "within thirty (30) days", "within 30 days", ""},
		{"duration words only", "within thirty days", "within 30 days", ""},
		{"duration differs", "within 30 days", "within sixty (60) days", "contradiction"},
		{"duration differs reverse", "after 60 days", "after thirty (30) days", "contradiction"},
		{"duration year vs months", "one year", "twelve (12) months", ""},
		{"duration business qualifier ignored", "10 days", "ten (10) business days", ""},
		{"money same", "$10,000", "USD 10,000", ""},
		{"money differs", "a cap of $15,000", "liability is capped at $10,000", "contradiction"},
		{"money differs reverse", "a cap of $10,000", "liability is capped at $15,000", "contradiction"},
		{"money currency differs", "€10,000", "$10,000", "contradiction"},
		{"money bare number", "$10,000", "a cap of 10,000", ""},
		{"money million", "$2 million", "$2,000,000", ""},
		{"date same formats", "on January 15, 2024", "on 2024-01-15", ""},
		{"date differs", "on January 15, 2024", "on 2024-02-15", "contradiction"},
		{"date differs reverse", "2024-02-15", "January 15, 2024", "contradiction"},
		{"date month only", "in March 2024", "on 15 March 2024", ""},
		{"date ambiguous", "03/04/2024", "April 3, 2024", ""},
		{"number same", "5 employees", "five (5) employees", ""},
		{"number differs", "5 employees", "10 employees", "contradiction"},
		{"number in duration", "30", "thirty (30) days", ""},
		{"number unsupported", "42 widgets", "no numbers here", "unsupported"},
		{"number different unit not contradiction", "42 widgets", "7 gadgets", "unsupported"},
		{"no facts", "the client pays", "the client pays 5%", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms := Check(c.claim, c.evidence)
			got := ""
			if len(ms) > 0 {
				got = "unsupported"
				if ms[0].Contradiction() {
					got = "contradiction"
				}
			}
			if got != c.want {
				t.Errorf("Check(%q, %q) = %q %v, want %q", c.claim, c.evidence, got, ms, c.want)
			}
		})
	}
}

func TestMismatchString(t *testing.T) {
	ms := Check("Late fee is 5% per month", "a late fee of 1.5% per month")
	if len(ms) != 1 {
		t.Fatalf("got %d mismatches", len(ms))
	}
	if got, want := ms[0].String(), `answer says "5% per month", source says "1.5% per month"`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	ms = Check("a cap of $15,000", "no cap")
	if got, want := ms[0].String(), `answer says "$15,000", which the source does not state`; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"thirty (30) days", "$10,000.00 per month", "1.5%", "January 15, 2024", "12/31/2024",
		"two hundred thousand dollars", "USD 2.5 million", "((30)", "$.5", "5 (", "9999999999999999999999999999%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs := Extract(s)
		last := -1
		for _, x := range fs {
			if x.Start < 0 || x.End > len(s) || x.Start >= x.End {
				t.Fatalf("bad offsets %d:%d in %q", x.Start, x.End, s)
			}
			if x.Start < last {
				t.Fatalf("facts overlap or are unordered in %q: %+v", s, fs)
			}
			last = x.End
			if s[x.Start:x.End] != x.Text {
				t.Fatalf("Text %q differs from span %q", x.Text, s[x.Start:x.End])
			}
		}
		if utf8.ValidString(s) {
			_ = Check(s, s)
			if ms := Check(s, s); len(ms) != 0 {
				t.Fatalf("text contradicts itself: %q: %v", s, ms)
			}
		}
	})
}
