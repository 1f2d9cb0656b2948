package generator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/samplecontract"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

func generate(t *testing.T, q string, sections []schema.Section, opts ...Option) string {
	t.Helper()
	a, err := NewOffline(opts...).Generate(context.Background(), schema.GenerateRequest{Query: q, Sections: sections})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestGenerate(t *testing.T) {
	secs := samplecontract.Sections()
	cases := []struct {
		q        string
		first    string   // the first line, exactly
		contains []string // other text the answer must have
		absent   []string // text it must not have
	}{
		{
			q:      "What are the late payment penalties?",
			first:  "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount. (See Late Payment Penalties, page 8)",
			absent: []string{"5% of the monthly fee", "Service Credits", "8.1"},
		},
		{
			q:      "What are the penalties?",
			first:  "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount. (See Late Payment Penalties, page 8)",
			absent: []string{"Service Credits"},
		},
		{
			q:     "When can the provider suspend services?",
			first: "Provider may suspend the Services if any undisputed amount is more than sixty (60) days overdue. (See Suspension of Services, page 9)",
		},
		{
			q:        "What is the notice period and how much is the termination fee?",
			first:    "Either party may terminate this Agreement for convenience on ninety (90) days' written notice. (See Termination, pages 10–11)",
			contains: []string{"early termination fee of $25,000. (See Termination, pages 10–11)"},
			absent:   []string{"1.5%"},
		},
		{
			q:      "How is each party's total liability capped?",
			first:  "Each party's total liability under this Agreement is capped at the fees paid in the twelve (12) months before the claim. (See Limitation of Liability, page 14)",
			absent: []string{"Service Credits"},
		},
		{q: "What is the warranty period?", first: NotAddressed},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			a := generate(t, c.q, secs)
			lines := strings.Split(a, "\n")
			if lines[0] != c.first {
				t.Errorf("first line\n%q\nwant\n%q\n(answer %q)", lines[0], c.first, a)
			}
			if len(lines) > 3 {
				t.Errorf("%d sentences, want at most 3", len(lines))
			}
			seen := map[string]bool{}
			for _, l := range lines {
				if seen[l] {
					t.Errorf("duplicate sentence %q", l)
				}
				seen[l] = true
			}
			for _, s := range c.contains {
				if !strings.Contains(a, s) {
					t.Errorf("answer lacks %q:\n%s", s, a)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(a, s) {
					t.Errorf("answer has %q:\n%s", s, a)
				}
			}
		})
	}
}

// Every sentence the generator writes is in its cited section, verbatim.
func TestGenerateVerbatimAndCited(t *testing.T) {
	secs := samplecontract.Sections()
	for _, q := range []string{"What are the late payment penalties?", "How much are service credits?", "What happens on termination?"} {
		a := generate(t, q, secs)
		for _, c := range judge.SplitClaims(a) {
			if len(c.Citations) != 1 {
				t.Fatalf("%q: claim %q has citations %v", q, c.Text, c.Citations)
			}
			i, why := judge.ResolveCitation(c.Citations[0], secs)
			if i < 0 {
				t.Fatalf("%q: %s", q, why)
			}
			if !strings.Contains(secs[i].Content, c.Text) {
				t.Errorf("%q: %q is not verbatim in %q", q, c.Text, secs[i].Title)
			}
		}
	}
}

func TestGenerateOptions(t *testing.T) {
	secs := samplecontract.Sections()
	a := generate(t, "What are the penalties?", secs, WithMaxSentences(1))
	if strings.Count(a, "\n") != 0 || !strings.Contains(a, "1.5%") {
		t.Errorf("WithMaxSentences(1): %q", a)
	}
	a = generate(t, "What are the penalties?", secs, WithMinScore(2))
	if a != NotAddressed {
		t.Errorf("WithMinScore(2): %q", a)
	}
}

func TestGenerateNoSections(t *testing.T) {
	if a := generate(t, "What are the penalties?", nil); a != NotAddressed {
		t.Errorf("answer %q", a)
	}
}

func TestGenerateOnToken(t *testing.T) {
	var got strings.Builder
	a, err := NewOffline().Generate(context.Background(), schema.GenerateRequest{
		Query: "What are the penalties?", Sections: samplecontract.Sections(),
		OnToken: func(s string) { got.WriteString(s) },
	})
	if err != nil || got.String() != a {
		t.Errorf("streamed %q, answer %q, err %v", got.String(), a, err)
	}
}

func TestGenerateErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewOffline().Generate(ctx, schema.GenerateRequest{Query: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// The judge accepts the generator's answers and rejects its "not
// addressed" answer, as the pipeline's seed scenarios need.
func TestGeneratorAndJudge(t *testing.T) {
	secs := samplecontract.Sections()
	j := judge.NewOffline()
	for _, c := range []struct {
		q      string
		accept bool
	}{
		{"What are the late payment penalties?", true},
		{"What are the penalties?", true},
		{"When can the provider suspend services?", true},
		{"What is the notice period and how much is the termination fee?", true},
		{"What is the warranty period?", false},
	} {
		a := generate(t, c.q, secs)
		// as the pipeline asks it: a question of several parts is judged
		// part by part
		d := &schema.Decomposition{SubQueries: question.Split(c.q)}
		v, err := j.Judge(context.Background(), schema.JudgeRequest{Query: c.q, Response: a, Sections: secs, Decomposition: d})
		if err != nil {
			t.Fatal(err)
		}
		if v.ShouldReturn != c.accept {
			t.Errorf("%q: should_return %v, want %v: %s\n%s", c.q, v.ShouldReturn, c.accept, v.Reasoning, a)
		}
	}
}

func ExampleOffline_Generate() {
	sections := []schema.Section{{
		Title: "Late Payment Penalties", Page: 8, Source: "contract.md",
		Content: "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month. Late fees accrue until paid.",
	}, {
		Title: "Service Credits", Page: 12, Source: "contract.md",
		Content: "Provider shall credit Client 5% of the monthly fee for each hour of downtime.",
	}}
	answer, err := NewOffline().Generate(context.Background(), schema.GenerateRequest{
		Query:    "What are the late payment penalties?",
		Sections: sections,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(answer)
	// Output:
	// If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month. (See Late Payment Penalties, page 8)
}

func BenchmarkGenerate(b *testing.B) {
	req := schema.GenerateRequest{Query: "What are the late payment penalties?", Sections: samplecontract.Sections()}
	g := NewOffline()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := g.Generate(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// Each part of a two-part question gets the sentence that answers it, not
// one sentence that shares both parts' words.
func TestGenerateAnswersEachPart(t *testing.T) {
	notice := "Provider may increase the Fees with effect from the start of any Renewal Term by giving Client at least sixty (60) days' prior written notice."
	cap4 := "No increase shall exceed four percent (4%) of the Fees in effect immediately before the increase."
	secs := []schema.Section{{Title: "Fee Adjustments", Page: 6, Source: "msa.md", Content: notice + " " + cap4}}
	a := generate(t, "By how much may the Provider increase the Fees at renewal, and how much notice must it give?", secs)
	if !strings.Contains(a, "sixty (60) days") || !strings.Contains(a, "four percent (4%)") {
		t.Errorf("answer:\n%s", a)
	}
}

// The sentence that answers best leads the answer, though the section
// states it last; the other sentences follow in the document's order.
func TestBestSentenceLeads(t *testing.T) {
	secs := []schema.Section{{ID: "s", Title: "Standard Tier", Page: 6, Content: "Client shall pay a Monthly Service Fee of US$18,000 for the managed Services. " +
		"The Standard tier includes up to forty (40) hours of advisory work per month. " +
		"Additional hours are charged at one hundred eighty-five US dollars (US$185) per hour."}}
	got := generate(t, "What is the hourly rate for additional hours on the Standard tier?", secs)
	lines := strings.Split(got, "\n")
	if !strings.HasPrefix(lines[0], "Additional hours are charged") {
		t.Fatalf("first line %q, want the rate for additional hours; answer:\n%s", lines[0], got)
	}
	if len(lines) > 2 && strings.Index(got, "Monthly Service Fee") > strings.Index(got, "forty (40) hours") {
		t.Errorf("the sentences after the first are not in the document's order:\n%s", got)
	}
}

// A generator ranks sentences by the decision model; when none passes
// the checks of package relevance it offers the best of them, and the
// judge refuses it, naming the rule. Here every row is a quarter's
// figure, and the question asks for the year's.
func TestNoSentencePassesTheJudgeRefuses(t *testing.T) {
	// scored as retrieval scores its best section (top_relevance is an
	// input of the decision model)
	secs := []schema.Section{{ID: "q", Title: "Selected Quarterly Financial Data", Page: 171, Source: "acme-10k-2015.pdf", DocEntity: "Acme Corporation", RelevanceScore: 1,
		Content: "2015 Quarter Ended March 31, June 30, September 30, December 31, (in thousands)\n\n" +
			"Total revenue $ 618,476 $ 618,221 $ 629,884 $ 624,240 Net income $ 171,182 $ 79,460 $ 184,082 $ 137,851"}}
	q := "What was Acme's total revenue for 2015?"
	got := generate(t, q, secs)
	v, err := judge.NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: q, Response: got, Sections: secs})
	if err != nil {
		t.Fatal(err)
	}
	named := slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == relevance.PeriodPartYear.Name })
	if v.ShouldReturn || !named {
		t.Errorf("a quarter's row for the year's figure: returned %v, findings %v:\n%s", v.ShouldReturn, v.Findings, got)
	}
	if got := generate(t, "What was Acme's total revenue in each quarter of 2015?", secs); !strings.HasPrefix(got, "Total revenue") {
		t.Errorf("the quarter's row refused for a quarter's question:\n%s", got)
	}
}

// The sentence that goes on from the lead ("This produces …") follows it,
// ahead of the other sentences quoted, when it states a term of the
// question (SQuAD 2.0's "Immune system" article, paragraph 49); one that
// states none is not added.
func TestContinuationFollowsTheLead(t *testing.T) {
	para := "The complement system is a biochemical cascade that attacks the surfaces of foreign cells. " +
		"After complement proteins initially bind to the microbe, they activate their protease activity, which in turn activates other complement proteases, and so on. " +
		"This produces a catalytic cascade that amplifies the initial signal by controlled positive feedback. " +
		"Microbes are killed by the cascade's final products."
	secs := []schema.Section{{ID: "s", Title: "Paragraph 49", Page: 1, Content: para}}
	got := generate(t, "What type of cascade results when complement proteins bind to microbes and activate their protease activity?", secs)
	lines := strings.Split(got, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "After complement proteins") || !strings.HasPrefix(lines[1], "This produces a catalytic cascade") {
		t.Fatalf("want the lead, then the sentence going on from it; answer:\n%s", got)
	}
	// a next sentence that states no term of the question is not added
	plain := strings.Replace(para, "This produces a catalytic cascade", "This produces a chain", 1)
	secs[0].Content = strings.Replace(plain, "amplifies the initial signal", "amplifies the first signal", 1)
	if got := generate(t, "Which complement proteins activate their protease activity?", secs); strings.Contains(got, "This produces") {
		t.Errorf("a next sentence about none of the question's terms was added:\n%s", got)
	}
}

// The words that chose a document (schema.Section.NamedBy) are the
// document's, not a passage's: a preamble that repeats the parties no
// longer outranks the clause asked about, and the clause need not repeat
// them.
func TestGenerateNamingWordsAreTheDocuments(t *testing.T) {
	named := []string{"Distribution Agreement", "Northwind Traders", "Contoso Goods"}
	secs := []schema.Section{
		{Title: "Distribution Agreement", Kind: schema.KindPreamble, Source: "dist.pdf", Page: 1, RelevanceScore: 0.9,
			Content: `This Distribution Agreement is entered into between Northwind Traders Ltd. ("Supplier") and Contoso Goods LLC ("Distributor") as of March 1, 2020.`},
		{Title: "Appointment", Source: "dist.pdf", Page: 2, RelevanceScore: 0.7,
			Content: "Supplier grants Distributor an exclusive licence to sell the Products in the Territory during the Term."},
	}
	q := "What licence does the Distribution Agreement between Northwind Traders and Contoso Goods grant?"
	if got := generate(t, q, secs); !strings.HasPrefix(got, "This Distribution Agreement") {
		t.Fatalf("without the naming words the preamble no longer comes first, and the test shows nothing: %q", got)
	}
	for i := range secs {
		secs[i].NamedBy = named
	}
	got := generate(t, q, secs)
	if !strings.HasPrefix(got, "Supplier grants Distributor an exclusive licence") || strings.Contains(got, "entered into between") {
		t.Errorf("answer %q, want the licence clause and not the preamble", got)
	}
}

// The naming words add the same to every sentence of the document they
// name, so a cover page's sentence that shares one word with the
// question besides them must not ride them into the answer beside the
// sentence that answers (the cutoffs compare what a sentence itself says).
func TestGenerateNamingWordsDoNotCarryACoverSentence(t *testing.T) {
	named := []string{"Harbour Estates"}
	secs := []schema.Section{
		{Title: "General", Source: "he-2015.pdf", Page: 3, RelevanceScore: 0.9, NamedBy: named,
			Content: "We own or control undeveloped land parcels totaling approximately 457.1 acres, which could support approximately 12.7 million square feet of additional development."},
		{Title: "Registrant", Source: "he-2015.pdf", Page: 1, RelevanceScore: 0.5, NamedBy: named,
			Content: "As of June 30, 2015, the aggregate market value of the shares held by non-affiliates of Harbour Estates, Inc. was $18,453,084,348 based upon the last reported sale price."},
	}
	got := generate(t, "How much undeveloped land did Harbour Estates hold for future building at the end of 2015?", secs)
	if !strings.HasPrefix(got, "We own or control undeveloped land") || strings.Contains(got, "aggregate market value") {
		t.Errorf("answer %q, want the land sentence alone", got)
	}
}

// A list item is quoted with the sentence that introduces its list, and
// only the items that answer: "Labor Day" alone says nothing of holidays,
// and the items beside it are not its context. Asked for the list, the
// lead-in is quoted with its items.
func TestGenerateQuotesAListItemWithItsLeadIn(t *testing.T) {
	secs := []schema.Section{{Title: "Paid Holidays", Source: "handbook.md", RelevanceScore: 1,
		Content: "The company observes the following paid holidays each year:\n\n- New Year's Day\n- Memorial Day\n- Labor Day\n- Thanksgiving Day and the day after\n- Christmas Day\n\nEmployees who must work on a paid holiday receive an alternate day off within 30 days."}}
	got := generate(t, "Is Labor Day a paid holiday?", secs)
	if !strings.HasPrefix(got, "The company observes the following paid holidays each year: Labor Day (See") || strings.Contains(got, "Thanksgiving") {
		t.Errorf("answer %q, want the Labor Day item under its lead-in alone", got)
	}
	got = generate(t, "Which paid holidays does the company observe each year?", secs)
	if !strings.HasPrefix(got, "The company observes the following paid holidays each year: New Year's Day; Memorial Day; Labor Day; Thanksgiving Day and the day after; Christmas Day (See") {
		t.Errorf("answer %q, want the lead-in with every item", got)
	}
}
