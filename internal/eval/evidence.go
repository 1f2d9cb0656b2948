package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/docmind/docmind/chains"
	"github.com/docmind/docmind/schema"
)

// EvidenceDepth is how deep into the first pass's ranking evidence recall
// is measured: the pipeline's own retrieval, asked for this many sections
// (schema.WithRetrieveDepth).
const EvidenceDepth = 20

// EvidenceKs are the cut-offs evidence recall is reported at.
var EvidenceKs = []int{1, 3, 5, 10, EvidenceDepth}

// EvidenceRun is what retrieval did for one question.
type EvidenceRun struct {
	// Ranked is the first retrieval pass, as the pipeline runs it (the
	// same speller, decomposition and retriever), asked for EvidenceDepth
	// sections; best first.
	Ranked []schema.Section
	// Passes are the sections each retrieval pass of a real run of the
	// pipeline handed on, the first pass first, then every retry.
	Passes [][]schema.Section
}

// EvidenceFunc runs retrieval for one question (see EvidenceRun).
type EvidenceFunc func(ctx context.Context, question string) (EvidenceRun, error)

// errFirstPass stops the depth run after its first retrieval pass.
var errFirstPass = errors.New("first retrieval pass read")

// PipelineEvidence measures the retrieval of run, a pipeline's run loop,
// as it runs: for each question it runs the loop to the end of its first
// retrieve node with the retrieval depth set to EvidenceDepth (Ranked),
// then the whole run as asked (Passes, the sections of each retrieve
// node). Both runs go through the same speller, decomposer and retriever
// as every answer. bound, when not nil, bounds each run (a deadline).
func PipelineEvidence(run *chains.Runner, bound func(context.Context) (context.Context, context.CancelFunc)) EvidenceFunc {
	return func(ctx context.Context, question string) (EvidenceRun, error) {
		var out EvidenceRun
		if bound != nil {
			var cancel context.CancelFunc
			ctx, cancel = bound(ctx)
			defer cancel()
		}
		question = strings.TrimSpace(question)
		_, err := run.Run(schema.WithRetrieveDepth(ctx, EvidenceDepth), schema.NewState(question),
			chains.AfterEachStep(func(_ context.Context, st chains.Step) error {
				if st.Node != schema.NodeRetrieve {
					return nil
				}
				out.Ranked = st.State.RetrievedSections
				return errFirstPass
			}))
		if err != nil && !errors.Is(err, errFirstPass) {
			return out, err
		}
		_, err = run.Run(ctx, schema.NewState(question), chains.AfterEachStep(func(_ context.Context, st chains.Step) error {
			if st.Node == schema.NodeRetrieve {
				out.Passes = append(out.Passes, st.State.RetrievedSections)
			}
			return nil
		}))
		return out, err
	}
}

// EvidenceTarget is where a question's evidence is: a section is evidence
// when it is from Source (any document when Source is empty) and covers
// one of Pages (Section.Page..PageEnd), holds one of Spans
// (NormalizeForMatch, contiguous), or is titled Section.
type EvidenceTarget struct {
	Source  string
	Pages   []int
	Spans   []string
	Section string
}

// Located reports whether the target says where the evidence is.
func (t EvidenceTarget) Located() bool {
	return len(t.Pages) > 0 || len(t.Spans) > 0 || t.Section != ""
}

// evidenceMatcher tests sections against a target, with the spans
// normalised once.
type evidenceMatcher struct {
	t     EvidenceTarget
	spans [][]string
}

func newEvidenceMatcher(t EvidenceTarget) evidenceMatcher {
	m := evidenceMatcher{t: t}
	for _, s := range t.Spans {
		if n := NormalizeForMatch(s); len(n) > 0 {
			m.spans = append(m.spans, n)
		}
	}
	return m
}

// document reports whether s is from the target's document.
func (m evidenceMatcher) document(s schema.Section) bool {
	return m.t.Source != "" && sameSource(s.Source, m.t.Source)
}

// evidence reports whether s is evidence.
func (m evidenceMatcher) evidence(s schema.Section) bool {
	if m.t.Source != "" && !m.document(s) {
		return false
	}
	if m.t.Section != "" && s.Title == m.t.Section {
		return true
	}
	end := max(s.PageEnd, s.Page)
	if s.Page > 0 && slices.ContainsFunc(m.t.Pages, func(p int) bool { return s.Page <= p && p <= end }) {
		return true
	}
	if len(m.spans) == 0 {
		return false
	}
	text := NormalizeForMatch(s.Content)
	return slices.ContainsFunc(m.spans, func(span []string) bool { return containsSeq(text, span) })
}

// firstRank returns the 1-based rank of the first section of secs for
// which hit holds, or 0.
func firstRank(secs []schema.Section, hit func(schema.Section) bool) int {
	if i := slices.IndexFunc(secs, hit); i >= 0 {
		return i + 1
	}
	return 0
}

// EvidenceTargets returns each row's evidence target: its source, its
// page and other pages and its answers (the facts are not evidence: a
// number or a name alone is found in many sections). gold, when not nil,
// is a SQuAD-style gold file whose paragraph is the evidence: a row with
// a gold row naming a doc and paragraph gets that document and the
// section titled "Paragraph N" instead of spans.
func EvidenceTargets(rows []QARow, gold map[string]GoldRow) []EvidenceTarget {
	out := make([]EvidenceTarget, len(rows))
	for i, r := range rows {
		t := EvidenceTarget{Source: r.Source}
		if r.Page > 0 {
			t.Pages = append([]int{r.Page}, r.OtherPages...)
		}
		t.Spans = r.Answers
		if g, ok := gold[r.ID]; ok && g.Paragraph > 0 {
			if g.Doc != "" {
				t.Source = g.Doc
			}
			t.Section = fmt.Sprintf("Paragraph %d", g.Paragraph)
			t.Spans = nil
		}
		out[i] = t
	}
	return out
}

// EvidenceResult is one question's evidence recall.
type EvidenceResult struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Source   string `json:"source,omitempty"`
	// Type is the row's type tag (results are broken down by it).
	Type string `json:"type,omitempty"`
	// EvidenceRank is the rank (from 1) of the first evidence section in
	// the first pass's ranking to EvidenceDepth; 0 when none is.
	EvidenceRank int `json:"evidence_rank"`
	// DocumentRank is the same for the first section from the gold
	// document.
	DocumentRank int `json:"document_rank"`
	// HandedOn is whether the sections the first pass of the real run
	// handed on hold evidence; HandedOnDocument whether one is from the
	// gold document.
	HandedOn         bool `json:"handed_on"`
	HandedOnDocument bool `json:"handed_on_document"`
	// AnyPass is whether the sections of any retrieval pass of the real
	// run hold evidence; AnyPassDocument whether one is from the gold
	// document.
	AnyPass         bool `json:"any_pass"`
	AnyPassDocument bool `json:"any_pass_document"`
	// Passes counts the retrieval passes of the real run.
	Passes int    `json:"passes"`
	Err    string `json:"error,omitempty"`
}

// RecallAt is evidence and document recall at one cut-off of the first
// pass's ranking.
type RecallAt struct {
	K        int     `json:"k"`
	Evidence float64 `json:"evidence"`
	Document float64 `json:"document"`
}

// PassRecall is evidence and document recall of the sections a real run
// handed on.
type PassRecall struct {
	Evidence float64 `json:"evidence"`
	Document float64 `json:"document"`
}

// EvidenceReport holds a set's evidence recall. Recall is over Measured:
// the questions with a located gold evidence (answerable rows with a
// page, answers or a gold paragraph); a question whose retrieval failed
// counts as a miss.
type EvidenceReport struct {
	Questions int `json:"questions"`
	Measured  int `json:"measured"`
	// Skipped counts the questions with no evidence to find
	// (unanswerable, or answerable with no location).
	Skipped int `json:"skipped"`
	Depth   int `json:"depth"`
	// FirstPass is recall at each of EvidenceKs on the first pass's
	// ranking.
	FirstPass []RecallAt `json:"first_pass"`
	// HandedOn is recall of the first pass as the real run handed it on
	// to the generator; AnyPass of every pass of the run (retries too).
	HandedOn   PassRecall `json:"handed_on"`
	AnyPass    PassRecall `json:"any_pass"`
	MeanPasses float64    `json:"mean_passes"`
	Errors     int        `json:"errors"`
	// ByType breaks recall down by the rows' type tag (absent when no
	// row has one).
	ByType  map[string]TypeRecall `json:"by_type,omitempty"`
	Results []EvidenceResult      `json:"results"`
}

// TypeRecall is the recall of the questions of one type: first-pass
// evidence recall at 5 and 20, and of the sections handed on.
type TypeRecall struct {
	Questions int     `json:"questions"`
	At5       float64 `json:"at_5"`
	At20      float64 `json:"at_20"`
	HandedOn  float64 `json:"handed_on"`
}

// At returns the first-pass recall at cut-off k (false when k is not one
// of EvidenceKs).
func (r *EvidenceReport) At(k int) (RecallAt, bool) {
	i := slices.IndexFunc(r.FirstPass, func(p RecallAt) bool { return p.K == k })
	if i < 0 {
		return RecallAt{}, false
	}
	return r.FirstPass[i], true
}

// EvidenceOptions tunes RunEvidence.
type EvidenceOptions struct {
	// Progress, when set, is called after each measured question.
	Progress func(done, total int, r EvidenceResult)
}

// RunEvidence runs retrieval (probe) for every row whose target is
// located (targets[i] is rows[i]'s), in turn, and scores it. A failed
// retrieval is recorded in its result; a cancelled ctx stops the run.
func RunEvidence(ctx context.Context, probe EvidenceFunc, rows []QARow, targets []EvidenceTarget, opts EvidenceOptions) (*EvidenceReport, error) {
	if probe == nil {
		return nil, errors.New("evidence eval: no retrieval to run")
	}
	if len(targets) != len(rows) {
		return nil, fmt.Errorf("evidence eval: %d targets for %d questions", len(targets), len(rows))
	}
	var todo []int
	for i, r := range rows {
		if r.IsAnswerable() && targets[i].Located() {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil, errors.New("evidence eval: no answerable question says where its evidence is (source with page or answers, or a gold paragraph)")
	}
	results := make([]EvidenceResult, 0, len(todo))
	for n, i := range todo {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("evidence eval stopped after %d of %d questions: %w", n, len(todo), err)
		}
		run, err := probe(ctx, rows[i].Question)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("evidence eval stopped after %d of %d questions: %w", n, len(todo), ctx.Err())
		}
		res := ScoreEvidence(rows[i], targets[i], run, err)
		results = append(results, res)
		if opts.Progress != nil {
			opts.Progress(n+1, len(todo), res)
		}
	}
	rep := summarizeEvidence(results)
	rep.Questions = len(rows)
	rep.Skipped = len(rows) - len(todo)
	return rep, nil
}

// ScoreEvidence scores one question's retrieval against its target (err
// is the retrieval's error, if any: nothing is then found).
func ScoreEvidence(row QARow, t EvidenceTarget, run EvidenceRun, err error) EvidenceResult {
	r := EvidenceResult{ID: row.ID, Question: row.Question, Source: t.Source, Type: row.Type}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	m := newEvidenceMatcher(t)
	ranked := run.Ranked
	if len(ranked) > EvidenceDepth {
		ranked = ranked[:EvidenceDepth]
	}
	r.EvidenceRank = firstRank(ranked, m.evidence)
	r.DocumentRank = firstRank(ranked, m.document)
	r.Passes = len(run.Passes)
	for i, secs := range run.Passes {
		ev := slices.ContainsFunc(secs, m.evidence)
		doc := slices.ContainsFunc(secs, m.document)
		if i == 0 {
			r.HandedOn, r.HandedOnDocument = ev, doc
		}
		r.AnyPass = r.AnyPass || ev
		r.AnyPassDocument = r.AnyPassDocument || doc
	}
	return r
}

func summarizeEvidence(results []EvidenceResult) *EvidenceReport {
	rep := &EvidenceReport{Measured: len(results), Depth: EvidenceDepth, Results: results}
	var handed, handedDoc, any, anyDoc, passes int
	evAt := make([]int, len(EvidenceKs))
	docAt := make([]int, len(EvidenceKs))
	within := func(rank, k int) bool { return rank > 0 && rank <= k }
	for _, r := range results {
		if r.Err != "" {
			rep.Errors++
		}
		for i, k := range EvidenceKs {
			if within(r.EvidenceRank, k) {
				evAt[i]++
			}
			if within(r.DocumentRank, k) {
				docAt[i]++
			}
		}
		handed += b2i(r.HandedOn)
		handedDoc += b2i(r.HandedOnDocument)
		any += b2i(r.AnyPass)
		anyDoc += b2i(r.AnyPassDocument)
		passes += r.Passes
	}
	n := len(results)
	for i, k := range EvidenceKs {
		rep.FirstPass = append(rep.FirstPass, RecallAt{K: k, Evidence: ratio(evAt[i], n), Document: ratio(docAt[i], n)})
	}
	rep.HandedOn = PassRecall{Evidence: ratio(handed, n), Document: ratio(handedDoc, n)}
	rep.AnyPass = PassRecall{Evidence: ratio(any, n), Document: ratio(anyDoc, n)}
	rep.MeanPasses = ratio(passes, n)
	rep.ByType = evidenceByType(results)
	return rep
}

// evidenceByType computes ByType.
func evidenceByType(results []EvidenceResult) map[string]TypeRecall {
	type counts struct{ n, at5, at20, handed int }
	by := map[string]*counts{}
	for _, r := range results {
		if r.Type == "" {
			continue
		}
		c := by[r.Type]
		if c == nil {
			c = &counts{}
			by[r.Type] = c
		}
		c.n++
		c.at5 += b2i(r.EvidenceRank > 0 && r.EvidenceRank <= 5)
		c.at20 += b2i(r.EvidenceRank > 0)
		c.handed += b2i(r.HandedOn)
	}
	if len(by) == 0 {
		return nil
	}
	out := make(map[string]TypeRecall, len(by))
	for t, c := range by {
		out[t] = TypeRecall{Questions: c.n, At5: ratio(c.at5, c.n), At20: ratio(c.at20, c.n), HandedOn: ratio(c.handed, c.n)}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// EvidenceMiss explains why the first pass of the real run handed on no
// evidence for the question, or "" when it did.
func (r EvidenceResult) EvidenceMiss() string {
	switch {
	case r.Err != "":
		return "error: " + r.Err
	case r.HandedOn:
		return ""
	case r.EvidenceRank > 0:
		return fmt.Sprintf("evidence at rank %d of the first pass, not handed on", r.EvidenceRank)
	case r.DocumentRank == 0:
		return fmt.Sprintf("the document is not in the first pass's %d sections", EvidenceDepth)
	default:
		return fmt.Sprintf("the document first at rank %d, no evidence in the first pass's %d sections", r.DocumentRank, EvidenceDepth)
	}
}
