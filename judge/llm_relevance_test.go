package judge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/decomposer"
	"github.com/docmind/docmind/generator"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/llm/openai"
	"github.com/docmind/docmind/llm/openaitest"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

// relFilings are sections of three annual reports whose revenue sentences
// look alike: only the document context (entity, period) tells them apart.
var relFilings = []schema.Section{
	{Title: "Total Revenues", Page: 38, Source: "relFilings/oracle-10k-2022.pdf",
		DocTitle: "Oracle Corporation Annual Report on Form 10-K", DocEntity: "Oracle Corporation", DocPeriod: "fiscal year ended May 31, 2022",
		Content: "Total revenues were $42.4 billion in fiscal 2022, an increase of 5% compared to fiscal 2021."},
	{Title: "Total Revenues", Page: 41, Source: "relFilings/oracle-10k-2023.pdf",
		DocTitle: "Oracle Corporation Annual Report on Form 10-K", DocEntity: "Oracle Corporation", DocPeriod: "fiscal year ended May 31, 2023",
		Content: "Total revenues were $50.0 billion in fiscal 2023, an increase of 18% compared to fiscal 2022."},
	{Title: "Total Revenues", Page: 37, Source: "relFilings/microsoft-10k-2023.pdf",
		DocTitle: "Microsoft Corporation Annual Report on Form 10-K", DocEntity: "Microsoft Corporation", DocPeriod: "fiscal year ended June 30, 2023",
		Content: "Total revenues were $211.9 billion in fiscal 2023, an increase of 7% compared to fiscal 2022."},
}

// relHandbook has an annual-leave and a parental-leave section.
var relHandbook = []schema.Section{
	{Title: "Annual Leave", Page: 12, Source: "hr/handbook.md", DocTitle: "Employee Handbook", DocEntity: "Acme Ltd",
		Content: "Employees are entitled to 25 days of annual leave per year."},
	{Title: "Parental Leave", Page: 14, Source: "hr/handbook.md", DocTitle: "Employee Handbook", DocEntity: "Acme Ltd",
		Content: "Employees may take up to 16 weeks of paid parental leave."},
}

// relHistory dates an event by its year only.
var relHistory = []schema.Section{
	{Title: "The Third Crusade", Page: 27, Source: "history/normans.md", DocTitle: "Normans",
		Content: "In April 1191 Richard the Lion-hearted left Messina with a large fleet in order to reach Acre."},
}

const oracleQuestion = "What were Oracle's total revenues in fiscal 2023?"

// relClaim is a judge-v2 claim: supported by its quote, with the model's
// relevance judgement.
func relClaim(text, id, quote string, addresses bool, entity, period string) map[string]any {
	return map[string]any{"claim": text, "section_id": id, "quote": quote, "supported": true,
		"contradiction": "", "reason": "", "addresses_question": addresses,
		"about": map[string]any{"entity": entity, "period": period}}
}

// relVerdict is a judge-v2 verdict in which the model finds every quote
// and calls the answer grounded (is_hallucinated false, confidence 0.9),
// so that only its relevance judgement can reject the answer. answers nil
// leaves "answers_question" out.
func relVerdict(t *testing.T, answers *bool, reason string, claims ...map[string]any) string {
	t.Helper()
	v := map[string]any{"claims": claims, "is_hallucinated": false, "confidence_score": 0.9,
		"reasoning": "every claim is quoted from its section", "irrelevant_sections": []string{}}
	if answers != nil {
		v["answers_question"], v["relevance_reason"] = *answers, reason
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func llmRelPtr(b bool) *bool { return &b }

// relevanceCase is a question, the sections retrieved for it, the model's
// answer (with [Sk] ids) and the model's verdict on it.
type relevanceCase struct {
	name     string
	sections []schema.Section
	query    string
	answer   string
	verdict  func(t *testing.T) string
	accepted bool
	// reasoning and claimReason are expected in the verdict's reasoning
	// and in the first claim's reason.
	reasoning   []string
	claimReason string
}

func relevanceCases() []relevanceCase {
	return []relevanceCase{
		{
			name:     "different entity: Microsoft's revenue for a question about Oracle",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $211.9 billion in fiscal 2023 [S3].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(false), "the answer is about Microsoft Corporation; the question asks about Oracle",
					relClaim("Total revenues were $211.9 billion in fiscal 2023", "S3", "Total revenues were $211.9 billion in fiscal 2023", false, "Microsoft Corporation", "fiscal year ended June 30, 2023"))
			},
			reasoning: []string{"rejected by the LLM judge and the guards", "the answer does not answer the question: the answer is about Microsoft Corporation; the question asks about Oracle",
				"the answer is not about what the question names"},
			claimReason: "does not address the question (it is about Microsoft Corporation, fiscal year ended June 30, 2023)",
		},
		{
			name:     "different period: Oracle fiscal 2022 for a question about fiscal 2023",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $42.4 billion in fiscal 2022 [S1].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(false), "the answer is about Oracle fiscal 2022; the question asks about fiscal 2023",
					relClaim("Total revenues were $42.4 billion in fiscal 2022", "S1", "Total revenues were $42.4 billion in fiscal 2022", false, "Oracle Corporation", "fiscal year ended May 31, 2022"))
			},
			reasoning:   []string{"the answer is about Oracle fiscal 2022; the question asks about fiscal 2023"},
			claimReason: "it is about Oracle Corporation, fiscal year ended May 31, 2022",
		},
		{
			name:     "different question: annual leave for parental leave",
			sections: relHandbook, query: "How many weeks of parental leave do employees get?",
			answer: "Employees are entitled to 25 days of annual leave per year [S1].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(false), "the question asks how many weeks of parental leave; the answer gives the annual leave in days",
					relClaim("Employees are entitled to 25 days of annual leave per year", "S1", "Employees are entitled to 25 days of annual leave per year", false, "Acme Ltd", ""))
			},
			reasoning:   []string{"the answer does not answer the question: the question asks how many weeks of parental leave"},
			claimReason: "does not address the question (it is about Acme Ltd)",
		},
		{
			name:     "every claim off the question although answers_question is missing",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $42.4 billion in fiscal 2022 [S1].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, nil, "",
					relClaim("Total revenues were $42.4 billion in fiscal 2022", "S1", "Total revenues were $42.4 billion in fiscal 2022", false, "Oracle Corporation", "fiscal 2022"))
			},
			reasoning:   []string{"no claim of the answer addresses the question", "it is about Oracle Corporation, fiscal 2022"},
			claimReason: "does not address the question",
		},
		{
			name:     "another period the model accepts: the deterministic relevance guard rejects it",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $42.4 billion in fiscal 2022 [S1].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(true), "the answer gives Oracle's total revenues",
					relClaim("Total revenues were $42.4 billion in fiscal 2022", "S1", "Total revenues were $42.4 billion in fiscal 2022", true, "Oracle Corporation", "fiscal 2022"))
			},
			reasoning:   []string{"rejected by the guards although the LLM judge accepted it", "the answer is not about what the question names", "2023"},
			claimReason: "2023",
		},
		{
			name:     "another company the model accepts: the deterministic relevance guard rejects it",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $211.9 billion in fiscal 2023 [S3].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(true), "the answer gives the total revenues in fiscal 2023",
					relClaim("Total revenues were $211.9 billion in fiscal 2023", "S3", "Total revenues were $211.9 billion in fiscal 2023", true, "Microsoft Corporation", "fiscal 2023"))
			},
			reasoning:   []string{"rejected by the guards although the LLM judge accepted it", "the answer is not about what the question names", "Oracle"},
			claimReason: "Oracle",
		},
		{
			name:     "the right answer is accepted",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $50.0 billion in fiscal 2023 [S2].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(true), "the answer gives Oracle's fiscal 2023 total revenues",
					relClaim("Total revenues were $50.0 billion in fiscal 2023", "S2", "Total revenues were $50.0 billion in fiscal 2023", true, "Oracle Corporation", "fiscal year ended May 31, 2023"))
			},
			accepted:  true,
			reasoning: []string{"accepted by the LLM judge and the guards"},
		},
		{
			name:     "an aside that does not address the question is set aside, the answer kept",
			sections: relFilings, query: oracleQuestion,
			answer: "Total revenues were $50.0 billion in fiscal 2023 [S2]. Total revenues were $42.4 billion in fiscal 2022 [S1].",
			verdict: func(t *testing.T) string {
				return relVerdict(t, llmRelPtr(true), "the first claim gives Oracle's fiscal 2023 revenues",
					relClaim("Total revenues were $50.0 billion in fiscal 2023", "S2", "Total revenues were $50.0 billion in fiscal 2023", true, "Oracle Corporation", "fiscal 2023"),
					relClaim("Total revenues were $42.4 billion in fiscal 2022", "S1", "Total revenues were $42.4 billion in fiscal 2022", false, "Oracle Corporation", "fiscal 2022"))
			},
			accepted:  true,
			reasoning: []string{"accepted by the LLM judge and the guards", `set aside as not addressing the question: "Total revenues were $42.4 billion in fiscal 2022"`},
		},
	}
}

// TestLLMJudgeRelevance: the model quotes each claim correctly and calls
// the answer grounded, but says it does not answer the question (another
// entity, another period, another question); the judge rejects it with a
// confidence below the return threshold and says why.
func TestLLMJudgeRelevance(t *testing.T) {
	minConfidence := judge.DefaultThresholds().MinConfidence
	for _, tc := range relevanceCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: tc.verdict(t)})
			answer, _ := prompts.RenderCitations(tc.answer, tc.sections)
			v, err := newJudge(t, srv).Judge(context.Background(), schema.JudgeRequest{Query: tc.query, Response: answer, Sections: tc.sections})
			if err != nil {
				t.Fatal(err)
			}
			if v.IsHallucinated == tc.accepted || v.ShouldReturn != tc.accepted || v.Unverified {
				t.Fatalf("hallucinated=%v should_return=%v unverified=%v, want accepted=%v; reasoning %q",
					v.IsHallucinated, v.ShouldReturn, v.Unverified, tc.accepted, v.Reasoning)
			}
			for _, want := range tc.reasoning {
				if !strings.Contains(v.Reasoning, want) {
					t.Errorf("reasoning %q lacks %q", v.Reasoning, want)
				}
			}
			if !tc.accepted && v.ConfidenceScore >= minConfidence {
				t.Errorf("confidence %v of an answer that does not answer the question is not below %v", v.ConfidenceScore, minConfidence)
			}
			if tc.accepted && v.ConfidenceScore != 0.9 {
				t.Errorf("confidence %v of an accepted answer, want the model's 0.9", v.ConfidenceScore)
			}
			if tc.claimReason != "" {
				if len(v.Claims) == 0 || v.Claims[0].Supported || !strings.Contains(v.Claims[0].Reason, tc.claimReason) {
					t.Errorf("claims %+v: want the first unsupported with reason %q", v.Claims, tc.claimReason)
				}
			}
			if tc.accepted && len(v.Claims) == 2 && (!v.Claims[0].Supported || v.Claims[1].Supported) {
				t.Errorf("claims %+v: want the aside (second) unsupported, the answer (first) supported", v.Claims)
			}
		})
	}
}

// TestLLMRelevancePipelineFallback runs the same cases through the whole
// pipeline (LLM generator and LLM judge on the scripted server): an
// answer that does not answer the question ends as the fallback message
// after the retries, the right one is returned.
func TestLLMRelevancePipelineFallback(t *testing.T) {
	for _, tc := range relevanceCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Always(openaitest.RouteGenerate, openaitest.Reply{Content: tc.answer})
			srv.Always(openaitest.RouteVerdict, openaitest.Reply{Content: tc.verdict(t)})
			m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithModel("gpt-4o-mini"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := docmind.New(
				docmind.WithRetriever(llmRelRetriever(tc.sections)),
				docmind.WithDecomposer(decomposer.NewOffline()),
				docmind.WithGenerator(generator.NewLLM(m, generator.LLMOptions{})),
				docmind.WithJudge(judge.NewLLM(m, judge.LLMOptions{})),
			)
			if err != nil {
				t.Fatal(err)
			}
			st, err := p.Run(context.Background(), tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if tc.accepted {
				want, _ := prompts.RenderCitations(tc.answer, tc.sections)
				if st.Answer() != want {
					t.Errorf("final output %q, want %q; verdict %+v", st.Answer(), want, st.JudgeVerdict)
				}
				return
			}
			if st.Answer() != docmind.FallbackMessage {
				t.Errorf("final output %q, want the fallback; verdict %+v", st.Answer(), st.JudgeVerdict)
			}
			if srv.Calls(openaitest.RouteVerdict) < 2 {
				t.Errorf("verdict calls = %d: the rejection did not lead to a retry", srv.Calls(openaitest.RouteVerdict))
			}
		})
	}
}

type llmRelRetriever []schema.Section

func (r llmRelRetriever) Retrieve(context.Context, schema.RetrieveRequest) ([]schema.Section, error) {
	return append([]schema.Section(nil), r...), nil
}

// TestLLMJudgeRequestCarriesRelevance inspects the request the judge sent:
// each section's header names its document's title, file, entity and
// period, the system prompt asks for the relevance checks, and the
// response format's schema has the new fields.
func TestLLMJudgeRequestCarriesRelevance(t *testing.T) {
	srv := openaitest.New(t)
	c := relevanceCases()[1]
	srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: c.verdict(t)})
	answer, _ := prompts.RenderCitations(c.answer, c.sections)
	if _, err := newJudge(t, srv).Judge(context.Background(), schema.JudgeRequest{Query: c.query, Response: answer, Sections: c.sections}); err != nil {
		t.Fatal(err)
	}
	req, ok := srv.Last(openaitest.RouteVerdict)
	if !ok {
		t.Fatal("no verdict request")
	}
	system, user := req.Body.Messages[0].Content, req.Body.Messages[1].Content
	for _, want := range []string{
		`<document id="S1" title="Total Revenues" page="page 38" source="relFilings/oracle-10k-2022.pdf" document_title="Oracle Corporation Annual Report on Form 10-K" entity="Oracle Corporation" period="fiscal year ended May 31, 2022">`,
		`<document id="S2" title="Total Revenues" page="page 41" source="relFilings/oracle-10k-2023.pdf" document_title="Oracle Corporation Annual Report on Form 10-K" entity="Oracle Corporation" period="fiscal year ended May 31, 2023">`,
		`entity="Microsoft Corporation" period="fiscal year ended June 30, 2023">`,
		"Question: " + oracleQuestion,
	} {
		if !strings.Contains(user, want) {
			t.Errorf("user prompt lacks %q:\n%s", want, user)
		}
	}
	for _, want := range []string{`"addresses_question"`, `"about"`, `"answers_question"`, `"relevance_reason"`,
		"Entities and periods", "how many → a count", "parental leave", "need not", "comparatives"} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	var body struct {
		ResponseFormat struct {
			JSONSchema struct {
				Name   string `json:"name"`
				Schema struct {
					Properties map[string]json.RawMessage `json:"properties"`
					Required   []string                   `json:"required"`
				} `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(req.Raw, &body); err != nil {
		t.Fatal(err)
	}
	sch := body.ResponseFormat.JSONSchema.Schema
	if body.ResponseFormat.JSONSchema.Name != prompts.SchemaVerdict || sch.Properties["answers_question"] == nil || sch.Properties["relevance_reason"] == nil ||
		!strings.Contains(strings.Join(sch.Required, ","), "answers_question") {
		t.Errorf("response format lacks answers_question/relevance_reason: %s", req.Raw)
	}
	var claims struct {
		Items struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"items"`
	}
	if err := json.Unmarshal(sch.Properties["claims"], &claims); err != nil ||
		claims.Items.Properties["addresses_question"] == nil || !strings.Contains(string(claims.Items.Properties["about"]), `"period"`) ||
		!strings.Contains(strings.Join(claims.Items.Required, ","), "addresses_question,about") {
		t.Errorf("claims schema lacks addresses_question/about: %s (%v)", sch.Properties["claims"], err)
	}
	if v := srv.Requests(); len(v) != 1 {
		t.Errorf("%d requests", len(v))
	}
}

// TestLLMJudgeParsesRepliesWithoutRelevance: a reply in the pre-judge-v2
// format (no addresses_question, about, answers_question,
// relevance_reason) still parses, and since absence means "not judged"
// the answer is decided on support alone (and the deterministic guards),
// here accepted. Odd shapes of "about" (a string, a list) parse too.
func TestLLMJudgeParsesRepliesWithoutRelevance(t *testing.T) {
	var c relevanceCase
	for _, rc := range relevanceCases() {
		if rc.name == "the right answer is accepted" {
			c = rc
		}
	}
	answer, _ := prompts.RenderCitations(c.answer, c.sections)
	quote := "Total revenues were $50.0 billion in fiscal 2023"
	aboutString := relClaim(quote, "S2", quote, true, "", "")
	aboutString["about"] = "Oracle Corporation, fiscal 2023"
	aboutList := relClaim(quote, "S2", quote, false, "", "")
	aboutList["about"] = []string{"Oracle Corporation", "fiscal 2023"}
	for _, tc := range []struct {
		name     string
		reply    string
		accepted bool
		reason   string
	}{
		{name: "old format", reply: verdictJSON(t, false, 0.9, claim(quote, "S2", quote, true)), accepted: true},
		{name: "about as a string", reply: relVerdict(t, llmRelPtr(true), "", aboutString), accepted: true},
		{name: "about as a list", reply: relVerdict(t, nil, "", aboutList), reason: "it is about Oracle Corporation, fiscal 2023"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := openaitest.New(t)
			srv.Script(openaitest.RouteVerdict, openaitest.Reply{Content: tc.reply})
			v, err := newJudge(t, srv).Judge(context.Background(), schema.JudgeRequest{Query: c.query, Response: answer, Sections: c.sections})
			if err != nil {
				t.Fatal(err)
			}
			if v.Unverified || v.ShouldReturn != tc.accepted || srv.Calls(openaitest.RouteVerdict) != 1 {
				t.Errorf("unverified=%v should_return=%v calls=%d, want accepted=%v at the first reply; reasoning %q",
					v.Unverified, v.ShouldReturn, srv.Calls(openaitest.RouteVerdict), tc.accepted, v.Reasoning)
			}
			if tc.reason != "" && (len(v.Claims) != 1 || !strings.Contains(v.Claims[0].Reason, tc.reason)) {
				t.Errorf("claims %+v lack reason %q", v.Claims, tc.reason)
			}
		})
	}
}
