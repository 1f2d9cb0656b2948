// Package generator writes answers from retrieved sections without a
// model: the extractive generator selects the sentences of the sections
// that best answer the question and returns them verbatim, each followed by
// its citation "(See <section title>, <page ref>)". The best sentence
// leads; the sentence that goes on from it ("This produces …") follows it
// when it states a term of the question.
//
// When no section has a sentence relevant to the question it says so
// (NotAddressed) instead of guessing; the judge rejects that answer, so the
// pipeline retries retrieval and finally returns its fallback message.
package generator

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/textproc/tables"
)

// NotAddressed is the answer when no section addresses the question. It
// carries no citation.
const NotAddressed = "The provided documents do not address this question."

// Option configures the extractive generator.
type Option func(*Offline)

// WithMaxSentences sets how many sentences an answer has at most
// (default 3; values below 1 mean 1).
func WithMaxSentences(n int) Option { return func(g *Offline) { g.maxSentences = max(n, 1) } }

// WithMinScore sets the least score, in [0,1], of a sentence worth quoting
// (default 0.3). The score is the weighted share of the question's terms
// the sentence contains (terms only in its section's title count half; key
// terms count double), plus 0.15 when it holds the kind of fact the
// question asks for and a tenth of the section's relevance score.
func WithMinScore(v float64) Option { return func(g *Offline) { g.minScore = v } }

// Offline is the extractive generator, which needs no model. It is safe for concurrent use.
type Offline struct {
	maxSentences, maxSections int
	minScore, relCutoff       float64
	lex                       *lexicon.Thesaurus
	synWeight                 float64
}

// rules returns, for each candidate, the IDs of the detectors that fire
// on it (package relevance): another entity or period than the question
// names, not the kind of answer it asks for, the opposite polarity … The
// generator reads the same detectors, on the same context, as the judge.
func (g *Offline) rules(req schema.GenerateRequest, cands []candidate) [][]string {
	frame := relevance.Analyze(req.Query)
	sents := map[int][]string{}
	contents := make([]string, len(req.Sections))
	for i, s := range req.Sections {
		contents[i] = s.Content
	}
	// when a row names the measure asked for, the rows beside it that do
	// not are other measures however few values they hold
	names := make([]bool, len(cands)) // the candidate is a row that names the measure
	named := false
	if frame.AsksFigure() {
		for i, c := range cands {
			names[i] = frame.NamesRow(req.Sections[c.section].Content, c.text)
			named = named || names[i]
		}
	}
	out := make([][]string, len(cands))
	for i, c := range cands {
		s := req.Sections[c.section]
		ss, ok := sents[c.section]
		if !ok {
			ss = textproc.Sentences(s.Content)
			sents[c.section] = ss
		}
		lo, hi := max(c.pos-1, 0), min(c.pos+2, len(ss))
		if textproc.IsRecord(c.text) { // the rows beside a sheet's row are other records
			lo, hi = c.pos, c.pos+1
		}
		passage := strings.Join(ss[lo:hi], " ")
		if c.lead != "" {
			// an item's context is the sentence introducing its list,
			// which its text holds, not the items beside it
			passage = c.text
		}
		rc := relevance.Context{
			Claim:    c.text,
			Passage:  passage,
			Heading:  relevance.HeadingContext(s),
			Document: relevance.DocumentContext(s),
			Named:    strings.Join(s.NamedBy, " "),
			Kind:     s.KindAt(c.text),
			Sections: contents,
		}
		rc.ReadTable(s.Content)
		var rules []string
		for _, f := range frame.Check(rc, 0, nil, nil).Findings {
			if !slices.Contains(rules, f.Rule) {
				rules = append(rules, f.Rule)
			}
		}
		// a row of a table answers what a measure was only when its
		// label names that measure: "Total Operating Expenses 36,861"
		// beside "Total revenues 49,954" does not answer for revenues
		if rc.Row && frame.AsksFigure() && !names[i] && (named || relevance.Tabular(c.text)) && relevance.Enabled(RowMeasure) {
			relevance.Fired(RowMeasure)
			rules = append(rules, RowMeasure)
		}
		out[i] = rules
	}
	return out
}

// rank orders the candidates by the decision model's probability that
// an answer drawn from them is right, as far as the candidate alone
// decides it: the sum of the model's weights of the rules that fire on it
// (judge.RuleWeight; a rule only ever lowers it), and among candidates
// of the same sum, the fewer rules the better (a rule the model gives no
// weight, scope.row-measure, the generator's own, or one that never fired
// on an answer the model was fitted on, still counts). The candidates of
// the best rank are kept, in their order; the others are passed over and
// returned with the rules that passed them over.
func (g *Offline) rank(req schema.GenerateRequest, cands []candidate) (top []candidate, over []passedOver) {
	rules := g.rules(req, cands)
	key := make([]float64, len(cands))
	best := math.Inf(-1)
	for i, rs := range rules {
		for _, r := range rs {
			key[i] += min(judge.RuleWeight(r), 0) - ruleRank
		}
		best = math.Max(best, key[i])
	}
	for i, c := range cands {
		if key[i] >= best-ruleRank/2 {
			top = append(top, c)
		} else {
			over = append(over, passedOver{c, rules[i]})
		}
	}
	return top, over
}

// ruleRank is what a rule costs a candidate's rank beyond its weight:
// less than the model's weights can tell apart (they are rounded to 1e-4).
const ruleRank = 1e-6

// RowMeasure is the generator's own detector: a table row that does not
// name the measure a question asks for, beside rows that do.
var RowMeasure = relevance.Register(&relevance.Detector{Name: "scope.row-measure",
	Doc: "a table row's label does not name the measure the question asks for (another row's does, or the claim is rows run together)"}).Name

// passedOver is a candidate the generator passed over, with the IDs of
// the rules that passed it over.
type passedOver struct {
	candidate
	rules []string
}

// maxPassedOver is how many passed-over candidates a note lists in full.
const maxPassedOver = 5

// notePassedOver records the candidates passed over in the run's notes
// (schema.RecordPassedOver): how many, by rule, and the first few with
// their citation and rules.
func notePassedOver(ctx context.Context, over []passedOver, sections []schema.Section) {
	if len(over) == 0 {
		return
	}
	count := map[string]int{}
	var order []string
	for _, o := range over {
		for _, r := range o.rules {
			if count[r] == 0 {
				order = append(order, r)
			}
			count[r]++
		}
	}
	tally := make([]string, len(order))
	for i, r := range order {
		tally[i] = fmt.Sprintf("%s ×%d", r, count[r])
	}
	schema.RecordPassedOver(ctx, fmt.Sprintf("%d candidate(s) passed over (%s)", len(over), strings.Join(tally, ", ")))
	for _, o := range over[:min(len(over), maxPassedOver)] {
		text := []rune(o.text)
		if len(text) > 100 {
			text = append(text[:99], '…')
		}
		schema.RecordPassedOver(ctx, fmt.Sprintf("%q (%s) [%s]", string(text), sections[o.section].Citation(), strings.Join(o.rules, ", ")))
	}
}

// WithThesaurus sets the synonym resource for sentence scoring: a question
// term a sentence (or its section title) states only through a synonym
// counts at lexicon.SynonymWeight of an exact hit, and so does a form
// WordNet derives from the question's word or it from ("departed" for
// "departure"; relevance.DerivedForms). The default is lexicon.Default();
// nil turns synonyms and derived forms off.
func WithThesaurus(t *lexicon.Thesaurus) Option { return func(g *Offline) { g.lex = t } }

var _ schema.Generator = (*Offline)(nil)

// NewOffline returns the extractive generator.
func NewOffline(opts ...Option) *Offline {
	g := &Offline{maxSentences: 3, maxSections: 2, minScore: 0.3, relCutoff: 0.6,
		lex: lexicon.Default(), synWeight: lexicon.SynonymWeight}
	for _, o := range opts {
		o(g)
	}
	return g
}

// newSectionCutoff is the least score, as a fraction of the best, of a
// sentence that brings another section into the answer.
const newSectionCutoff = 0.85

type candidate struct {
	section, pos int
	end          int    // the last sentence it covers (unit.end)
	lead         string // a list item's lead-in (unit.lead)
	text, shown  string // as unit
	score        float64
	// own is score without the share of the words that named the
	// document (Section.NamedBy), which every sentence of it gets: what
	// the sentence itself says. The cutoffs that decide whether a
	// sentence joins the lead compare own scores, so that the naming
	// words (the same for every sentence of a document) do not lift a
	// cover page's one-word match to near the clause that answers.
	own     float64
	follows bool // goes on from the lead sentence (withContinuation)
}

// Generate answers req.Query from req.Sections; see the package
// documentation. It calls req.OnToken once with the whole answer.
func (g *Offline) Generate(ctx context.Context, req schema.GenerateRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	req.Query = question.Asked(req.Query) // without "Hi," or "Thanks!"
	d := req.Decomposition
	if d == nil && strings.TrimSpace(req.Query) != "" {
		// a request without a decomposition: the question read by
		// package question (its parts, the first part's intent and key
		// terms), as the offline decomposer reads it
		d = read(req.Query)
	}
	if d == nil {
		d = &schema.Decomposition{}
	}
	answer := g.answer(ctx, req, d)
	if req.OnToken != nil {
		req.OnToken(answer)
	}
	return answer, nil
}

// read reads a non-blank question as the offline decomposer does, in the
// fields the answer uses: its parts, their first part's intent and its key
// terms (Generate passes the question asked, question.Asked).
func read(query string) *schema.Decomposition {
	q := strings.Join(strings.Fields(query), " ")
	parts := question.Split(q)
	return &schema.Decomposition{Intent: question.Intent(parts[0]), SubQueries: parts, KeyTerms: question.KeyTerms(q)}
}

func (g *Offline) answer(ctx context.Context, req schema.GenerateRequest, d *schema.Decomposition) string {
	queries := d.SubQueries
	if len(queries) == 0 {
		queries = []string{req.Query}
	}
	all := g.withSynonyms(newQuery(strings.Join(append([]string{req.Query}, queries...), " "), d.KeyTerms, d.Intent))
	cands := g.candidates(req.Sections, all)
	if len(queries) <= 1 {
		var over []passedOver
		cands, over = g.rank(req, cands)
		notePassedOver(ctx, over, req.Sections)
	}
	if len(cands) == 0 {
		return NotAddressed
	}
	chosen := map[int]bool{}
	var picked []candidate
	sectionsUsed := map[int]bool{}
	pick := func(i int) bool {
		c := cands[i]
		if chosen[i] || len(picked) >= g.maxSentences {
			return false
		}
		if !sectionsUsed[c.section] && len(sectionsUsed) >= g.maxSections {
			return false
		}
		// a list quoted whole holds its items, and an item its list
		if slices.ContainsFunc(picked, func(p candidate) bool {
			return p.section == c.section && (p.end > p.pos || c.end > c.pos) && p.pos <= c.end && c.pos <= p.end
		}) {
			return false
		}
		chosen[i] = true
		sectionsUsed[c.section] = true
		picked = append(picked, c)
		return true
	}
	// the best sentence of each sub-question first, then the best overall
	if len(queries) > 1 {
		for _, q := range queries {
			sub := g.withSynonyms(newQuery(q, question.KeyTerms(q), question.Intent(q)))
			// a sentence that answers this part (package relevance)
			// before one that only shares its words
			subReq := req
			subReq.Query = q
			answers := map[[2]int]bool{}
			kept, _ := g.rank(subReq, cands)
			for _, c := range kept {
				answers[[2]int{c.section, c.pos}] = true
			}
			best, bestScore, bestAnswers := -1, 0.0, false
			for i, c := range cands {
				s := g.score(c.text, req.Sections[c.section], sub)
				a := answers[[2]int{c.section, c.pos}] && !chosen[i]
				if s >= g.minScore && (a && !bestAnswers || a == bestAnswers && s > bestScore) {
					best, bestScore, bestAnswers = i, s, a
				}
			}
			if best >= 0 {
				pick(best)
			}
		}
	}
	// then the best overall: from a section already quoted when within
	// the relative cutoff of the best, from another section only when
	// nearly as good as the best, and (a question of several parts is not
	// ranked as a whole) answering a part by the rules rank reads
	answers := func(c candidate) bool {
		return len(queries) == 1 || slices.ContainsFunc(queries, func(q string) bool {
			sub := req
			sub.Query = q
			return len(g.rules(sub, []candidate{c})[0]) == 0
		})
	}
	top := cands[0].own
	for i, c := range cands {
		if c.own < top*g.relCutoff {
			continue
		}
		if len(picked) > 0 && (!sectionsUsed[c.section] && c.own < top*newSectionCutoff || !answers(c)) {
			continue
		}
		pick(i)
	}
	picked = g.withContinuation(req, picked, all)
	kinds := intentKinds(d.Intent)
	picked = wholeFirst(answerFirst(picked, kinds), relevance.Analyze(req.Query), kinds)
	return render(picked, req.Sections)
}

// anaphors: internal/wordlists/anaphors.txt.
var anaphors = wordlists.Named("anaphors")

// withContinuation puts right after the lead sentence the sentence that
// goes on from it in its section: one that opens with an anaphor and
// states a term of the question ("After complement proteins bind to the
// microbe, they activate their protease activity …" goes on "This
// produces a catalytic cascade …", which names what the lead only
// describes). The lead is read with what it says next; the continuation
// takes the place of the last pick when the answer is full. It must pass
// the checks every quoted sentence passes (passing): a sentence going on
// about another year or entity is not added. A row of a table goes on
// with no sentence.
func (g *Offline) withContinuation(req schema.GenerateRequest, picked []candidate, q query) []candidate {
	if len(picked) == 0 {
		return picked
	}
	lead := picked[0]
	s := req.Sections[lead.section]
	units := withoutInstructions(s.Content, quotable(s.Content))
	var next *unit
	for i, u := range units {
		if u.pos == lead.pos && u.text == lead.text && i+1 < len(units) && units[i+1].pos == lead.end+1 {
			next = &units[i+1]
			break
		}
	}
	if next == nil || next.shown != "" || relevance.Tabular(next.text) {
		return picked
	}
	toks := textproc.Tokens(next.text) // lower-cased
	if len(toks) < 4 || !anaphors[toks[0]] {
		return picked
	}
	if !slices.ContainsFunc(textproc.Terms(next.text), func(t string) bool { return q.weights[t] > 0 }) {
		return picked
	}
	cont := candidate{section: lead.section, pos: next.pos, end: next.end, text: next.text, follows: true}
	if len(g.rules(req, []candidate{cont})[0]) > 0 {
		return picked
	}
	out := []candidate{lead, cont}
	for _, c := range picked[1:] {
		if c.section == lead.section && c.pos == next.pos {
			continue
		}
		out = append(out, c)
	}
	return out[:min(len(out), g.maxSentences)]
}

// candidates returns the sentences worth quoting, best first.
func (g *Offline) candidates(sections []schema.Section, q query) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for si, s := range sections {
		for _, u := range withoutInstructions(s.Content, quotable(s.Content)) {
			if len(textproc.Tokens(u.text)) < 4 {
				continue
			}
			// what the answer would write: a row quoted from a table-row
			// section and the same row read under its header in the
			// section that holds the table read the same
			key := strings.Join(textproc.Tokens(cmp.Or(u.shown, u.text)), " ")
			if seen[key] {
				continue
			}
			score := g.score(u.text, s, q)
			if score < g.minScore {
				continue
			}
			seen[key] = true
			out = append(out, candidate{section: si, pos: u.pos, end: u.end, lead: u.lead, text: u.text, shown: u.shown, score: score, own: score - namedShare(s, q)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// unit is a quotable piece of a section: a sentence, or one row of a
// table flattened into a sentence; pos is the sentence's position. shown,
// when set, is how the answer writes it: a row under the column headers
// of a header line that stands apart from its table (rowsUnder); the
// unit is chosen by its text.
type unit struct {
	pos, end    int    // the sentences it covers: a list's lead-in covers its items
	lead        string // a list item's lead-in, which leads its text
	text, shown string
}

// maxListed is the most items a list's lead-in is quoted with; a longer
// list is quoted item by item.
const maxListed = 12

// quotable splits a section's content into sentences, and sentences
// flattened from a table into their rows (see tables.Rows). A list item
// under a sentence that introduces its list ("The company observes the
// following paid holidays each year:", "Employees are reimbursed when
// they:") is read and quoted with that sentence, as a row is with its
// table's header: "Labor Day" alone says nothing of holidays.
func quotable(content string) []unit {
	var out []unit
	var tc tables.Reader
	sents := textproc.Sentences(content)
	leadIns := textproc.LeadIns(sents)
	items := map[int][]string{} // a lead-in's items
	last := map[int]int{}       // a lead-in's last item
	for i, at := range leadIns {
		if at >= 0 {
			item, _ := textproc.ListItem(sents[i])
			items[at] = append(items[at], item)
			last[at] = i
		}
	}
	for pos, sent := range sents {
		if at := leadIns[pos]; at >= 0 {
			item, _ := textproc.ListItem(sent)
			lead := strings.TrimSpace(sents[at])
			out = append(out, unit{pos: pos, end: pos, lead: lead, text: lead + " " + item})
			continue
		}
		if list := items[pos]; len(list) > 0 && len(list) <= maxListed {
			// chosen by what the lead-in says, quoted with its items:
			// an item that names what the question asks is chosen by
			// itself (with its lead-in) instead
			out = append(out, unit{pos: pos, end: last[pos], text: strings.TrimSpace(sent), shown: strings.TrimSpace(sent) + " " + strings.Join(list, "; ")})
			continue
		}
		rows, shown := tc.Read(sent)
		if rows == nil {
			rows = []string{sent}
		}
		for i, r := range rows {
			u := unit{pos: pos, end: pos, text: r}
			if shown != nil {
				u.shown = shown[i]
			}
			out = append(out, u)
		}
	}
	return out
}

// query is a question prepared for scoring sentences.
type query struct {
	weights map[string]float64 // stemmed term -> weight
	key     map[string]bool    // stemmed key terms
	total   float64
	kinds   map[facts.Kind]bool // facts the intent asks for
	// stated are the durations the question itself states ("still unpaid
	// after 60 days"): a sentence stating the same one is about the
	// situation asked about.
	stated []facts.Fact
	// syn holds each term's synonyms that are not themselves question
	// terms (one word of a sentence does not answer for two of the
	// question's)
	syn map[string][]lexicon.Entry
	// words maps each term to a word of the question with it
	words map[string]string
}

// withSynonyms fills q.syn from the generator's thesaurus and the
// question words' derived forms.
func (g *Offline) withSynonyms(q query) query {
	if g.lex == nil {
		return q
	}
	q.syn = map[string][]lexicon.Entry{}
	for t := range q.weights {
		for _, e := range g.lex.Synonyms(t) {
			if e.IsPhrase() || q.weights[e.Stems[0]] == 0 {
				q.syn[t] = append(q.syn[t], e)
			}
		}
		if w := q.words[t]; w != "" {
			for _, d := range relevance.DerivedForms(w) {
				if st := textproc.Stem(d); st != t && q.weights[st] == 0 {
					q.syn[t] = append(q.syn[t], lexicon.Entry{Text: d, Stems: []string{st}})
				}
			}
		}
	}
	return q
}

// statedBonus is added to a sentence that states a duration the question
// states.
const statedBonus = 0.3

func newQuery(text string, keyTerms []string, intent string) query {
	q := query{weights: map[string]float64{}, key: map[string]bool{}, kinds: intentKinds(intent)}
	for _, f := range facts.Extract(text) {
		if f.Kind == facts.Duration {
			q.stated = append(q.stated, f)
		}
	}
	for _, t := range textproc.Terms(text) {
		if !isNumber(t) {
			q.weights[t] = 1
		}
	}
	q.words = map[string]string{}
	for _, w := range textproc.ContentWords(text) {
		if t := textproc.Stem(w); q.weights[t] > 0 && q.words[t] == "" {
			q.words[t] = w
		}
	}
	for _, k := range keyTerms {
		for _, t := range textproc.Terms(k) {
			q.weights[t] = 2
			q.key[t] = true
		}
	}
	for _, w := range q.weights {
		q.total += w
	}
	return q
}

func isNumber(t string) bool {
	return strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

func intentKinds(intent string) map[facts.Kind]bool {
	switch intent {
	case question.IntentPenalty, question.IntentAmount:
		return map[facts.Kind]bool{facts.Percent: true, facts.Money: true}
	case question.IntentDeadline:
		return map[facts.Kind]bool{facts.Date: true, facts.Duration: true}
	case question.IntentDuration:
		return map[facts.Kind]bool{facts.Duration: true}
	}
	return nil
}

// score rates how well sent (in section s) answers q; 0 when it does not
// touch the question: a sentence must contain a question term, or sit in a
// section whose title contains a key term.
func (g *Offline) score(sent string, s schema.Section, q query) float64 {
	if q.total == 0 {
		return 0
	}
	inSent, inTitle := textproc.TermSet(sent), textproc.TermSet(s.Title)
	// the document's organisation and period are what every sentence of
	// it is about; they add to a sentence's score, but never make it a
	// candidate on their own
	inDoc := textproc.TermSet(s.DocEntity + "\n" + s.DocPeriod)
	// the names that chose the section's document (Section.NamedBy) are
	// stated by the document, not by one of its passages: every sentence
	// of it gets them, so that a preamble repeating the parties does not
	// outrank the clause asked about, and a clause need not repeat them
	named := s.NamedTerms()
	keys := len(q.key)
	for t := range q.key {
		if named[t] {
			keys--
		}
	}
	var sentLex, titleLex lexicon.Text
	if len(q.syn) > 0 {
		sentLex, titleLex = lexicon.NewText(sent), lexicon.NewText(s.Title)
	}
	var got float64
	sentHits, keyHits, titleKeyHits := 0, 0, 0
	for t, w := range q.weights {
		switch {
		case named[t]:
			got += w
		case inSent[t]:
			got += w
			sentHits++
			if q.key[t] {
				keyHits++
			}
		case inTitle[t]:
			// A heading names what its sentences are about: under "Late
			// Payment Penalties" every sentence is about penalties, while
			// a sentence elsewhere that says "not a penalty" is not.
			got += w
			if q.key[t] {
				titleKeyHits++
			}
		case slices.ContainsFunc(q.syn[t], sentLex.HasEntry):
			// the sentence says it in other words: weaker evidence
			got += w * g.synWeight
			sentHits++
			if q.key[t] {
				keyHits++
			}
		case slices.ContainsFunc(q.syn[t], titleLex.HasEntry):
			got += w * g.synWeight
			if q.key[t] {
				titleKeyHits++
			}
		case inDoc[t]:
			got += w
		}
	}
	if keys > 0 && keyHits == 0 && titleKeyHits == 0 {
		return 0 // does not address what the question is about
	}
	if sentHits == 0 && titleKeyHits == 0 {
		return 0
	}
	score := got / q.total
	if len(q.kinds) > 0 || len(q.stated) > 0 {
		kindBonus, statedHit := false, false
		for _, f := range facts.Extract(sent) {
			if !kindBonus && q.kinds[f.Kind] {
				score += 0.15
				kindBonus = true
			}
			for _, st := range q.stated {
				if !statedHit && st.Matches(f) {
					score += statedBonus
					statedHit = true
				}
			}
		}
	}
	return score + 0.1*s.RelevanceScore
}

// namedShare is the part of a sentence's score (g.score) that the words
// naming its section's document give every sentence of it.
func namedShare(s schema.Section, q query) float64 {
	if len(s.NamedBy) == 0 || q.total == 0 {
		return 0
	}
	var got float64
	for t := range s.NamedTerms() {
		got += q.weights[t]
	}
	return got / q.total
}

var reEnumerator = regexp.MustCompile(`^(?:\d+(?:\.\d+)*\.?|\([a-z0-9]{1,4}\)|[a-z]\))\s+`)

// render puts the best picked sentence (picked[0]) first, so that the
// answer leads with what answers the question, then the others grouped by
// section (sections in the order of their best sentence, sentences in
// document order), each followed by its citation, one sentence a line.
func render(picked []candidate, sections []schema.Section) string {
	order := map[int]int{}
	for _, c := range picked {
		if _, ok := order[c.section]; !ok {
			order[c.section] = len(order)
		}
	}
	if len(picked) > 0 {
		lead := picked[0]
		sort.SliceStable(picked, func(i, j int) bool {
			a, b := picked[i], picked[j]
			if (a == lead) != (b == lead) {
				return a == lead
			}
			if a.follows != b.follows {
				return a.follows
			}
			if order[a.section] != order[b.section] {
				return order[a.section] < order[b.section]
			}
			return a.pos < b.pos
		})
	}
	var lines []string
	for i, c := range picked {
		text := cmp.Or(c.shown, c.text)
		if c.lead != "" {
			if slices.ContainsFunc(picked[:i], func(p candidate) bool { return sameList(p, c) }) {
				continue // quoted with the first item of its list
			}
			// the items of one list the answer quotes, under their
			// lead-in once
			for _, o := range picked[i+1:] {
				if sameList(o, c) {
					text += "; " + strings.TrimPrefix(o.text, o.lead+" ")
				}
			}
		}
		text = reEnumerator.ReplaceAllString(text, "")
		lines = append(lines, text+" (See "+sections[c.section].Citation()+")")
	}
	return strings.Join(lines, "\n")
}

// sameList reports whether a and b are items of one list.
func sameList(a, b candidate) bool {
	return a.lead != "" && a.section == b.section && a.lead == b.lead
}
