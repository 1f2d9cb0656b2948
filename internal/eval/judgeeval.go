package eval

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/docmind/docmind/schema"
	"github.com/docmind/docmind/textproc"
)

// ClaimSpan is one claim of a verdict located in the response text, with
// its risk: how strongly the judge considers it unsupported, in [0,1].
// Unsupported claims have risk >= 0.5 and supported ones < 0.5, so a
// threshold of 0.5 reproduces the judge's own per-claim decisions.
type ClaimSpan struct {
	Span
	Risk float64 `json:"risk"`
}

// JudgeOutcome is the judge's result on one RAGTruth response.
type JudgeOutcome struct {
	Task     string `json:"task"`
	SourceID string `json:"source_id"`
	Model    string `json:"model,omitempty"`
	// Gold is true when the response is labelled hallucinated.
	Gold      bool   `json:"gold"`
	GoldSpans []Span `json:"gold_spans,omitempty"`
	// Predicted is the verdict's IsHallucinated (true when the judge failed).
	Predicted bool `json:"predicted"`
	// Risk is the response's hallucination score in [0,1]: the highest
	// claim risk, and at least 0.5 when the verdict says hallucinated.
	Risk float64 `json:"risk"`
	// Claims are the verdict's claims found in the response.
	Claims []ClaimSpan `json:"claims,omitempty"`
	// Unlocated counts unsupported claims that could not be found in the
	// response text (they count for the response, not for spans).
	Unlocated int    `json:"unlocated,omitempty"`
	Err       string `json:"error,omitempty"`
	// Features are the deterministic judge's signals for the response
	// (riskFeatures), when the run recorded them.
	Features []float64 `json:"-"`
}

// PredictedSpans returns the spans of the claims whose risk reaches
// threshold.
func (o JudgeOutcome) PredictedSpans(threshold float64) []Span {
	var out []Span
	for _, c := range o.Claims {
		if c.Risk >= threshold {
			out = append(out, c.Span)
		}
	}
	return out
}

// JudgeRunOptions tunes RunJudge.
type JudgeRunOptions struct {
	// Concurrency is the number of responses judged at once (default 1).
	Concurrency int
	// Progress, when set, is called after each response with the number
	// done and the total. It is called from one goroutine at a time.
	Progress func(done, total int)
}

// RunJudge runs j over every response of every source, as
// JudgeRequest{Query, Response, Sections}. A judge error on one response is
// recorded in its outcome (counted as predicted hallucinated, as an
// unverified verdict would be); only a cancelled ctx stops the run.
func RunJudge(ctx context.Context, j schema.Judge, sources []RAGTruthSource, opts JudgeRunOptions) ([]JudgeOutcome, error) {
	out, err := runMulti(ctx, 1, func(ctx context.Context, req schema.JudgeRequest) ([]*schema.Verdict, []float64, error) {
		v, err := j.Judge(ctx, req)
		return []*schema.Verdict{v}, nil, err
	}, sources, opts)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// multiJudge returns n verdicts for one request (one per candidate) and
// the request's features, if any.
type multiJudge func(ctx context.Context, req schema.JudgeRequest) ([]*schema.Verdict, []float64, error)

// runMulti runs judge over every response; out[k][i] is candidate k's
// outcome on response i.
func runMulti(ctx context.Context, n int, judge multiJudge, sources []RAGTruthSource, opts JudgeRunOptions) ([][]JudgeOutcome, error) {
	type job struct{ src, resp, idx int }
	var jobs []job
	for si, s := range sources {
		for ri := range s.Responses {
			jobs = append(jobs, job{si, ri, len(jobs)})
		}
	}
	out := make([][]JudgeOutcome, n)
	for k := range out {
		out[k] = make([]JudgeOutcome, len(jobs))
	}
	err := forEach(ctx, len(jobs), opts.Concurrency, func(i int) {
		jb := jobs[i]
		src := &sources[jb.src]
		resp := src.Responses[jb.resp]
		vs, feats, err := judge(ctx, schema.JudgeRequest{Query: src.Query, Response: resp.Response, Sections: src.Sections})
		for k := range n {
			var v *schema.Verdict
			if k < len(vs) {
				v = vs[k]
			}
			out[k][jb.idx] = outcome(src, resp, v, err)
			out[k][jb.idx].Features = feats
		}
	}, func(done int, _ int) {
		if opts.Progress != nil {
			opts.Progress(done, len(jobs))
		}
	})
	if err != nil {
		return nil, fmt.Errorf("judge benchmark stopped: %w", err)
	}
	return out, nil
}

func outcome(src *RAGTruthSource, resp RAGTruthResponse, v *schema.Verdict, err error) JudgeOutcome {
	o := JudgeOutcome{Task: src.Task, SourceID: src.SourceID, Model: resp.Model, Gold: resp.Hallucinated(), GoldSpans: resp.GoldSpans()}
	switch {
	case err != nil:
		o.Err = err.Error()
	case v == nil:
		o.Err = "judge returned no verdict"
	}
	if o.Err != "" {
		o.Predicted, o.Risk = true, 1
		return o
	}
	o.Predicted = v.IsHallucinated || v.Unverified
	loc := newLocator(resp.Response)
	for _, c := range v.Claims {
		risk := ClaimRisk(c)
		o.Risk = max(o.Risk, risk)
		sp, ok := loc.find(c.Claim)
		if !ok {
			if !c.Supported {
				o.Unlocated++
			}
			continue
		}
		o.Claims = append(o.Claims, ClaimSpan{Span: sp, Risk: risk})
	}
	if o.Predicted {
		o.Risk = max(o.Risk, 0.5)
	}
	return o
}

// ClaimRisk maps a claim check to a risk in [0,1]: supported claims to
// [0,0.5) by falling support score, unsupported claims to [0.5,1], and a
// contradiction to 1.
func ClaimRisk(c schema.ClaimCheck) float64 {
	s := min(max(c.Score, 0), 1)
	switch {
	case !c.Supported && c.Contradiction != "":
		return 1
	case !c.Supported:
		return 0.5 + 0.5*(1-s)
	default:
		return 0.5 * (1 - s) * 0.999
	}
}

// locator finds claims in a response, ignoring case and runs of white
// space, and reports code-point spans.
type locator struct {
	norm      string // lower-cased, white space collapsed to one ' '
	pos       []int  // pos[i] = code-point index in the response of norm's byte i
	sentences []locatedSentence
	response  string
}

type locatedSentence struct {
	span  Span
	terms map[string]bool
}

func newLocator(response string) *locator {
	l := &locator{response: response}
	l.norm, l.pos = normalizeWithPositions(response)
	return l
}

func normalizeWithPositions(s string) (string, []int) {
	var b strings.Builder
	pos := make([]int, 0, len(s))
	space := true
	ri := 0
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\u00a0' {
			if !space {
				b.WriteByte(' ')
				pos = append(pos, ri)
				space = true
			}
			ri++
			continue
		}
		space = false
		lr := string(toLower(r))
		b.WriteString(lr)
		for range len(lr) {
			pos = append(pos, ri)
		}
		ri++
	}
	return b.String(), pos
}

func toLower(r rune) rune {
	if r < 0x80 {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return []rune(strings.ToLower(string(r)))[0]
}

// find locates claim: verbatim (modulo case and spacing), else the
// response sentence sharing the most of the claim's terms (at least half).
func (l *locator) find(claim string) (Span, bool) {
	c, _ := normalizeWithPositions(strings.TrimSpace(claim))
	c = strings.TrimSpace(c)
	if c == "" {
		return Span{}, false
	}
	if i := strings.Index(l.norm, c); i >= 0 {
		return Span{Start: l.pos[i], End: l.pos[i+len(c)-1] + 1}, true
	}
	// Try without trailing punctuation, which judges often add or drop.
	if t := strings.TrimRight(c, ".!?;:, "); t != c && t != "" {
		if i := strings.Index(l.norm, t); i >= 0 {
			return Span{Start: l.pos[i], End: l.pos[i+len(t)-1] + 1}, true
		}
	}
	terms := textproc.Terms(claim)
	if len(terms) == 0 {
		return Span{}, false
	}
	l.splitSentences()
	best, bestScore := -1, 0.0
	for i, s := range l.sentences {
		hit := 0
		for _, t := range terms {
			if s.terms[t] {
				hit++
			}
		}
		if sc := float64(hit) / float64(len(terms)); sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if best < 0 || bestScore < 0.5 {
		return Span{}, false
	}
	return l.sentences[best].span, true
}

func (l *locator) splitSentences() {
	if l.sentences != nil {
		return
	}
	l.sentences = []locatedSentence{}
	from := 0
	for _, s := range textproc.Sentences(l.response) {
		n, _ := normalizeWithPositions(strings.TrimSpace(s))
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := strings.Index(l.norm[from:], n)
		if i < 0 {
			continue
		}
		i += from
		terms := map[string]bool{}
		for _, t := range textproc.Terms(s) {
			terms[t] = true
		}
		l.sentences = append(l.sentences, locatedSentence{span: Span{Start: l.pos[i], End: l.pos[i+len(n)-1] + 1}, terms: terms})
		from = i + len(n)
	}
}

// TaskScore holds the judge benchmark's figures for one task (or overall).
type TaskScore struct {
	Task string `json:"task"`
	// Responses judged, and how many are labelled hallucinated.
	Responses    int     `json:"responses"`
	Hallucinated int     `json:"hallucinated"`
	Precision    float64 `json:"precision"`
	Recall       float64 `json:"recall"`
	F1           float64 `json:"f1"`
	// Span-level figures by character overlap (micro-averaged).
	SpanPrecision float64    `json:"span_precision"`
	SpanRecall    float64    `json:"span_recall"`
	SpanF1        float64    `json:"span_f1"`
	Confusion     Confusion  `json:"confusion"`
	Spans         SpanCounts `json:"span_chars"`
	// Errors counts responses the judge failed on.
	Errors int `json:"errors,omitempty"`
	// AlwaysYesF1 is the F1 of predicting "hallucinated" for every
	// response: the floor any judge must beat.
	AlwaysYesF1 float64 `json:"always_yes_f1"`
}

// Decision turns an outcome into a predicted label and predicted spans.
type Decision func(o JudgeOutcome) (bool, []Span)

// VerdictDecision uses the judge's own verdict and its unsupported claims.
func VerdictDecision(o JudgeOutcome) (bool, []Span) {
	if !o.Predicted {
		return false, nil
	}
	return true, o.PredictedSpans(0.5)
}

// ThresholdDecision predicts hallucinated when the outcome's risk reaches t,
// with the claims whose risk reaches t as spans.
func ThresholdDecision(t float64) Decision {
	return func(o JudgeOutcome) (bool, []Span) {
		if o.Risk < t {
			return false, nil
		}
		return true, o.PredictedSpans(t)
	}
}

// Score computes per-task and overall figures for outcomes under decide.
// Tasks are listed qa, summary, data2txt, then others by name; the last
// entry is "overall".
func Score(outcomes []JudgeOutcome, decide Decision) []TaskScore {
	rows := make([]decided, len(outcomes))
	for i, o := range outcomes {
		pred, spans := decide(o)
		rows[i] = decided{o: o, pred: pred, spans: spans}
	}
	return scoreDecided(rows)
}

func (t *TaskScore) finish() TaskScore {
	t.Precision, t.Recall, t.F1 = t.Confusion.Precision(), t.Confusion.Recall(), t.Confusion.F1()
	t.SpanPrecision, t.SpanRecall, t.SpanF1 = t.Spans.Precision(), t.Spans.Recall(), t.Spans.F1()
	t.AlwaysYesF1 = f1(ratio(t.Hallucinated, t.Responses), ratio(t.Hallucinated, t.Hallucinated))
	return *t
}

var taskOrder = map[string]int{TaskQA: 0, TaskSummary: 1, TaskData2Txt: 2}

func sortedTasks[T any](m map[string]T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		oi, iok := taskOrder[keys[i]]
		oj, jok := taskOrder[keys[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		default:
			return keys[i] < keys[j]
		}
	})
	return keys
}

// overall returns the "overall" entry of scores.
func Overall(scores []TaskScore) TaskScore {
	if len(scores) == 0 {
		return TaskScore{Task: "overall"}
	}
	return scores[len(scores)-1]
}

// forEach calls do(i) for i in [0, n) on workers goroutines (at least
// one), then after(done, i) from one goroutine at a time. It stops
// handing out work when ctx is cancelled and returns ctx.Err() once the
// calls under way have ended.
func forEach(ctx context.Context, n, workers int, do func(i int), after func(done, i int)) error {
	ch := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				do(i)
				mu.Lock()
				done++
				after(done, i)
				mu.Unlock()
			}
		}()
	}
	var err error
feed:
	for i := range n {
		select {
		case ch <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(ch)
	wg.Wait()
	return err
}
