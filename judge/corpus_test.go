package judge

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
)

// corpusSections is a small contract: many sections mention the Client and
// fees, one mentions insurance, none mentions an umbrella policy.
func corpusSections() []schema.Section {
	secs := []schema.Section{
		{Title: "Insurance", Page: 12, Content: "During the Term, Provider shall maintain commercial general liability insurance of at least two million US dollars."},
		{Title: "Availability", Page: 5, Content: "Provider shall make the analytics platform available at least 99.5% of the time in each calendar month under the Standard tier."},
		{Title: "Incident Response Times", Page: 5, Content: "Severity 1 incidents get a response within 1 hour. Severity 2 incidents get a response within 4 hours."},
	}
	for _, t := range []string{"Fees", "Invoicing", "Taxes", "Term", "Notices"} {
		secs = append(secs, schema.Section{Title: t, Page: 6, Content: "Client shall pay the fees that Provider invoices to Client for the Services."})
	}
	return secs
}

func TestWithCorpusRejectsTermsTheCorpusNeverMentions(t *testing.T) {
	ctx := context.Background()
	secs := corpusSections()
	answer := "During the Term, Provider shall maintain commercial general liability insurance of at least two million US dollars. (See Insurance, page 12)"
	req := schema.JudgeRequest{Query: "How much umbrella insurance must the Provider carry?", Response: answer, Sections: secs[:1]}
	// Among the retrieved section alone "umbrella" and "insurance" look
	// alike; over the whole corpus "umbrella" occurs nowhere and weighs most.
	v, err := NewOffline(WithCorpus(secs)).Judge(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !v.IsHallucinated || !strings.Contains(v.Reasoning, `"umbrella"`) {
		t.Errorf("question about a term absent from the corpus was accepted: %s", v.Reasoning)
	}
	// The same answer to the question the corpus does address passes.
	req.Query = "How much liability insurance must the Provider carry?"
	v, err = NewOffline(WithCorpus(secs)).Judge(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsHallucinated {
		t.Errorf("answerable question rejected: %s", v.Reasoning)
	}
}

func TestWithCorpusKeepsParaphrases(t *testing.T) {
	// "uptime" is in no section, but the question's other, rarer terms
	// (platform, Standard tier) are in the supporting section titled
	// Availability: the answer still stands.
	secs := corpusSections()
	req := schema.JudgeRequest{
		Query:    "What availability does the provider give for the platform on the Standard tier?",
		Response: "Provider shall make the analytics platform available at least 99.5% of the time in each calendar month under the Standard tier. (See Availability, page 5)",
		Sections: secs[1:2],
	}
	v, err := NewOffline(WithCorpus(secs)).Judge(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsHallucinated {
		t.Errorf("paraphrase rejected: %s", v.Reasoning)
	}
}

func TestCorpusStatsDocFreq(t *testing.T) {
	c := NewCorpusStats(corpusSections())
	for term, want := range map[string]int{"client": 5, "insurance": 1, "umbrella": 0, "liability insurance": 1, "umbrella insurance": 0} {
		if got := c.DocFreq(term); got != want {
			t.Errorf("DocFreq(%q) = %d, want %d", term, got, want)
		}
	}
}

func TestNumberedLabelMustBeMentioned(t *testing.T) {
	secs := corpusSections()[2:3]
	answer := "Severity 1 incidents get a response within 1 hour. Severity 2 incidents get a response within 4 hours. (See Incident Response Times, page 5)"
	for _, tc := range []struct {
		query        string
		hallucinated bool
	}{
		{"What is the response time for Severity 4 incidents?", true}, // "4 hours" is not "Severity 4"
		{"What is the response time for Severity 2 incidents?", false},
		{"Is the response time for serious incidents 4 hours?", false}, // an amount, not a label
	} {
		v, err := NewOffline().Judge(context.Background(), schema.JudgeRequest{Query: tc.query, Response: answer, Sections: secs})
		if err != nil {
			t.Fatal(err)
		}
		// the label is a key term the sections never mention
		unaddressed := slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == RuleUnaddressed })
		if unaddressed != tc.hallucinated || tc.hallucinated && v.ShouldReturn {
			t.Errorf("%q: unaddressed = %v, returned %v; want unaddressed %v (%s)", tc.query, unaddressed, v.ShouldReturn, tc.hallucinated, v.Reasoning)
		}
	}
	if got := missingNumbers("Severity 4 and Tier 2?", []string{"Tier 2 only"}); !reflect.DeepEqual(got, []string{"Severity 4"}) {
		t.Errorf("missingNumbers = %v", got)
	}
	// a month and a year are a date, which a day may split
	if got := missingNumbers("What did the Company sell in March 2015?", []string{"On March 17, 2015, the Company completed the sale."}); got != nil {
		t.Errorf("missingNumbers of a date = %v", got)
	}
}

func TestSynonymKeyTermCoverage(t *testing.T) {
	// "uptime" and "promise" occur in no section; "availability" (the
	// section's title and "available") and "commits" are their synonyms.
	secs := corpusSections()
	secs[1].Content = "Provider commits to make the analytics platform available at least 99.5% of the time in each calendar month under the Standard tier."
	req := schema.JudgeRequest{
		Query:    "What uptime does the provider promise?",
		Response: secs[1].Content + " (See Availability, page 5)",
		Sections: secs[1:2],
	}
	ctx := context.Background()
	tests := []struct {
		name     string
		opts     []Option
		accepted bool
	}{
		{"with the thesaurus", []Option{WithCorpus(secs)}, true},
		{"exact stems only", []Option{WithCorpus(secs), WithThesaurus(nil)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Score(ctx, req, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			v := NewOffline(tt.opts...).Decide(a)
			if unaddressed := slices.ContainsFunc(v.Findings, func(f schema.Finding) bool { return f.Rule == RuleUnaddressed }); unaddressed == tt.accepted {
				t.Errorf("accepted = %v, want %v: %s (coverage %.2f, missing %v)", !v.IsHallucinated, tt.accepted, v.Reasoning, a.KeyTermCoverage, a.MissingKeyTerms)
			}
			if tt.accepted && len(a.MissingKeyTerms) > 0 {
				t.Errorf("key terms %v missing although their synonyms are stated", a.MissingKeyTerms)
			}
		})
	}
}

func TestAbsentTopicStillRejected(t *testing.T) {
	// "warranty" has no synonym in the corpus ("guarantee" would not count:
	// the thesaurus keeps them apart), and "refund" has synonyms
	// (reimburse, repay) that no section uses: both stay unaddressed, even
	// though the answer covers the question's other terms.
	secs := corpusSections()
	secs[1].Content = "Provider guarantees that the analytics platform is available at least 99.5% of the time in each calendar month."
	ctx := context.Background()
	for _, q := range []string{"What warranty does the provider give on the platform?", "What refund applies to the platform each calendar month?"} {
		req := schema.JudgeRequest{Query: q, Response: secs[1].Content + " (See Availability, page 5)", Sections: secs[1:2]}
		a, err := Score(ctx, req, WithCorpus(secs))
		if err != nil {
			t.Fatal(err)
		}
		v := NewOffline(WithCorpus(secs)).Decide(a)
		if !v.IsHallucinated || len(a.AbsentKeyTerms) != 1 || !strings.Contains(v.Reasoning, "no document mentions in any wording") {
			t.Errorf("%q: accepted=%v absent=%v reasoning %q", q, !v.IsHallucinated, a.AbsentKeyTerms, v.Reasoning)
		}
	}
}

func TestGroupDocFreq(t *testing.T) {
	c := NewCorpusStats(corpusSections())
	lex := lexicon.Default()
	for term, want := range map[string]int{"uptime": 1, "availability": 1, "charges": 5, "umbrella": 0, "insurance": 1} {
		if got := c.GroupDocFreq(term, lex); got != want {
			t.Errorf("GroupDocFreq(%q) = %d, want %d", term, got, want)
		}
	}
	if got := c.GroupDocFreq("uptime", nil); got != 0 {
		t.Errorf("GroupDocFreq(uptime, nil) = %d, want 0 (exact only)", got)
	}
}

// A section of a filing is about the organisation and period its document
// names, though the section itself names neither; and "April 1, 2023" is
// stated by a balance sheet dated "Apr 1, 2023" (Intel's first-quarter
// 2023 earnings release, page 7).
func TestKeyTermsInTheDocumentContext(t *testing.T) {
	sec := schema.Section{ID: "bs", Title: "Business Highlights", Page: 7, Source: "INTEL_2023Q1_EARNINGS.pdf",
		DocTitle: "Intel Reports First-Quarter 2023 Financial Results", DocEntity: "Intel Corporation", DocPeriod: "first quarter 2023",
		Content: "(In Millions, Except Par Value; Unaudited) Apr 1, 2023 Dec 31, 2022 Assets Current assets: Cash and cash equivalents $ 8,232 $ 11,144 Short-term investments 5,847 4,187"}
	req := schema.JudgeRequest{
		Query:    "What were Intel's cash and cash equivalents as of April 1, 2023?",
		Response: "Cash and cash equivalents $8,232 $11,144 (See Business Highlights, page 7)",
		Sections: []schema.Section{sec},
	}
	a, err := Score(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if a.KeyTermCoverage < 1 {
		t.Errorf("coverage %.2f, missing %v", a.KeyTermCoverage, a.MissingKeyTerms)
	}
	// another company's filing does not state Intel
	other := sec
	other.Source, other.DocTitle, other.DocEntity = "EBAY_2023Q1_EARNINGS.pdf", "eBay Inc. Reports First Quarter 2023 Results", "eBay Inc."
	req.Sections = []schema.Section{other}
	if a, err = Score(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(a.MissingKeyTerms, "intel") {
		t.Errorf("missing %v, want intel", a.MissingKeyTerms)
	}
}

// Terms fold accents ("Hervé" is "herve"): a question written without
// them ("Herve") names what a section names, so it is not absent.
func TestAbsentTermsFoldAccents(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "Paragraph 12", Page: 1, Source: "normans.md", Content: "In 1050 Hervé served as a Byzantine general against the Pechenegs."},
		{ID: "b", Title: "Paragraph 13", Page: 1, Source: "normans.md", Content: "The Normans settled in Italy and Sicily."},
	}
	req := schema.JudgeRequest{Query: "When did Herve serve as a Byzantine general?",
		Response: secs[0].Content + " (See Paragraph 12, page 1)", Sections: secs[:1]}
	a, err := Score(context.Background(), req, WithCorpus(secs))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.AbsentKeyTerms) != 0 {
		t.Errorf("absent key terms %v: the section names Hervé", a.AbsentKeyTerms)
	}
	// a name no section has in any spelling stays absent
	req.Query = "When did Humbert serve as a Byzantine general?"
	if a, err = Score(context.Background(), req, WithCorpus(secs)); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(a.AbsentKeyTerms, "humbert") {
		t.Errorf("absent key terms %v, want humbert", a.AbsentKeyTerms)
	}
}

// A word that chose the section's document by its file name
// (Section.NamedBy: "According to the acme.com privacy policy, …") is
// stated by the document, though no section's text writes it: it is
// not a topic absent from every document.
func TestNamingWordsAreNotAbsent(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "Segment 4", Page: 4, Source: "acme.com.md", Content: "You may change or update your account information at any time from your settings page."},
		{ID: "b", Title: "Segment 5", Page: 5, Source: "acme.com.md", Content: "We keep your information for as long as your account is active."},
	}
	req := schema.JudgeRequest{Query: "According to the acmecorp privacy policy, can I update my account information?",
		Response: secs[0].Content + " (See Segment 4, page 4)", Sections: secs[:1]}
	a, err := Score(context.Background(), req, WithCorpus(secs))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(a.AbsentKeyTerms, "acmecorp") {
		t.Fatalf("absent key terms %v, want acmecorp (no document is named by it)", a.AbsentKeyTerms)
	}
	named := slices.Clone(secs[:1])
	named[0].NamedBy = []string{"acmecorp", "privacy", "policy"}
	req.Sections = named
	if a, err = Score(context.Background(), req, WithCorpus(secs)); err != nil {
		t.Fatal(err)
	}
	if len(a.AbsentKeyTerms) != 0 || slices.Contains(a.MissingKeyTerms, "acmecorp") {
		t.Errorf("absent %v, missing %v: acmecorp chose the section's document", a.AbsentKeyTerms, a.MissingKeyTerms)
	}
}

// A term the corpus states only in a form WordNet derives it from
// ("departed" for "departure") is mentioned, so not absent; one no
// section states in any form ("arrival") is.
func TestAbsentTermsCountDerivedForms(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "Voyages", Page: 3, Source: "fleet.md", Content: "The fleet departed from Plymouth harbour in April 1620."},
		{ID: "b", Title: "Crew", Page: 4, Source: "fleet.md", Content: "The crew numbered about thirty sailors."},
	}
	for _, tt := range []struct {
		q, absent string
	}{
		{"When was the fleet's departure from Plymouth harbour?", ""},
		{"When was the fleet's arrival in Plymouth harbour?", "arrival"},
	} {
		req := schema.JudgeRequest{Query: tt.q, Response: secs[0].Content + " (See Voyages, page 3)", Sections: secs[:1]}
		a, err := Score(context.Background(), req, WithCorpus(secs))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.AbsentKeyTerms; !absentAsWanted(got, tt.absent) {
			t.Errorf("%q: absent key terms %q, want %q", tt.q, got, tt.absent)
		}
	}
}

// A word among the most frequent in English ("sometimes") names no topic
// the documents lack, though no document writes it; a rarer word does
// ("warranty", TestAbsentTopicStillRejected), and so does a word that is
// no English word at all ("availabilty": questions that invent a word,
// "unwealthy", ask what no document says).
func TestAbsentWordsThatNameNoTopic(t *testing.T) {
	secs := corpusSections()
	secs[1].Content = "Provider guarantees that the analytics platform is available at least 99.5% of the time in each calendar month."
	ctx := context.Background()
	for _, tt := range []struct {
		q, absent string
		vetoed    bool
	}{
		{"What does the provider sometimes guarantee for the platform each calendar month?", "sometimes", false},
		{"What availabilty does the provider guarantee each calendar month?", "availabilty", true},
		{"What warranty does the provider guarantee each calendar month?", "warranty", true},
	} {
		req := schema.JudgeRequest{Query: tt.q, Response: secs[1].Content + " (See Availability, page 5)", Sections: secs[1:2]}
		a, err := Score(ctx, req, WithCorpus(secs))
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(a.AbsentKeyTerms, tt.absent); got != tt.vetoed {
			t.Errorf("%q: %q absent %v, want %v (absent %v)", tt.q, tt.absent, got, tt.vetoed, a.AbsentKeyTerms)
		}
	}
}

// A sentence quoted from a section states what the section says, however
// much it reads like an answer saying the documents do not tell.
func TestQuotedSentenceIsNoAbstention(t *testing.T) {
	secs := corpusSections()
	secs[1].Content = "Enterprise analytics add-ons are offered as a separate service which is not available under the Standard tier."
	for _, tt := range []struct {
		response   string
		abstention bool
	}{
		{secs[1].Content + " (See Availability, page 5)", false},
		{"The add-on pricing is not stated in the documents.", true},
	} {
		a, err := Score(context.Background(), schema.JudgeRequest{Query: "What is not available under the Standard tier?", Response: tt.response, Sections: secs[1:2]})
		if err != nil {
			t.Fatal(err)
		}
		if a.Abstention != tt.abstention {
			t.Errorf("%q: abstention %v, want %v", tt.response, a.Abstention, tt.abstention)
		}
	}
}

// A word of a name the question uses is not "a word no document
// mentions" when a section names the name in a form the name check
// accepts: the question's "Vertical Enterprises LLC" is the contract's
// "VerticalNet Enterprises LLC" (a word a few letters longer), though no
// document writes "vertical" alone. A name no section names keeps its
// words absent, so the refusal says which name the documents lack, and
// entity.unnamed refuses a claim about it too.
func TestNameWordsAreTheNameChecks(t *testing.T) {
	secs := []schema.Section{
		{ID: "a", Title: "Term", Page: 1, Source: "maintenance.md", Content: "This Agreement is entered into by VerticalNet Enterprises LLC and Converge Inc. and is effective as of October 1, 2001."},
		{ID: "b", Title: "Fees", Page: 2, Source: "maintenance.md", Content: "Converge shall pay the maintenance fees quarterly in advance."},
	}
	ctx := context.Background()
	for _, tt := range []struct {
		q, absent string
		unnamed   bool
	}{
		{"When is the agreement between Vertical Enterprises LLC and Converge Inc. effective?", "", false},
		{"When is the agreement between Quantix Partners LLC and Converge Inc. effective?", "quantix", true},
	} {
		req := schema.JudgeRequest{Query: tt.q, Response: secs[0].Content + " (See Term, page 1)", Sections: secs[:1]}
		a, err := Score(ctx, req, WithCorpus(secs))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.AbsentKeyTerms; !absentAsWanted(got, tt.absent) {
			t.Errorf("%q: absent key terms %q, want %q", tt.q, got, tt.absent)
		}
		unnamed := slices.ContainsFunc(a.Claims[0].OffQuestion, func(f relevance.Finding) bool { return f.Rule == "entity.unnamed" })
		if unnamed != tt.unnamed {
			t.Errorf("%q: entity.unnamed fired: %v, want %v (issues %v)", tt.q, unnamed, tt.unnamed, a.Issues)
		}
	}
}

// absentAsWanted reports whether the absent key terms got are as a test
// wants them: none when want is "", else holding want.
func absentAsWanted(got []string, want string) bool {
	if want == "" {
		return len(got) == 0
	}
	return slices.Contains(got, want)
}
