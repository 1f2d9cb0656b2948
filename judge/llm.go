package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
)

// JudgedByLLMGuards is Verdict.JudgedBy for the LLM judge.
const JudgedByLLMGuards = "llm+guards"

// LLMOptions tunes the LLM judge. The zero value is usable.
type LLMOptions struct {
	llm.Settings
}

// LLM is a schema.Judge that asks a model to split the answer into claims
// and check each against the section it cites, with a supporting quote
// (JSON following the docmind_verdict schema). The deterministic judge's
// guards (facts.Check, CheckCitations, CheckQuotes: what
// (*Offline).ApplyGuards runs) then check every sentence of the answer: numbers,
// percentages, money, durations and dates must agree with the cited text,
// quoted passages must occur in it, citations must name retrieved
// sections. On top of those the LLM judge checks what only it has: the
// answer's [Sk] ids, and that each of the model's claims names a
// retrieved section and quotes it verbatim. Either the model or a guard can mark the answer
// hallucinated, and the verdict's reasoning says which and why.
//
// The model also judges whether the answer answers the question (judge-v2
// prompt): per claim "addresses_question" and "about" (the entity and
// period the claim is about), per answer "answers_question" and
// "relevance_reason", checking entities and periods against the cited
// documents' context, the expected kind of value, the question's focus,
// and polarity, roles and comparatives. An answer the model says does not
// answer the question, or whose every claim (abstentions aside) does not
// address it, is hallucinated with a confidence below the return
// threshold, however well its quotes match: a true sentence about Oracle's
// fiscal 2022 does not answer a question about fiscal 2023. A claim that
// does not address the question is marked unsupported with that reason;
// when other claims do answer the question it alone does not reject the
// answer. A reply without these fields (an older model or server) is
// judged on support alone: absence means "not judged", never "off topic".
// A reply that cannot be parsed even after one repair attempt gives an
// unverified verdict, which never passes.
type LLM struct {
	model llms.Model
	opts  LLMOptions
	// guards is the deterministic judge whose fact, citation and quote
	// guards run on top of the model's verdict.
	guards *Offline
}

// NewLLM returns a judge over model.
func NewLLM(model llms.Model, opts LLMOptions) *LLM {
	guards := NewOffline()
	guards.claimGuardsOnly = true
	return &LLM{model: model, opts: opts, guards: guards}
}

// llmGuardKinds are the shared guards (see guards.go) whose findings the
// LLM judge adds to the model's: facts, citations, quotes and claims that
// are instructions to an AI (see injection.go). Whether the
// answer addresses the question is the model's call, not the lexical
// key-term check's.
func llmGuardKinds() []IssueKind {
	return []IssueKind{IssueContradiction, IssueUnsupportedFact, IssueBadCitation, IssueQuoteNotFound, IssueInstruction}
}

var _ schema.Judge = (*LLM)(nil)

// llmClaim and llmVerdict are the docmind_verdict reply.
//
// The relevance fields (a claim's "addresses_question" and "about", the
// answer's "answers_question" and "relevance_reason") came with judge-v2.
// A reply without them, from a model or server that ignores the schema or
// a proxy pinned to the older one, still parses: a missing field means
// "not judged" (nil), never "does not address the question", so such a
// reply is decided on support alone, as before judge-v2.
type llmClaim struct {
	Claim         string `json:"claim"`
	SectionID     string `json:"section_id"`
	Quote         string `json:"quote"`
	Supported     bool   `json:"supported"`
	Contradiction string `json:"contradiction"`
	Reason        string `json:"reason"`
	// AddressesQuestion is nil when the reply does not say.
	AddressesQuestion *bool    `json:"addresses_question"`
	About             llmAbout `json:"about"`
}

// llmAbout is what a claim is about, as its source states it. The schema
// asks for {"entity": …, "period": …}; a plain string ("Oracle, fiscal
// 2022"), a list of strings or any other value is accepted too and kept
// as Entity: what a claim is about only explains a verdict, so an odd
// shape never fails the reply.
type llmAbout struct {
	Entity string `json:"entity"`
	Period string `json:"period"`
}

func (a *llmAbout) UnmarshalJSON(b []byte) error {
	var obj struct {
		Entity any `json:"entity"`
		Period any `json:"period"`
	}
	var str string
	var list []any
	switch {
	case string(b) == "null":
		*a = llmAbout{}
	case json.Unmarshal(b, &str) == nil:
		*a = llmAbout{Entity: strings.TrimSpace(str)}
	case json.Unmarshal(b, &list) == nil:
		*a = llmAbout{Entity: llmAnyText(list)}
	case json.Unmarshal(b, &obj) == nil:
		*a = llmAbout{Entity: llmAnyText(obj.Entity), Period: llmAnyText(obj.Period)}
	default: // a number or boolean: keep it as text rather than fail the verdict
		*a = llmAbout{Entity: oneLine(string(b))}
	}
	return nil
}

// llmAnyText renders a JSON string, number or list of them as text.
func llmAnyText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case []any:
		var parts []string
		for _, e := range x {
			if t := llmAnyText(e); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, ", ")
	default:
		return strings.TrimSpace(fmt.Sprint(x))
	}
}

// String renders "Oracle Corporation, fiscal 2022", or "" when empty.
func (a llmAbout) String() string { return llmJoinText(", ", a.Entity, a.Period) }

type llmVerdict struct {
	Claims         []llmClaim `json:"claims"`
	IsHallucinated *bool      `json:"is_hallucinated"`
	// AnswersQuestion is nil when the reply does not say.
	AnswersQuestion    *bool    `json:"answers_question"`
	RelevanceReason    string   `json:"relevance_reason"`
	ConfidenceScore    float64  `json:"confidence_score"`
	Reasoning          string   `json:"reasoning"`
	IrrelevantSections []string `json:"irrelevant_sections"`
}

// llmJoinText joins the non-empty trimmed parts with sep.
func llmJoinText(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

func parseVerdict(js string) (*llmVerdict, error) {
	var v llmVerdict
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return nil, fmt.Errorf("verdict JSON: %w", err)
	}
	if v.IsHallucinated == nil {
		return nil, errors.New(`verdict lacks "is_hallucinated"`)
	}
	if len(v.Claims) == 0 {
		return nil, errors.New(`verdict has no "claims"; list every claim of the answer`)
	}
	for i, c := range v.Claims {
		if strings.TrimSpace(c.Claim) == "" {
			return nil, fmt.Errorf("claim %d has an empty \"claim\"", i+1)
		}
	}
	if v.ConfidenceScore > 1 && v.ConfidenceScore <= 100 {
		v.ConfidenceScore /= 100
	}
	if math.IsNaN(v.ConfidenceScore) || v.ConfidenceScore < 0 || v.ConfidenceScore > 1 {
		return nil, fmt.Errorf(`"confidence_score" %v is not between 0 and 1`, v.ConfidenceScore)
	}
	return &v, nil
}

// Judge implements schema.Judge.
func (j *LLM) Judge(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	answer := strings.TrimSpace(req.Response)
	switch {
	case len(req.Sections) == 0:
		return reject("no sections were retrieved, so nothing supports the answer"), nil
	case answer == "":
		return reject("the answer is empty"), nil
	}
	msgs, err := prompts.MustGet(prompts.NameJudge).Messages(ctx, prompts.JudgeData{
		Query:     req.Query,
		Documents: prompts.Documents(req.Sections),
		Answer:    prompts.Answer(answer),
	})
	if err != nil {
		return nil, err
	}
	var lv *llmVerdict
	_, err = llm.GenerateStructured(ctx, j.model, llm.StructuredCall{
		Messages:  msgs,
		Schema:    llm.JSONSchema{Name: prompts.SchemaVerdict, Schema: prompts.VerdictSchema(), Strict: true},
		Options:   j.opts.CallOptions(),
		ModelName: j.opts.ModelName,
		Repair:    prompts.RepairInstruction(prompts.SchemaVerdict),
	}, func(js string) error {
		v, err := parseVerdict(js)
		lv = v
		return err
	})
	req.Response = answer
	g, gerr := j.runGuards(ctx, req, lv)
	if gerr != nil {
		return nil, fmt.Errorf("checking the answer's facts: %w", gerr)
	}
	if err != nil {
		var pe *llm.ParseError
		if !errors.As(err, &pe) {
			return nil, err
		}
		why := "the judge's reply could not be parsed after a repair attempt (" + oneLine(pe.Err.Error()) + ")"
		var te *llm.TruncatedError
		if errors.As(pe.Err, &te) {
			why = te.Error() + " (sent again with twice the room and cut off again), so its verdict is incomplete"
		}
		v := reject("unverified: " + why)
		v.Unverified = true
		v.Claims = g.claims
		if len(g.findings) > 0 {
			v.Reasoning += "; guards: " + strings.Join(g.findings, "; ")
		}
		return v, nil
	}
	v := assemble(lv, g, req.Sections)
	applyConflicts(v, g.conflicts)
	return v, nil
}

func reject(reason string) *schema.Verdict {
	return &schema.Verdict{IsHallucinated: true, ShouldReturn: false, Reasoning: reason,
		Claims: []schema.ClaimCheck{}, JudgedBy: JudgedByLLMGuards}
}

// guardResult is what the guards found.
type guardResult struct {
	// claims are the model's claims after the guards, plus the answer's
	// sentences the shared guards flagged that match none of them.
	claims []schema.ClaimCheck
	// findings explain each guard rejection, for the reasoning.
	findings []string
	// llmRejected counts claims the model itself marked unsupported.
	llmRejected int
	// offTopic describes the claims the model said do not address the
	// question (marked unsupported, but not counted in llmRejected: an
	// answer that also answers the question is not rejected for an aside).
	offTopic []string
	// conflicts are the guards' conflicts between sources.
	conflicts []schema.Conflict
}

// runGuards checks what only the LLM judge has (the [Sk] ids of the
// answer and of the model's claims, and the model's supporting quotes),
// then runs the shared fact, citation and quote guards of the
// deterministic judge over every sentence of the answer and marks the
// model's claims they contradict.
func (j *LLM) runGuards(ctx context.Context, req schema.JudgeRequest, lv *llmVerdict) (guardResult, error) {
	var g guardResult
	sections := req.Sections
	cited, unknown := prompts.CitedSections(req.Response, sections)
	if len(unknown) > 0 {
		g.findings = append(g.findings, "the answer cites sources that were not retrieved: "+strings.Join(unknown, ", "))
	}
	if len(cited) == 0 && len(unknown) == 0 {
		g.findings = append(g.findings, "the answer cites no retrieved section")
	}
	if lv != nil {
		for _, c := range lv.Claims {
			cc := schema.ClaimCheck{Claim: StripCitations(c.Claim), Supported: c.Supported, Contradiction: c.Contradiction, Reason: c.Reason}
			if !c.Supported {
				g.llmRejected++
			}
			if llmOffTopic(c) {
				why := "does not address the question"
				if about := c.About.String(); about != "" {
					why += " (it is about " + about + ")"
				}
				cc.Supported = false
				cc.Reason = joinNonEmpty(why, cc.Reason)
				g.offTopic = append(g.offTopic, fmt.Sprintf("%q %s", cc.Claim, why))
			}
			i, ok := prompts.SectionIndex(c.SectionID, len(sections))
			if !ok {
				cc.Supported = false
				cc.Reason = joinNonEmpty(cc.Reason, fmt.Sprintf("cites %q, which is not a retrieved section", c.SectionID))
				g.findings = append(g.findings, fmt.Sprintf("claim %q cites %q, which is not a retrieved section", cc.Claim, c.SectionID))
				g.claims = append(g.claims, cc)
				continue
			}
			s := sections[i]
			cc.Evidence = &schema.Evidence{Quote: c.Quote, SectionID: prompts.SectionID(i), Title: s.Title, Source: s.Source, Page: s.Page}
			if q := strings.TrimSpace(c.Quote); q == "" {
				if c.Supported {
					cc.Supported = false
					cc.Reason = joinNonEmpty(cc.Reason, "no supporting quote given")
					g.findings = append(g.findings, fmt.Sprintf("claim %q has no supporting quote", cc.Claim))
				}
			} else if len(missingPhrases([]string{q}, []string{s.Content})) > 0 {
				cc.Supported = false
				cc.Reason = joinNonEmpty(cc.Reason, fmt.Sprintf("the quote does not occur in %s", prompts.SectionID(i)))
				g.findings = append(g.findings, fmt.Sprintf("the quote for claim %q does not occur in %s (%s)", cc.Claim, prompts.SectionID(i), s.Citation()))
			}
			g.claims = append(g.claims, cc)
		}
	}
	a, err := j.guards.Score(ctx, req)
	if err != nil {
		return g, err
	}
	g.conflicts = a.Conflicts
	if issues := a.guardIssues(llmGuardKinds()...); len(issues) > 0 {
		v := &schema.Verdict{Claims: g.claims}
		a.markClaims(v, issues)
		g.claims = v.Claims
		g.findings = append(g.findings, a.guardText(issues))
	}
	// the deterministic relevance check runs on top of the model's
	// judgement, as the fact guards do: an answer every claim of which is
	// about another entity or period than the question names does not
	// answer it, whatever the model said
	if issues := a.offEntityOrPeriod(); len(issues) > 0 {
		v := &schema.Verdict{Claims: g.claims}
		a.markClaims(v, issues)
		g.claims = v.Claims
		g.findings = append(g.findings, "the answer is not about what the question names: "+a.guardText(issues))
	}
	for i := range g.claims {
		g.claims[i] = withScore(g.claims[i])
	}
	return g, nil
}

// withScore scores a claim of the LLM judge: 1 when supported, else 0.
func withScore(c schema.ClaimCheck) schema.ClaimCheck {
	c.Score = 0
	if c.Supported {
		c.Score = 1
	}
	return c
}

// llmOffTopic reports whether the model judged that claim c, which is not an
// abstention, does not address the question. A claim without
// "addresses_question" (a reply in the pre-judge-v2 format) was not
// judged and is not off-topic.
func llmOffTopic(c llmClaim) bool {
	return c.AddressesQuestion != nil && !*c.AddressesQuestion && !IsAbstention(c.Claim)
}

// llmOffTopicConfidence caps the confidence of an answer the model judged not
// to answer the question; it is below DefaultThresholds().MinConfidence,
// the least confidence for an answer to be returned.
const llmOffTopicConfidence = 0.2

// llmIrrelevance applies the model's relevance judgement: the answer does not
// answer the question when the model says so ("answers_question": false)
// or when every claim that is not an abstention has "addresses_question"
// false. It returns why, for the reasoning, or "" when the answer is not
// rejected for relevance (including when the reply does not judge it).
func llmIrrelevance(lv *llmVerdict, g guardResult) string {
	reason := oneLine(lv.RelevanceReason)
	if lv.AnswersQuestion != nil && !*lv.AnswersQuestion {
		return llmJoinText(": ", "the answer does not answer the question", reason)
	}
	claims := 0
	for _, c := range lv.Claims {
		if IsAbstention(c.Claim) {
			continue
		}
		if !llmOffTopic(c) {
			return ""
		}
		claims++
	}
	if claims == 0 {
		return ""
	}
	return llmJoinText(": ", "no claim of the answer addresses the question", reason) + " (" + strings.Join(g.offTopic, "; ") + ")"
}

func assemble(lv *llmVerdict, g guardResult, sections []schema.Section) *schema.Verdict {
	irrelevant := llmIrrelevance(lv, g)
	llmBad := *lv.IsHallucinated || g.llmRejected > 0 || irrelevant != ""
	guardBad := len(g.findings) > 0
	v := &schema.Verdict{
		IsHallucinated: llmBad || guardBad,
		Claims:         g.claims,
		JudgedBy:       JudgedByLLMGuards,
	}
	v.ShouldReturn = !v.IsHallucinated
	supported := 0
	for _, c := range v.Claims {
		if c.Supported {
			supported++
		}
	}
	v.ConfidenceScore = lv.ConfidenceScore
	if v.IsHallucinated {
		frac := float64(supported) / float64(max(len(v.Claims), 1))
		v.ConfidenceScore = math.Min(v.ConfidenceScore, math.Min(frac, 0.5))
	}
	llmWhy := oneLine(lv.Reasoning)
	if irrelevant != "" {
		v.ConfidenceScore = math.Min(v.ConfidenceScore, llmOffTopicConfidence)
		llmWhy = llmJoinText(". ", irrelevant, llmWhy)
	}
	switch {
	case llmBad && guardBad:
		v.Reasoning = "rejected by the LLM judge and the guards. LLM: " + llmWhy + " Guards: " + strings.Join(g.findings, "; ")
	case guardBad:
		v.Reasoning = "rejected by the guards although the LLM judge accepted it: " + strings.Join(g.findings, "; ") + ". LLM: " + llmWhy
	case llmBad:
		v.Reasoning = "rejected by the LLM judge: " + llmWhy
	default:
		v.Reasoning = "accepted by the LLM judge and the guards: " + llmWhy
		if len(g.offTopic) > 0 {
			v.Reasoning += " Claims set aside as not addressing the question: " + strings.Join(g.offTopic, "; ")
		}
	}
	for _, id := range lv.IrrelevantSections {
		if i, ok := prompts.SectionIndex(id, len(sections)); ok {
			v.RejectedSections = append(v.RejectedSections, sections[i].Key())
		}
	}
	return v
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}
