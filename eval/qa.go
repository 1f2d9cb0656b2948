package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// the facts a correct answer must contain and where the answer is found; an
// unanswerable row sets "answerable": false.
type QARow struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Facts    []string `json:"facts,omitempty"`
	// Source is the expected document's file name; Page the expected page.
	Source     string `json:"source,omitempty"`
	Page       int    `json:"page,omitempty"`
	Answerable *bool  `json:"answerable,omitempty"`
	// Kind is an optional tag ("paraphrase", "multi-part", "near-miss", ...)
	// used to break results down.
	Kind string `json:"kind,omitempty"`
}

// IsAnswerable reports whether the documents answer the row's question.
func (r QARow) IsAnswerable() bool { return r.Answerable == nil || *r.Answerable }

// LoadQA reads a QA set file (see ReadQA).
func LoadQA(path string) ([]QARow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("qa set: open %s: %w", path, err)
	}
	defer f.Close()
	return ReadQA(f, path)
}

// ReadQA reads a QA set: JSONL, one QARow per line. Rows are checked: ids
// unique and non-empty, a question, and for answerable rows at least one
// fact. name is used in error messages.
func ReadQA(r io.Reader, name string) ([]QARow, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	var rows []QARow
	ids := map[string]int{}
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		var row QARow
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("qa set: %s line %d: not a QA row: %w", name, lineNo, err)
		}
		switch {
		case row.ID == "":
			return nil, fmt.Errorf("qa set: %s line %d: missing id", name, lineNo)
		case strings.TrimSpace(row.Question) == "":
			return nil, fmt.Errorf("qa set: %s line %d (%s): missing question", name, lineNo, row.ID)
		case row.IsAnswerable() && len(row.Facts) == 0:
			return nil, fmt.Errorf("qa set: %s line %d (%s): an answerable row needs facts", name, lineNo, row.ID)
		case !row.IsAnswerable() && len(row.Facts) > 0:
			return nil, fmt.Errorf("qa set: %s line %d (%s): an unanswerable row has facts", name, lineNo, row.ID)
		}
		if prev, dup := ids[row.ID]; dup {
			return nil, fmt.Errorf("qa set: %s line %d: id %q already used on line %d", name, lineNo, row.ID, prev)
		}
		ids[row.ID] = lineNo
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("qa set: read %s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("qa set: %s holds no questions", name)
	}
	return rows, nil
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
	Answerable bool   `json:"answerable"`
	// Abstained is true when the final output is the fallback message.
	Abstained bool `json:"abstained"`
	// Grounded is true when the last verdict accepted the answer.
	Grounded bool `json:"grounded"`
	// Correct: answerable, answered, grounded and every fact present.
	Correct      bool     `json:"correct"`
	MissingFacts []string `json:"missing_facts,omitempty"`
	// PageCorrect is set for answerable questions that were answered.
	PageCorrect *bool         `json:"page_correct,omitempty"`
	Retries     int           `json:"retries"`
	RetryCount  int           `json:"retry_count"`
	Usage       schema.Usage  `json:"usage"`
	Latency     time.Duration `json:"latency_ns"`
	Answer      string        `json:"answer"`
	Err         string        `json:"error,omitempty"`
}

// QAReport holds the end-to-end figures.
type QAReport struct {
	Questions    int `json:"questions"`
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	// AnsweredCorrectly is the share of answerable questions answered
	// correctly (all facts present and the answer judged grounded).
	AnsweredCorrectly float64 `json:"answered_correctly"`
	Correct           int     `json:"correct"`
	// CitationPageAccuracy is the share of answered answerable questions
	// whose answer cites the expected page.
	CitationPageAccuracy float64 `json:"citation_page_accuracy"`
	CitationChecked      int     `json:"citation_checked"`
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
	Results        []QAResult           `json:"results"`
}

// KindScore breaks results down by QARow.Kind: how many questions of the
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
}

// RunQA asks every question in turn (sequentially, so latencies are not
// inflated by sharing the machine) and scores the answers. A pipeline error
// on one question is recorded in its result; a cancelled ctx stops the run.
func RunQA(ctx context.Context, ask AskFunc, rows []QARow, opts QAOptions) (*QAReport, error) {
	if ask == nil {
		return nil, errors.New("qa eval: no pipeline to ask")
	}
	results := make([]QAResult, 0, len(rows))
	for i, row := range rows {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("qa eval stopped after %d of %d questions: %w", i, len(rows), err)
		}
		start := time.Now()
		st, err := ask(ctx, row.Question)
		took := time.Since(start)
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("qa eval stopped after %d of %d questions: %w", i, len(rows), ctx.Err())
		}
		res := ScoreQA(row, st, err)
		res.Latency = took
		results = append(results, res)
		if opts.Progress != nil {
			opts.Progress(i+1, len(rows), res)
		}
	}
	return summarizeQA(results), nil
}

// ScoreQA scores one question's final state (err is the pipeline's error,
// if any).
func ScoreQA(row QARow, st *schema.State, err error) QAResult {
	r := QAResult{ID: row.ID, Question: row.Question, Kind: row.Kind, Answerable: row.IsAnswerable()}
	if st != nil {
		r.Answer = st.Answer()
		r.RetryCount = st.RetryCount
		r.Retries = max(countNode(st.NodeHistory, schema.NodeRetrieve)-1, 0)
		if st.Usage != nil {
			r.Usage = st.Usage.Total
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
	r.Grounded = !r.Abstained && st.JudgeVerdict != nil && !st.JudgeVerdict.IsHallucinated && !st.JudgeVerdict.Unverified
	if !r.Answerable || r.Abstained {
		return r
	}
	answer := NormalizeForMatch(r.Answer)
	for _, f := range row.Facts {
		if !containsSeq(answer, NormalizeForMatch(f)) {
			r.MissingFacts = append(r.MissingFacts, f)
		}
	}
	r.Correct = r.Grounded && len(r.MissingFacts) == 0
	if row.Page > 0 {
		ok := citesPage(r.Answer, st.RetrievedSections, row.Source, row.Page)
		r.PageCorrect = &ok
	}
	return r
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
	rep := &QAReport{Questions: len(results), Results: results, ByKind: map[string]KindScore{}}
	var lat []float64
	pagesOK := 0
	for _, r := range results {
		if r.Answerable {
			rep.Answerable++
		} else {
			rep.Unanswerable++
		}
		if r.Correct {
			rep.Correct++
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
		lat = append(lat, float64(r.Latency)/float64(time.Millisecond))
		if r.Kind != "" {
			k := rep.ByKind[r.Kind]
			k.Questions++
			if r.Correct || (!r.Answerable && r.Abstained && r.Err == "") {
				k.Right++
			}
			rep.ByKind[r.Kind] = k
		}
	}
	if n := float64(len(results)); n > 0 {
		rep.MeanRetries /= n
		rep.MeanRetryCount /= n
		rep.LLMCallsPerQ /= n
		rep.TokensPerQ /= n
	}
	rep.AnsweredCorrectly = ratio(rep.Correct, rep.Answerable)
	rep.CitationPageAccuracy = ratio(pagesOK, rep.CitationChecked)
	rep.AbstentionPrecision = rep.Abstention.Precision()
	rep.AbstentionRecall = rep.Abstention.Recall()
	slices.Sort(lat)
	rep.LatencyP50Ms, rep.LatencyP95Ms = percentile(lat, 50), percentile(lat, 95)
	if len(rep.ByKind) == 0 {
		rep.ByKind = nil
	}
	return rep
}

var pageRef = regexp.MustCompile(`(?i)\bpages?\s+(\d+)(?:\s*[–—-]\s*(\d+))?`)

// citesPage reports whether answer cites page of source. When the answer's
// citations can be matched to retrieved sections (by "Title, page N"), the
// section's source must match too; otherwise any "page N" / "pages N–M"
// reference covering page counts.
func citesPage(answer string, sections []schema.Section, source string, page int) bool {
	matched := false
	for _, s := range sections {
		if !strings.Contains(answer, s.Citation()) {
			continue
		}
		matched = true
		end := max(s.PageEnd, s.Page)
		if s.Page <= page && page <= end && sameSource(s.Source, source) {
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
		if lo <= page && page <= hi {
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
