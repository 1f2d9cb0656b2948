// Package judge checks a generated answer against the sections it was
// generated from, deterministically and offline.
//
// It has two layers:
//
//   - Guards, exported so that an LLM judge can run them on top of its own
//     verdict: SplitClaims (sentences with their "(See Title, page N)" or
//     "[S1]" citations), the facts check (facts.Check: numbers,
//     percentages, money, durations and dates of a claim against its
//     evidence: "5%" where the source says "1.5%"), CheckCitations,
//     CheckQuotes and IsAbstention. (*Offline).ApplyGuards merges their
//     findings into another judge's verdict.
//   - The deterministic judge (NewOffline), a schema.Judge: it
//     splits the answer into claims, finds the best supporting passage for
//     each (a window of consecutive sentences, scored by how many of the
//     claim's stemmed terms it contains, preferring the cited section),
//     runs the guards and decides. Scoring (Score) and deciding (Decide)
//     are separate so that thresholds can be tuned on labelled data.
//     Decide refuses an answer on a veto (a figure contradicting its
//     source, a citation or quotation that does not exist, an
//     instruction, an empty answer) or when the decision model, a
//     logistic model over the answer's signals and the rules that fired
//     (DecisionSignals), gives it a probability of being right below
//     MinConfidence.
//
// An answer with no claims, or one that only says the documents do not
// address the question, is marked hallucinated (not grounded) by default:
// the pipeline then retries retrieval and finally returns the fallback
// message rather than an empty or evasive answer as if it were confident
// (SPEC scenario 3). WithRejectAbstentions(false) turns this off, for
// benchmarks where "the passages do not say" counts as a faithful answer.
package judge

import (
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/docmind/docmind/facts"
	"github.com/docmind/docmind/internal/wordlists"
	"github.com/docmind/docmind/lexicon"
	"github.com/docmind/docmind/question"
	"github.com/docmind/docmind/relevance"
	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/spell"
	"github.com/docmind/docmind/textproc"
	"github.com/docmind/docmind/wordvec"
)

// JudgedBy is the value of schema.Verdict.JudgedBy for this judge.
const JudgedBy = "deterministic"

// Thresholds are the tunable parameters of the deterministic judge.
type Thresholds struct {
	// Support is the least fraction of a claim's terms that its best
	// passage must contain for the claim to be supported. Default 0.6.
	Support float64
	// KeyTermCoverage is the least share of the question's key terms
	// that the supporting sections must mention; below it the answer does
	// not address the question. Each key term is weighted by its rarity,
	// 1+ln((n+1)/(df+0.5)), over the whole corpus when the judge has it
	// (WithCorpus) or else among the retrieved sections, so a term every
	// section mentions counts least and one no section mentions counts
	// most. A retrieved section below it is listed in
	// Verdict.RejectedSections. Default 0.5.
	KeyTermCoverage float64
	// MinConfidence is the least confidence for an answer to be returned:
	// the calibrated estimate that it is correct (see
	// Assessment.CalibratedConfidence). Default DefaultMinConfidence.
	MinConfidence float64
	// Window is the largest number of consecutive sentences a supporting
	// passage may span. Default 2.
	Window int
	// CitedBonus is added to the support of passages in a section the
	// claim cites, so that the cited section wins near-ties. Default 0.05.
	CitedBonus float64
}

// DefaultThresholds returns the defaults listed on Thresholds.
func DefaultThresholds() Thresholds {
	return Thresholds{Support: 0.6, KeyTermCoverage: 0.5, MinConfidence: DefaultMinConfidence, Window: 2, CitedBonus: 0.05}
}

// Option configures the deterministic judge.
type Option func(*Offline)

// WithThresholds replaces all thresholds.
func WithThresholds(t Thresholds) Option { return func(d *Offline) { d.t = t } }

// WithSupportThreshold sets Thresholds.Support.
func WithSupportThreshold(v float64) Option { return func(d *Offline) { d.t.Support = v } }

// WithMinConfidence sets Thresholds.MinConfidence.
func WithMinConfidence(v float64) Option { return func(d *Offline) { d.t.MinConfidence = v } }

// WithRejectAbstentions sets whether an answer that only says the
// documents do not answer is rejected (default true). When false such
// sentences are not claims and an answer made only of them is accepted.
func WithRejectAbstentions(v bool) Option { return func(d *Offline) { d.rejectAbstentions = v } }

// WithFactChecks sets whether facts a claim's evidence does not state at
// all (as opposed to contradicting facts) make the claim unsupported
// (default true). Contradictions are always checked.
func WithFactChecks(unsupportedFacts bool) Option {
	return func(d *Offline) { d.unsupportedFacts = unsupportedFacts }
}

// WithCorpus tells the judge every section the retriever searches (the
// whole loaded corpus, not only the retrieved ones). The question's key
// terms are then weighted by their rarity in the corpus, so a term few
// sections mention counts most, and a key term that no section of the
// corpus mentions at all ("umbrella insurance" over a contract that never
// says "umbrella") weighs the most: the documents cannot address it.
func WithCorpus(sections []schema.Section) Option {
	return func(d *Offline) { d.corpus = NewMemCorpus(sections) }
}

// NewMemCorpus returns the Corpus of sections held in memory (the one
// WithCorpus builds), for sharing with other readers of its statistics.
// It also counts stems in batches (DocFreqs, for package spell).
func NewMemCorpus(sections []schema.Section) Corpus { return memCorpus{NewCorpusStats(sections)} }

// Corpus is what the judge needs to know of the whole corpus the retriever
// searches: its size and how many of its sections mention a term. The
// in-memory CorpusStats (WithCorpus) and a persistent index (index.Corpus)
// provide it.
type Corpus interface {
	// Size returns the number of sections.
	Size(ctx context.Context) (int, error)
	// GroupDocFreq returns how many sections mention every stem of term,
	// each exactly or through a synonym in lex (exactly when lex is nil).
	GroupDocFreq(ctx context.Context, term string, lex *lexicon.Thesaurus) (int, error)
}

// WithCorpusStats is WithCorpus for a corpus the judge reads statistics
// from instead of holding it, such as a persistent index that is too big
// to load.
func WithCorpusStats(c Corpus) Option {
	return func(d *Offline) { d.corpus = c }
}

// memCorpus adapts CorpusStats to Corpus.
type memCorpus struct{ c *CorpusStats }

func (m memCorpus) Size(context.Context) (int, error) { return m.c.n, nil }

func (m memCorpus) GroupDocFreq(_ context.Context, term string, lex *lexicon.Thesaurus) (int, error) {
	return m.c.GroupDocFreq(term, lex), nil
}

// Titles returns the distinct titles of the sections and their
// documents (spell.Titled).
func (m memCorpus) Titles(context.Context) ([]string, error) { return m.c.titles, nil }

// DocFreqs returns how many sections hold each stem.
func (m memCorpus) DocFreqs(_ context.Context, stems []string) ([]int, error) {
	out := make([]int, len(stems))
	for i, s := range stems {
		out[i] = m.c.df[s]
	}
	return out, nil
}

// WithThesaurus sets the synonym resource of the key-term check: a
// question key term counts as addressed when it or a synonym of it
// appears in the sections the answer rests on, and its corpus rarity is
// that of its whole synonym group. The default is lexicon.Default(); nil
// turns synonyms off (exact stems only).
func WithThesaurus(t *lexicon.Thesaurus) Option { return func(d *Offline) { d.lex = t } }

// CorpusStats holds the document frequency of every stemmed term of a
// corpus of sections. Build it with NewCorpusStats; it is read-only.
type CorpusStats struct {
	n     int
	df    map[string]int
	texts []lexicon.Text // per section, for synonym-group frequencies
	// titles are the distinct titles of the sections and their
	// documents, at most spell.MaxTitles (spell.Titled)
	titles []string
}

// NewCorpusStats counts, for every stemmed term, the sections (title and
// content) that contain it.
func NewCorpusStats(sections []schema.Section) *CorpusStats {
	c := &CorpusStats{n: len(sections), df: map[string]int{}, texts: make([]lexicon.Text, len(sections))}
	seenTitle := map[string]bool{}
	for i, s := range sections {
		for _, t := range []string{s.DocTitle, s.Title} {
			if t != "" && !seenTitle[t] && len(c.titles) < spell.MaxTitles {
				seenTitle[t] = true
				c.titles = append(c.titles, t)
			}
		}
		c.texts[i] = lexicon.NewText(s.Title + "\n" + s.Content)
		seen := map[string]bool{}
		for _, t := range textproc.Terms(s.Title + "\n" + s.Content) {
			if !seen[t] {
				seen[t] = true
				c.df[t]++
			}
		}
	}
	return c
}

// DocFreq returns how many sections contain every stem of term (a key
// term may be a phrase: the rarest of its stems counts).
func (c *CorpusStats) DocFreq(term string) int {
	stems := textproc.Terms(term)
	if len(stems) == 0 {
		return c.n
	}
	n := c.n
	for _, s := range stems {
		n = min(n, c.df[s])
	}
	return n
}

// GroupDocFreq is DocFreq over synonym groups: how many sections mention
// every stem of term, each either exactly or through a synonym in lex.
// With a nil lex it equals DocFreq.
func (c *CorpusStats) GroupDocFreq(term string, lex *lexicon.Thesaurus) int {
	if lex == nil {
		return c.DocFreq(term)
	}
	stems := textproc.Terms(term)
	if len(stems) == 0 {
		return c.n
	}
	n := 0
	for _, x := range c.texts {
		if !slices.ContainsFunc(stems, func(st string) bool { return lex.Find(st, x) == lexicon.NoMatch }) {
			n++
		}
	}
	return n
}

// Offline is the deterministic judge, which needs no model. It is safe for concurrent use.
type Offline struct {
	t                 Thresholds
	rejectAbstentions bool
	unsupportedFacts  bool
	corpus            Corpus
	lex               *lexicon.Thesaurus
	// maxNovel is WithMaxNovelTerms' limit; negative = off.
	maxNovel int
	// claimGuardsOnly makes Score stop after the per-claim guards (facts,
	// citations, quotes): no key terms, novelty or features. The LLM judge
	// needs no more.
	claimGuardsOnly bool
}

var _ schema.Judge = (*Offline)(nil)

// NewOffline returns the deterministic judge.
func NewOffline(opts ...Option) *Offline {
	d := &Offline{t: DefaultThresholds(), rejectAbstentions: true, unsupportedFacts: true, maxNovel: -1, lex: lexicon.Default()}
	for _, o := range opts {
		o(d)
	}
	if d.t.Window < 1 {
		d.t.Window = 1
	}
	return d
}

// Thresholds returns the judge's thresholds.
func (d *Offline) Thresholds() Thresholds { return d.t }

// Judge scores the response and decides; see Score and Decide.
func (d *Offline) Judge(ctx context.Context, req schema.JudgeRequest) (*schema.Verdict, error) {
	a, err := d.Score(ctx, req)
	if err != nil {
		return nil, err
	}
	return d.Decide(a), nil
}

// ClaimAssessment is what Score found for one claim.
type ClaimAssessment struct {
	Claim Claim
	// Support is the fraction of the claim's terms found in its best
	// passage (plus CitedBonus in a cited section), in [0,1].
	Support float64
	// Section is the index of the section holding the best passage, -1
	// when no section shares a term with the claim.
	Section int
	// Passage is the best passage.
	Passage string
	// Cited are the indices of the sections the claim cites.
	Cited []int
	// Mismatches are the claim's facts its evidence (the cited sections,
	// or else the best section) does not state.
	Mismatches []facts.Mismatch
	// Abstention is true for a sentence saying the documents do not
	// answer; such claims are not scored.
	Abstention bool
	// Issues are the guards' findings about this claim.
	Issues []Issue
	// NovelTerms are the claim's terms found in no section nor in the
	// question (see NovelTerms).
	NovelTerms []string
	// OffQuestion are the ways the claim does not answer the question
	// (see package relevance).
	OffQuestion []relevance.Finding
}

// Assessment is the outcome of Score: everything Decide needs.
type Assessment struct {
	Query    string
	Sections []schema.Section
	Claims   []ClaimAssessment
	// KeyTerms are the question's key terms; MissingKeyTerms those that
	// no supporting section mentions; KeyTermCoverage the weighted share
	// found (1 when there are no key terms; see Thresholds).
	KeyTerms        []string
	MissingKeyTerms []string
	// AbsentKeyTerms are the one-word key terms that no section of the
	// corpus (see WithCorpus) mentions, neither exactly nor through a
	// synonym: topics the documents do not cover.
	AbsentKeyTerms  []string
	KeyTermCoverage float64
	// Abstention is true when every sentence of the answer says the
	// documents do not answer.
	Abstention bool
	// Issues are the answer-level findings (claim findings are on the
	// claims).
	Issues []Issue
	// RejectedSections are the keys of sections that do not mention
	// enough of the question's key terms.
	RejectedSections []string
	// Conflicts are the answer's figures that another retrieved section
	// states differently for the same thing (see conflict.go).
	Conflicts []schema.Conflict
	// NovelTerms are the distinct terms of the answer's claims found in
	// no section nor in the question.
	NovelTerms []string
	// Frame is the question's reading by the relevance check (nil when it
	// did not run); Focus and ClaimFocus the best claim's (relevance.Result).
	Frame             *relevance.Frame
	Focus, ClaimFocus float64
	// AnsweringShare is the share of claims that answer; LeadAnswers
	// whether the first claim does, and PhraseOverlap the share of the
	// question's neighbouring content terms that claim states side by
	// side (phraseOverlap).
	AnsweringShare, PhraseOverlap float64
	LeadAnswers                   bool
	// TopicFocus is the first claim's relevance.Result.TopicFocus: its
	// focus share over the question's terms that did not choose its
	// document. LeadRank is the retrieval rank of that claim's section
	// (0 the best, -1 none).
	TopicFocus float64
	LeadRank   int
	// MinSupport is the lowest support of a non-abstaining claim;
	// MinIDFCoverage and MeanIDFCoverage the lowest and mean IDFCoverage
	// of a claim by its passage; NovelRatio the share of the answer's
	// content terms that are NovelTerms (1, 1, 1 and 0 without claims).
	MinSupport, MinIDFCoverage, MeanIDFCoverage, NovelRatio float64

	ci               *contextIndex
	t                Thresholds
	rejectAbstention bool
	unsupportedFacts bool
}

// Score runs the deterministic judge's scoring with the given options;
// see (*Offline).Score.
func Score(ctx context.Context, req schema.JudgeRequest, opts ...Option) (*Assessment, error) {
	return NewOffline(opts...).Score(ctx, req)
}

type preparedSection struct {
	sentences []string
	terms     []map[string]bool // per sentence
	all       map[string]bool   // title and content
	doc       map[string]bool   // the document's title, file name, organisation and period
	text      string            // title and content
	lex       lexicon.Text      // title and content, for synonym lookups (unset with claimGuardsOnly)
}

// quotesSection reports whether a section states the claim word for
// word: "Ergänzungsschulen … offer a type of education which is not
// available at public schools" quoted from a document states what the
// document says, however much it reads like an answer saying the
// documents do not tell.
func quotesSection(claim string, prep []preparedSection) bool {
	toks := textproc.Tokens(wordvec.Fold(claim))
	if len(toks) < minQuotedTokens {
		return false
	}
	want := " " + strings.Join(toks, " ") + " "
	return slices.ContainsFunc(prep, func(p preparedSection) bool {
		return strings.Contains(" "+strings.Join(textproc.Tokens(wordvec.Fold(p.text)), " ")+" ", want)
	})
}

// minQuotedTokens is the fewest words of a claim quoted from a section
// for the quote to state what the section says: a short abstention ("It
// is not stated.") may stand word for word in a document too.
const minQuotedTokens = 8

// prepare splits and stems a section; withLex also indexes it for
// synonym lookups (the key-term check).
func prepare(s schema.Section, withLex bool) preparedSection {
	p := preparedSection{all: map[string]bool{}, text: s.Title + "\n" + s.Content}
	if withLex {
		p.lex = lexicon.NewText(p.text)
	}
	p.sentences = textproc.AnswerSentences(s.Content)
	p.terms = make([]map[string]bool, len(p.sentences))
	for i, sent := range p.sentences {
		m := map[string]bool{}
		for _, t := range textproc.Terms(sent) {
			m[t] = true
			p.all[t] = true
		}
		p.terms[i] = m
	}
	// a list item states what the sentence introducing its list says of
	// it ("… the following paid holidays each year:" for "- Labor Day"),
	// and that sentence states its items (the generator quotes them so)
	leadIns := textproc.LeadIns(p.sentences)
	for i, at := range leadIns {
		if at >= 0 {
			maps.Copy(p.terms[i], p.terms[at]) // the lead-in's own terms: it is no item
		}
	}
	for i, at := range leadIns {
		if at >= 0 {
			maps.Copy(p.terms[at], p.terms[i])
		}
	}
	for _, t := range textproc.Terms(s.Title) {
		p.all[t] = true
	}
	if withLex {
		p.doc = textproc.TermSet(relevance.DocumentContext(s))
	}
	return p
}

// Score splits the response into claims, finds each claim's best
// supporting passage and runs the guards. It does not decide; see Decide.
func (d *Offline) Score(ctx context.Context, req schema.JudgeRequest) (*Assessment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// the question asked, without the courtesies and request around it
	// ("Thanks!", "Can you tell me"): they ask nothing to address
	req.Query = question.Asked(req.Query)
	a := &Assessment{Query: req.Query, Sections: req.Sections, t: d.t, rejectAbstention: d.rejectAbstentions, unsupportedFacts: d.unsupportedFacts}
	prep := make([]preparedSection, len(req.Sections))
	for i, s := range req.Sections {
		prep[i] = prepare(s, !d.claimGuardsOnly)
	}
	claims := SplitClaims(req.Response)
	nonAbstaining := 0
	injected := newInjectionCheck(prep)
	for ci, c := range claims {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ca := ClaimAssessment{Claim: c, Section: -1}
		if IsAbstention(c.Text) && !quotesSection(c.Text, prep) {
			ca.Abstention = true
			a.Claims = append(a.Claims, ca)
			continue
		}
		nonAbstaining++
		var problems []string
		ca.Cited, problems = CheckCitations(c, req.Sections)
		for _, p := range problems {
			ca.Issues = append(ca.Issues, Issue{Kind: IssueBadCitation, Claim: ci, Detail: p})
		}
		ca.Section, ca.Passage, ca.Support = d.bestPassage(c.Text, prep, ca.Cited)
		ca.Issues = append(ca.Issues, injected.issues(ci, c.Text, ca, req.Sections, d.t.Support)...)
		// facts and quotes are checked against the cited sections when the
		// claim cites any, else against its best section
		var evidence []string
		for _, i := range ca.Cited {
			evidence = append(evidence, prep[i].text)
		}
		if len(evidence) == 0 && ca.Section >= 0 {
			evidence = append(evidence, prep[ca.Section].text)
		}
		ca.Mismatches = facts.Check(c.Text, strings.Join(evidence, "\n"))
		for _, m := range ca.Mismatches {
			kind := IssueUnsupportedFact
			if m.Contradiction() {
				kind = IssueContradiction
			}
			ca.Issues = append(ca.Issues, Issue{Kind: kind, Claim: ci, Detail: m.String()})
		}
		quoteEvidence := evidence
		if len(ca.Cited) == 0 {
			quoteEvidence = nil
			for _, p := range prep {
				quoteEvidence = append(quoteEvidence, p.text)
			}
		}
		for _, q := range CheckQuotes(c.Text, quoteEvidence...) {
			ca.Issues = append(ca.Issues, Issue{Kind: IssueQuoteNotFound, Claim: ci, Detail: fmt.Sprintf("quotes %q, which the %s does not contain", q, sourceWord(len(ca.Cited) > 0))})
		}
		if ca.Support < d.t.Support {
			ca.Issues = append(ca.Issues, Issue{Kind: IssueUnsupported, Claim: ci, Detail: d.unsupportedDetail(ca, req.Sections)})
		}
		a.Claims = append(a.Claims, ca)
	}
	switch {
	case len(claims) == 0:
		a.Issues = append(a.Issues, Issue{Kind: IssueEmpty, Claim: -1, Detail: "the answer has no statement to check"})
	case nonAbstaining == 0:
		a.Abstention = true
		a.Issues = append(a.Issues, Issue{Kind: IssueAbstention, Claim: -1, Detail: "the answer says the documents do not address the question"})
	}
	a.Conflicts = findConflicts(a, prep, req.Response)
	if err := d.relevanceCheck(ctx, a, req, prep); err != nil {
		return nil, err
	}
	if d.claimGuardsOnly {
		return a, nil
	}
	if err := d.keyTerms(ctx, a, req, prep); err != nil {
		return nil, err
	}
	ci := buildContextIndex(req.Query, req.Sections, prep)
	scoreSignals(a, ci)
	return a, nil
}

func sourceWord(cited bool) string {
	if cited {
		return "cited section"
	}
	return "retrieved sections"
}

// bestPassage returns the section index, passage and support of the
// window of consecutive sentences that contains most of the claim's terms.
func (d *Offline) bestPassage(claim string, prep []preparedSection, cited []int) (int, string, float64) {
	terms := claimTerms(claim)
	if len(terms) == 0 {
		return -1, "", 0
	}
	bestSec, bestStart, bestEnd, best := -1, 0, 0, 0.0
	for si, p := range prep {
		for st := range p.sentences {
			for w := 1; w <= d.t.Window && st+w <= len(p.sentences); w++ {
				hits := 0
				for _, t := range terms {
					for k := st; k < st+w; k++ {
						if p.terms[k][t] {
							hits++
							break
						}
					}
				}
				if hits == 0 {
					continue
				}
				score := float64(hits) / float64(len(terms))
				if slices.Contains(cited, si) {
					score += d.t.CitedBonus
				}
				// a longer window must do strictly better
				if score > best+1e-12 {
					bestSec, bestStart, bestEnd, best = si, st, st+w, score
				}
			}
		}
	}
	if bestSec < 0 {
		return -1, "", 0
	}
	return bestSec, strings.Join(prep[bestSec].sentences[bestStart:bestEnd], " "), math.Min(best, 1)
}

// discourse holds the stems of words that frame a statement rather than
// carry its content ("according to the passages", "the answer is"). Edit internal/wordlists/discourse.txt.
var discourse = textproc.TermSet(strings.Join(wordlists.Lines("discourse"), "\n"))

// claimTerms returns the distinct stemmed content terms of a claim,
// without discourse words.
func claimTerms(claim string) []string {
	return slices.DeleteFunc(uniq(textproc.Terms(claim)), func(t string) bool { return discourse[t] })
}

func uniq(ts []string) []string {
	seen := map[string]bool{}
	out := ts[:0]
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (d *Offline) unsupportedDetail(ca ClaimAssessment, sections []schema.Section) string {
	if ca.Section < 0 {
		return "no retrieved section shares a term with it"
	}
	return fmt.Sprintf("not supported: the best passage (%s) covers %.0f%% of its terms, below %.0f%%",
		sections[ca.Section].Citation(), 100*ca.Support, 100*d.t.Support)
}

// keyTerms checks that the sections the answer rests on mention the
// question's key terms, and lists the retrieved sections that do not.
func (d *Offline) keyTerms(ctx context.Context, a *Assessment, req schema.JudgeRequest, prep []preparedSection) error {
	a.KeyTerms = QuestionKeyTerms(req.Query, req.Decomposition)
	a.KeyTermCoverage = 1
	if len(a.KeyTerms) == 0 {
		return nil
	}
	supporting := map[int]bool{}
	for _, c := range a.Claims {
		if c.Abstention {
			continue
		}
		if c.Section >= 0 && c.Support >= d.t.Support {
			supporting[c.Section] = true
		}
		for _, i := range c.Cited {
			supporting[i] = true
		}
	}
	// weight each key term by how rare it is among the retrieved sections:
	// a term every section mentions ("services") says little about whether
	// the answer addresses the question; one none mentions ("warranty")
	// says a lot
	weights := make([]float64, len(a.KeyTerms))
	stems := make([][]string, len(a.KeyTerms))
	n := float64(len(prep))
	var corpusDF []int // per key term, when the judge knows the corpus
	if d.corpus != nil {
		size, err := d.corpus.Size(ctx)
		if err != nil {
			return fmt.Errorf("read the corpus size: %w", err)
		}
		n = float64(size)
		corpusDF = make([]int, len(a.KeyTerms))
	}
	// the words that chose the sections' documents are stated by the
	// documents, not by their passages (Section.NamedBy)
	named := map[string]bool{}
	for _, s := range req.Sections {
		maps.Copy(named, s.NamedTerms())
	}
	for k, term := range a.KeyTerms {
		stems[k] = textproc.Terms(term)
		if len(stems[k]) > 0 && !slices.ContainsFunc(stems[k], func(t string) bool { return !named[t] }) {
			stems[k] = nil // stated by the document
		}
		df := 0.0
		if d.corpus != nil {
			c, err := d.corpus.GroupDocFreq(ctx, term, d.lex)
			if err != nil {
				return fmt.Errorf("count the sections that mention %q: %w", term, err)
			}
			corpusDF[k] = c
			df = float64(c)
		} else {
			for i := range prep {
				if d.mentions(stems[k], &prep[i]) != lexicon.NoMatch {
					df++
				}
			}
		}
		weights[k] = rarity(n, df)
	}
	var texts []string
	var supp []*preparedSection
	for i := range prep {
		if supporting[i] {
			texts = append(texts, prep[i].text)
			supp = append(supp, &prep[i])
		}
		if cov, _ := d.weightedCoverage(a.KeyTerms, stems, weights, &prep[i]); cov < d.t.KeyTermCoverage &&
			!slices.Contains(a.RejectedSections, req.Sections[i].Key()) {
			a.RejectedSections = append(a.RejectedSections, req.Sections[i].Key())
		}
	}
	a.KeyTermCoverage, a.MissingKeyTerms = d.weightedCoverage(a.KeyTerms, stems, weights, supp...)
	accepted := a.Abstention && !d.rejectAbstentions
	// With a thesaurus, a word of the question that no document says, in
	// any wording, names a topic outside the documents ("umbrella
	// insurance" over a contract that only has general liability cover):
	// no answer from them addresses it, however well it covers the rest.
	// Numbers are the fact guards' business; phrases from the decomposer
	// ("restriction last") are too loose to judge this way.
	if d.corpus != nil && d.lex != nil {
		// the names' words, read from the sections only when a term is
		// in no document
		var nameWords map[string]bool
		namedWord := func(stem string) bool {
			if nameWords == nil {
				nameWords = d.namedNameWords(a, req)
			}
			return nameWords[stem]
		}
		// (terms fold accents: "Herve" is the "Hervé" a section names)
		for k, term := range a.KeyTerms {
			if len(stems[k]) == 1 && !hasDigit(stems[k][0]) && corpusDF[k] == 0 && !commonWord(term) && !namedWord(stems[k][0]) {
				said, err := d.saysForm(ctx, term)
				if err != nil {
					return err
				}
				if !said {
					a.AbsentKeyTerms = append(a.AbsentKeyTerms, term)
				}
			}
		}
		if len(a.AbsentKeyTerms) > 0 && !accepted {
			a.Issues = append(a.Issues, Issue{Kind: IssueUnaddressed, Claim: -1, Detail: fmt.Sprintf("the question asks about %s, which no document mentions in any wording", relevance.QuoteList(a.AbsentKeyTerms))})
		}
	}
	// a number labelling something in the question ("Severity 4",
	// "Schedule 2") names a specific thing: sections that never write that
	// number do not address it. Amounts being checked ("a 5% fee?") are
	// the fact guards' business, not this check's.
	if missing := missingNumbers(req.Query, texts); len(missing) > 0 && len(texts) > 0 && !(a.Abstention && !d.rejectAbstentions) {
		a.Issues = append(a.Issues, Issue{Kind: IssueUnaddressed, Claim: -1, Detail: fmt.Sprintf("the question asks about %s, but the sections the answer rests on never mention it", relevance.QuoteList(missing))})
	}
	if a.KeyTermCoverage < d.t.KeyTermCoverage && !(a.Abstention && !d.rejectAbstentions) {
		detail := fmt.Sprintf("the question asks about %s, but the sections the answer rests on do not mention it", relevance.QuoteList(a.MissingKeyTerms))
		if len(texts) == 0 {
			detail = fmt.Sprintf("the question asks about %s, and no retrieved section supports the answer", relevance.QuoteList(a.MissingKeyTerms))
		}
		a.Issues = append(a.Issues, Issue{Kind: IssueUnaddressed, Claim: -1, Detail: detail})
	}
	return nil
}

// namedNameWords returns the terms of the question's names that a
// section handed on names in one of the forms a name takes (its text,
// heading or document: "VerticalNet Enterprises LLC" names "Vertical
// Enterprises LLC"): such a word is not one no document mentions, though
// no document writes it alone. A name no section names keeps its words,
// so a refusal still says which name the documents lack.
func (d *Offline) namedNameWords(a *Assessment, req schema.JudgeRequest) map[string]bool {
	frame := a.Frame
	if frame == nil {
		f := relevance.Analyze(req.Query)
		frame = &f
	}
	out := map[string]bool{}
	if len(frame.Entities) == 0 {
		return out
	}
	named := make([]bool, len(frame.Entities))
	for _, s := range req.Sections {
		for i, ok := range frame.NamesIn(s.Content + "\n" + relevance.HeadingContext(s) + "\n" + relevance.DocumentContext(s)) {
			named[i] = named[i] || ok
		}
	}
	for i, e := range frame.Entities {
		if named[i] {
			for _, t := range textproc.Terms(e) {
				out[t] = true
			}
		}
	}
	return out
}

// commonRank is how many of the most frequent English words (the order
// of the GloVe vocabulary, package wordvec) are too common to name a
// topic: "along", "sometimes", "often" are in the first thousand, while
// "umbrella", "parental" and "warranty" are far behind.
const commonRank = 1000

// commonWord reports whether a key term is one of the commonRank most
// frequent English words: a question that uses it where no document does
// ("Along with private individuals, what groups sometimes run …") still
// asks about what the documents say.
func commonWord(term string) bool {
	r := wordvec.Default().Rank(wordvec.Fold(strings.ToLower(term)))
	return r >= 0 && r < commonRank
}

// mentions says whether a section mentions every stem of a key term, and
// whether it needed a synonym for any of them.
func (d *Offline) mentions(stems []string, p *preparedSection) lexicon.Match {
	m := lexicon.ExactMatch
	for _, st := range stems {
		// every section of a document is about the organisation and
		// period the document names
		if p.all[st] || p.doc[st] {
			continue
		}
		if d.lex == nil || d.lex.Find(st, p.lex) == lexicon.NoMatch {
			return lexicon.NoMatch
		}
		m = lexicon.SynonymMatch
	}
	return m
}

// weightedCoverage returns the weighted share of the key terms that any of
// the sections mentions (exactly or through a synonym) and the key terms
// missing from all.
func (d *Offline) weightedCoverage(keyTerms []string, stems [][]string, weights []float64, sections ...*preparedSection) (float64, []string) {
	var got, total float64
	var missing []string
	for k, term := range keyTerms {
		total += weights[k]
		best := lexicon.NoMatch
		for _, p := range sections {
			m := d.mentions(stems[k], p)
			if m == lexicon.NoMatch && relevance.StatesMonth(term, p.text) {
				m = lexicon.ExactMatch // "April" as "Apr 1, 2023"
			}
			if m > best {
				best = m
				if m == lexicon.ExactMatch {
					break
				}
			}
		}
		if best == lexicon.NoMatch {
			missing = append(missing, term)
		} else {
			got += weights[k]
		}
	}
	if total == 0 {
		return 1, missing
	}
	return got / total, missing
}

// rarity weighs a term that df of n sections mention: 1+ln((n+1)/(df+0.5)),
// so a term every section mentions counts least and one none mentions most.
func rarity(n, df float64) float64 { return 1 + math.Log((n+1)/(df+0.5)) }

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// reLabelNumber matches a capitalised word followed by a bare number that
// labels it ("Severity 4", "Tier 2"), not an amount ("5%", "14 days").
var reLabelNumber = regexp.MustCompile(`\b([A-Z][a-z]+\s+\d+)\b(?:[^%.,\d]|$)`)

// monthNames are the months, whose number is a date's, not a label's.
var monthNames = wordlists.Set(wordlists.MonthNames()...)

// missingNumbers returns the numbered labels of the question (see
// reLabelNumber) that none of texts writes, word for word.
func missingNumbers(query string, texts []string) []string {
	var labels []string
	for _, m := range reLabelNumber.FindAllStringSubmatch(query, -1) {
		// a month before a year or a day is a date ("March 2015" of
		// "On March 17, 2015"): the relevance check's periods
		if !monthNames[strings.ToLower(strings.Fields(m[1])[0])] {
			labels = append(labels, m[1])
		}
	}
	return missingPhrases(labels, texts)
}

// saysForm reports whether a section of the corpus says a form WordNet
// derives from term or term from ("departed" for "departure").
func (d *Offline) saysForm(ctx context.Context, term string) (bool, error) {
	for _, f := range relevance.DerivedForms(term) {
		c, err := d.corpus.GroupDocFreq(ctx, f, nil)
		if err != nil {
			return false, fmt.Errorf("count the sections that mention %q: %w", f, err)
		}
		if c > 0 {
			return true, nil
		}
	}
	return false, nil
}
