package judge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/samplecontract"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/schema"
)

const lateSentence = "8.1 If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month on the overdue amount."

func judgeOf(t *testing.T, query, response string, sections []schema.Section, opts ...Option) *schema.Verdict {
	t.Helper()
	v, err := NewOffline(opts...).Judge(context.Background(), schema.JudgeRequest{Query: query, Response: response, Sections: sections})
	if err != nil {
		t.Fatal(err)
	}
	if v.JudgedBy != JudgedBy || v.ShouldReturn == v.IsHallucinated {
		t.Fatalf("inconsistent verdict %+v", v)
	}
	if v.ConfidenceScore < 0 || v.ConfidenceScore > 1 {
		t.Fatalf("confidence %v out of [0,1]", v.ConfidenceScore)
	}
	return v
}

func TestJudgeAcceptsExtractiveAnswer(t *testing.T) {
	v := judgeOf(t, "What are the late payment penalties?",
		lateSentence+" (See Late Payment Penalties, page 8)", samplecontract.Sections())
	if v.IsHallucinated {
		t.Fatalf("grounded answer rejected: %s", v.Reasoning)
	}
	if v.ConfidenceScore < DefaultMinConfidence {
		t.Errorf("confidence %.2f, want >= %.2f", v.ConfidenceScore, DefaultMinConfidence)
	}
	if len(v.Claims) != 1 || !v.Claims[0].Supported {
		t.Fatalf("claims = %+v", v.Claims)
	}
	ev := v.Claims[0].Evidence
	if ev == nil || ev.Title != "Late Payment Penalties" || ev.Page != 8 || ev.SectionID != "late" || ev.Source != samplecontract.Source || !strings.Contains(ev.Quote, "1.5% per month") {
		t.Errorf("evidence = %+v", ev)
	}
	if !strings.HasPrefix(v.Reasoning, "Grounded") {
		t.Errorf("reasoning = %q", v.Reasoning)
	}
}

// A section title with parentheses, as the headings of financial
// statements have ("Amount Increase/(decrease)", "Net Income (Loss)"):
// the citation the generator writes for it is read as a citation, not as
// part of the claim, so the page range is not a number the answer states.
func TestJudgeCitationTitleWithParentheses(t *testing.T) {
	secs := samplecontract.Sections()
	for i := range secs {
		if secs[i].ID == "late" {
			secs[i].Title = "Late Payment (Penalties) Increase/(decrease)"
		}
	}
	answer := lateSentence + " (See Late Payment (Penalties) Increase/(decrease), pages 8–9)"
	v := judgeOf(t, "What are the late payment penalties?", answer, secs)
	if v.IsHallucinated {
		t.Fatalf("grounded answer rejected: %s", v.Reasoning)
	}
	if len(v.Claims) != 1 || strings.Contains(v.Claims[0].Claim, "See") || v.Claims[0].Evidence == nil || v.Claims[0].Evidence.SectionID != "late" {
		t.Errorf("claims = %+v", v.Claims)
	}
}

// Seed scenario 2: the answer says 5% where the cited source says 1.5%.
func TestJudgeCatchesFivePercent(t *testing.T) {
	for _, answer := range []string{
		"Late fee is 5% per month. (See Late Payment Penalties, page 8)",
		"Late fee is 5% per month.", // uncited: the best passage is the late-fee clause
		"If payment is not received within thirty (30) days, Client shall be assessed a late fee of 5% per month on the overdue amount.",
	} {
		v := judgeOf(t, "What are the penalties?", answer, samplecontract.Sections())
		if !v.IsHallucinated {
			t.Errorf("%q: accepted: %s", answer, v.Reasoning)
			continue
		}
		if len(v.Claims) != 1 || v.Claims[0].Supported || !strings.Contains(v.Claims[0].Contradiction, `answer says "5% per month", source says "1.5% per month"`) {
			t.Errorf("%q: claims = %+v", answer, v.Claims)
		}
		if !strings.Contains(v.Reasoning, "1.5%") || !strings.Contains(v.Reasoning, "5%") {
			t.Errorf("reasoning does not explain the contradiction: %q", v.Reasoning)
		}
		if v.ConfidenceScore > 0.3 {
			t.Errorf("confidence %.2f too high for a contradiction", v.ConfidenceScore)
		}
	}
}

func TestJudgeContradictions(t *testing.T) {
	secs := samplecontract.Sections()
	cases := []struct {
		answer, want string
	}{
		{"Provider may suspend the Services if any undisputed amount is more than thirty (30) days overdue. (See Suspension of Services, page 9)", `source says "sixty (60) days"`},
		{"If Client terminates for convenience during the initial term, Client shall pay an early termination fee of $15,000. (See Termination, pages 10–11)", `source says "$25,000"`},
		{"Service credits are capped at 25% of the monthly fee. (See Service Credits, page 12)", ""},
		{"Provider shall give Client at least 10 business days' written notice before suspending the Services.", ""},
	}
	for _, c := range cases {
		v := judgeOf(t, "", c.answer, secs)
		if c.want == "" {
			if v.IsHallucinated {
				t.Errorf("%q rejected: %s", c.answer, v.Reasoning)
			}
			continue
		}
		if !v.IsHallucinated || !strings.Contains(v.Claims[0].Contradiction, c.want) {
			t.Errorf("%q: verdict %+v", c.answer, v)
		}
	}
}

// Seed scenario 3: nothing about a warranty in the contract.
func TestJudgeWarrantyNotAddressed(t *testing.T) {
	secs := samplecontract.Sections()
	// an answer lifted from a section that does not mention warranties
	v := judgeOf(t, "What is the warranty period?",
		"Either party may terminate this Agreement for convenience on ninety (90) days' written notice. (See Termination, pages 10–11)", secs)
	if !v.IsHallucinated || !strings.Contains(v.Reasoning, `"warranty"`) {
		t.Errorf("warranty answer accepted or unexplained: %+v", v)
	}
	if len(v.RejectedSections) != len(secs) {
		t.Errorf("rejected %v, want every section", v.RejectedSections)
	}
	// a common key term ("services") does not make up for the rare one
	v = judgeOf(t, "Is there a warranty on the services?",
		"Provider may suspend the Services if any undisputed amount is more than sixty (60) days overdue. (See Suspension of Services, page 9)", secs)
	if !v.IsHallucinated || !strings.Contains(v.Reasoning, `"warranty"`) {
		t.Errorf("warranty-on-services answer accepted: %+v", v)
	}
	// the honest "not addressed" answer is not returned as confident either
	v = judgeOf(t, "What is the warranty period?", "The provided documents do not address this question.", secs)
	if !v.IsHallucinated || v.ConfidenceScore != 0 {
		t.Errorf("abstention accepted: %+v", v)
	}
	// unless abstentions are allowed (benchmarks)
	v = judgeOf(t, "What is the warranty period?", "The provided documents do not address this question.", secs, WithRejectAbstentions(false))
	if v.IsHallucinated {
		t.Errorf("abstention rejected with WithRejectAbstentions(false): %s", v.Reasoning)
	}
}

func TestJudgeRejectedSections(t *testing.T) {
	v := judgeOf(t, "What are the late payment penalties?", lateSentence+" (See Late Payment Penalties, page 8)", samplecontract.Sections())
	got := map[string]bool{}
	for _, k := range v.RejectedSections {
		got[k] = true
	}
	// late, payment, penalties: at least half must be mentioned; the
	// suspension clause says "overdue" (a synonym of "late") and
	// "payment", so it addresses the question
	want := map[string]bool{"fees": true, "credits": true, "liability": true, "termination": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rejected %v, want %v", v.RejectedSections, want)
	}
}

func TestJudgeUnsupportedClaim(t *testing.T) {
	v := judgeOf(t, "", "The Client must keep all invoices in a fireproof cabinet located in Geneva.", samplecontract.Sections())
	if !v.IsHallucinated || v.Claims[0].Supported || !strings.Contains(v.Claims[0].Reason, "not supported") {
		t.Errorf("verdict = %+v", v)
	}
}

func TestJudgeBadCitationAndQuote(t *testing.T) {
	secs := samplecontract.Sections()
	v := judgeOf(t, "", lateSentence+" (See Late Payment Penalties, page 3)", secs)
	if !v.IsHallucinated || !strings.Contains(v.Reasoning, "that section is on page 8") {
		t.Errorf("wrong page accepted: %+v", v)
	}
	v = judgeOf(t, "", `The agreement says late fees "accrue from the due date until the overdue amount is paid in full". (See Late Payment Penalties, page 8)`, secs)
	if v.IsHallucinated {
		t.Errorf("true quote rejected: %s", v.Reasoning)
	}
	v = judgeOf(t, "", `The agreement says late fees "accrue from the invoice date until paid". (See Late Payment Penalties, page 8)`, secs)
	if !v.IsHallucinated || !strings.Contains(v.Reasoning, "accrue from the invoice date") {
		t.Errorf("false quote accepted: %+v", v)
	}
}

func TestJudgeEmpty(t *testing.T) {
	v := judgeOf(t, "What is the fee?", "", samplecontract.Sections())
	if !v.IsHallucinated || v.ConfidenceScore != 0 {
		t.Errorf("empty answer accepted: %+v", v)
	}
}

func TestJudgeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewOffline().Judge(ctx, schema.JudgeRequest{Response: "x"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestThresholdsChangeTheDecision(t *testing.T) {
	// a paraphrase covering about half of its terms
	answer := "Overdue invoices attract a monthly late fee of 1.5%."
	secs := samplecontract.Sections()
	strict := judgeOf(t, "", answer, secs, WithSupportThreshold(0.9))
	lenient := judgeOf(t, "", answer, secs, WithSupportThreshold(0.3))
	low := func(v *schema.Verdict) bool {
		return slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == RuleSupport })
	}
	if !low(strict) || low(lenient) {
		t.Errorf("strict finds low support %v, lenient %v (%s)", low(strict), low(lenient), lenient.Reasoning)
	}
	if NewOffline(WithThresholds(Thresholds{Support: 0.7, Window: 0})).Thresholds().Window != 1 {
		t.Error("Window below 1 not raised to 1")
	}
}

func TestCheckQuotes(t *testing.T) {
	ev := "Late fees accrue from the due date until the overdue amount is paid in full."
	cases := []struct {
		claim string
		want  []string
	}{
		{`They "accrue from the due date"`, nil},
		{`They “accrue  from the DUE date”`, nil},
		{`They 'accrue from the due date'`, nil},
		{`They "accrue daily"`, []string{"accrue daily"}},
		{`No quotes here`, nil},
	}
	for _, c := range cases {
		if got := CheckQuotes(c.claim, ev); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CheckQuotes(%q) = %q, want %q", c.claim, got, c.want)
		}
	}
}

func TestCheckCitations(t *testing.T) {
	secs := samplecontract.Sections()
	c := SplitClaims("Fee. (See Late Payment Penalties, page 8; Warranty, page 2) [S5]")[0]
	cited, problems := CheckCitations(c, secs)
	if !reflect.DeepEqual(cited, []int{1, 4}) || len(problems) != 1 || !strings.Contains(problems[0], `"Warranty"`) {
		t.Errorf("cited %v, problems %q", cited, problems)
	}
}

func TestIsAbstention(t *testing.T) {
	yes := []string{
		"The provided documents do not address this question.",
		"The passages do not mention the warranty period.",
		"The warranty period is not specified in the contract.",
		"There is no information about warranties.",
		"It cannot be determined from the passages.",
	}
	no := []string{
		"Client shall not assign this Agreement.",
		"Provider may suspend the Services.",
		"No fee applies to the first invoice.",
	}
	for _, s := range yes {
		if !IsAbstention(s) {
			t.Errorf("IsAbstention(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsAbstention(s) {
			t.Errorf("IsAbstention(%q) = true", s)
		}
	}
}

func TestApplyGuards(t *testing.T) {
	secs := samplecontract.Sections()
	llm := &schema.Verdict{
		ShouldReturn: true, ConfidenceScore: 0.95, Reasoning: "The answer matches S1.", JudgedBy: "llm",
		Claims: []schema.ClaimCheck{{Claim: "The late fee is 5% per month", Supported: true, Score: 0.95}},
	}
	req := schema.JudgeRequest{Query: "What are the penalties?", Response: "The late fee is 5% per month [S2].", Sections: secs}
	out, err := NewOffline().ApplyGuards(context.Background(), req, llm)
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsHallucinated || out.ShouldReturn || out.JudgedBy != "llm+guards" || out.ConfidenceScore > 0.25 {
		t.Errorf("guards did not override: %+v", out)
	}
	if len(out.Claims) != 1 || out.Claims[0].Supported || !strings.Contains(out.Claims[0].Contradiction, `"1.5% per month"`) {
		t.Errorf("claims = %+v", out.Claims)
	}
	if !strings.HasPrefix(out.Reasoning, "The answer matches S1. Deterministic guards:") {
		t.Errorf("reasoning = %q", out.Reasoning)
	}
	if !llm.ShouldReturn || llm.Claims[0].Contradiction != "" {
		t.Error("ApplyGuards modified its input")
	}
	// a clean answer passes through with its own verdict
	req.Response = "The late fee is 1.5% per month [S2]."
	out, err = NewOffline().ApplyGuards(context.Background(), req, llm)
	if err != nil {
		t.Fatal(err)
	}
	if out.IsHallucinated || out.ConfidenceScore != 0.95 || out.Reasoning != llm.Reasoning {
		t.Errorf("clean answer changed: %+v", out)
	}
}

func TestScoreSeparable(t *testing.T) {
	req := schema.JudgeRequest{Query: "What are the penalties?", Response: "Late fee is 5% per month.", Sections: samplecontract.Sections()}
	a, err := Score(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Claims) != 1 || a.Claims[0].Section != 1 || len(a.Claims[0].Mismatches) != 1 || !a.Claims[0].Mismatches[0].Contradiction() {
		t.Fatalf("assessment = %+v", a.Claims)
	}
	if len(a.vetoes()) == 0 {
		t.Error("no veto on a contradicted figure")
	}
}

func ExampleOffline_Judge() {
	sections := []schema.Section{{
		Title: "Late Payment Penalties", Page: 8, Source: "contract.md",
		Content: "If payment is not received within thirty (30) days, Client shall be assessed a late fee of 1.5% per month.",
	}}
	v, err := NewOffline().Judge(context.Background(), schema.JudgeRequest{
		Query:    "What are the late payment penalties?",
		Response: "Client pays a late fee of 5% per month if payment is not received within 30 days. (See Late Payment Penalties, page 8)",
		Sections: sections,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.IsHallucinated)
	fmt.Println(v.Claims[0].Contradiction)
	// Output:
	// true
	// answer says "5% per month", source says "1.5% per month"
}

func ExampleSplitClaims() {
	for _, c := range SplitClaims("The late fee is 1.5% per month. (See Late Payment Penalties, page 8) Services may be suspended [S2].") {
		fmt.Printf("%s %v\n", c.Text, c.Citations)
	}
	// Output:
	// The late fee is 1.5% per month. [Late Payment Penalties, page 8]
	// Services may be suspended. [[S2]]
}

func BenchmarkJudge(b *testing.B) {
	req := schema.JudgeRequest{
		Query:    "What are the late payment penalties?",
		Response: lateSentence + " (See Late Payment Penalties, page 8)\nLate fees accrue from the due date until the overdue amount is paid in full. (See Late Payment Penalties, page 8)",
		Sections: samplecontract.Sections(),
	}
	j := NewOffline()
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := j.Judge(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// A section from which the answer drew only claims that do not answer the
// question is rejected, so that the retry looks elsewhere, even when it
// mentions every key term.
func TestJudgeRejectsSectionsThatDoNotAnswer(t *testing.T) {
	secs := []schema.Section{
		{ID: "fees", Title: "Fees", Page: 3, Source: "contract.pdf", Content: "The Client pays the fees monthly. A late fee is charged on overdue fees."},
		{ID: "rates", Title: "Late Fee Rate", Page: 4, Source: "contract.pdf", Content: "The late fee is 1.5% per month of the overdue fees."},
	}
	v := judgeOf(t, "How much is the late fee?", "A late fee is charged on overdue fees. (See Fees, page 3)", secs)
	if !v.IsHallucinated || !slices.Contains(v.RejectedSections, secs[0].Key()) || slices.Contains(v.RejectedSections, secs[1].Key()) {
		t.Errorf("rejected %v (verdict %s), want the Fees section alone", v.RejectedSections, v.Reasoning)
	}
	v = judgeOf(t, "How much is the late fee?", "The late fee is 1.5% per month of the overdue fees. (See Late Fee Rate, page 4)", secs)
	if v.IsHallucinated || slices.Contains(v.RejectedSections, secs[1].Key()) {
		t.Errorf("the answering section is rejected: %v (%s)", v.RejectedSections, v.Reasoning)
	}
}

// A question of two parts is not answered by an answer to one of them; an
// elliptical part ("… and where else?") is not asked on its own.
func TestJudgeMultiPartLeavesAPartUnanswered(t *testing.T) {
	notice := "Provider may increase the Fees with effect from the start of any Renewal Term by giving Client at least sixty (60) days' prior written notice."
	cap4 := "No increase shall exceed four percent (4%) of the Fees in effect immediately before the increase."
	secs := []schema.Section{{Title: "Fee Adjustments", Page: 6, Source: "msa.md", Content: notice + " " + cap4}}
	judge := func(q, answer string) *schema.Verdict {
		t.Helper()
		d := &schema.Decomposition{SubQueries: question.Split(q)}
		if len(d.SubQueries) != 2 {
			t.Fatalf("question.Split(%q) = %q, want two parts", q, d.SubQueries)
		}
		v, err := NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: q, Response: answer, Sections: secs, Decomposition: d})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	const unanswered = "leaves part of the question unanswered"
	q := "By how much may the Provider increase the Fees at renewal, and how much notice must it give?"
	if v := judge(q, notice+" (See Fee Adjustments, page 6)"); !v.IsHallucinated || !strings.Contains(v.Reasoning, unanswered) {
		t.Errorf("an answer to one part accepted or unexplained: %s", v.Reasoning)
	}
	if v := judge(q, notice+" (See Fee Adjustments, page 6)\n"+cap4+" (See Fee Adjustments, page 6)"); strings.Contains(v.Reasoning, unanswered) {
		t.Errorf("an answer to both parts: %s", v.Reasoning)
	}
	if v := judge("By how much may the Provider increase the Fees at renewal and where else?", cap4+" (See Fee Adjustments, page 6)"); strings.Contains(v.Reasoning, unanswered) {
		t.Errorf("an elliptical part is required on its own: %s", v.Reasoning)
	}
}

// A question that asks for a whole year is not answered by a row of a
// table whose columns cover three months.
func TestJudgeFullYearNotAQuarter(t *testing.T) {
	secs := []schema.Section{{ID: "q1", Title: "Business Highlights", Page: 6, Source: "acme-q1-2023.pdf", DocTitle: "Acme Corporation",
		Content: "Three Months Ended (In Millions) Apr 1, 2023 Apr 2, 2022 Net revenue: Devices $ 5,767 $ 9,295 Services $ 458 $ 394 Total net revenue $ 11,715 $ 18,353"}}
	answer := "Total net revenue $ 11,715 $ 18,353 (See Business Highlights, page 6)"
	v := judgeOf(t, "What was Acme's total net revenue for full-year 2022?", answer, secs)
	if !v.IsHallucinated || !strings.Contains(v.Reasoning, "full year") {
		t.Errorf("a quarter's row answered a full-year question: %s", v.Reasoning)
	}
	v = judgeOf(t, "What was Acme's total net revenue in the first quarter of 2023?", answer, secs)
	if strings.Contains(v.Reasoning, "full year") {
		t.Errorf("a quarter's question refused for the year: %s", v.Reasoning)
	}
}

// A list item is supported with the sentence that introduces its list,
// however far down the list it stands, and that sentence with its items.
func TestJudgeListItemWithItsLeadIn(t *testing.T) {
	secs := []schema.Section{{ID: "hol", Title: "Paid Holidays", Source: "handbook.md", Page: 3, RelevanceScore: 1,
		Content: "The company observes the following paid holidays each year:\n\n- New Year's Day\n- Memorial Day\n- Independence Day\n- Labor Day\n- Christmas Day\n\nEmployees who must work on a paid holiday receive an alternate day off."}}
	for _, answer := range []string{
		"The company observes the following paid holidays each year: Labor Day (See Paid Holidays, page 3)",
		"The company observes the following paid holidays each year: New Year's Day; Memorial Day; Independence Day; Labor Day; Christmas Day (See Paid Holidays, page 3)",
	} {
		v := judgeOf(t, "Is Labor Day a paid holiday?", answer, secs)
		if len(v.Claims) != 1 || !v.Claims[0].Supported || v.Claims[0].Score < 1 {
			t.Errorf("%q: claims %+v, want one claim fully supported", answer, v.Claims)
		}
	}
}
