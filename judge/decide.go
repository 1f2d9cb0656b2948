package judge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// vetoKinds are the issues that refuse an answer whatever the model says,
// because they are true by construction: a figure that contradicts its
// source, a citation or quotation that does not exist, an instruction
// rather than a statement, an empty answer (or, when abstentions are
// rejected, one that only says the documents do not answer). Every other
// finding is a signal of the decision model (DecisionSignals).
var vetoKinds = []IssueKind{IssueContradiction, IssueBadCitation, IssueQuoteNotFound, IssueInstruction, IssueEmpty, IssueAbstention}

// IsVeto reports whether an issue of kind k refuses an answer by itself.
func IsVeto(k IssueKind) bool { return slices.Contains(vetoKinds, k) }

// vetoRules are the rules that refuse an answer by themselves although
// their issue's kind does not: question.part-unanswered (an answer to one
// part of a question the decomposition split in two, the other part
// answered by no claim). The model cannot weigh it: the generator answers
// part by part, and on the dev splits it fired on 8 answers, 2 of them
// right, none above 0.50 (docs/notes/decision3.md).
//
// question.empty (the question names nothing to address: "a b") is true
// by construction: no answer can be checked against such a question.
//
// question.language (a question in German, French, Spanish …) is too: the
// relevance detectors and the decision model read English questions
// only, so the offline judge cannot check what an answer to it answers.
// With an LLM, the model judges that instead (see LLM).
var vetoRules = []string{RulePartUnanswered, RuleAsksNothing, RuleLanguage}

// veto reports whether the issue refuses an answer by itself.
func (is Issue) veto() bool { return IsVeto(is.Kind) || slices.Contains(vetoRules, is.RuleID()) }

// AllIssues returns the answer-level issues followed by every claim's,
// without those of detectors switched off (relevance.Disable).
func (a *Assessment) AllIssues() []Issue {
	out := enabled(a.Issues)
	for _, c := range a.Claims {
		out = append(out, enabled(c.Issues)...)
	}
	return out
}

// enabled returns the issues whose detector is switched on.
func enabled(issues []Issue) []Issue {
	var out []Issue
	for _, is := range issues {
		if r := is.RuleID(); relevance.Enabled(r) {
			relevance.Fired(r)
			out = append(out, is)
		}
	}
	return out
}

// Confidence returns how well the answer's claims are supported, in
// [0,1]: the mean of the lowest and the average claim support (1 for an
// answer without a claim that states something: the vetoes decide on
// it). It is an input of the decision model (signal "support"), not the
// decision.
func (a *Assessment) Confidence() float64 {
	var sum, low float64 = 0, 1
	n := 0
	for _, c := range a.Claims {
		if c.Abstention {
			continue
		}
		sum += c.Support
		low = math.Min(low, c.Support)
		n++
	}
	if n == 0 {
		return 1
	}
	return math.Round((0.5*low+0.5*sum/float64(n))*1000) / 1000
}

// blocking returns the issues that make the answer not grounded.
func (a *Assessment) blocking() []Issue {
	var out []Issue
	for _, is := range a.AllIssues() {
		if is.Kind == IssueAbstention && !a.rejectAbstention {
			continue
		}
		if is.Kind == IssueUnsupportedFact && !a.unsupportedFacts {
			continue
		}
		out = append(out, is)
	}
	return out
}

// vetoes returns the issues that refuse the answer by themselves (see
// vetoKinds), without those of detectors switched off.
func (a *Assessment) vetoes() []Issue {
	var out []Issue
	for _, is := range a.AllIssues() {
		if is.veto() && (is.Kind != IssueAbstention || a.rejectAbstention) {
			out = append(out, is)
		}
	}
	return out
}

// Decide turns an assessment into a verdict. The answer is refused when a
// veto fires (a figure contradicting its source, a citation or quotation
// that does not exist, an instruction, an empty or abstaining answer) or
// when the decision model's probability that it is right
// (CalibratedConfidence) is below MinConfidence. Every other finding is
// one of the model's signals; those that lowered the probability of a
// refused answer are its findings, with confidence.low.
func (d *Offline) Decide(a *Assessment) *schema.Verdict {
	conf := a.CalibratedConfidence()
	issues := a.vetoes()
	issues = append(issues, enabled(noveltyIssues(a, d.maxNovel))...)
	if len(issues) > 0 {
		conf = 0
	}
	// below the threshold (unless that rule is switched off)
	minConf := d.t.MinConfidence
	if conf < minConf && len(issues) == 0 {
		relevance.Fired(RuleLowConfidence)
		if !relevance.Enabled(RuleLowConfidence) {
			minConf = 0
		}
	}
	low := conf < minConf
	hallucinated := len(issues) > 0 || low
	v := &schema.Verdict{
		IsHallucinated:   hallucinated,
		ShouldReturn:     !hallucinated,
		ConfidenceScore:  conf,
		JudgedBy:         JudgedBy,
		RejectedSections: a.RejectedSections,
		Signals:          a.signals(),
		Claims:           make([]schema.ClaimCheck, 0, len(a.Claims)),
	}
	for i := range a.Claims {
		cc := a.claimCheck(i)
		for _, is := range issues {
			if is.Kind == IssueNovelContent && is.Claim == i {
				cc.Supported = false
				cc.Reason = joinNonEmpty(cc.Reason, is.Detail)
			}
		}
		v.Claims = append(v.Claims, cc)
	}
	// the other findings are the model's signals: they explain a refusal
	// for low confidence, and are listed whatever the outcome
	signals := a.signalIssues()
	all := append(issues, signals...)
	if hallucinated {
		v.Reasoning = a.reasoning(all, conf, minConf)
	} else {
		v.Reasoning = a.reasoning(nil, conf, minConf)
	}
	v.Findings = a.findings(all, true)
	if low && conf > 0 {
		v.Findings = append(v.Findings, schema.Finding{Rule: RuleLowConfidence, Detail: fmt.Sprintf("confidence %s is below %.2f", belowThreshold(conf, minConf), minConf)})
	}
	a.applyConflicts(v)
	return v
}

// signalIssues returns the answer's findings that are not vetoes: the
// rules that are signals of the decision model.
func (a *Assessment) signalIssues() []Issue {
	var out []Issue
	for _, is := range a.AllIssues() {
		if !is.veto() {
			out = append(out, is)
		}
	}
	return out
}

// findings returns the verdict's findings: each issue with its rule and,
// withClaims, the relevance detectors' findings on each claim that no
// issue already names (those that made a claim not answer the question).
func (a *Assessment) findings(issues []Issue, withClaims bool) []schema.Finding {
	var out []schema.Finding
	seen := map[schema.Finding]bool{}
	add := func(f schema.Finding) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	claimText := func(i int) string {
		if i < 0 || i >= len(a.Claims) {
			return ""
		}
		return a.Claims[i].Claim.Text
	}
	for _, is := range issues {
		add(schema.Finding{Rule: is.RuleID(), Claim: claimText(is.Claim), Detail: is.Detail})
	}
	for i, c := range a.Claims {
		if !withClaims {
			break
		}
		for _, f := range c.OffQuestion {
			add(schema.Finding{Rule: f.Rule, Claim: claimText(i), Detail: f.Detail})
		}
	}
	return out
}

// applyConflicts records the answer's conflicts in v (see applyConflicts)
// unless their detector is switched off, with a finding for each one the
// answer does not acknowledge.
func (a *Assessment) applyConflicts(v *schema.Verdict) {
	if !relevance.Enabled(RuleConflict) {
		return
	}
	applyConflicts(v, a.Conflicts)
	for _, c := range a.Conflicts {
		if !c.Acknowledged {
			relevance.Fired(RuleConflict)
			v.Findings = append(v.Findings, schema.Finding{Rule: RuleConflict, Detail: ConflictText(c)})
		}
	}
}

func (a *Assessment) claimCheck(i int) schema.ClaimCheck {
	c := a.Claims[i]
	cc := schema.ClaimCheck{Claim: c.Claim.Text, Score: math.Round(c.Support*1000) / 1000}
	if c.Abstention {
		cc.Supported = !a.rejectAbstention
		cc.Reason = "says the documents do not address the question"
		return cc
	}
	if c.Section >= 0 {
		ev := evidenceOf(a.Sections[c.Section], c.Passage)
		cc.Evidence = &ev
	}
	var contra, reasons []string
	for _, is := range c.Issues {
		if is.Kind == IssueUnsupportedFact && !a.unsupportedFacts {
			continue
		}
		if is.Kind == IssueContradiction {
			contra = append(contra, is.Detail)
		} else {
			reasons = append(reasons, is.Detail)
		}
	}
	cc.Supported = len(contra) == 0 && len(reasons) == 0
	cc.Contradiction = strings.Join(contra, "; ")
	cc.Reason = strings.Join(reasons, "; ")
	return cc
}

const maxReasons = 6

func (a *Assessment) reasoning(issues []Issue, conf, minConf float64) string {
	n := 0
	low := 1.0
	for _, c := range a.Claims {
		if !c.Abstention {
			n++
			low = math.Min(low, c.Support)
		}
	}
	if len(issues) == 0 {
		if n == 0 {
			return "Grounded: the answer only says the documents do not address the question."
		}
		if conf < minConf {
			return fmt.Sprintf("Not grounded: confidence %s is below %.2f although no claim was contradicted.", belowThreshold(conf, minConf), minConf)
		}
		claims := "all %d claims are"
		if n == 1 {
			claims = "the %d claim is"
		}
		return fmt.Sprintf("Grounded: "+claims+" supported by the retrieved sections (lowest support %.2f); numbers, citations and quotes agree with the sources.", n, low)
	}
	var parts []string
	for i, is := range issues {
		if i == maxReasons {
			parts = append(parts, fmt.Sprintf("and %d more finding(s)", len(issues)-maxReasons))
			break
		}
		if is.Claim >= 0 {
			parts = append(parts, fmt.Sprintf("claim %d %q: %s", is.Claim+1, shorten(a.Claims[is.Claim].Claim.Text, 80), is.Detail))
		} else {
			parts = append(parts, is.Detail)
		}
	}
	return "Not grounded: " + strings.Join(parts, "; ") + "."
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ApplyGuards runs the deterministic guards (facts, citations, quotes,
// key terms, abstention; not the lexical support threshold, which is the
// other judge's business) on req and merges their findings into a copy of
// v, the verdict of another judge such as an LLM. When a guard fires the
// copy is marked hallucinated, its confidence capped, its reasoning
// extended with what the guards found, the affected claims marked (or
// added) with their contradiction, and JudgedBy suffixed "+guards". A nil
// v yields the deterministic verdict. v is not modified.
func (d *Offline) ApplyGuards(ctx context.Context, req schema.JudgeRequest, v *schema.Verdict) (*schema.Verdict, error) {
	a, err := d.Score(ctx, req)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return d.Decide(a), nil
	}
	out := cloneVerdict(v)
	out.RejectedSections = uniq(slices.Concat(out.RejectedSections, a.RejectedSections))
	if out.JudgedBy == "" {
		out.JudgedBy = "llm"
	}
	out.JudgedBy += "+guards"
	a.applyConflicts(out)
	guardIssues := a.guardIssues()
	if len(guardIssues) == 0 {
		return out, nil
	}
	out.Findings = append(out.Findings, a.findings(guardIssues, false)...)
	out.IsHallucinated = true
	out.ShouldReturn = false
	out.ConfidenceScore = math.Min(out.ConfidenceScore, guardCap(a, guardIssues))
	out.Reasoning = strings.TrimSpace(out.Reasoning + " Deterministic guards: " + a.guardText(guardIssues) + ".")
	a.markClaims(out, guardIssues)
	return out, nil
}

// guardIssues returns the blocking findings of the guards: every blocking
// issue but the lexical support threshold. With kinds given, only issues
// of those kinds.
func (a *Assessment) guardIssues(kinds ...IssueKind) []Issue {
	var out []Issue
	for _, is := range a.blocking() {
		if is.Kind == IssueUnsupported || (len(kinds) > 0 && !slices.Contains(kinds, is.Kind)) {
			continue
		}
		out = append(out, is)
	}
	return out
}

// guardCap is the most confidence another judge's verdict keeps when the
// guards found issues: none after a veto, else the decision model's.
func guardCap(a *Assessment, issues []Issue) float64 {
	if slices.ContainsFunc(issues, Issue.veto) {
		return 0
	}
	return a.CalibratedConfidence()
}

// guardText describes issues for a verdict's reasoning, without the
// "Not grounded: " prefix and the final period.
func (a *Assessment) guardText(issues []Issue) string {
	return strings.TrimSuffix(strings.TrimPrefix(a.reasoning(issues, 0, 0), "Not grounded: "), ".")
}

// markClaims marks the claims of v that issues concern as unsupported,
// with the guards' contradiction and reason; a claim of the answer that
// matches none of v's claims is added.
func (a *Assessment) markClaims(v *schema.Verdict, issues []Issue) {
	flagged := map[int]bool{}
	for _, is := range issues {
		if is.Claim >= 0 {
			flagged[is.Claim] = true
		}
	}
	for ci := range a.Claims {
		if !flagged[ci] {
			continue
		}
		cc := a.claimCheck(ci)
		if j := matchClaim(v.Claims, cc.Claim); j >= 0 {
			old := v.Claims[j]
			old.Supported = false
			old.Contradiction = joinNonEmpty(old.Contradiction, cc.Contradiction)
			old.Reason = joinNonEmpty(old.Reason, cc.Reason)
			if old.Evidence == nil {
				old.Evidence = cc.Evidence
			}
			v.Claims[j] = old
		} else {
			v.Claims = append(v.Claims, cc)
		}
	}
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || strings.Contains(a, b):
		return a
	}
	return a + "; " + b
}

// matchClaim returns the index of the claim in cs sharing most terms with
// text (at least half of the smaller set), or -1.
func matchClaim(cs []schema.ClaimCheck, text string) int {
	tt := textproc.TermSet(text)
	best, bestScore := -1, 0.0
	for i, c := range cs {
		ct := textproc.TermSet(c.Claim)
		if len(ct) == 0 || len(tt) == 0 {
			continue
		}
		score := float64(common(tt, ct)) / math.Min(float64(len(tt)), float64(len(ct)))
		if score >= 0.5 && score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

func cloneVerdict(v *schema.Verdict) *schema.Verdict {
	st := &schema.State{JudgeVerdict: v}
	return st.Clone().JudgeVerdict
}

// belowThreshold writes a confidence under the threshold min with two
// decimals, or three when two would round it up to the threshold's
// ("confidence 0.598 is below 0.60", not "0.60 is below 0.60").
func belowThreshold(conf, min float64) string {
	if s := fmt.Sprintf("%.2f", conf); s != fmt.Sprintf("%.2f", min) {
		return s
	}
	return fmt.Sprintf("%.3f", math.Floor(conf*1000)/1000)
}
