package eval

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docmind/docmind/internal/eval/evaltest"
	"github.com/docmind/docmind/schema"

	"github.com/docmind/docmind/internal/testenv"
)

func TestReadQANewFields(t *testing.T) {
	in := `{"id": "f001", "question": "What was Apple's total net sales in fiscal 2022?", "facts": ["394,328"], "source": "APPLE_2022_10K.pdf", "page": 32, "printed_page": 29, "kind": "answerable", "type": "lookup", "other_pages": [24, 25]}
{"id": "f002", "question": "Cash?", "facts": ["38,016"], "source": "A.pdf", "page": 34, "printed_page": null, "kind": "answerable", "type": "period", "other_pages": []}
{"id": "s1", "question": "Where is Normandy?", "answers": ["France", "in France"]}
{"id": "f061", "question": "Microsoft revenue?", "answerable": false, "kind": "impossible", "type": "unanswerable", "why": "not in the corpus"}
`
	rows, err := ReadQA(strings.NewReader(in), "set.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("rows = %+v", rows)
	}
	f1, f2, s1, u := rows[0], rows[1], rows[2], rows[3]
	if f1.PrintedPage == nil || *f1.PrintedPage != 29 || f1.Type != "lookup" || len(f1.OtherPages) != 2 || f1.OtherPages[1] != 25 {
		t.Errorf("f001 = %+v", f1)
	}
	if f2.PrintedPage != nil || f2.Type != "period" {
		t.Errorf("f002 = %+v", f2)
	}
	if !s1.IsAnswerable() || len(s1.Answers) != 2 || len(s1.Facts) != 0 || s1.AnswersOnly {
		t.Errorf("s1 = %+v", s1)
	}
	if u.IsAnswerable() || u.Why != "not in the corpus" || u.Type != "unanswerable" {
		t.Errorf("f061 = %+v", u)
	}
	for name, in := range map[string]string{
		"typo answer":           `{"id":"a","question":"x","answer":["a"]}`,
		"typo other_page":       `{"id":"a","question":"x","facts":["a"],"other_page":[3]}`,
		"answers on no":         `{"id":"a","question":"x","answerable":false,"answers":["a"]}`,
		"neither":               `{"id":"a","question":"x","type":"lookup"}`,
		"answers_only not json": `{"id":"a","question":"x","answers":["a"],"AnswersOnly":true}`,
	} {
		if _, err := ReadQA(strings.NewReader(in), "set.jsonl"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestSharedQASetsLoad checks the shared benchmark sets parse.
func TestSharedQASetsLoad(t *testing.T) {
	for _, f := range []string{"filings/qa.jsonl", "squad2/qa.jsonl"} {
		rows, err := LoadQA(testenv.SharedPath(t, "data", f))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Errorf("%s: no rows", f)
		}
	}
	rows, err := LoadQA(testenv.SharedPath(t, "data", "squad2", "qa.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	gold, err := LoadGold(testenv.SharedPath(t, "data", "squad2", "gold.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := MergeGold(rows, gold); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.IsAnswerable() && (len(r.Answers) == 0 || !r.AnswersOnly) {
			t.Fatalf("row %s not merged: %+v", r.ID, r)
		}
	}
}

func TestAnswerInLead(t *testing.T) {
	tests := []struct {
		name, answer string
		want         bool
	}{
		{"first sentence", "Normandy is in France. It is a region. (See Normans, page 1)", true},
		{"second sentence", "The Normans were Norse. Normandy is in northern France. (See Normans, page 1)", true},
		{"third sentence", "The Normans were Norse. They came from Denmark. Normandy is in France. (See Normans, page 1)", false},
		// Citations are not sentences: France is in the second sentence.
		{"cited lines", "The Normans were Norse. (See Normans, page 1)\nThey settled in France. (See Normans, page 2)", true},
		{"cited lines, third", "The Normans were Norse. (See Normans, page 1)\nThey came from Denmark. (See Normans, page 2)\nThey settled in France. (See Normans, page 3)", false},
		// A line without a full stop still ends at its citation.
		{"no full stop", "Total net sales 394,328 (See Apple, page 32)\nNet income 99,803 (See Apple, page 33)\nNormandy is in France (See Normans, page 1)", false},
		// The gold answer only in a citation's title does not count.
		{"only in citation", "It is a region. (See France (Regions), page 2)", false},
		{"spelled number", "The fee is thirty (30) dollars. (See Fees, page 3)", true},
		{"fallback", schema.FallbackMessage, false},
	}
	golds := []string{"France", "30 dollars"}
	for _, tt := range tests {
		if got := AnswerInLead(tt.answer, golds); got != tt.want {
			t.Errorf("%s: AnswerInLead(%q) = %v, want %v (stripped %q)", tt.name, tt.answer, got, tt.want, StripCitations(tt.answer))
		}
	}
	if got := StripCitations("A (See T (x), page 1) b. (See U, pages 2–3; V, page 4)\nC. [unknown source S9]"); got != "A b.\n\nC." {
		t.Errorf("StripCitations = %q", got)
	}
}

func TestScoreQAAnswersAndFacts(t *testing.T) {
	st := evaltest.State("Normandy is a region of France. (See Normans, page 1)", false, evaltest.OnePass)
	st.JudgeVerdict.ConfidenceScore = 0.7
	cases := []struct {
		row             QARow
		correct, missed bool
	}{
		{QARow{ID: "a", Answers: []string{"Germany", "France"}}, true, false},
		{QARow{ID: "b", Answers: []string{"Germany"}}, false, true},
		// Both rules hold when a row has both.
		{QARow{ID: "c", Facts: []string{"region"}, Answers: []string{"France"}}, true, false},
		{QARow{ID: "d", Facts: []string{"duchy"}, Answers: []string{"France"}}, false, false},
		// AnswersOnly (from --gold) ignores the facts.
		{QARow{ID: "e", Facts: []string{"duchy"}, Answers: []string{"France"}, AnswersOnly: true}, true, false},
		{QARow{ID: "f", Facts: []string{"France"}, Answers: []string{"Germany"}, AnswersOnly: true}, false, true},
	}
	for _, c := range cases {
		r := ScoreQA(c.row, st, nil)
		if r.Correct != c.correct || r.MissedAnswers != c.missed || !r.Answered || r.Confidence != 0.7 {
			t.Errorf("%s: %+v", c.row.ID, r)
		}
	}
	if r := ScoreQA(QARow{ID: "a", Answers: []string{"France"}}, st, nil); r.RefusedAnswer != "" {
		t.Errorf("an answer given is recorded as refused: %+v", r)
	}
	refused := evaltest.State(schema.FallbackMessage, true, evaltest.TwoPass)
	draft := "Normandy is a region of Germany. (See Normans, page 1)"
	refused.GeneratedResponse = &draft
	refused.JudgeVerdict.Reasoning = "Not grounded: confidence 0.30 is below 0.60."
	r := ScoreQA(QARow{ID: "u", Answerable: ptr(false)}, refused, nil)
	if r.Answered || !r.Abstained || r.RefusedAnswer != draft || r.Reasoning != refused.JudgeVerdict.Reasoning {
		t.Errorf("fallback: %+v", r)
	}
	r = ScoreQA(QARow{ID: "x", Facts: []string{"a"}}, nil, errors.New("boom"))
	if r.Answered || r.Confidence != 0 {
		t.Errorf("error: %+v", r)
	}
}

func TestOtherPagesCitation(t *testing.T) {
	st := evaltest.State("A late fee of 1.5% per month (See Late Payment Penalties, page 8).", false, evaltest.OnePass, lateFees, dpa)
	for _, c := range []struct {
		row  QARow
		want bool
	}{
		{QARow{ID: "page", Facts: []string{"1.5%"}, Source: "msa.md", Page: 8}, true},
		{QARow{ID: "other", Facts: []string{"1.5%"}, Source: "msa.md", Page: 5, OtherPages: []int{2, 8}}, true},
		{QARow{ID: "none", Facts: []string{"1.5%"}, Source: "msa.md", Page: 5, OtherPages: []int{2}}, false},
		// Page 8 of another source is not the page.
		{QARow{ID: "source", Facts: []string{"1.5%"}, Source: "dpa.md", Page: 5, OtherPages: []int{8}}, false},
	} {
		r := ScoreQA(c.row, st, nil)
		if r.PageCorrect == nil || *r.PageCorrect != c.want {
			t.Errorf("%s: page correct %v, want %v", c.row.ID, r.PageCorrect, c.want)
		}
	}
	// Without matching sections, a bare "page N" reference is read.
	if !citesPage("see page 8", nil, "msa.md", []int{5, 8}) || citesPage("see page 8", nil, "msa.md", []int{5}) {
		t.Error("bare page reference")
	}
}

func TestMergeGold(t *testing.T) {
	gold, err := ReadGold(strings.NewReader(`{"id":"a","title":"T","doc":"d.md","paragraph":1,"question":"q","is_impossible":false,"answers":["France","in France","France"],"plausible":[]}
{"id":"b","is_impossible":true,"answers":[],"plausible":["Spain"]}
{"id":"extra","is_impossible":false,"answers":["x"]}
`), "gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rows := []QARow{{ID: "a", Question: "q", Facts: []string{"France"}}, {ID: "b", Question: "q", Answerable: ptr(false)}}
	if err := MergeGold(rows, gold); err != nil {
		t.Fatal(err)
	}
	if !rows[0].AnswersOnly || strings.Join(rows[0].Answers, "|") != "France|in France" || rows[1].Answers != nil || rows[1].AnswersOnly {
		t.Errorf("merged = %+v", rows)
	}
	for name, rows := range map[string][]QARow{
		"impossible vs answerable": {{ID: "b", Question: "q", Facts: []string{"x"}}},
		"possible vs unanswerable": {{ID: "a", Question: "q", Answerable: ptr(false)}},
		"no gold row":              {{ID: "zz", Question: "q", Facts: []string{"x"}}},
	} {
		if err := MergeGold(rows, gold); err == nil {
			t.Errorf("%s: merged", name)
		}
	}
	if _, err := ReadGold(strings.NewReader(`{"id":"a","is_impossible":false,"answer":["x"]}`), "gold.jsonl"); err == nil {
		t.Error("unknown gold field accepted")
	}
	if _, err := ReadGold(strings.NewReader(`{"id":"a","answers":["x"]}`+"\n"+`{"id":"a","answers":["y"]}`), "gold.jsonl"); err == nil {
		t.Error("duplicate gold id accepted")
	}
}

// rc builds a result for the risk–coverage tests.
func rc(answered, answerable, correct bool, conf float64) QAResult {
	return QAResult{Answered: answered, Abstained: !answered, Answerable: answerable, Correct: correct, Confidence: conf}
}

func TestRiskCoverage(t *testing.T) {
	// N = 6. Answered, by confidence: 0.9 right; 0.8 wrong and 0.8 right
	// (a tie); 0.5 an answered unanswerable (wrong). One abstention, one
	// error.
	results := []QAResult{
		rc(true, true, false, 0.8),
		rc(true, true, true, 0.9),
		rc(false, false, false, 0.95), // abstained: not on the curve
		rc(true, false, false, 0.5),
		rc(true, true, true, 0.8),
		{Err: "boom", Answerable: true},
	}
	curve := RiskCoverage(results)
	want := []RiskCoveragePoint{
		{Threshold: 0.9, Coverage: 1.0 / 6, Accuracy: 1, Answered: 1},
		{Threshold: 0.8, Coverage: 3.0 / 6, Accuracy: 2.0 / 3, Answered: 3},
		{Threshold: 0.5, Coverage: 4.0 / 6, Accuracy: 0.5, Answered: 4},
	}
	if len(curve) != len(want) {
		t.Fatalf("curve = %+v", curve)
	}
	for i := range want {
		g, w := curve[i], want[i]
		if g.Threshold != w.Threshold || g.Answered != w.Answered || !near(g.Coverage, w.Coverage) || !near(g.Accuracy, w.Accuracy) {
			t.Errorf("point %d = %+v, want %+v", i, g, w)
		}
	}
	// AURC = (1·0 + 2·(1/3) + 1·(1/2)) / 6 = 7/36.
	if got := AURC(curve, 6); !near(got, 7.0/36) {
		t.Errorf("AURC = %v, want %v", got, 7.0/36)
	}
	rep := summarizeQA(results)
	if rep.Answered != 4 || !near(rep.Coverage, 4.0/6) || !near(rep.AnsweredAccuracy, 0.5) || rep.WrongAnswers != 2 || !near(rep.AURC, 7.0/36) || len(rep.RiskCoverage) != 3 {
		t.Errorf("report: answered %d coverage %v accuracy %v wrong %d aurc %v curve %d",
			rep.Answered, rep.Coverage, rep.AnsweredAccuracy, rep.WrongAnswers, rep.AURC, len(rep.RiskCoverage))
	}
	// Answerable 4 (two right, one wrong, one error): answerable_correct
	// 2/4, the same figure as answered_correctly.
	if !near(rep.AnswerableCorrect, 0.5) || rep.AnswerableCorrect != rep.AnsweredCorrectly {
		t.Errorf("answerable correct %v / %v", rep.AnswerableCorrect, rep.AnsweredCorrectly)
	}

	// Without ties AURC is the standard one: mean prefix risk · A/N.
	// Risks 0, 1/2, 1/3 over N = 4: (0 + 1/2 + 1/3) / 4.
	noTies := []QAResult{rc(true, true, true, 0.9), rc(true, true, false, 0.7), rc(true, true, true, 0.6), rc(false, true, false, 0)}
	if got := AURC(RiskCoverage(noTies), 4); !near(got, (0.5+1.0/3)/4) {
		t.Errorf("AURC without ties = %v", got)
	}
	if RiskCoverage([]QAResult{rc(false, true, false, 0)}) != nil || AURC(nil, 0) != 0 {
		t.Error("nothing answered")
	}
}

func TestRiskCoverageThinned(t *testing.T) {
	var results []QAResult
	for i := range 120 {
		results = append(results, rc(true, true, i%3 != 0, float64(i)/120))
	}
	rep := summarizeQA(results)
	full := RiskCoverage(results)
	if len(full) != 120 || len(rep.RiskCoverage) != MaxRiskCoveragePoints {
		t.Fatalf("full %d, reported %d points", len(full), len(rep.RiskCoverage))
	}
	if rep.RiskCoverage[0] != full[0] || rep.RiskCoverage[len(rep.RiskCoverage)-1] != full[len(full)-1] {
		t.Error("thinning must keep the first and last thresholds")
	}
	for i := 1; i < len(rep.RiskCoverage); i++ {
		if rep.RiskCoverage[i].Threshold >= rep.RiskCoverage[i-1].Threshold {
			t.Fatalf("thresholds not decreasing at %d", i)
		}
	}
	// AURC uses every threshold, not the thinned curve.
	if !near(rep.AURC, AURC(full, 120)) {
		t.Errorf("AURC %v, full-curve AURC %v", rep.AURC, AURC(full, 120))
	}
}

// --match jaccard is CUAD's evaluate.py: the answer matches a gold span
// when it contains it, or when their word sets (lower-cased, ".,;:"
// dropped, "/" a space) have a Jaccard similarity of at least 0.5. It
// matches a three-sentence clause the lead rule can never match.
func TestMatchJaccard(t *testing.T) {
	clause := "Either party may terminate this Agreement on ninety days notice. Termination does not affect accrued rights. Sections 7 and 9 survive termination."
	tests := []struct {
		name, answer string
		golds        []string
		jaccard      bool
		lead         bool
	}{
		{"the whole clause, cited", clause + " (See Supply Agreement, page 4)", []string{clause}, true, false},
		{"contained in a longer answer", "Under the agreement: " + clause + " (See Supply Agreement, page 4)", []string{clause}, true, false},
		// 2 shared words of 4 in all: exactly 0.5.
		{"half the words", "Licensee/Licensor shall", []string{"Licensee shall pay"}, true, false},
		// {licensee, may, pay} ∩ {licensee, shall, pay} = 2 of 4 words.
		{"two of four", "Licensee may pay.", []string{"Licensee shall pay"}, true, false},
		{"under half", "The Licensee may not assign this Agreement.", []string{"Licensee shall pay all fees"}, false, false},
		{"short gold in the lead", "The term is five years. (See Term, page 2)", []string{"five years"}, true, true},
		{"fallback", schema.FallbackMessage, []string{"five years"}, false, false},
	}
	for _, tt := range tests {
		if got := MatchJaccard.Matches(tt.answer, tt.golds); got != tt.jaccard {
			t.Errorf("%s: jaccard %v, want %v", tt.name, got, tt.jaccard)
		}
		if got := MatchLead.Matches(tt.answer, tt.golds); got != tt.lead {
			t.Errorf("%s: lead %v, want %v", tt.name, got, tt.lead)
		}
	}
	if j := Jaccard(jaccardWords("a/b, c."), jaccardWords("A B d")); j != 0.5 {
		t.Errorf("Jaccard = %v, want 0.5", j)
	}
	for _, s := range []string{"", "lead", "jaccard"} {
		if _, err := ParseMatchRule(s); err != nil {
			t.Errorf("ParseMatchRule(%q): %v", s, err)
		}
	}
	if _, err := ParseMatchRule("f1"); err == nil {
		t.Error("ParseMatchRule(f1): no error")
	}

	// RunQA applies the run's rule to every row and reports it.
	st := evaltest.State(clause+" (See Supply Agreement, page 4)", false, evaltest.OnePass)
	ask := func(context.Context, string) (*schema.State, error) { return st, nil }
	rows := []QARow{{ID: "c", Question: "When may a party terminate?", Answers: []string{clause}}}
	for _, c := range []struct {
		match   MatchRule
		correct int
		why     string
	}{
		{"", 0, "no gold answer in the first two sentences"},
		{MatchJaccard, 1, ""},
	} {
		rep, err := RunQA(context.Background(), ask, rows, QAOptions{Match: c.match})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Correct != c.correct || rep.Results[0].Failure() != c.why || rep.Match != cmp.Or(c.match, MatchLead) {
			t.Errorf("match %q: correct %d, failure %q, report match %q", c.match, rep.Correct, rep.Results[0].Failure(), rep.Match)
		}
	}
	// A miss under jaccard says so.
	rows[0].Answers = []string{"Licensee shall pay all fees within thirty days"}
	rep, err := RunQA(context.Background(), ask, rows, QAOptions{Match: MatchJaccard})
	if err != nil {
		t.Fatal(err)
	}
	if why := rep.Results[0].Failure(); !strings.Contains(why, "Jaccard") {
		t.Errorf("jaccard miss: %q", why)
	}
}

// An answer that cites a section of another document than the one the
// question's row names counts as one; a citation two documents render
// alike counts as the row's document when one of them is.
func TestOtherDocumentCitation(t *testing.T) {
	seg := func(src string) schema.Section { return schema.Section{Title: "Segment 4", Source: src, Page: 4} }
	for _, c := range []struct {
		name, answer, source string
		sections             []schema.Section
		want                 bool
	}{
		{"own", "Fees apply. (See Late Payment Penalties, page 8)", "msa.md", []schema.Section{lateFees, dpa}, false},
		{"another", "Fees apply. (See Late Payment Penalties, page 8)\nSub-processors are listed. (See Sub-processors, page 2)", "msa.md", []schema.Section{lateFees, dpa}, true},
		{"only another", "Sub-processors are listed. (See Sub-processors, page 2)", "msa.md", []schema.Section{lateFees, dpa}, true},
		{"rendered alike", "We collect data. (See Segment 4, page 4)", "a.com.md", []schema.Section{seg("docs/b.com.md"), seg("docs/a.com.md")}, false},
		{"rendered alike, neither the row's", "We collect data. (See Segment 4, page 4)", "c.com.md", []schema.Section{seg("docs/b.com.md"), seg("docs/a.com.md")}, true},
	} {
		if got := citesOtherDocument(c.answer, c.sections, c.source); got != c.want {
			t.Errorf("%s: citesOtherDocument = %v, want %v", c.name, got, c.want)
		}
	}
	st := evaltest.State("Sub-processors are listed. (See Sub-processors, page 2)", false, evaltest.OnePass, lateFees, dpa)
	r := ScoreQA(QARow{ID: "o", Facts: []string{"listed"}, Source: "msa.md"}, st, nil)
	if r.OtherDocument == nil || !*r.OtherDocument {
		t.Errorf("an answer citing only dpa.md for a question about msa.md: other_document %v", r.OtherDocument)
	}
	rep := summarizeQA([]QAResult{r})
	if rep.OtherDocumentAnswers != 1 || rep.DocumentChecked != 1 {
		t.Errorf("report: %d of %d, want 1 of 1", rep.OtherDocumentAnswers, rep.DocumentChecked)
	}
}
