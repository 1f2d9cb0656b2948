package eval

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// QARow is one question of an end-to-end QA set. An answerable row lists
// what a correct answer must contain (facts, answers or both) and where the
// answer is found; an unanswerable row sets "answerable": false and has
// neither facts nor answers.
//
// The JSONL fields:
//
//	id            string, unique, required
//	question      string, required
//	facts         []string: every fact must appear in the answer
//	answers       []string: any-of gold answers; one must appear within the
//	              answer's first two sentences (see AnswerInLead)
//	source        string: the expected document's file name
//	page          int: the expected page (1-based)
//	printed_page  int or null: the number printed on that page (informational)
//	other_pages   []int: other pages of source stating the same answer; citing
//	              any of them counts as citing the right page
//	answerable    bool, default true
//	kind          string: a tag results are broken down by (by_kind)
//	type          string: a finer tag results are broken down by (by_type)
//	why           string: a note on the row (informational)
//
// Any other field is an error (so typos do not go unnoticed).
type QARow struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Facts    []string `json:"facts,omitempty"`
	// Answers are any-of gold answers: a correct answer contains one of
	// them (NormalizeForMatch) within its first two sentences.
	Answers []string `json:"answers,omitempty"`
	// Source is the expected document's file name; Page the expected page.
	Source string `json:"source,omitempty"`
	Page   int    `json:"page,omitempty"`
	// PrintedPage is the page number printed on Page, when known.
	PrintedPage *int `json:"printed_page,omitempty"`
	// OtherPages are other pages of Source that state the same answer.
	OtherPages []int `json:"other_pages,omitempty"`
	Answerable *bool `json:"answerable,omitempty"`
	// Kind is an optional tag ("paraphrase", "multi-part", "near-miss", ...)
	// used to break results down; Type is a finer one.
	Kind string `json:"kind,omitempty"`
	Type string `json:"type,omitempty"`
	// Why is an informational note (why the row is unanswerable, ...).
	Why string `json:"why,omitempty"`
	// AnswersOnly scores an answerable row with Answers alone, ignoring
	// Facts (set by MergeGold: the gold answers replace the first-answer
	// facts). Not read from JSON.
	AnswersOnly bool `json:"-"`
	// Match is the rule the answers are matched with (MatchLead when
	// empty). Not read from JSON: eval qa --match sets it for a run.
	Match MatchRule `json:"-"`
}

// IsAnswerable reports whether the documents answer the row's question.
func (r QARow) IsAnswerable() bool { return r.Answerable == nil || *r.Answerable }

// LoadQA reads a QA set file (see ReadQA).
func LoadQA(path string) ([]QARow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("qa set: %w", err) // err names the path
	}
	defer f.Close()
	return ReadQA(f, path)
}

// ReadQA reads a QA set: JSONL, one QARow per line (blank lines and lines
// starting with '#' are skipped). Rows are checked: ids unique and
// non-empty, a question, answerable rows have facts or answers,
// unanswerable rows neither, and no unknown field. name is used in error
// messages.
func ReadQA(r io.Reader, name string) ([]QARow, error) {
	var rows []QARow
	ids := map[string]int{}
	err := decodeJSONL(r, name, "qa set", "QA row", func(lineNo int, row QARow) error {
		switch {
		case row.ID == "":
			return fmt.Errorf("qa set: %s line %d: missing id", name, lineNo)
		case strings.TrimSpace(row.Question) == "":
			return fmt.Errorf("qa set: %s line %d (%s): missing question", name, lineNo, row.ID)
		case row.IsAnswerable() && len(row.Facts) == 0 && len(row.Answers) == 0:
			return fmt.Errorf("qa set: %s line %d (%s): an answerable row needs facts or answers", name, lineNo, row.ID)
		case !row.IsAnswerable() && (len(row.Facts) > 0 || len(row.Answers) > 0):
			return fmt.Errorf("qa set: %s line %d (%s): an unanswerable row has facts or answers", name, lineNo, row.ID)
		}
		if prev, dup := ids[row.ID]; dup {
			return fmt.Errorf("qa set: %s line %d: id %q already used on line %d", name, lineNo, row.ID, prev)
		}
		ids[row.ID] = lineNo
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("qa set: %s holds no questions", name)
	}
	return rows, nil
}

// decodeJSONL decodes r one line at a time into a T (blank lines and lines
// starting with '#' skipped; unknown fields and anything after the line's
// one JSON value are an error) and calls fn
// with each row and its line number, stopping at fn's first error. what
// names the file in errors ("qa set"), row the kind of row ("QA row").
func decodeJSONL[T any](r io.Reader, name, what, row string, fn func(lineNo int, v T) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %s line %d: not a %s: %w", what, name, lineNo, row, err)
		}
		// A line holds one row: a second object (or anything else) after
		// the first would otherwise be dropped without a word.
		if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
			return fmt.Errorf("%s: %s line %d: data after the %s: %.40q", what, name, lineNo, row, rest)
		}
		if err := fn(lineNo, v); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: read %s: %w", what, name, err)
	}
	return nil
}

// AskFunc runs the whole pipeline for one question and returns the final
// state. (*chains.Runner).Run wrapped as
//
//	func(ctx context.Context, q string) (*schema.State, error) { return r.Run(ctx, schema.NewState(q)) }
//
// is one.
type AskFunc func(ctx context.Context, question string) (*schema.State, error)

// QAResult is the outcome of one question.
type QAResult struct {
	ID         string `json:"id"`
	Question   string `json:"question"`
	Kind       string `json:"kind,omitempty"`
	Type       string `json:"type,omitempty"`
	Answerable bool   `json:"answerable"`
	// Abstained is true when the final output is the fallback message.
	Abstained bool `json:"abstained"`
	// Answered is true when the pipeline returned an answer: no error and
	// not the fallback message.
	Answered bool `json:"answered"`
	// Confidence is the last verdict's confidence_score (0 when there is
	// no verdict); the risk–coverage curve ranks answers by it.
	Confidence float64 `json:"confidence"`
	// Signals are the last verdict's calibration signals (see
	// judge.DecisionSignals), the input of eval calibrate.
	Signals map[string]float64 `json:"signals,omitempty"`
	// Reasoning is the last verdict's reasoning: why the judge accepted
	// or refused the answer.
	Reasoning string `json:"reasoning,omitempty"`
	// RefusedAnswer is, when the pipeline abstained, the last answer the
	// generator wrote and the judge refused: what a lower threshold or a
	// looser check would have let through.
	RefusedAnswer string `json:"refused_answer,omitempty"`
	// Grounded is true when the last verdict accepted the answer.
	Grounded bool `json:"grounded"`
	// Correct: answerable, answered, grounded, every fact present and, when
	// the row has answers, one of them in the answer's first two sentences.
	Correct      bool     `json:"correct"`
	MissingFacts []string `json:"missing_facts,omitempty"`
	// MissedAnswers is set when the row has gold answers and none of them
	// matches the answer (MatchRule: by default, none is in the answer's
	// first two sentences).
	MissedAnswers bool `json:"missed_answers,omitempty"`
	// PageCorrect is set for answerable questions that were answered.
	PageCorrect *bool `json:"page_correct,omitempty"`
	// OtherDocument is set for answerable questions that were answered
	// when the row names its document (source): whether the answer cites
	// a section of another document.
	OtherDocument *bool `json:"other_document,omitempty"`
	// EvidenceHandedOn is, for an answerable question whose row locates
	// its evidence, whether the sections the first pass handed the
	// generator hold it (as eval evidence counts a hit); FirstDraftCorrect
	// is, for an answerable question with gold answers or facts, whether
	// the first pass's draft matches them, whatever the judge decided. Both
	// are unset when the AskFunc reports no first pass (FirstPass).
	EvidenceHandedOn  *bool `json:"evidence_handed_on,omitempty"`
	FirstDraftCorrect *bool `json:"first_draft_correct,omitempty"`
	// FirstConfidence is, for an answerable question, the first verdict's
	// confidence_score (the draft of FirstDraftCorrect's), when the run
	// reported its first pass.
	FirstConfidence *float64 `json:"first_confidence,omitempty"`
	// ClosestHoldEvidence is, for an answerable question that was refused
	// and whose row locates its evidence, whether the passages the refusal
	// points at (closest_passages) hold it; unset otherwise.
	ClosestHoldEvidence *bool `json:"closest_hold_evidence,omitempty"`
	// ClosestExcerptAnswers is, for an answerable question that was
	// refused and whose row has gold answers or facts, whether the
	// excerpt of one of its closest_passages states them; unset
	// otherwise.
	ClosestExcerptAnswers *bool        `json:"closest_excerpt_answers,omitempty"`
	Retries               int          `json:"retries"`
	RetryCount            int          `json:"retry_count"`
	Usage                 schema.Usage `json:"usage"`
	LatencyMS             float64      `json:"latency_ms"`
	Answer                string       `json:"answer"`
	Err                   string       `json:"error,omitempty"`
	// match is the rule the answers were matched with.
	match MatchRule
}

// right reports whether the result counts for the pipeline: a correct
// answer, or a correct abstention on an unanswerable question.
func (r QAResult) right() bool {
	return r.Correct || (!r.Answerable && r.Abstained && r.Err == "")
}

// QAReport holds the end-to-end figures. N is Questions, A is Answered.
type QAReport struct {
	// Match is the rule gold answers were matched with (MatchRule).
	Match        MatchRule `json:"match"`
	Questions    int       `json:"questions"`
	Answerable   int       `json:"answerable"`
	Unanswerable int       `json:"unanswerable"`
	// AnsweredCorrectly is the share of answerable questions answered
	// correctly (all facts present, a gold answer in the lead when the row
	// has answers, and the answer judged grounded). AnswerableCorrect is
	// the same figure under a clearer name.
	AnsweredCorrectly float64 `json:"answered_correctly"`
	AnswerableCorrect float64 `json:"answerable_correct"`
	Correct           int     `json:"correct"`
	// Answered counts the questions answered (not the fallback, no error);
	// Coverage is Answered/Questions.
	Answered int     `json:"answered"`
	Coverage float64 `json:"coverage"`
	// AnsweredAccuracy is, among answered questions, the share answered
	// correctly; an answer to an unanswerable question is wrong.
	AnsweredAccuracy float64 `json:"answered_accuracy"`
	// WrongAnswers counts answered questions not answered correctly,
	// answered unanswerable questions included.
	WrongAnswers int `json:"wrong_answers"`
	// RiskCoverage samples the risk–coverage curve at distinct confidence
	// thresholds, highest first (at most MaxRiskCoveragePoints, thinned
	// evenly; the first and last thresholds are always kept).
	RiskCoverage []RiskCoveragePoint `json:"risk_coverage"`
	// AURC is the area under the risk (1 − accuracy) vs coverage curve over
	// every distinct threshold: see RiskCoverage.
	AURC float64 `json:"aurc"`
	// CitationPageAccuracy is the share of answered answerable questions
	// whose answer cites the expected page (or one of other_pages).
	CitationPageAccuracy float64 `json:"citation_page_accuracy"`
	CitationChecked      int     `json:"citation_checked"`
	// OtherDocumentAnswers counts the answered answerable questions whose
	// row names its document and whose answer cites a section of another
	// document, of DocumentChecked such answers.
	OtherDocumentAnswers int `json:"other_document_answers"`
	DocumentChecked      int `json:"document_checked"`
	// Abstention: positives are the unanswerable questions, a prediction
	// is the fallback message.
	AbstentionPrecision float64   `json:"abstention_precision"`
	AbstentionRecall    float64   `json:"abstention_recall"`
	Abstention          Confusion `json:"abstention"`
	// MeanRetries counts retrieval passes after the first; MeanRetryCount
	// is the mean of the state's retry_count.
	MeanRetries    float64              `json:"mean_retries"`
	MeanRetryCount float64              `json:"mean_retry_count"`
	LLMCallsPerQ   float64              `json:"llm_calls_per_question"`
	TokensPerQ     float64              `json:"tokens_per_question"`
	LatencyP50Ms   float64              `json:"latency_p50_ms"`
	LatencyP95Ms   float64              `json:"latency_p95_ms"`
	Errors         int                  `json:"errors"`
	ByKind         map[string]KindScore `json:"by_kind,omitempty"`
	ByType         map[string]KindScore `json:"by_type,omitempty"`
	// FirstPass splits the answerable questions by whether the first
	// pass handed on their evidence (FirstPassScore); nil when the AskFunc
	// reports no first pass.
	FirstPass *FirstPassScore `json:"first_pass,omitempty"`
	// Refusals is what the refusals of answerable questions point at
	// (RefusalScore); nil when none was refused.
	Refusals *RefusalScore `json:"refusals,omitempty"`
	Results  []QAResult    `json:"results"`
}

// RiskCoveragePoint is the risk–coverage curve at one confidence
// threshold: the answered questions with confidence ≥ Threshold, their
// count (Answered), their share of all questions (Coverage) and the share
// of them answered correctly (Accuracy; risk is 1 − Accuracy).
type RiskCoveragePoint struct {
	Threshold float64 `json:"threshold"`
	Coverage  float64 `json:"coverage"`
	Accuracy  float64 `json:"accuracy"`
	Answered  int     `json:"answered"`
}

// MaxRiskCoveragePoints bounds QAReport.RiskCoverage.
const MaxRiskCoveragePoints = 50

// KindScore breaks results down by QARow.Kind (or Type): how many questions of the
// kind, and how many the pipeline got right (correct answer, or a correct
// abstention).
type KindScore struct {
	Questions int `json:"questions"`
	Right     int `json:"right"`
}

// QAOptions tunes RunQA.
type QAOptions struct {
	// Progress, when set, is called after each question.
	Progress func(done, total int, r QAResult)
	// Match is the rule every row's answers are matched with (MatchLead
	// when empty).
	Match MatchRule
	// Targets, when not nil, are the rows' evidence targets, in order
	// (EvidenceTargets with the gold file's paragraphs); else the rows'
	// own (EvidenceTargets(rows, nil)).
	Targets []EvidenceTarget
}

// RunQA asks every question in turn (sequentially, so latencies are not
// inflated by sharing the machine) and scores the answers. A pipeline error
// on one question is recorded in its result; a cancelled ctx stops the run.
func RunQA(ctx context.Context, ask AskFunc, rows []QARow, opts QAOptions) (*QAReport, error) {
	if ask == nil {
		return nil, errors.New("qa eval: no pipeline to ask")
	}
	targets := opts.Targets
	if len(targets) != len(rows) {
		targets = EvidenceTargets(rows, nil)
	}
	results := make([]QAResult, 0, len(rows))
	for i, row := range rows {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("qa eval stopped after %d of %d questions: %w", i, len(rows), err)
		}
		if opts.Match != "" {
			row.Match = opts.Match
		}
		var fp FirstPass
		start := time.Now()
		st, err := ask(WithFirstPass(ctx, &fp), row.Question)
		took := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("qa eval stopped after %d of %d questions: %w", i, len(rows), ctx.Err())
		}
		res := ScoreQA(row, st, err)
		if err == nil {
			scoreFirstPass(&res, row, &fp, targets[i])
			scoreClosest(&res, row, st, &fp, targets[i])
		}
		res.LatencyMS = float64(took) / float64(time.Millisecond)
		results = append(results, res)
		if opts.Progress != nil {
			opts.Progress(i+1, len(rows), res)
		}
	}
	rep := summarizeQA(results)
	rep.Match = cmp.Or(opts.Match, MatchLead)
	return rep, nil
}

// ScoreQA scores one question's final state (err is the pipeline's error,
// if any).
//
// An answered answerable row is correct when the answer is judged grounded
// and, unless the row is AnswersOnly, every fact appears in the answer
// (NormalizeForMatch, contiguous), and, when the row has answers, one of
// them matches the answer under row.Match (by default: it appears in the
// answer's first two sentences, AnswerInLead).
func ScoreQA(row QARow, st *schema.State, err error) QAResult {
	r := QAResult{ID: row.ID, Question: row.Question, Kind: row.Kind, Type: row.Type, Answerable: row.IsAnswerable(), match: row.Match}
	if st != nil {
		r.Answer = st.Answer()
		r.RetryCount = st.RetryCount
		r.Retries = max(countNode(st.NodeHistory, schema.NodeRetrieve)-1, 0)
		if st.Usage != nil {
			r.Usage = st.Usage.Total
		}
		if st.JudgeVerdict != nil {
			r.Confidence = st.JudgeVerdict.ConfidenceScore
			r.Signals = st.JudgeVerdict.Signals
			r.Reasoning = st.JudgeVerdict.Reasoning
		}
	}
	if err != nil {
		r.Err = err.Error()
		return r
	}
	if st == nil || st.FinalOutput == nil {
		r.Err = "the pipeline returned no final output"
		return r
	}
	r.Abstained = !st.Answered()
	r.Answered = !r.Abstained
	if r.Abstained && st.GeneratedResponse != nil {
		r.RefusedAnswer = *st.GeneratedResponse
	}
	r.Grounded = !r.Abstained && st.JudgeVerdict != nil && !st.JudgeVerdict.IsHallucinated && !st.JudgeVerdict.Unverified
	if !r.Answerable || r.Abstained {
		return r
	}
	r.MissingFacts, r.MissedAnswers = row.misses(r.Answer)
	r.Correct = r.Grounded && len(r.MissingFacts) == 0 && !r.MissedAnswers
	if row.Source != "" {
		other := citesOtherDocument(r.Answer, st.RetrievedSections, row.Source)
		r.OtherDocument = &other
	}
	if row.Page > 0 {
		pages := append([]int{row.Page}, row.OtherPages...)
		ok := citesPage(r.Answer, st.RetrievedSections, row.Source, pages)
		r.PageCorrect = &ok
	}
	return r
}

// misses returns the row's facts that answer does not hold (none are
// asked of an AnswersOnly row with answers) and whether the row has gold
// answers and none matches answer under row.Match: an answer meets the
// row's rules when both are empty.
func (row QARow) misses(answer string) (facts []string, missedAnswers bool) {
	if !row.AnswersOnly || len(row.Answers) == 0 {
		text := NormalizeForMatch(answer)
		for _, f := range row.Facts {
			if !containsSeq(text, NormalizeForMatch(f)) {
				facts = append(facts, f)
			}
		}
	}
	if len(row.Answers) > 0 {
		missedAnswers = !row.Match.Matches(answer, row.Answers)
	}
	return facts, missedAnswers
}

// MatchRule is how an answer is matched with a row's gold answers.
type MatchRule string

// The match rules.
const (
	// MatchLead: a gold answer appears (NormalizeForMatch, contiguous)
	// within the answer's first LeadSentences sentences (AnswerInLead).
	// The default.
	MatchLead MatchRule = "lead"
	// MatchJaccard is the rule of CUAD's evaluate.py: the answer matches
	// a gold span when the Jaccard similarity of their word sets is at
	// least JaccardThreshold, or when the answer contains the span
	// (NormalizeForMatch, contiguous). The whole answer is the
	// prediction, citations stripped.
	MatchJaccard MatchRule = "jaccard"
)

// MatchRules lists the match rules, the default first.
var MatchRules = []MatchRule{MatchLead, MatchJaccard}

// ParseMatchRule reads a match rule's name ("" is the default).
func ParseMatchRule(s string) (MatchRule, error) {
	if s == "" {
		return MatchLead, nil
	}
	for _, m := range MatchRules {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown match rule %q (use lead or jaccard)", s)
}

// Matches reports whether answer matches one of golds under the rule.
func (m MatchRule) Matches(answer string, golds []string) bool {
	if m != MatchJaccard {
		return AnswerInLead(answer, golds)
	}
	pred := StripCitations(answer)
	words := jaccardWords(pred)
	text := NormalizeForMatch(pred)
	for _, g := range golds {
		if n := NormalizeForMatch(g); len(n) > 0 && containsSeq(text, n) {
			return true
		}
		if Jaccard(words, jaccardWords(g)) >= JaccardThreshold {
			return true
		}
	}
	return false
}

// JaccardThreshold is CUAD's IOU_THRESH: the least Jaccard similarity
// of a matching prediction.
const JaccardThreshold = 0.5

// jaccardWords is CUAD's get_jaccard's word set: ".", ",", ";" and ":"
// removed, lower-cased, "/" read as a space, split at blanks.
func jaccardWords(s string) map[string]bool {
	s = strings.NewReplacer(".", "", ",", "", ";", "", ":", "", "/", " ").Replace(strings.ToLower(s))
	words := map[string]bool{}
	for _, w := range strings.Fields(s) {
		words[w] = true
	}
	return words
}

// Jaccard is |a ∩ b| / |a ∪ b| of two word sets (0 when both are empty).
func Jaccard(a, b map[string]bool) float64 {
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// LeadSentences is how many leading sentences of an answer gold answers
// are looked for in.
const LeadSentences = 2

var (
	// citationRef matches a rendered citation "(See Title, page N; ...)"
	// (titles may hold one level of parentheses) or an unknown-source
	// marker, with the blanks before it and, when it ends its line, the
	// line break.
	citationRef = regexp.MustCompile(`[ \t]*(?:\(See [^()]*(?:\([^()]*\)[^()]*)*\)|\[unknown source [^\]]*\])(?:[ \t]*\n)?`)
)

// StripCitations removes the citations from an answer. A citation that
// ends its line (the extractive generator writes one cited sentence a
// line) becomes a paragraph break, so the sentence before it ends there
// even without a full stop; one inside a line is dropped.
func StripCitations(answer string) string {
	return citationRef.ReplaceAllStringFunc(answer, func(m string) string {
		if strings.HasSuffix(m, "\n") {
			return "\n\n"
		}
		return ""
	})
}

// AnswerInLead reports whether one of the gold answers appears
// (NormalizeForMatch, contiguous) within the first LeadSentences sentences
// of answer: citations are stripped (StripCitations), the rest split with
// textproc.Sentences.
func AnswerInLead(answer string, golds []string) bool {
	sents := textproc.Sentences(StripCitations(answer))
	if len(sents) > LeadSentences {
		sents = sents[:LeadSentences]
	}
	lead := NormalizeForMatch(strings.Join(sents, " "))
	for _, g := range golds {
		if n := NormalizeForMatch(g); len(n) > 0 && containsSeq(lead, n) {
			return true
		}
	}
	return false
}

func countNode(h []string, node string) int {
	n := 0
	for _, x := range h {
		if x == node {
			n++
		}
	}
	return n
}

func summarizeQA(results []QAResult) *QAReport {
	rep := &QAReport{Questions: len(results), Results: results, ByKind: map[string]KindScore{}, ByType: map[string]KindScore{}}
	var lat []float64
	pagesOK, answeredRight := 0, 0
	for _, r := range results {
		if r.Answerable {
			rep.Answerable++
		} else {
			rep.Unanswerable++
		}
		if r.Correct {
			rep.Correct++
		}
		if r.Answered {
			rep.Answered++
			if r.Correct {
				answeredRight++
			} else {
				rep.WrongAnswers++
			}
		}
		if r.OtherDocument != nil {
			rep.DocumentChecked++
			if *r.OtherDocument {
				rep.OtherDocumentAnswers++
			}
		}
		if r.PageCorrect != nil {
			rep.CitationChecked++
			if *r.PageCorrect {
				pagesOK++
			}
		}
		if r.Err != "" {
			rep.Errors++
		} else {
			rep.Abstention.Add(r.Abstained, !r.Answerable)
		}
		if r.Err != "" && !r.Answerable {
			rep.Abstention.FN++ // an error is not a correct abstention
		}
		rep.MeanRetries += float64(r.Retries)
		rep.MeanRetryCount += float64(r.RetryCount)
		rep.LLMCallsPerQ += float64(r.Usage.Calls)
		rep.TokensPerQ += float64(r.Usage.TotalTokens)
		lat = append(lat, r.LatencyMS)
		addKind(rep.ByKind, r.Kind, r)
		addKind(rep.ByType, r.Type, r)
	}
	if n := float64(len(results)); n > 0 {
		rep.MeanRetries /= n
		rep.MeanRetryCount /= n
		rep.LLMCallsPerQ /= n
		rep.TokensPerQ /= n
	}
	rep.AnsweredCorrectly = ratio(rep.Correct, rep.Answerable)
	rep.AnswerableCorrect = rep.AnsweredCorrectly
	rep.Coverage = ratio(rep.Answered, rep.Questions)
	rep.AnsweredAccuracy = ratio(answeredRight, rep.Answered)
	curve := RiskCoverage(results)
	rep.AURC = AURC(curve, rep.Questions)
	rep.RiskCoverage = ThinCurve(curve, MaxRiskCoveragePoints)
	rep.CitationPageAccuracy = ratio(pagesOK, rep.CitationChecked)
	rep.AbstentionPrecision = rep.Abstention.Precision()
	rep.AbstentionRecall = rep.Abstention.Recall()
	slices.Sort(lat)
	rep.LatencyP50Ms, rep.LatencyP95Ms = percentile(lat, 50), percentile(lat, 95)
	rep.FirstPass = summarizeFirstPass(results)
	rep.Refusals = summarizeRefusals(results)
	if len(rep.ByKind) == 0 {
		rep.ByKind = nil
	}
	if len(rep.ByType) == 0 {
		rep.ByType = nil
	}
	return rep
}

func addKind(m map[string]KindScore, key string, r QAResult) {
	if key == "" {
		return
	}
	k := m[key]
	k.Questions++
	if r.right() {
		k.Right++
	}
	m[key] = k
}

// RiskCoverage computes the full risk–coverage curve of results: the
// answered results sorted by Confidence, highest first, and one point per
// distinct confidence t (ties stay together): Answered = answered results
// with confidence ≥ t, Coverage = Answered / len(results), Accuracy = the
// share of them that are Correct (an answer to an unanswerable question is
// never correct). Points come highest threshold first; the last one covers
// every answered result. Nil when nothing was answered.
func RiskCoverage(results []QAResult) []RiskCoveragePoint {
	type item struct {
		conf  float64
		right bool
	}
	var ans []item
	for _, r := range results {
		if r.Answered {
			ans = append(ans, item{r.Confidence, r.Correct})
		}
	}
	slices.SortStableFunc(ans, func(a, b item) int { return cmp.Compare(b.conf, a.conf) })
	var curve []RiskCoveragePoint
	right := 0
	for i, it := range ans {
		if it.right {
			right++
		}
		if i+1 < len(ans) && ans[i+1].conf == it.conf {
			continue // the threshold admits the whole tie group
		}
		curve = append(curve, RiskCoveragePoint{
			Threshold: it.conf,
			Coverage:  ratio(i+1, len(results)),
			Accuracy:  ratio(right, i+1),
			Answered:  i + 1,
		})
	}
	return curve
}

// AURC is the area under the risk (1 − accuracy) vs coverage curve given
// by RiskCoverage over n questions, a step function of coverage from 0 to
// A/n (A answered):
//
//	AURC = (1/n) · Σ_{k=1..A} risk(k)
//
// where, with answers sorted by confidence descending, risk(k) is the
// selective risk (wrong / answered) at the threshold admitting the k-th
// answer; answers tied in confidence share the risk of their whole group.
// Without ties this is the standard AURC: the mean of the prefix risks
// risk@1..risk@A, scaled by A/n. Lower is better; 0 when nothing was
// answered or every answer is right.
func AURC(curve []RiskCoveragePoint, n int) float64 {
	if n == 0 {
		return 0
	}
	area, prev := 0.0, 0
	for _, p := range curve {
		area += float64(p.Answered-prev) * (1 - p.Accuracy)
		prev = p.Answered
	}
	return area / float64(n)
}

// ThinCurve keeps at most max points of curve, evenly spread by index,
// always keeping the first and the last.
func ThinCurve[P any](curve []P, max int) []P {
	if len(curve) <= max || max < 2 {
		return curve
	}
	out := make([]P, 0, max)
	last := -1
	for j := range max {
		i := int(math.Round(float64(j) * float64(len(curve)-1) / float64(max-1)))
		if i != last {
			out = append(out, curve[i])
			last = i
		}
	}
	return out
}

var pageRef = regexp.MustCompile(`(?i)\bpages?\s+(\d+)(?:\s*[–—-]\s*(\d+))?`)

// citesPage reports whether answer cites one of pages of source (the
// expected page, then the row's other_pages). When the answer's citations
// can be matched to retrieved sections (by "Title, page N"), the section's
// source must match too; otherwise any "page N" / "pages N–M" reference
// covering one of the pages counts.
func citesPage(answer string, sections []schema.Section, source string, pages []int) bool {
	matched := false
	for _, s := range sections {
		if !strings.Contains(answer, s.Citation()) {
			continue
		}
		matched = true
		end := max(s.PageEnd, s.Page)
		if sameSource(s.Source, source) && slices.ContainsFunc(pages, func(p int) bool { return s.Page <= p && p <= end }) {
			return true
		}
	}
	if matched {
		return false
	}
	for _, m := range pageRef.FindAllStringSubmatch(answer, -1) {
		lo, _ := strconv.Atoi(m[1])
		hi := lo
		if m[2] != "" {
			hi, _ = strconv.Atoi(m[2])
		}
		if slices.ContainsFunc(pages, func(p int) bool { return lo <= p && p <= hi }) {
			return true
		}
	}
	return false
}

// citesOtherDocument reports whether answer cites a section of sections
// that is not from source: a citation ("(See Segment 4, page 4)") that no
// section of source renders. A citation that sections of several documents
// render counts as source's when one of them is.
func citesOtherDocument(answer string, sections []schema.Section, source string) bool {
	own := map[string]bool{}
	for _, s := range sections {
		if c := s.Citation(); strings.Contains(answer, c) {
			own[c] = own[c] || sameSource(s.Source, source)
		}
	}
	for _, ok := range own {
		if !ok {
			return true
		}
	}
	return false
}

func sameSource(got, want string) bool {
	if want == "" {
		return true
	}
	return filepath.Base(filepath.ToSlash(got)) == filepath.Base(filepath.ToSlash(want)) || strings.HasSuffix(filepath.ToSlash(got), filepath.ToSlash(want))
}

// NormalizeForMatch turns text into the token sequence facts are matched
// on: lower-cased words (textproc.Tokens), numbers without thousands
// separators or trailing decimal zeros, spelled-out numbers as digits
// ("forty-five" -> 45, "eighteen thousand" -> 18000), and a number
// immediately repeated in digits ("thirty (30)") kept once.
func NormalizeForMatch(s string) []string {
	toks := textproc.Tokens(s)
	out := make([]string, 0, len(toks))
	for i := 0; i < len(toks); {
		if n, used := spelledNumber(toks[i:]); used > 0 {
			out = appendNumber(out, strconv.FormatInt(n, 10))
			i += used
			continue
		}
		t := toks[i]
		if isNumeric(t) {
			out = appendNumber(out, canonicalNumber(t))
		} else {
			out = append(out, t)
		}
		i++
	}
	return out
}

func appendNumber(out []string, n string) []string {
	if len(out) > 0 && out[len(out)-1] == n {
		return out
	}
	return append(out, n)
}

func isNumeric(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if (r < '0' || r > '9') && r != '.' && r != ',' {
			return false
		}
	}
	return true
}

func canonicalNumber(t string) string {
	t = strings.ReplaceAll(t, ",", "")
	if strings.Contains(t, ".") {
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t
}

var (
	smallNumbers = map[string]int64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	scaleNumbers = map[string]int64{"hundred": 100, "thousand": 1000, "million": 1000000, "billion": 1000000000}
)

// spelledNumber reads a spelled-out number at the start of toks and
// returns its value and how many tokens it used (0 when none).
func spelledNumber(toks []string) (int64, int) {
	var total, cur int64
	used := 0
	for used < len(toks) {
		t := toks[used]
		if v, ok := smallNumbers[t]; ok {
			// "twenty five" continues only after a tens word.
			if used > 0 && cur%100 != 0 && !(cur%10 == 0 && v < 10) {
				break
			}
			cur += v
			used++
			continue
		}
		if v, ok := scaleNumbers[t]; ok && used > 0 {
			if cur == 0 {
				cur = 1
			}
			if v == 100 {
				cur *= v
			} else {
				total += cur * v
				cur = 0
			}
			used++
			continue
		}
		if t == "and" && used > 0 && used+1 < len(toks) {
			if _, ok := smallNumbers[toks[used+1]]; ok {
				used++
				continue
			}
		}
		break
	}
	if used == 0 {
		return 0, 0
	}
	if toks[used-1] == "and" {
		used--
	}
	return total + cur, used
}

// containsSeq reports whether needle occurs contiguously in hay.
func containsSeq(hay, needle []string) bool {
	if len(needle) == 0 {
		return true
	}
outer:
	for i := 0; i+len(needle) <= len(hay); i++ {
		for j, n := range needle {
			if hay[i+j] != n {
				continue outer
			}
		}
		return true
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }

// GoldRow is one row of a SQuAD-style gold file (JSONL): the question's
// id, whether it is impossible (unanswerable) and every acceptable answer.
// eval qa reads id, is_impossible and answers; eval relevance also doc,
// paragraph, question and plausible (the distractor answers of an
// unanswerable question). title is read but not used.
type GoldRow struct {
	ID           string   `json:"id"`
	Title        string   `json:"title,omitempty"`
	Doc          string   `json:"doc,omitempty"`
	Paragraph    int      `json:"paragraph,omitempty"`
	Question     string   `json:"question,omitempty"`
	IsImpossible bool     `json:"is_impossible"`
	Answers      []string `json:"answers"`
	Plausible    []string `json:"plausible,omitempty"`
}

// LoadGold reads a gold file (JSONL of GoldRow; blank and '#' lines
// skipped; unknown fields are an error), keyed by id.
func LoadGold(path string) (map[string]GoldRow, error) {
	return byID(LoadGoldRows(path))
}

// LoadGoldRows is LoadGold in the file's order.
func LoadGoldRows(path string) ([]GoldRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gold: %w", err) // err names the path
	}
	defer f.Close()
	return ReadGoldRows(f, path)
}

// ReadGold is LoadGold on a reader; name is used in error messages.
func ReadGold(r io.Reader, name string) (map[string]GoldRow, error) {
	return byID(ReadGoldRows(r, name))
}

// byID keys gold rows by id.
func byID(rows []GoldRow, err error) (map[string]GoldRow, error) {
	if err != nil {
		return nil, err
	}
	gold := make(map[string]GoldRow, len(rows))
	for _, g := range rows {
		gold[g.ID] = g
	}
	return gold, nil
}

// ReadGoldRows is LoadGoldRows on a reader: every row needs an id, used
// once.
func ReadGoldRows(r io.Reader, name string) ([]GoldRow, error) {
	var rows []GoldRow
	seen := map[string]bool{}
	err := decodeJSONL(r, name, "gold", "gold row", func(lineNo int, g GoldRow) error {
		if g.ID == "" {
			return fmt.Errorf("gold: %s line %d: missing id", name, lineNo)
		}
		if seen[g.ID] {
			return fmt.Errorf("gold: %s line %d: id %q already used", name, lineNo, g.ID)
		}
		seen[g.ID] = true
		rows = append(rows, g)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("gold: %s holds no rows", name)
	}
	return rows, nil
}

// MergeGold sets each row's Answers from gold (matched by id) and marks
// the answerable rows AnswersOnly: they are then scored with the any-of
// answers rule instead of their facts (correct only when one gold answer
// is in the answer's first two sentences). Every row needs a gold row; an
// is_impossible gold row must be an unanswerable row and the other way
// round; an answerable gold row needs at least one answer. Gold rows whose
// id is not in rows are ignored, so a subset of a set can be scored.
func MergeGold(rows []QARow, gold map[string]GoldRow) error {
	for i := range rows {
		row := &rows[i]
		g, ok := gold[row.ID]
		switch {
		case !ok:
			return fmt.Errorf("gold: no gold row for question %s", row.ID)
		case g.IsImpossible && row.IsAnswerable():
			return fmt.Errorf("gold: question %s is answerable in the QA set but is_impossible in the gold file", row.ID)
		case !g.IsImpossible && !row.IsAnswerable():
			return fmt.Errorf("gold: question %s is unanswerable in the QA set but not is_impossible in the gold file", row.ID)
		case g.IsImpossible:
			continue
		}
		var answers []string
		for _, a := range g.Answers {
			if strings.TrimSpace(a) != "" && !slices.Contains(answers, a) {
				answers = append(answers, a)
			}
		}
		if len(answers) == 0 {
			return fmt.Errorf("gold: answerable question %s has no gold answers", row.ID)
		}
		row.Answers = answers
		row.AnswersOnly = true
	}
	return nil
}

// Failure explains why the question counts against the pipeline, or "".
func (r QAResult) Failure() string {
	switch {
	case r.Err != "":
		return "error: " + r.Err
	case !r.Answerable && !r.Abstained:
		return "answered an unanswerable question"
	case !r.Answerable:
		return ""
	case r.Abstained:
		return "abstained"
	case !r.Grounded:
		return "answer not judged grounded"
	case len(r.MissingFacts) > 0:
		return "missing " + strings.Join(r.MissingFacts, ", ")
	case r.MissedAnswers && r.match == MatchJaccard:
		return "no gold span matched (Jaccard under 0.5, not contained)"
	case r.MissedAnswers:
		return "no gold answer in the first two sentences"
	case r.PageCorrect != nil && !*r.PageCorrect:
		return "right answer, wrong page cited"
	}
	return ""
}
