package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/llm"
	"github.com/docmind/docmind/prompts"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// JudgedByLLMGuards is Verdict.JudgedBy for the LLM judge.
const JudgedByLLMGuards = "llm+guards"

// LLMOptions tunes the LLM judge. The zero value is usable.
type LLMOptions struct {
	llm.Settings
}

// LLM is a schema.Judge that asks a model to split the answer into claims
// and check each against the section it cites, with a supporting quote
// (JSON following the docmind_verdict schema). Deterministic guards then
// run on top: numbers, percentages, money, durations and dates in the
// claims and in every sentence of the answer must agree with the cited
// text; quotes must occur in the cited section; citations must name
// retrieved sections. Either the model or a guard can mark the answer
// hallucinated, and the verdict's reasoning says which and why. A reply
// that cannot be parsed even after one repair attempt gives an unverified
// verdict, which never passes.
type LLM struct {
	model llms.Model
	opts  LLMOptions
}

// NewLLM returns a judge over model.
func NewLLM(model llms.Model, opts LLMOptions) *LLM { return &LLM{model: model, opts: opts} }

var _ schema.Judge = (*LLM)(nil)

// llmClaim and llmVerdict are the docmind_verdict reply.
type llmClaim struct {
	Claim         string `json:"claim"`
	SectionID     string `json:"section_id"`
	Quote         string `json:"quote"`
	Supported     bool   `json:"supported"`
	Contradiction string `json:"contradiction"`
	Reason        string `json:"reason"`
}

type llmVerdict struct {
	Claims             []llmClaim `json:"claims"`
	IsHallucinated     *bool      `json:"is_hallucinated"`
	ConfidenceScore    float64    `json:"confidence_score"`
	Reasoning          string     `json:"reasoning"`
	IrrelevantSections []string   `json:"irrelevant_sections"`
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
	g := runGuards(answer, req.Sections, lv)
	if err != nil {
		var pe *llm.ParseError
		if !errors.As(err, &pe) {
			return nil, fmt.Errorf("judge: %w", err)
		}
		v := reject("unverified: the judge's reply could not be parsed after a repair attempt (" + oneLine(pe.Err.Error()) + ")")
		v.Unverified = true
		v.Claims = g.claims
		if len(g.findings) > 0 {
			v.Reasoning += "; guards: " + strings.Join(g.findings, "; ")
		}
		return v, nil
	}
	return assemble(lv, g, req.Sections), nil
}

func reject(reason string) *schema.Verdict {
	return &schema.Verdict{IsHallucinated: true, ShouldReturn: false, Reasoning: reason,
		Claims: []schema.ClaimCheck{}, JudgedBy: JudgedByLLMGuards}
}

// guardResult is what the deterministic guards found.
type guardResult struct {
	// claims are the model's claims after the guards (or, without a model
	// verdict, the guards' own sentence claims).
	claims []schema.ClaimCheck
	// findings explain each guard rejection, for the reasoning.
	findings []string
	// llmRejected counts claims the model itself marked unsupported.
	llmRejected int
}

var refRE = regexp.MustCompile(`\s*(\(See [^()]*(?:\([^()]*\)[^()]*)*\)|\[unknown source [^\]]*\]|\[\s*[Ss]\d+(?:\s*[,;]\s*[Ss]\d+)*\s*\])`)

// stripRefs removes citation references, so their page numbers are not
// taken for facts of the claim.
func stripRefs(s string) string { return strings.TrimSpace(refRE.ReplaceAllString(s, "")) }

func runGuards(answer string, sections []schema.Section, lv *llmVerdict) guardResult {
	var g guardResult
	cited, unknown := prompts.CitedSections(answer, sections)
	if len(unknown) > 0 {
		g.findings = append(g.findings, "the answer cites sources that were not retrieved: "+strings.Join(unknown, ", "))
	}
	if len(cited) == 0 && len(unknown) == 0 {
		g.findings = append(g.findings, "the answer cites no retrieved section")
	}
	reported := map[string]bool{}
	if lv != nil {
		for _, c := range lv.Claims {
			cc := schema.ClaimCheck{Claim: stripRefs(c.Claim), Supported: c.Supported, Contradiction: c.Contradiction, Reason: c.Reason}
			if !c.Supported {
				g.llmRejected++
			}
			i, ok := prompts.SectionIndex(c.SectionID, len(sections))
			if !ok {
				cc.Supported = false
				cc.Reason = join(cc.Reason, fmt.Sprintf("cites %q, which is not a retrieved section", c.SectionID))
				g.findings = append(g.findings, fmt.Sprintf("claim %q cites %q, which is not a retrieved section", cc.Claim, c.SectionID))
				g.claims = append(g.claims, withScore(cc))
				continue
			}
			s := sections[i]
			cc.Evidence = &schema.Evidence{Quote: c.Quote, SectionID: prompts.SectionID(i), Title: s.Title, Source: s.Source, Page: s.Page}
			if q := strings.TrimSpace(c.Quote); q == "" {
				if c.Supported {
					cc.Supported = false
					cc.Reason = join(cc.Reason, "no supporting quote given")
					g.findings = append(g.findings, fmt.Sprintf("claim %q has no supporting quote", cc.Claim))
				}
			} else if !containsText(s.Content, q) {
				cc.Supported = false
				cc.Reason = join(cc.Reason, fmt.Sprintf("the quote does not occur in %s", prompts.SectionID(i)))
				g.findings = append(g.findings, fmt.Sprintf("the quote for claim %q does not occur in %s (%s)", cc.Claim, prompts.SectionID(i), s.Citation()))
			}
			for _, m := range facts.Check(cc.Claim, s.Content) {
				cc.Supported = false
				cc.Contradiction = join(cc.Contradiction, m.String())
				reported[m.Claim.Text] = true
				g.findings = append(g.findings, m.String()+" ("+s.Citation()+")")
			}
			g.claims = append(g.claims, withScore(cc))
		}
	}
	// Every sentence of the answer, whatever claims the model listed: its
	// facts must be stated by the sections it cites (all sections when it
	// cites none).
	for _, sent := range textproc.Sentences(answer) {
		idx, _ := prompts.CitedSections(sent, sections)
		var evidence []string
		for _, i := range idx {
			evidence = append(evidence, sections[i].Content)
		}
		if len(idx) == 0 {
			for _, s := range sections {
				evidence = append(evidence, s.Content)
			}
		}
		claim := stripRefs(sent)
		var why []string
		for _, m := range facts.Check(claim, strings.Join(evidence, "\n")) {
			if reported[m.Claim.Text] {
				continue
			}
			reported[m.Claim.Text] = true
			why = append(why, m.String())
		}
		if len(why) > 0 {
			g.findings = append(g.findings, why...)
			g.claims = append(g.claims, schema.ClaimCheck{Claim: claim, Supported: false,
				Contradiction: strings.Join(why, "; "), Reason: "found by the fact guard"})
		}
	}
	return g
}

func withScore(c schema.ClaimCheck) schema.ClaimCheck {
	if c.Supported {
		c.Score = 1
	}
	return c
}

func assemble(lv *llmVerdict, g guardResult, sections []schema.Section) *schema.Verdict {
	llmBad := *lv.IsHallucinated || g.llmRejected > 0
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
	switch {
	case llmBad && guardBad:
		v.Reasoning = "rejected by the LLM judge and the guards. LLM: " + llmWhy + " Guards: " + strings.Join(g.findings, "; ")
	case guardBad:
		v.Reasoning = "rejected by the guards although the LLM judge accepted it: " + strings.Join(g.findings, "; ") + ". LLM: " + llmWhy
	case llmBad:
		v.Reasoning = "rejected by the LLM judge: " + llmWhy
	default:
		v.Reasoning = "accepted by the LLM judge and the guards: " + llmWhy
	}
	for _, id := range lv.IrrelevantSections {
		if i, ok := prompts.SectionIndex(id, len(sections)); ok {
			v.RejectedSections = append(v.RejectedSections, sections[i].Key())
		}
	}
	return v
}

// containsText reports whether quote occurs in text, ignoring case,
// white space and typographic quote/dash variants.
func containsText(text, quote string) bool {
	return strings.Contains(fold(text), fold(strings.Trim(quote, `"'“”‘’ .…`)))
}

var foldReplacer = strings.NewReplacer("“", `"`, "”", `"`, "‘", "'", "’", "'", "–", "-", "—", "-", "…", "...")

func fold(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(foldReplacer.Replace(s)), " "))
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}
