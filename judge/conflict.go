package judge

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// Conflicts between sources. The fact guards check a claim's figures
// against the section it cites; they cannot see that another retrieved
// section says something else about the same thing: the contract's "late
// fee of 1.5% per month" against a notice's "late fee is 50% per month".
// findConflicts looks for that, in both modes (Score runs it; the LLM
// judge's guards run Score).
//
// For each figure a claim states (a percentage, an amount of money, a
// duration, a count of something) and some retrieved section states (the
// cited one first), every sentence of the retrieved sections of other
// documents that states a figure of the same kind (% and %, money in a
// compatible currency and period, a duration in the same unit, a count of
// the same thing) with a different value is a candidate. It conflicts
// when it is about the same thing as the claim: once the figures are taken
// out, the smaller of the two sentences shares at least half of its
// content terms with the other (minConflictOverlap, two terms at least),
// and at least two of the words next to both figures are the same ("a
// late fee of 1.5%", "the late fee is 50%"; not "terminate … on ninety
// (90) days' written notice" and "audit … on thirty (30) days' prior
// written notice").
//
// Figures about different subjects do not conflict either: the
// Trakakavor project's budget cap and the Kakakavor project's. The
// subject is the entity the question or the claim names (a word written
// with a capital inside a sentence) that the stating sentence, its
// section's title and headings or its document's entity also name; a
// sentence of another document whose context names none of it, and names
// an entity of its own that the stating side does not mention, is about
// another subject (otherSubject).
//
// Sections of one document are not compared: a document states different
// figures for different cases all the time (the contract's Standard tier
// and Enterprise rates are the same sentence with another figure under
// another heading), and the case usually sits in a heading or an earlier
// sentence that this lexical check cannot weigh. Text injected into a
// document is the instruction detector's business (injection.go). Nor are
// documents about different entities or periods (schema.Section DocEntity,
// DocPeriod), nor sentences naming different years: Oracle's revenue for
// fiscal 2022 and 2023, or Microsoft's, differ without conflicting.
const minConflictOverlap = 0.5

// conflictKinds are the kinds of figure compared; dates are not (an
// effective date and a termination date differ without conflicting).
func conflictKind(f facts.Fact) bool {
	switch f.Kind {
	case facts.Percent, facts.Money, facts.Duration:
		return true
	case facts.Number:
		return f.Unit != ""
	}
	return false
}

// sameQuantity reports whether e is a figure of the kind f states, so that
// a different value is a different figure for the same quantity.
func sameQuantity(f, e facts.Fact) bool {
	if f.Kind != e.Kind {
		return false
	}
	switch f.Kind {
	case facts.Money:
		return compatibleUnit(f.Unit, e.Unit) && f.Per == e.Per
	case facts.Percent:
		return f.Per == e.Per
	case facts.Duration, facts.Number:
		return f.Unit == e.Unit
	}
	return false
}

func compatibleUnit(a, b string) bool { return a == "" || b == "" || a == b }

// sentenceFacts are a sentence's figures and its content terms with the
// figures taken out.
type sentenceFacts struct {
	text  string
	facts []facts.Fact
	terms map[string]bool
}

func readSentence(s string) sentenceFacts {
	fs := facts.Extract(s)
	return sentenceFacts{text: s, facts: fs, terms: contentTerms(s, fs)}
}

// contentTerms returns the stemmed content terms of s outside its facts'
// spans, without numbers and discourse words.
func contentTerms(s string, fs []facts.Fact) map[string]bool {
	b := []byte(s)
	for _, f := range fs {
		for i := f.Start; i < f.End && i < len(b); i++ {
			b[i] = ' '
		}
	}
	out := map[string]bool{}
	for _, t := range textproc.Terms(string(b)) {
		if !discourse[t] && !hasDigit(t) {
			out[t] = true
		}
	}
	return out
}

// nearTerms returns the content terms of the few words before and after
// fact f in s: what the figure is about.
func nearTerms(s string, f facts.Fact, all map[string]bool) map[string]bool {
	lo, hi := max(f.Start-60, 0), min(f.End+30, len(s))
	out := map[string]bool{}
	for _, t := range textproc.Terms(s[lo:f.Start] + " " + s[f.End:hi]) {
		if all[t] {
			out[t] = true
		}
	}
	return out
}

// sameThing reports whether sentences a and b, with figures fa and fb,
// are about the same thing (see the comment above), and returns the
// content terms they share.
func sameThing(a, b sentenceFacts, fa, fb facts.Fact) (bool, []string) {
	var shared []string
	for t := range a.terms {
		if b.terms[t] {
			shared = append(shared, t)
		}
	}
	small := math.Min(float64(len(a.terms)), float64(len(b.terms)))
	if len(shared) < 2 || small == 0 || float64(len(shared))/small < minConflictOverlap {
		return false, nil
	}
	if common(nearTerms(a.text, fa, a.terms), nearTerms(b.text, fb, b.terms)) < 2 {
		return false, nil
	}
	return true, shared
}

// names returns the names text writes: the stemmed terms of its words
// written with a capital letter other than a sentence's first word
// ("Trakakavor" in "The Trakakavor project …"), without discourse words
// and single letters. In a heading (heading true) every capitalised word
// counts, its first too.
func names(text string, heading bool) map[string]bool {
	out := map[string]bool{}
	first := true
	prev := 0
	for start, end := range textproc.TokenSpans(text) {
		if start == 0 || strings.ContainsAny(text[prev:start], ".!?:;\n") {
			first = true
		}
		prev = end
		tok := text[start:end]
		r, _ := utf8.DecodeRuneInString(tok)
		skip := first && !heading
		first = false
		if skip || !unicode.IsUpper(r) || utf8.RuneCountInString(tok) < 2 {
			continue
		}
		for _, t := range textproc.Terms(tok) {
			if !discourse[t] && !hasDigit(t) {
				out[t] = true
			}
		}
	}
	return out
}

// statementContext returns the terms of a sentence with what frames it:
// its section's title and headings and its document's entity.
func statementContext(sec schema.Section, sentence string) map[string]bool {
	return textproc.TermSet(sentence + "\n" + sec.Title + "\n" + strings.Join(sec.Path, "\n") + "\n" + sec.DocEntity)
}

// subjectOf returns the subject of a figure stated in sentence of sec
// for a claim answering query: the names of the query and the claim that
// the sentence's context also names.
func subjectOf(query, claim string, sec schema.Section, sentence string) map[string]bool {
	ctx := statementContext(sec, sentence)
	out := map[string]bool{}
	for t := range names(query+"\n"+claim, false) {
		if ctx[t] {
			out[t] = true
		}
	}
	return out
}

// otherSubject reports whether the sentence of section other is about
// another subject than subject, named on the stating side (whose context
// is srcCtx): its context names none of subject, and names an entity of
// its own that the stating side does not mention.
func otherSubject(subject, srcCtx map[string]bool, other schema.Section, sentence string) bool {
	if len(subject) == 0 {
		return false
	}
	if common(subject, statementContext(other, sentence)) > 0 {
		return false
	}
	own := names(sentence, false)
	maps.Copy(own, names(other.Title+"\n"+strings.Join(other.Path, "\n")+"\n"+other.DocEntity, true))
	for t := range own {
		if !srcCtx[t] {
			return true
		}
	}
	return false
}

// otherContext reports whether two sections belong to documents about
// different entities or periods (Oracle's fiscal 2022 and 2023 reports,
// Microsoft's): their figures differ without conflicting.
func otherContext(a, b schema.Section) bool {
	differ := func(x, y string) bool {
		x, y = strings.ToLower(strings.TrimSpace(x)), strings.ToLower(strings.TrimSpace(y))
		return x != "" && y != "" && x != y
	}
	return differ(a.DocEntity, b.DocEntity) || differ(a.DocPeriod, b.DocPeriod)
}

var reYear = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)

// otherYears reports whether two sentences name years and none in
// common: figures for different years do not conflict.
func otherYears(a, b string) bool {
	ya, yb := reYear.FindAllString(a, -1), reYear.FindAllString(b, -1)
	return len(ya) > 0 && len(yb) > 0 && !slices.ContainsFunc(ya, func(y string) bool { return slices.Contains(yb, y) })
}

func common(a, b map[string]bool) int {
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return n
}

// findConflicts returns the conflicts between retrieved sections about
// the figures of the assessed claims.
func findConflicts(a *Assessment, prep []preparedSection, answer string) []schema.Conflict {
	answerFacts := facts.Extract(answer)
	read := map[int][]sentenceFacts{}
	sentencesOf := func(i int) []sentenceFacts {
		if ss, ok := read[i]; ok {
			return ss
		}
		ss := make([]sentenceFacts, len(prep[i].sentences))
		for k, s := range prep[i].sentences {
			ss[k] = readSentence(s)
		}
		read[i] = ss
		return ss
	}
	var out []schema.Conflict
	seen := map[string]bool{}
	for _, ca := range a.Claims {
		if ca.Abstention {
			continue
		}
		claim := readSentence(ca.Claim.Text)
		for _, f := range claim.facts {
			if !conflictKind(f) {
				continue
			}
			src, srcSent := stating(f, ca, len(a.Sections), sentencesOf)
			if src < 0 {
				continue // no section states it: the fact guards' business
			}
			subject := subjectOf(a.Query, ca.Claim.Text, a.Sections[src], srcSent.text)
			srcCtx := statementContext(a.Sections[src], srcSent.text)
			for j := range a.Sections {
				if a.Sections[j].Source == a.Sections[src].Source || otherContext(a.Sections[j], a.Sections[src]) {
					continue
				}
				for _, o := range sentencesOf(j) {
					e, ok := differentFigure(f, o)
					if !ok || otherYears(srcSent.text, o.text) || otherSubject(subject, srcCtx, a.Sections[j], o.text) {
						continue
					}
					same, shared := sameThing(claim, o, f, e)
					if !same {
						continue
					}
					key := ca.Claim.Text + "\x00" + f.Text + "\x00" + a.Sections[j].Key()
					if seen[key] {
						break
					}
					seen[key] = true
					out = append(out, schema.Conflict{
						Claim:        ca.Claim.Text,
						About:        aboutText(claim.text, shared),
						Figure:       oneLine(srcSent.figure(f)),
						Source:       evidenceOf(a.Sections[src], srcSent.text),
						OtherFigure:  oneLine(e.Text),
						OtherSource:  evidenceOf(a.Sections[j], o.text),
						Acknowledged: statesFact(answerFacts, e),
					})
					break
				}
			}
		}
	}
	return out
}

// stating returns the section (the claim's cited sections first, then the
// others in order) and sentence that state figure f, or -1.
func stating(f facts.Fact, ca ClaimAssessment, n int, sentencesOf func(int) []sentenceFacts) (int, sentenceFacts) {
	order := append([]int(nil), ca.Cited...)
	if ca.Section >= 0 {
		order = append(order, ca.Section)
	}
	for i := range n {
		order = append(order, i)
	}
	for _, i := range order {
		for _, s := range sentencesOf(i) {
			if statesFact(s.facts, f) {
				return i, s
			}
		}
	}
	return -1, sentenceFacts{}
}

// figure returns how the sentence writes figure f ("thirty (30) days" for
// the claim's "30 days"), or f's text.
func (s sentenceFacts) figure(f facts.Fact) string {
	for _, e := range s.facts {
		if f.Matches(e) {
			return e.Text
		}
	}
	return f.Text
}

// differentFigure returns a figure of sentence o for the same quantity as
// f with another value, when o does not also state f.
func differentFigure(f facts.Fact, o sentenceFacts) (facts.Fact, bool) {
	if statesFact(o.facts, f) {
		return facts.Fact{}, false
	}
	for _, e := range o.facts {
		if sameQuantity(f, e) && !f.Matches(e) && !e.Matches(f) {
			return e, true
		}
	}
	return facts.Fact{}, false
}

func statesFact(fs []facts.Fact, f facts.Fact) bool { return slices.ContainsFunc(fs, f.Matches) }

// aboutText renders the shared terms in the claim's own words, in its
// order ("late fee").
func aboutText(claim string, shared []string) string {
	want := map[string]bool{}
	for _, t := range shared {
		want[t] = true
	}
	var words []string
	for _, tok := range textproc.Tokens(claim) {
		if ts := textproc.Terms(tok); len(ts) == 1 && want[ts[0]] {
			words = append(words, tok)
			delete(want, ts[0])
		}
	}
	return strings.Join(words, " ")
}

// evidenceOf is the evidence of quote in section s.
func evidenceOf(s schema.Section, quote string) schema.Evidence {
	id := s.ID
	if id == "" {
		id = s.Key()
	}
	return schema.Evidence{Quote: quote, SectionID: id, Title: s.Title, Source: s.Source, Page: s.Page}
}

// conflictConfidence caps the confidence of an answer whose sources
// disagree: either figure may be the right one.
const conflictConfidence = 0.5

// applyConflicts records the conflicts in v. An answer that states one
// figure where its sources disagree is not returned: the sources, not the
// answer, are at fault, so it is not marked hallucinated (a retry would
// only drop one source and present the other figure as certain), but it
// must not be presented as a confident answer either, so should_return is
// false and the confidence at most conflictConfidence. An answer that
// itself states both figures tells the reader of the disagreement; its
// conflicts are reported and it is decided as before.
func applyConflicts(v *schema.Verdict, cs []schema.Conflict) {
	if v == nil || len(cs) == 0 {
		return
	}
	v.Conflicts = append(v.Conflicts[:0:0], cs...)
	var open, told []string
	for _, c := range cs {
		if c.Acknowledged {
			told = append(told, ConflictText(c))
		} else {
			open = append(open, ConflictText(c))
		}
	}
	if len(open) > 0 {
		v.ShouldReturn = false
		v.ConfidenceScore = math.Min(v.ConfidenceScore, conflictConfidence)
		v.Reasoning = strings.TrimSpace(v.Reasoning + " Not returned: the sources disagree: " + strings.Join(open, "; ") + ".")
	}
	if len(told) > 0 {
		v.Reasoning = strings.TrimSpace(v.Reasoning + " The sources disagree, and the answer states both figures: " + strings.Join(told, "; ") + ".")
	}
}

// ConflictText describes a conflict for a reader: `on "late fee", Late Fee
// Notice, page 3 (notice.md) says "50% per month" but Late Payment
// Penalties, page 8 (contract.md) says "1.5% per month"`.
func ConflictText(c schema.Conflict) string {
	on := ""
	if c.About != "" {
		on = fmt.Sprintf("on %q, ", c.About)
	}
	return fmt.Sprintf("%s%s says %q but %s says %q", on, evidenceRef(c.Source), c.Figure, evidenceRef(c.OtherSource), c.OtherFigure)
}

func evidenceRef(e schema.Evidence) string {
	s := schema.Section{Title: e.Title, Page: e.Page}
	ref := s.Citation()
	if e.Source != "" {
		ref += " (" + e.Source + ")"
	}
	return ref
}
