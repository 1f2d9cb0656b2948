package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// ThresholdError is returned by the command functions when a figure is
// under its --min-* threshold (or over its --max-* one); the CLI exits
// non-zero on it.
type ThresholdError struct {
	Misses []string
}

func (e *ThresholdError) Error() string {
	return "threshold missed: " + strings.Join(e.Misses, "; ")
}

// IsTerminal reports whether f is a terminal (a character device), so
// progress is only drawn for people, never into logs or pipes.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// JudgeCommand is what `docmind eval judge` runs.
type JudgeCommand struct {
	// Files are RAGTruth-format JSONL files.
	Files []string
	// Judges: the first is the configured judge; with CVFolds > 0 every
	// entry is a candidate for cross-validated tuning.
	Judges []NamedJudge
	// Candidates, when set, computes the candidates instead of running
	// Judges (e.g. OfflineSweep); its first candidate is the configured
	// judge.
	Candidates func(ctx context.Context, sources []RAGTruthSource, opts JudgeRunOptions) ([]Candidate, error)
	// CVFolds > 1 adds cross-validated figures (split by source); they
	// become the headline figures checked against MinF1.
	CVFolds int
	Seed    uint64
	// JSON prints a JSON object instead of a table.
	JSON bool
	// MinF1, when > 0, fails the command if the headline overall F1 is
	// lower.
	MinF1       float64
	Concurrency int
	Stdout      io.Writer
	// Progress, when not nil, receives a progress line (a terminal).
	Progress io.Writer
}

// JudgeCommandResult is what the judge command computed.
type JudgeCommandResult struct {
	Judge string
	// Configured holds the configured judge's own verdicts per task.
	Configured []TaskScore
	// CV is set when cross-validation ran.
	CV *CVResult
}

// Headline returns the figures thresholds apply to: cross-validated when
// available, otherwise the configured judge's.
func (r *JudgeCommandResult) Headline() []TaskScore {
	if r.CV != nil {
		return r.CV.Scores
	}
	return r.Configured
}

// Run loads the files, runs the judges, prints the report and checks
// MinF1 (a *ThresholdError when missed).
func (c JudgeCommand) Run(ctx context.Context) (*JudgeCommandResult, error) {
	if len(c.Files) == 0 {
		return nil, errors.New("eval judge: no RAGTruth file given (--ragtruth FILE)")
	}
	if len(c.Judges) == 0 && c.Candidates == nil {
		return nil, errors.New("eval judge: no judge configured")
	}
	var sources []RAGTruthSource
	for _, f := range c.Files {
		s, err := LoadRAGTruth(f)
		if err != nil {
			return nil, err
		}
		sources = append(sources, s...)
	}
	var cands []Candidate
	opts := JudgeRunOptions{Concurrency: c.Concurrency}
	if c.Progress != nil {
		opts.Progress = func(done, n int) {
			if done == n || done%10 == 0 {
				fmt.Fprintf(c.Progress, "\rjudging: %d/%d responses", done, n)
			}
		}
	}
	if c.Candidates != nil {
		var err error
		if cands, err = c.Candidates(ctx, sources, opts); err != nil {
			return nil, err
		}
	} else {
		judges := c.Judges
		if c.CVFolds <= 1 {
			judges = judges[:1]
		}
		var err error
		if cands, err = RunCandidates(ctx, judges, sources, opts); err != nil {
			return nil, err
		}
	}
	if len(cands) == 0 {
		return nil, errors.New("eval judge: no candidates")
	}
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "\r%-60s\r", "")
	}
	res := &JudgeCommandResult{Judge: cands[0].Name, Configured: Score(cands[0].Outcomes, VerdictDecision)}
	if c.CVFolds > 1 {
		cv, err := CrossValidate(cands, c.CVFolds, c.Seed)
		if err != nil {
			return nil, fmt.Errorf("eval judge: %w", err)
		}
		res.CV = cv
	}
	if c.Stdout != nil {
		var err error
		if c.JSON {
			err = writeJSON(c.Stdout, JudgeJSON(res))
		} else {
			err = WriteJudgeTable(c.Stdout, res)
		}
		if err != nil {
			return res, fmt.Errorf("eval judge: write report: %w", err)
		}
	}
	if c.MinF1 > 0 {
		if f := overall(res.Headline()).F1; f < c.MinF1 {
			return res, &ThresholdError{Misses: []string{fmt.Sprintf("overall F1 %.3f < --min-f1 %.3f", f, c.MinF1)}}
		}
	}
	return res, nil
}

// JudgeJSON renders a judge report as one JSON object keyed by task (and
// "overall"); each task holds precision, recall, f1, span_precision,
// span_recall, span_f1, responses and hallucinated (the headline figures),
// plus "configured" (the judge's own verdicts) when cross-validation ran.
// "judge" names the judge and "tuning" describes the cross-validation.
func JudgeJSON(r *JudgeCommandResult) map[string]any {
	out := map[string]any{"judge": r.Judge}
	conf := map[string]TaskScore{}
	for _, t := range r.Configured {
		conf[t.Task] = t
	}
	for _, t := range r.Headline() {
		m := taskJSON(t)
		if r.CV != nil {
			m["configured"] = taskJSON(conf[t.Task])
		}
		out[t.Task] = m
	}
	if r.CV != nil {
		out["tuning"] = map[string]any{"method": r.CV.Method, "k": r.CV.K, "seed": r.CV.Seed, "folds": r.CV.Choices}
	}
	return out
}

func taskJSON(t TaskScore) map[string]any {
	return map[string]any{
		"responses": t.Responses, "hallucinated": t.Hallucinated,
		"precision": round3(t.Precision), "recall": round3(t.Recall), "f1": round3(t.F1),
		"span_precision": round3(t.SpanPrecision), "span_recall": round3(t.SpanRecall), "span_f1": round3(t.SpanF1),
		"always_yes_f1": round3(t.AlwaysYesF1), "errors": t.Errors,
	}
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteJudgeTable prints the judge report as aligned tables.
func WriteJudgeTable(w io.Writer, r *JudgeCommandResult) error {
	block := func(title string, scores []TaskScore) error {
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "task\tresponses\thalluc.\tP\tR\tF1\tspan P\tspan R\tspan F1\talways-yes F1\t")
		for _, t := range scores {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", t.Task, t.Responses, t.Hallucinated,
				t.Precision, t.Recall, t.F1, t.SpanPrecision, t.SpanRecall, t.SpanF1, t.AlwaysYesF1)
		}
		return tw.Flush()
	}
	if err := block("judge "+r.Judge+" (its own verdicts)", r.Configured); err != nil {
		return err
	}
	if r.CV == nil {
		return nil
	}
	fmt.Fprintln(w)
	if err := block(fmt.Sprintf("cross-validated (%d folds by source, held-out predictions pooled)", r.CV.K), r.CV.Scores); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "method:", r.CV.Method)
	for _, c := range r.CV.Choices {
		fmt.Fprintf(w, "  fold %d: %s, threshold %.3f (train F1 %.3f, held-out F1 %.3f on %d responses)\n", c.Fold, c.Candidate, c.Threshold, c.TrainF1, c.TestF1, c.TestN)
	}
	return nil
}

// QACommand is what `docmind eval qa` runs.
type QACommand struct {
	File string
	// Gold, when set, is a SQuAD-style gold file (see LoadGold, MergeGold):
	// its any-of answers replace the facts of the answerable rows.
	Gold string
	Ask  AskFunc
	JSON bool
	// Thresholds (0 = not checked). MinCorrect and MinAnswerableCorrect
	// both bound AnswerableCorrect.
	MinCorrect           float64
	MinAnswerableCorrect float64
	MinAnsweredAccuracy  float64
	MinAbstainPrecision  float64
	MinAbstainRecall     float64
	// MaxAURC, when not nil, fails the run when AURC is higher.
	MaxAURC  *float64
	Stdout   io.Writer
	Progress io.Writer
}

// Run loads the QA set (and the gold file), asks every question, prints the
// report and checks the thresholds (a *ThresholdError when one is missed).
func (c QACommand) Run(ctx context.Context) (*QAReport, error) {
	rows, err := LoadQA(c.File)
	if err != nil {
		return nil, err
	}
	if c.Gold != "" {
		gold, err := LoadGold(c.Gold)
		if err != nil {
			return nil, err
		}
		if err := MergeGold(rows, gold); err != nil {
			return nil, fmt.Errorf("%w (%s against %s)", err, c.File, c.Gold)
		}
	}
	var opts QAOptions
	if c.Progress != nil {
		opts.Progress = func(done, total int, r QAResult) {
			fmt.Fprintf(c.Progress, "\rqa %d/%d %-12s", done, total, r.ID)
			if done == total {
				fmt.Fprintf(c.Progress, "\r%-40s\r", "")
			}
		}
	}
	rep, err := RunQA(ctx, c.Ask, rows, opts)
	if err != nil {
		return nil, err
	}
	if c.Stdout != nil {
		if c.JSON {
			err = writeJSON(c.Stdout, rep)
		} else {
			err = WriteQATable(c.Stdout, rep)
		}
		if err != nil {
			return rep, fmt.Errorf("eval qa: write report: %w", err)
		}
	}
	var miss []string
	check := func(name, flag string, got, min float64) {
		if min > 0 && got < min {
			miss = append(miss, fmt.Sprintf("%s %.3f < --%s %.3f", name, got, flag, min))
		}
	}
	check("answered correctly", "min-correct", rep.AnsweredCorrectly, c.MinCorrect)
	check("answerable correct", "min-answerable-correct", rep.AnswerableCorrect, c.MinAnswerableCorrect)
	check("accuracy among answered", "min-answered-accuracy", rep.AnsweredAccuracy, c.MinAnsweredAccuracy)
	check("abstention precision", "min-abstain-precision", rep.AbstentionPrecision, c.MinAbstainPrecision)
	check("abstention recall", "min-abstain-recall", rep.AbstentionRecall, c.MinAbstainRecall)
	if c.MaxAURC != nil && rep.AURC > *c.MaxAURC {
		miss = append(miss, fmt.Sprintf("AURC %.4f > --max-aurc %.4f", rep.AURC, *c.MaxAURC))
	}
	if len(miss) > 0 {
		return rep, &ThresholdError{Misses: miss}
	}
	return rep, nil
}

// QATableRiskRows is how many risk–coverage points WriteQATable prints.
const QATableRiskRows = 10

// WriteQATable prints the QA report: the figures, breakdowns by kind and
// type, a compact risk–coverage table, and every question that went wrong
// with the reason.
func WriteQATable(w io.Writer, rep *QAReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "questions\t%d (%d answerable, %d unanswerable)\n", rep.Questions, rep.Answerable, rep.Unanswerable)
	fmt.Fprintf(tw, "answered correctly\t%.3f (%d/%d)\n", rep.AnsweredCorrectly, rep.Correct, rep.Answerable)
	fmt.Fprintf(tw, "coverage\t%.3f (%d/%d answered)\n", rep.Coverage, rep.Answered, rep.Questions)
	fmt.Fprintf(tw, "accuracy among answered\t%.3f (%d/%d)\n", rep.AnsweredAccuracy, rep.Answered-rep.WrongAnswers, rep.Answered)
	fmt.Fprintf(tw, "wrong answers\t%d\n", rep.WrongAnswers)
	fmt.Fprintf(tw, "AURC\t%.4f (area under risk vs coverage; lower is better)\n", rep.AURC)
	fmt.Fprintf(tw, "citation page accuracy\t%.3f (of %d answered)\n", rep.CitationPageAccuracy, rep.CitationChecked)
	fmt.Fprintf(tw, "abstention precision\t%.3f\n", rep.AbstentionPrecision)
	fmt.Fprintf(tw, "abstention recall\t%.3f\n", rep.AbstentionRecall)
	fmt.Fprintf(tw, "mean retries\t%.2f (mean retry_count %.2f)\n", rep.MeanRetries, rep.MeanRetryCount)
	fmt.Fprintf(tw, "LLM calls / question\t%.2f\n", rep.LLMCallsPerQ)
	fmt.Fprintf(tw, "tokens / question\t%.0f\n", rep.TokensPerQ)
	fmt.Fprintf(tw, "latency p50 / p95\t%.2f ms / %.2f ms\n", rep.LatencyP50Ms, rep.LatencyP95Ms)
	if rep.Errors > 0 {
		fmt.Fprintf(tw, "errors\t%d\n", rep.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	breakdown := func(title string, m map[string]KindScore) error {
		if len(m) == 0 {
			return nil
		}
		fmt.Fprintf(w, "\nby %s:\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(tw, "  %s\t%d/%d right\n", k, m[k].Right, m[k].Questions)
		}
		return tw.Flush()
	}
	if err := breakdown("kind", rep.ByKind); err != nil {
		return err
	}
	if err := breakdown("type", rep.ByType); err != nil {
		return err
	}
	if pts := thinCurve(rep.RiskCoverage, QATableRiskRows); len(pts) > 0 {
		fmt.Fprintln(w, "\nrisk–coverage (answers with confidence ≥ threshold):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "threshold\tanswered\tcoverage\taccuracy\trisk\t")
		for _, p := range pts {
			fmt.Fprintf(tw, "%.3f\t%d\t%.3f\t%.3f\t%.3f\t\n", p.Threshold, p.Answered, p.Coverage, p.Accuracy, 1-p.Accuracy)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	var bad []string
	for _, r := range rep.Results {
		if why := failure(r); why != "" {
			bad = append(bad, fmt.Sprintf("  %s  %s — %s", r.ID, r.Question, why))
		}
	}
	if len(bad) > 0 {
		fmt.Fprintln(w, "\nwrong:")
		fmt.Fprintln(w, strings.Join(bad, "\n"))
	}
	return nil
}

// failure explains why a question counts against the pipeline, or "".
func failure(r QAResult) string {
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
	case r.MissedAnswers:
		return "no gold answer in the first two sentences"
	case r.PageCorrect != nil && !*r.PageCorrect:
		return "right answer, wrong page cited"
	}
	return ""
}
