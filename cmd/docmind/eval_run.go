package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/index"
	"github.com/docmind/docmind/internal/eval"
	"github.com/docmind/docmind/internal/eval/splits"
	"github.com/docmind/docmind/schema"
)

// thresholdError is returned by the command functions when a figure is
// under its --min-* threshold (or over its --max-* one); the CLI exits
// non-zero on it.
type thresholdError struct {
	Misses []string
}

func (e *thresholdError) Error() string {
	return "threshold missed: " + strings.Join(e.Misses, "; ")
}

// minChecks collects the figures under their --min-* thresholds.
type minChecks []string

// check records a miss when min > 0 (a threshold is set) and got is
// lower: "name got < --flag min".
func (m *minChecks) check(name, flag string, got, min float64) {
	if min > 0 && got < min {
		*m = append(*m, fmt.Sprintf("%s %.3f < --%s %.3f", name, got, flag, min))
	}
}

// err is a *thresholdError naming the misses, nil when there are none.
func (m minChecks) err() error {
	if len(m) == 0 {
		return nil
	}
	return &thresholdError{Misses: m}
}

// judgeEval is what `docmind eval judge` runs.
type judgeEval struct {
	// Files are RAGTruth-format JSONL files.
	Files []string
	// Judges: the first is the configured judge; with CVFolds > 0 every
	// entry is a candidate for cross-validated tuning.
	Judges []eval.NamedJudge
	// Candidates, when set, computes the candidates instead of running
	// Judges (e.g. OfflineSweep); its first candidate is the configured
	// judge.
	Candidates func(ctx context.Context, sources []eval.RAGTruthSource, opts eval.JudgeRunOptions) ([]eval.Candidate, error)
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

// judgeEvalResult is what the judge command computed.
type judgeEvalResult struct {
	Judge string
	// Configured holds the configured judge's own verdicts per task.
	Configured []eval.TaskScore
	// CV is set when cross-validation ran.
	CV *eval.CVResult
	// Failed counts the responses the configured judge failed on (they
	// count as hallucinated); FirstError is the first such failure.
	Failed     int
	FirstError string
}

// failures counts the results whose run failed (errOf is not "") and
// returns the first failure's message.
func failures[R any](results []R, errOf func(R) string) (int, string) {
	n, first := 0, ""
	for _, r := range results {
		if e := errOf(r); e != "" {
			if n == 0 {
				first = e
			}
			n++
		}
	}
	return n, first
}

// Headline returns the figures thresholds apply to: cross-validated when
// available, otherwise the configured judge's.
func (r *judgeEvalResult) Headline() []eval.TaskScore {
	if r.CV != nil {
		return r.CV.Scores
	}
	return r.Configured
}

// Run loads the files, runs the judges, prints the report and checks
// MinF1 (a *thresholdError when missed).
func (c judgeEval) Run(ctx context.Context) (*judgeEvalResult, error) {
	if len(c.Files) == 0 {
		return nil, errors.New("eval judge: no RAGTruth file given (--ragtruth FILE)")
	}
	if len(c.Judges) == 0 && c.Candidates == nil {
		return nil, errors.New("eval judge: no judge configured")
	}
	var sources []eval.RAGTruthSource
	for _, f := range c.Files {
		s, err := eval.LoadRAGTruth(f)
		if err != nil {
			return nil, err
		}
		sources = append(sources, s...)
	}
	var cands []eval.Candidate
	opts := eval.JudgeRunOptions{Concurrency: c.Concurrency}
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
		if cands, err = eval.RunCandidates(ctx, judges, sources, opts); err != nil {
			return nil, err
		}
	}
	if len(cands) == 0 {
		return nil, errors.New("eval judge: no candidates")
	}
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "\r%-60s\r", "")
	}
	failed, firstErr := failures(cands[0].Outcomes, func(o eval.JudgeOutcome) string { return o.Err })
	if failed > 0 && failed == len(cands[0].Outcomes) {
		// No verdict at all (a rejected key, a server that is down): the
		// figures would be those of a judge calling every response
		// hallucinated.
		return nil, fmt.Errorf("eval judge: the judge failed on every response (%d of %d): %s", failed, failed, firstErr)
	}
	res := &judgeEvalResult{Judge: cands[0].Name, Configured: eval.Score(cands[0].Outcomes, eval.VerdictDecision), Failed: failed, FirstError: firstErr}
	if c.CVFolds > 1 {
		cv, err := eval.CrossValidate(cands, c.CVFolds, c.Seed)
		if err != nil {
			return nil, fmt.Errorf("eval judge: %w", err)
		}
		res.CV = cv
	}
	if c.Stdout != nil {
		var err error
		if c.JSON {
			err = writeJSON(c.Stdout, judgeEvalJSON(res))
		} else {
			err = writeJudgeTable(c.Stdout, res)
		}
		if err != nil {
			return res, fmt.Errorf("eval judge: write report: %w", err)
		}
	}
	if c.MinF1 > 0 {
		if f := eval.Overall(res.Headline()).F1; f < c.MinF1 {
			return res, &thresholdError{Misses: []string{fmt.Sprintf("overall F1 %.3f < --min-f1 %.3f", f, c.MinF1)}}
		}
	}
	return res, nil
}

// judgeEvalJSON renders a judge report as one JSON object keyed by task (and
// "overall"); each task holds precision, recall, f1, span_precision,
// span_recall, span_f1, responses and hallucinated (the headline figures),
// plus "configured" (the judge's own verdicts) when cross-validation ran.
// "judge" names the judge and "tuning" describes the cross-validation.
func judgeEvalJSON(r *judgeEvalResult) map[string]any {
	out := map[string]any{"judge": r.Judge}
	conf := map[string]eval.TaskScore{}
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

func taskJSON(t eval.TaskScore) map[string]any {
	return map[string]any{
		"responses": t.Responses, "hallucinated": t.Hallucinated,
		"precision": round3(t.Precision), "recall": round3(t.Recall), "f1": round3(t.F1),
		"span_precision": round3(t.SpanPrecision), "span_recall": round3(t.SpanRecall), "span_f1": round3(t.SpanF1),
		"always_yes_f1": round3(t.AlwaysYesF1), "errors": t.Errors,
	}
}

func round3(f float64) float64 { return float64(int(f*1000+0.5)) / 1000 }

// writeJudgeTable prints the judge report as aligned tables.
func writeJudgeTable(w io.Writer, r *judgeEvalResult) error {
	block := func(title string, scores []eval.TaskScore) error {
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
	if r.Failed > 0 {
		fmt.Fprintf(w, "errors: the judge failed on %d of %d responses, counted as hallucinated (first: %s)\n",
			r.Failed, eval.Overall(r.Configured).Responses, r.FirstError)
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

// qaEval is what `docmind eval qa` runs.
type qaEval struct {
	File string
	// Gold, when set, is a SQuAD-style gold file (see eval.LoadGold, eval.MergeGold):
	// its any-of answers replace the facts of the answerable rows.
	Gold string
	// Match is the rule gold answers are matched with.
	Match eval.MatchRule
	// Split selects the questions of a frozen split (splits.All: every
	// one).
	Split splits.Split
	Ask   eval.AskFunc
	JSON  bool
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
// report and checks the thresholds (a *thresholdError when one is missed).
func (c qaEval) Run(ctx context.Context) (*eval.QAReport, error) {
	rows, err := loadQASplit(c.File, c.Split)
	if err != nil {
		return nil, err
	}
	var gold map[string]eval.GoldRow
	if c.Gold != "" {
		if gold, err = eval.LoadGold(c.Gold); err != nil {
			return nil, err
		}
		if err := eval.MergeGold(rows, gold); err != nil {
			return nil, fmt.Errorf("%w (%s against %s)", err, c.File, c.Gold)
		}
	}
	opts := eval.QAOptions{Match: c.Match, Targets: eval.EvidenceTargets(rows, gold)}
	if c.Progress != nil {
		opts.Progress = func(done, total int, r eval.QAResult) {
			fmt.Fprintf(c.Progress, "\rqa %d/%d %-12s", done, total, r.ID)
			if done == total {
				fmt.Fprintf(c.Progress, "\r%-40s\r", "")
			}
		}
	}
	rep, err := eval.RunQA(ctx, c.Ask, rows, opts)
	if err != nil {
		return nil, err
	}
	if failed, first := failures(rep.Results, func(r eval.QAResult) string { return r.Err }); failed > 0 && failed == len(rep.Results) {
		// No question was answered or refused (a rejected key, a server
		// that is down): the figures would be those of a pipeline that
		// missed every question.
		return nil, fmt.Errorf("eval qa: every question failed (%d of %d): %s", failed, failed, first)
	}
	if err := writeReport(c.Stdout, c.JSON, rep, func(w io.Writer) error { return writeQATable(w, rep) }); err != nil {
		return rep, fmt.Errorf("eval qa: %w", err)
	}
	var miss minChecks
	miss.check("answered correctly", "min-correct", rep.AnsweredCorrectly, c.MinCorrect)
	miss.check("answerable correct", "min-answerable-correct", rep.AnswerableCorrect, c.MinAnswerableCorrect)
	miss.check("accuracy among answered", "min-answered-accuracy", rep.AnsweredAccuracy, c.MinAnsweredAccuracy)
	miss.check("abstention precision", "min-abstain-precision", rep.AbstentionPrecision, c.MinAbstainPrecision)
	miss.check("abstention recall", "min-abstain-recall", rep.AbstentionRecall, c.MinAbstainRecall)
	if c.MaxAURC != nil && rep.AURC > *c.MaxAURC {
		miss = append(miss, fmt.Sprintf("AURC %.4f > --max-aurc %.4f", rep.AURC, *c.MaxAURC))
	}
	return rep, miss.err()
}

// loadQASplit reads a QA set and keeps the questions of split.
func loadQASplit(file string, split splits.Split) ([]eval.QARow, error) {
	rows, err := eval.LoadQA(file)
	if err != nil {
		return nil, err
	}
	if rows, err = eval.SelectSplit(rows, split); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return rows, nil
}

// splitFlag registers --split, read with splits.Parse.
func splitFlag(cmd *cobra.Command, split *string) {
	cmd.Flags().StringVar(split, "split", string(splits.All), "the frozen split of a development set to run: dev, test or all (internal/eval/splits)")
}

// writeReport prints rep to w (nothing when w is nil): as JSON, or with
// table.
func writeReport(w io.Writer, asJSON bool, rep any, table func(io.Writer) error) error {
	if w == nil {
		return nil
	}
	var err error
	if asJSON {
		err = writeJSON(w, rep)
	} else {
		err = table(w)
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// qaTableRiskRows is how many risk–coverage points writeQATable prints.
const qaTableRiskRows = 10

// writeQATable prints the QA report: the figures, breakdowns by kind and
// type, a compact risk–coverage table, and every question that went wrong
// with the reason.
func writeQATable(w io.Writer, rep *eval.QAReport) error {
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
	if failed, first := failures(rep.Results, func(r eval.QAResult) string { return r.Err }); failed > 0 {
		fmt.Fprintf(tw, "errors\t%d of %d questions failed, counted as missed (first: %s)\n", failed, rep.Questions, first)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	breakdown := func(title string, m map[string]eval.KindScore) error {
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
	if fp := rep.FirstPass; fp != nil {
		fmt.Fprintf(w, "\nfirst pass (answerable questions: %d; evidence located for %d, handed on for %.3f; first draft right %.3f):\n", fp.Answerable, fp.Located, fp.EvidenceHandedOn, fp.DraftCorrect)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "evidence	questions	first draft right	answered right	answered	accuracy among answered	")
		for _, row := range []struct {
			name string
			s    eval.SubsetScore
		}{{"handed on", fp.WithEvidence}, {"not handed on", fp.WithoutEvidence}} {
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%d\t%.3f\t\n", row.name, row.s.Questions, row.s.DraftCorrect, row.s.AnswerableCorrect, row.s.Answered, row.s.AnsweredAccuracy)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if rs := rep.Refusals; rs != nil && (rs.Located > 0 || rs.WithGold > 0) {
		fmt.Fprintf(w, "\nrefusals of answerable questions: %d", rs.Refused)
		if rs.Located > 0 {
			fmt.Fprintf(w, "; evidence located for %d, among their closest passages for %.3f", rs.Located, rs.ClosestHoldEvidence)
		}
		if rs.WithGold > 0 {
			fmt.Fprintf(w, "; with gold answers %d, stated in a closest passage's excerpt for %.3f", rs.WithGold, rs.ExcerptsStateAnswer)
		}
		fmt.Fprintln(w)
	}
	if err := breakdown("kind", rep.ByKind); err != nil {
		return err
	}
	if err := breakdown("type", rep.ByType); err != nil {
		return err
	}
	if pts := eval.ThinCurve(rep.RiskCoverage, qaTableRiskRows); len(pts) > 0 {
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
		if why := r.Failure(); why != "" {
			bad = append(bad, fmt.Sprintf("  %s  %s — %s", r.ID, r.Question, why))
		}
	}
	if len(bad) > 0 {
		fmt.Fprintln(w, "\nwrong:")
		fmt.Fprintln(w, strings.Join(bad, "\n"))
	}
	return nil
}

// relevanceEval is what `docmind eval relevance` runs.
type relevanceEval struct {
	// Gold is the SQuAD-style gold file.
	Gold string
	// Index holds the documents the gold rows name.
	Index *index.Index
	Judge schema.Judge
	JSON  bool
	// MinAccuracyAtHalf, when > 0, fails the run when the accuracy with
	// half the answerable questions accepted is lower (or never reached).
	MinAccuracyAtHalf float64
	Concurrency       int
	Stdout            io.Writer
	// Progress, when not nil, receives a progress line (a terminal).
	Progress io.Writer
}

// Run reads the gold file, locates each question's sentence in the
// index, judges them all, prints the report and checks the threshold (a
// *thresholdError when missed).
func (c relevanceEval) Run(ctx context.Context) (*eval.RelevanceReport, error) {
	rows, err := eval.LoadGoldRows(c.Gold)
	if err != nil {
		return nil, err
	}
	cases, err := relevanceCases(ctx, c.Index, rows)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(cases, func(c eval.RelevanceCase) bool { return c.Missing == "" }) {
		return nil, fmt.Errorf("eval relevance: no row of %s could be read in the documents (first: %s); pass the folder they are in with --docs", c.Gold, cases[0].Missing)
	}
	opts := eval.RelevanceOptions{Concurrency: c.Concurrency}
	if c.Progress != nil {
		opts.Progress = func(done, total int, r eval.RelevanceResult) {
			if done == total || done%20 == 0 {
				fmt.Fprintf(c.Progress, "\rrelevance %d/%d %-26s", done, total, r.ID)
			}
			if done == total {
				fmt.Fprintf(c.Progress, "\r%-50s\r", "")
			}
		}
	}
	rep, err := eval.RunRelevance(ctx, c.Judge, cases, opts)
	if err != nil {
		return nil, err
	}
	if err := writeReport(c.Stdout, c.JSON, rep, func(w io.Writer) error { return writeRelevanceTable(w, rep) }); err != nil {
		return rep, fmt.Errorf("eval relevance: %w", err)
	}
	if c.MinAccuracyAtHalf > 0 {
		switch {
		case rep.AtHalf == nil:
			return rep, &thresholdError{Misses: []string{fmt.Sprintf("half the answerable questions never accepted (%.3f at most) for --min-accuracy-at-half %.3f", rep.AnswerableAccepted, c.MinAccuracyAtHalf)}}
		case rep.AtHalf.Accuracy < c.MinAccuracyAtHalf:
			return rep, &thresholdError{Misses: []string{fmt.Sprintf("accuracy at half the answerable questions %.3f < --min-accuracy-at-half %.3f", rep.AtHalf.Accuracy, c.MinAccuracyAtHalf)}}
		}
	}
	return rep, nil
}

// relevanceCases finds each gold row's document in the index (by file
// name), its paragraph and the sentence to judge; the paragraph carries
// the relevance score the index gives it for the question. A row whose
// document, paragraph or sentence is not found is a case with Missing
// set.
func relevanceCases(ctx context.Context, ix *index.Index, rows []eval.GoldRow) ([]eval.RelevanceCase, error) {
	docs, err := ix.Documents(ctx)
	if err != nil {
		return nil, err
	}
	paths := map[string]string{} // file name -> path
	for _, d := range docs {
		paths[filepath.Base(d.Path)] = d.Path
	}
	sections := map[string][]schema.Section{}
	cases := make([]eval.RelevanceCase, len(rows))
	for i, row := range rows {
		c := &cases[i]
		c.Row = row
		path, ok := paths[filepath.Base(row.Doc)]
		if row.Doc == "" || !ok {
			c.Missing = fmt.Sprintf("document %q is not in the index", row.Doc)
			continue
		}
		secs, ok := sections[path]
		if !ok {
			if secs, err = ix.Sections(ctx, path); err != nil {
				return nil, err
			}
			sections[path] = secs
		}
		sec, ok := eval.SourceParagraph(row, secs)
		if !ok {
			c.Missing = fmt.Sprintf("document %q has no paragraph %d", row.Doc, row.Paragraph)
			continue
		}
		answers := eval.RelevanceAnswers(row)
		if len(answers) == 0 {
			c.Missing = "the gold row gives no answer to look for (answers, or plausible when is_impossible)"
			continue
		}
		if c.Sentence = eval.LocateSentence(sec.Content, answers); c.Sentence == "" {
			c.Missing = eval.NoSentence
			continue
		}
		// the paragraph's score for the question, as retrieval gives it
		hits, err := ix.SearchWith(ctx, row.Question, len(secs), index.SearchOptions{Where: index.Where{Documents: []string{path}}})
		if err != nil {
			return nil, err
		}
		sec.RelevanceScore = 0
		for _, h := range hits {
			if h.Section.Key() == sec.Key() {
				sec.RelevanceScore = h.Section.RelevanceScore
			}
		}
		c.Section = sec
	}
	return cases, nil
}

// writeRelevanceTable prints the relevance report: the figures and a
// compact curve.
func writeRelevanceTable(w io.Writer, rep *eval.RelevanceReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "questions\t%d (%d answerable, %d unanswerable; %d judged, %d not located)\n", rep.Questions, rep.Answerable, rep.Unanswerable, rep.Judged, rep.Unlocated)
	fmt.Fprintf(tw, "gold sentences accepted\t%d (%.3f of answerable)\n", rep.AcceptedGold, rep.AnswerableAccepted)
	fmt.Fprintf(tw, "distractors accepted\t%d (%.3f of unanswerable refused)\n", rep.AcceptedDistractors, rep.DistractorsRefused)
	fmt.Fprintf(tw, "accuracy among accepted\t%.3f\n", rep.Accuracy)
	if rep.AtHalf != nil {
		fmt.Fprintf(tw, "at half the answerable\taccuracy %.3f at confidence >= %.3f (%d accepted)\n", rep.AtHalf.Accuracy, rep.AtHalf.Threshold, rep.AtHalf.Accepted)
	} else {
		fmt.Fprintf(tw, "at half the answerable\tnot reached\n")
	}
	if rep.Errors > 0 {
		fmt.Fprintf(tw, "errors\t%d\n", rep.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Curve) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nconfidence >=  accepted  accuracy  answerable accepted")
	step := max(len(rep.Curve)/qaTableRiskRows, 1)
	for i := 0; i < len(rep.Curve); i += step {
		p := rep.Curve[i]
		fmt.Fprintf(w, "%13.3f  %8d  %8.3f  %19.3f\n", p.Threshold, p.Accepted, p.Accuracy, p.AnswerableAccepted)
	}
	return nil
}
