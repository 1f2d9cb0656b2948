package judge

import (
	"reflect"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/samplecontract"
)

func TestSplitClaims(t *testing.T) {
	type want struct {
		text  string
		cites []string
	}
	cases := []struct {
		name   string
		answer string
		want   []want
	}{
		{
			name:   "extractive output",
			answer: "8.1 If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount. (See Late Payment Penalties, page 8)\nProvider may suspend the Services if any undisputed amount is more than sixty (60) days overdue. (See Suspension of Services, page 9)",
			want: []want{
				{"8.1 If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount.", []string{"Late Payment Penalties, page 8"}},
				{"Provider may suspend the Services if any undisputed amount is more than sixty (60) days overdue.", []string{"Suspension of Services, page 9"}},
			},
		},
		{
			name:   "citation inside sentence and shared citation",
			answer: "The late fee is 1.5% per month (Late Payment Penalties, page 8). Fees accrue until paid. Costs of collection are recoverable (see Late Payment Penalties, p. 8; Fees and Invoicing, page 7).",
			want: []want{
				{"The late fee is 1.5% per month.", []string{"Late Payment Penalties, page 8"}},
				{"Fees accrue until paid.", []string{"Late Payment Penalties, page 8", "Fees and Invoicing, page 7"}},
				{"Costs of collection are recoverable.", []string{"Late Payment Penalties, page 8", "Fees and Invoicing, page 7"}},
			},
		},
		{
			name:   "id markers",
			answer: "- **The late fee is 1.5% per month** [S1].\n- Suspension needs 10 business days' notice [S2, S3].",
			want: []want{
				{"The late fee is 1.5% per month.", []string{"[S1]"}},
				{"Suspension needs 10 business days' notice.", []string{"[S2]", "[S3]"}},
			},
		},
		{
			name:   "paragraphs do not share citations",
			answer: "Uncited first paragraph here.\n\nThe fee is 5%. (See Service Credits, page 12)",
			want: []want{
				{"Uncited first paragraph here.", nil},
				{"The fee is 5%.", []string{"Service Credits, page 12"}},
			},
		},
		{name: "no content", answer: "Yes. (See Termination, pages 10–11)", want: nil},
		{name: "empty", answer: "  ", want: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			claims := SplitClaims(c.answer)
			var got []want
			for _, cl := range claims {
				w := want{text: cl.Text}
				for _, ci := range cl.Citations {
					w.cites = append(w.cites, ci.String())
				}
				got = append(got, w)
				if cl.Start < 0 || cl.End > len(c.answer) || cl.Start >= cl.End {
					t.Errorf("bad span %d:%d", cl.Start, cl.End)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("SplitClaims =\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestSplitClaimsSpans(t *testing.T) {
	answer := "The fee is 1.5%\nper month. (See Late Payment Penalties, page 8) Suspension follows after 60 days."
	claims := SplitClaims(answer)
	if len(claims) != 2 {
		t.Fatalf("got %d claims", len(claims))
	}
	if got := answer[claims[0].Start:claims[0].End]; got != "The fee is 1.5%\nper month. (See Late Payment Penalties, page 8)" {
		t.Errorf("span 0 = %q", got)
	}
	if got := answer[claims[1].Start:claims[1].End]; got != "Suspension follows after 60 days." {
		t.Errorf("span 1 = %q", got)
	}
}

func TestStripCitations(t *testing.T) {
	got := StripCitations("Fee is 1.5% [S1]. (See Late Payment Penalties, page 8)")
	if got != "Fee is 1.5%." {
		t.Errorf("StripCitations = %q", got)
	}
	// a marker inside a marker: taking the inner one out leaves the outer
	// one whole, and it goes too (found by FuzzSplitClaims)
	nested := "Fee is 1.5%. (See Fees, (See Late Payment Penalties, page 8) page 9) (0, (1, (2, page 3) page 4) page 5)"
	if got := StripCitations(nested); got != "Fee is 1.5%." {
		t.Errorf("StripCitations(%q) = %q", nested, got)
	}
	if cs := SplitClaims(nested); len(cs) != 1 || cs[0].Text != "Fee is 1.5%." || len(cs[0].Citations) != 5 {
		t.Errorf("SplitClaims(%q) = %+v, want one claim with its five citations", nested, cs)
	}
}

func TestCitationTitleWithParentheses(t *testing.T) {
	answer := "Franchised restaurants were 95% of the total. (See Amount Increase/(decrease), pages 12–13) " +
		"Net income rose. (See Net Income (Loss) (In millions), page 4)"
	cs := SplitClaims(answer)
	if len(cs) != 2 || cs[0].Text != "Franchised restaurants were 95% of the total." || cs[1].Text != "Net income rose." {
		t.Fatalf("SplitClaims = %+v", cs)
	}
	want := []Citation{{Title: "Amount Increase/(decrease)", Page: "12–13"}, {Title: "Net Income (Loss) (In millions)", Page: "4"}}
	for i, c := range cs {
		if len(c.Citations) != 1 || c.Citations[0].Title != want[i].Title || c.Citations[0].Page != want[i].Page {
			t.Errorf("claim %d cites %+v, want %+v", i, c.Citations, want[i])
		}
	}
	// a parenthesis that is not part of a title is left alone
	if got := StripCitations("Revenue (net) rose (See Sales, page 2)"); got != "Revenue (net) rose" {
		t.Errorf("StripCitations = %q", got)
	}
}

func TestResolveCitation(t *testing.T) {
	secs := samplecontract.Sections()
	cases := []struct {
		cite    Citation
		want    int
		problem string
	}{
		{Citation{Title: "Late Payment Penalties", Page: "8"}, 1, ""},
		{Citation{Title: "late payment penalties.", Page: "8"}, 1, ""},
		{Citation{Title: "Termination", Page: "11"}, 3, ""},
		{Citation{Title: "Termination", Page: "10–11"}, 3, ""},
		{Citation{Title: "Late Payment Penalties", Page: "9"}, -1, "that section is on page 8"},
		{Citation{Title: "Warranty", Page: "3"}, -1, "not one of the retrieved sections"},
		{Citation{ID: "S2", Raw: "[S2]"}, 1, ""},
		{Citation{ID: "S9", Raw: "[S9]"}, -1, "only S1..S6"},
	}
	for _, c := range cases {
		got, why := ResolveCitation(c.cite, secs)
		if got != c.want || !strings.Contains(why, c.problem) || (c.problem == "") != (why == "") {
			t.Errorf("ResolveCitation(%v) = %d, %q; want %d, %q", c.cite, got, why, c.want, c.problem)
		}
	}
}

func FuzzSplitClaims(f *testing.F) {
	for _, s := range []string{
		"A fee of 1.5%. (See Late Payment Penalties, page 8)",
		"x [S1][S2]. y (See a, b, pages 1–2; c, p. 3)",
		"(See , page )", "[S]", "((See X, page 1)", "\n\n- a\n1. b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		last := 0
		for _, c := range SplitClaims(answer) {
			if c.Start < last || c.End > len(answer) || c.Start >= c.End {
				t.Fatalf("bad span %d:%d (previous end %d) in %q", c.Start, c.End, last, answer)
			}
			last = c.Start
			if strings.TrimSpace(c.Text) == "" {
				t.Fatalf("empty claim in %q", answer)
			}
			for _, ci := range c.Citations {
				if strings.Contains(c.Text, ci.Raw) && ci.Raw != "" {
					t.Fatalf("claim %q still holds marker %q", c.Text, ci.Raw)
				}
			}
		}
	})
}
