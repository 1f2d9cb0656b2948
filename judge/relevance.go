package judge

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// IssueOffQuestion: the answer's claims are quoted correctly but do not
// answer what was asked — another entity or period, not the kind of answer
// the question wants, not its focus, or the opposite polarity (see package
// relevance).
const IssueOffQuestion IssueKind = "off_question"

// DefaultMinFocus is the least weighted share of the question's focus terms
// that an answering claim's passage must address (the focus.share detector).
const DefaultMinFocus = 0.5

// DefaultMinRelated is the least cosine similarity of the GloVe word
// vectors (package wordvec) for a passage word to address a question's
// focus word it does not repeat.
const DefaultMinRelated = 0.7

// claimPassage returns the claim's passage in section p with one sentence
// of context on each side: where an extractive answer came from, or where
// a paraphrase is best supported.
func claimPassage(p *preparedSection, passage string) (window, before string) {
	if passage == "" || len(p.sentences) == 0 {
		return passage, ""
	}
	for i, s := range p.sentences {
		if strings.HasPrefix(passage, s) {
			lo, hi := max(i-1, 0), min(i+2+strings.Count(passage, ". "), len(p.sentences))
			return strings.Join(p.sentences[lo:hi], " "), strings.Join(p.sentences[lo:hi-1], " ")
		}
	}
	return passage, ""
}

// sectionRank returns the retrieval rank of sections[i] (0 for the most
// relevant; sections scoring the same share a rank), -1 for no section.
func sectionRank(sections []schema.Section, i int) int {
	if i < 0 || i >= len(sections) {
		return -1
	}
	rank := 0
	for _, s := range sections {
		if s.RelevanceScore > sections[i].RelevanceScore {
			rank++
		}
	}
	return rank
}

// relevanceCheck runs the relevance checks on every claim and records the
// answer-level finding: the answer answers the question when at least one
// claim passes every check, and no claim is about another entity or period
// than the question names.
func (d *Offline) relevanceCheck(ctx context.Context, a *Assessment, req schema.JudgeRequest, prep []preparedSection) error {
	if strings.TrimSpace(req.Query) == "" {
		return nil
	}
	frame := relevance.Analyze(req.Query)
	a.Frame = &frame
	if frame.AsksNothing() && relevance.Enabled(RuleAsksNothing) {
		a.Issues = append(a.Issues, Issue{Kind: IssueOffQuestion, Claim: -1, Rule: RuleAsksNothing,
			Detail: "the question names nothing an answer could address: no word, name, period or number to look for"})
	}
	if !frame.Lang.IsEnglish() && relevance.Enabled(RuleLanguage) {
		a.Issues = append(a.Issues, Issue{Kind: IssueOffQuestion, Claim: -1, Rule: RuleLanguage,
			Detail: "the question is in " + frame.Lang.Name + ", and the offline judge reads English questions only: use an LLM to answer it (docs/llm.md)"})
	}
	// a multi-part question is answered part by part: a claim answers it
	// when it answers one of its parts
	frames := []relevance.Frame{frame}
	if req.Decomposition != nil && len(req.Decomposition.SubQueries) > 1 {
		frames = frames[:0]
		for _, q := range req.Decomposition.SubQueries {
			frames = append(frames, relevance.Analyze(q))
		}
	}
	weights := map[string]float64{}
	for _, f := range frames {
		w, err := d.focusWeights(ctx, f, prep)
		if err != nil {
			return err
		}
		maps.Copy(weights, w)
	}
	weigh := func(st string) float64 { return weights[st] }
	answering, judged := 0, 0
	partAnswered := make([]bool, len(frames))
	var first []relevance.Finding
	var drawn []int // the sections the judged claims were drawn from
	contents := make([]string, len(req.Sections))
	for i, s := range req.Sections {
		contents[i] = s.Content
	}
	bestFocus := 0.0
	for ci := range a.Claims {
		c := &a.Claims[ci]
		if c.Abstention {
			continue
		}
		sec := c.Section
		if len(c.Cited) > 0 {
			sec = c.Cited[0]
			for _, i := range c.Cited {
				if i == c.Section {
					sec = i
				}
			}
		}
		rc := relevance.Context{Claim: c.Claim.Text, Sections: contents}
		if sec >= 0 {
			drawn = append(drawn, sec)
			s := req.Sections[sec]
			rc.Passage, rc.Before = claimPassage(&prep[sec], c.Passage)
			rc.Heading = relevance.HeadingContext(s)
			rc.Document = relevance.DocumentContext(s)
			rc.Named = strings.Join(s.NamedBy, " ")
			rc.ReadTable(s.Content)
			rc.Kind = s.KindAt(c.Claim.Text)
		}
		var res relevance.Result
		for i, f := range frames {
			r := f.Check(rc, DefaultMinFocus, d.focusMatcher(f), weigh)
			if i == 0 || r.OK() || len(r.Findings) < len(res.Findings) {
				res = r
			}
			if r.OK() {
				partAnswered[i] = true
			}
		}
		if judged == 0 {
			a.LeadAnswers = res.OK()
			a.TopicFocus = res.TopicFocus
			a.LeadRank = sectionRank(req.Sections, sec)
			a.PhraseOverlap = phraseOverlap(req.Query, c.Claim.Text)
		}
		judged++
		a.ClaimFocus = math.Max(a.ClaimFocus, res.ClaimFocus)
		bestFocus = math.Max(bestFocus, res.Focus)
		c.OffQuestion = res.Findings
		if res.OK() {
			answering++
			continue
		}
		for _, f := range res.Findings {
			if f.Check == "entity" || f.Check == "period" || f.Check == "quantity" {
				c.Issues = append(c.Issues, Issue{Kind: IssueOffQuestion, Claim: ci, Detail: f.Detail, Rule: f.Rule})
			}
		}
		if first == nil {
			first = res.Findings
		}
	}
	a.Focus = bestFocus
	if judged > 0 && answering == 0 && relevance.Enabled(RuleUnanswered) {
		var parts []string
		seen := map[string]bool{}
		for _, f := range first {
			if !seen[f.Detail] {
				seen[f.Detail] = true
				parts = append(parts, f.Detail)
			}
		}
		a.Issues = append(a.Issues, Issue{Kind: IssueOffQuestion, Claim: -1, Detail: "the answer does not answer the question: " + strings.Join(parts, "; "), Rule: RuleUnanswered})
		// the sections the answer drew from gave nothing that answers:
		// a retry looks elsewhere
		for _, i := range drawn {
			if k := req.Sections[i].Key(); !slices.Contains(a.RejectedSections, k) {
				a.RejectedSections = append(a.RejectedSections, k)
			}
		}
	}
	// a question of several parts is answered when each part is: an
	// answer to one part alone ("at least sixty (60) days' notice" for
	// "By how much may the Provider increase the Fees at renewal, and how
	// much notice must it give?") leaves the other unanswered
	if answering > 0 && len(frames) > 1 && relevance.Enabled(RulePartUnanswered) {
		var open []string
		for i, ok := range partAnswered {
			// an elliptical part ("… and where else?") leans on the other
			// part and is not asked on its own
			if f := frames[i]; !ok && len(f.Focus)+len(f.Entities) >= 2 {
				open = append(open, fmt.Sprintf("%q", frames[i].Question))
			}
		}
		if len(open) > 0 {
			a.Issues = append(a.Issues, Issue{Kind: IssueOffQuestion, Claim: -1, Detail: "the answer leaves part of the question unanswered: " + strings.Join(open, ", "), Rule: RulePartUnanswered})
		}
	}
	if judged > 0 {
		a.AnsweringShare = float64(answering) / float64(judged)
	}
	return nil
}

// offEntityOrPeriod returns the relevance check's claim findings (another
// entity or period than the question names, or without a quantity it
// states) when every claim that is not an abstention has one: the answer
// is about something else. It returns nil when a claim is about what the
// question names, or when the check did not run. The LLM judge applies it
// on top of the model's verdict; the focus, type and scope findings, which
// read an extractive answer's words, are the model's call there.
func (a *Assessment) offEntityOrPeriod() []Issue {
	var out []Issue
	for _, c := range a.Claims {
		if c.Abstention {
			continue
		}
		n := len(out)
		for _, is := range c.Issues {
			if is.Kind == IssueOffQuestion {
				out = append(out, is)
			}
		}
		if len(out) == n {
			return nil
		}
	}
	return out
}

// focusMatcher says whether a text addresses a focus stem through a
// synonym of the judge's thesaurus or, failing that, a word whose GloVe
// vector is close to the question word's (cosine at least
// DefaultMinRelated: "percentage" and "percent", "leave" and "vacation")
// or a WordNet synonym of it in a common sense ("tier" for "level",
// cosine 0.51) or a form WordNet derives from it or it from ("hour" for
// "hourly", cosine 0.45; relevance.ParaphrasesOf), not one of its
// opposites.
//
// A text word addresses one focus word, not two: a word that states
// another focus word in the question's own words does not also stand for
// this one ("Confidential Information" states "confidential" of "must
// confidential information be kept secret", not "secret" too), unless
// the two question words are forms of one word ("hourly" and "hours").
func (d *Offline) focusMatcher(f relevance.Frame) relevance.Matcher {
	paraphrases := map[string]relevance.Paraphrases{} // of each focus word, read once
	focus := make(map[string]bool, len(f.Focus))
	for _, st := range f.Focus {
		focus[st] = true
	}
	// taken returns the text's tokens that state another focus word than
	// st in its own words (by stem), and their stems
	taken := func(st string, x relevance.Text) map[string]bool {
		var out map[string]bool
		w := f.FocusWords[st]
		for _, t := range x.Tokens() {
			ts := textproc.Stem(t)
			if ts == st || !focus[ts] || relevance.FormsOfOneWord(w, f.FocusWords[ts]) {
				continue
			}
			if out == nil {
				out = map[string]bool{}
			}
			out[t], out[ts] = true, true
		}
		return out
	}
	return func(st string, x relevance.Text) bool {
		other := taken(st, x)
		if d.lex != nil {
			lt := lexicon.NewText(x.Raw())
			if lt.Has(st) {
				return true
			}
			for _, e := range d.lex.Synonyms(st) {
				if !e.IsPhrase() && other[e.Stems[0]] {
					continue
				}
				if lt.HasEntry(e) {
					return true
				}
			}
		}
		w := f.FocusWords[st]
		if w == "" {
			return false
		}
		vec := wordvec.Default()
		syn, ok := paraphrases[w]
		if !ok {
			syn = relevance.ParaphrasesOf(w)
			paraphrases[w] = syn
		}
		for _, t := range x.Tokens() {
			if len(t) > 2 && !other[t] && (vec.Similarity(w, t) >= DefaultMinRelated || syn.Has(t)) && !relevance.Contrasts(w, t) {
				return true
			}
		}
		return false
	}
}

// focusWeights weighs each focus term by its rarity (see rarity),
// over the corpus when the judge knows it, else over the retrieved
// sections.
func (d *Offline) focusWeights(ctx context.Context, f relevance.Frame, prep []preparedSection) (map[string]float64, error) {
	w := make(map[string]float64, len(f.Focus))
	n := float64(len(prep))
	if d.corpus != nil {
		size, err := d.corpus.Size(ctx)
		if err != nil {
			return nil, fmt.Errorf("read the corpus size: %w", err)
		}
		n = float64(size)
	}
	for _, st := range f.Focus {
		df := 0.0
		if d.corpus != nil {
			c, err := d.corpus.GroupDocFreq(ctx, st, nil)
			if err != nil {
				return nil, fmt.Errorf("count the sections that mention %q: %w", st, err)
			}
			df = float64(c)
		} else {
			for i := range prep {
				if prep[i].all[st] {
					df++
				}
			}
		}
		w[st] = rarity(n, df)
	}
	return w, nil
}

// phraseOverlap returns the share of the question's pairs of neighbouring
// content terms (stop words skipped) that the claim also states side by
// side: "random bits" for "random ribbons" keeps "random" but not the
// pair, and a question whose subject is swapped ("What did salmon use to
// be …" for "Ctenophores used to be …") keeps its words but loses the
// pair that ties the subject to its verb. It is 1 when the question has
// fewer than two content terms.
func phraseOverlap(question, claim string) float64 {
	q := textproc.Terms(question)
	if len(q) < 2 {
		return 1
	}
	c := textproc.Terms(claim)
	pairs := make(map[[2]string]bool, len(c))
	for i := 1; i < len(c); i++ {
		pairs[[2]string{c[i-1], c[i]}] = true
	}
	n := 0
	for i := 1; i < len(q); i++ {
		if pairs[[2]string{q[i-1], q[i]}] {
			n++
		}
	}
	return float64(n) / float64(len(q)-1)
}
