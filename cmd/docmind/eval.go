package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind"
	"github.com/docmind/docmind/internal/eval"
	"github.com/docmind/docmind/internal/eval/splits"
	"github.com/docmind/docmind/judge"
	"github.com/docmind/docmind/schema"
)

func (a *app) evalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure the judge, the whole pipeline or retrieval on benchmark data",
	}
	cmd.AddCommand(a.evalJudgeCmd(), a.evalQACmd(), a.evalRelevanceCmd(), a.evalRetrievalCmd(), a.evalCalibrateCmd(), a.evalEvidenceCmd(), a.evalCompareCmd())
	return cmd
}

func (a *app) evalJudgeCmd() *cobra.Command {
	var pf pipelineFlags
	c := judgeEval{}
	cmd := &cobra.Command{
		Use:   "judge --ragtruth FILE... [flags]",
		Short: "Hallucination detection on RAGTruth-format data: response- and span-level precision, recall, F1",
		Long: `Runs the configured judge (the offline deterministic judge, or an LLM judge
when one is configured) over every response of RAGTruth-format JSONL files and
reports, per task and overall, response-level precision, recall and F1
(hallucinated = positive) and span-level F1 (character overlap).

Offline, the judge's thresholds are chosen by cross-validation split by source
(--cv folds): each fold is scored with settings tuned on the other folds only.

A response the judge fails on (an LLM error) counts as hallucinated and in
errors; the table names the first failure. When the judge fails on every
response (a rejected key, a server that is down) there is no figure: the
command fails (exit 1) with that error.`,
		Example: `  docmind eval judge --ragtruth ../shared/data/ragtruth/ragtruth_qa.jsonl --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			c.Files = append(c.Files, args...)
			if len(c.Files) == 0 {
				return usageError{cmd: cmdPath(cmd), err: errors.New("no data: pass --ragtruth FILE")}
			}
			switch {
			case c.CVFolds < 0 || c.CVFolds == 1:
				return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--cv must be 0 (none) or 2 or more, got %d", c.CVFolds)}
			case c.Concurrency < 1:
				return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--concurrency must be 1 or more, got %d", c.Concurrency)}
			}
			limits, err := pf.tokenLimits(cmd)
			if err != nil {
				return err
			}
			models, err := a.models(&pf)
			if err != nil {
				return err
			}
			if models.Offline() {
				c.Candidates = eval.OfflineSweep
			} else {
				j := judge.NewLLM(models.Judge, judge.LLMOptions{Settings: docmind.JudgeSettings(models.JudgeName, limits.Judge)})
				c.Judges = []eval.NamedJudge{{Name: "llm:" + models.JudgeName, Judge: j}}
				c.CVFolds = 0
			}
			c.Stdout = a.stdout
			if isTerminal(a.stderr) && !c.JSON {
				c.Progress = a.stderr
			}
			ctx := cmd.Context()
			if pf.timeout > 0 {
				// --timeout bounds the whole evaluation here
				var cancel context.CancelFunc
				ctx, cancel = pf.runContext(ctx)
				defer cancel()
			}
			_, err = c.Run(ctx)
			return runError(ctx, err)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&c.Files, "ragtruth", nil, "RAGTruth-format JSONL file (repeatable)")
	addJSONFlag(cmd, &c.JSON, "the figures")
	f.Float64Var(&c.MinF1, "min-f1", 0, "fail (exit 1) when the overall response-level F1 is lower")
	f.IntVar(&c.CVFolds, "cv", 5, "cross-validation folds for the offline judge's thresholds (0: none)")
	f.Uint64Var(&c.Seed, "seed", 1, "seed for the cross-validation split")
	f.IntVar(&c.Concurrency, "concurrency", 2, "responses judged at once")
	pf.registerLLM(cmd)
	return cmd
}

func (a *app) evalQACmd() *cobra.Command {
	var pf pipelineFlags
	var maxAURC float64
	var match, split string
	c := qaEval{}
	cmd := &cobra.Command{
		Use:   "qa [--docs DIR | --index DIR] FILE.jsonl [flags]",
		Short: "End-to-end answers: correctness, coverage, risk–coverage (AURC), citation pages, abstention, retries, tokens, latency",
		Long: `Runs the whole pipeline on every question of a JSONL file, one row a line:

  {"id","question","facts":[...],"answers":[...],"source","page",
   "printed_page","other_pages":[...],"kind","type","why"}     answerable
  {"id","question","answerable":false,"kind","type","why"}     unanswerable

An answerable row needs facts or answers (or both); an unanswerable row has
neither and must get the fallback message. Unknown fields are an error.
  facts        every fact must be in the answer (normalised words, numbers)
  answers      any-of gold answers, matched by the --match rule:
               lead (default): one must be within the answer's first two
               sentences (citations "(See Title, page N)" stripped first);
               jaccard (CUAD's evaluate.py, for long clause spans): the
               answer, citations stripped, contains one, or the Jaccard
               similarity of its words with one is >= 0.5 (words: lower-
               cased, ".,;:" removed, "/" a space)
  page         expected page of source; other_pages are pages of the same
               source stating the same answer (citing any counts as right)
  printed_page the number printed on page (informational)
  kind, type   tags the results are broken down by (by_kind, by_type)
  why          a note (informational)
A question is answered correctly when it is answerable, answered, judged
grounded and meets both rules it has.

--split dev|test keeps the questions of one frozen split of a development
set (internal/eval/splits: whole documents for cuad, policyqa and filings,
the held-out contract set, every 8th SQuAD question); all (the default)
keeps every question. A question of no split set is an error with dev or
test.

--gold FILE reads a SQuAD-style gold file (JSONL: id, title, doc, paragraph,
question, is_impossible, answers, plausible): each row's answers are set from
it by id and answerable rows are then scored with the answers rule INSTEAD of
their facts. Every row needs a gold row and is_impossible must match
"answerable": false (an error otherwise); extra gold rows are ignored.

Figures: answered (not the fallback, no error) and coverage = answered / all;
answered_accuracy = share of answered questions answered correctly (an answer
to an unanswerable question is wrong); answerable_correct (= answered_correctly)
= share of answerable questions answered correctly; wrong_answers = answered
but not correct. Each result records the last verdict's confidence_score as
"confidence". risk_coverage: answered questions sorted by confidence, one
point per distinct confidence t (ties together) with answered = answers with
confidence >= t, coverage = answered / all, accuracy = correct / answered;
at most 50 points (thinned evenly). aurc = (1/N) * sum over k=1..A of risk(k),
N questions, A answered, risk(k) = 1 - accuracy at the threshold admitting the
k-th most confident answer (ties share their group's risk): without ties, the
mean of the prefix risks scaled by A/N, the area under risk vs coverage from
0 to A/N. Lower is better.

first_pass tells retrieval, drafting and the decision apart. The run's first
attempt is read as it goes: the sections its retrieve node handed the
generator and the draft its generate node wrote. For each answerable question,
evidence_handed_on says whether those sections hold its evidence (as eval
evidence counts a hit: the gold document's page, a gold span, the gold
paragraph; unset when the row locates none) and first_draft_correct whether
the draft meets the row's rules, whatever the judge then decided (unset
without answers or facts), and first_confidence is the first verdict's
confidence. first_pass {answerable, located, evidence_handed_on
(share of located), draft_correct (share of answerable), draft_separation,
with_evidence and without_evidence {questions, draft_correct,
answerable_correct, answered, answered_accuracy}} gives the answerable
questions' figures on the questions whose evidence was handed on and on the
others (answered_accuracy there counts answerable questions only).
draft_separation is the ROC area of first_confidence for the right first
drafts against the wrong ones (null without both): near 1, right drafts are
refused only by the threshold's scale; near 0.5, no threshold tells them
apart.

refusals says where a refusal sends the user. For each answerable question
that was refused and whose row locates its evidence, closest_hold_evidence
says whether the passages the refusal points at (closest_passages) hold it,
as eval evidence counts a hit; for each whose row has gold answers or facts,
closest_excerpt_answers says whether the excerpt of one of those passages
(what the refusal shows of it) states them, as an answer would have to.
refusals {refused, located, closest_hold_evidence (share of located),
with_gold, excerpts_state_answer (share of with_gold)}.

For each answered answerable question whose row names its document
(source), other_document says whether the answer cites a section of another
document (a citation no section of that document renders);
other_document_answers counts them, of document_checked.

--json prints the report: match, questions, answerable, unanswerable, answered,
coverage, answered_accuracy, answerable_correct, answered_correctly, correct,
wrong_answers, aurc, risk_coverage [{threshold, coverage, accuracy,
answered}], citation_page_accuracy, citation_checked, other_document_answers,
document_checked, abstention_precision,
abstention_recall, abstention {tp,fp,fn,tn}, mean_retries, mean_retry_count,
llm_calls_per_question, tokens_per_question, latency_p50_ms, latency_p95_ms,
errors, by_kind and by_type {tag: {questions, right}}, first_pass,
refusals, and results [{id, question, kind, type, answerable, abstained, answered,
confidence, signals, reasoning, refused_answer, grounded, correct,
missing_facts, missed_answers, page_correct, other_document, evidence_handed_on,
first_draft_correct, first_confidence, closest_hold_evidence,
closest_excerpt_answers, retries,
retry_count, usage, latency_ms, answer, error}]: reasoning is the last verdict's, and refused_answer, for
a question the pipeline abstained on, the answer that verdict refused.

A question whose run fails (an LLM error) counts as missed and in errors; the
table names the first failure. When every question fails (a rejected key, a
server that is down) there is no figure: the command fails (exit 1) with that
error.

The --min-* and --max-aurc flags fail the command (exit 1, one line naming
the figure) when a figure misses its threshold.`,
		Example: `  docmind eval qa --docs examples/contract internal/eval/testdata/qa/contract.jsonl --json
  docmind eval qa --docs ../shared/data/squad2/docs ../shared/data/squad2/qa.jsonl --gold ../shared/data/squad2/gold.jsonl --json
  docmind ingest --index /tmp/fidx ../shared/fixtures/filings && docmind eval qa --index /tmp/fidx ../shared/data/filings/qa.jsonl
  docmind eval qa --docs ../shared/data/cuad/docs ../shared/data/cuad/qa.jsonl --match jaccard`,
		Args: exactArgs(1, "one question file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("max-aurc") {
				c.MaxAURC = &maxAURC
			}
			var err error
			if c.Match, err = eval.ParseMatchRule(match); err != nil {
				return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--match: %w", err)}
			}
			if c.Split, err = splits.Parse(split); err != nil {
				return usageError{cmd: cmdPath(cmd), err: fmt.Errorf("--split: %w", err)}
			}
			// the questions are read before the documents are indexed
			if err := readableQA(args[0], c.Gold); err != nil {
				return err
			}
			p, err := a.buildPipeline(cmd.Context(), cmd, &pf, nil)
			if err != nil {
				return err
			}
			c.File = args[0]
			c.Ask = func(ctx context.Context, q string) (*schema.State, error) {
				rctx, cancel := pf.runContext(ctx)
				defer cancel()
				// the run's first pass too (eval.FirstPass), beside its end
				st, err := p.Runner().Run(rctx, schema.NewState(strings.TrimSpace(q)), eval.RecordFirstPass(ctx))
				return st, runError(rctx, err)
			}
			c.Stdout = a.stdout
			if isTerminal(a.stderr) && !c.JSON {
				c.Progress = a.stderr
			}
			_, err = c.Run(cmd.Context())
			return err
		},
	}
	pf.register(cmd)
	f := cmd.Flags()
	addJSONFlag(cmd, &c.JSON, "the figures")
	f.StringVar(&c.Gold, "gold", "", "SQuAD-style gold `FILE`: any-of answers replace the facts of answerable rows (matched by id)")
	splitFlag(cmd, &split)
	f.StringVar(&match, "match", string(eval.MatchLead), "how answers are matched with the gold answers: lead (one in the answer's first two sentences) or jaccard (CUAD's rule: word Jaccard >= 0.5 or contained)")
	f.Float64Var(&c.MinCorrect, "min-correct", 0, "fail when the answered-correctly rate (share of answerable questions answered correctly) is lower")
	f.Float64Var(&c.MinAnswerableCorrect, "min-answerable-correct", 0, "fail when the share of answerable questions answered correctly is lower (same figure as --min-correct)")
	f.Float64Var(&c.MinAnsweredAccuracy, "min-answered-accuracy", 0, "fail when the accuracy among answered questions is lower")
	f.Float64Var(&maxAURC, "max-aurc", 0, "fail when the AURC (area under risk vs coverage) is higher")
	f.Float64Var(&c.MinAbstainPrecision, "min-abstain-precision", 0, "fail when abstention precision is lower")
	f.Float64Var(&c.MinAbstainRecall, "min-abstain-recall", 0, "fail when abstention recall is lower")
	return cmd
}

func (a *app) evalRelevanceCmd() *cobra.Command {
	var pf pipelineFlags
	c := relevanceEval{}
	cmd := &cobra.Command{
		Use:   "relevance [--docs DIR | --index DIR] --gold FILE [flags]",
		Short: "The judge alone: does it accept each question's gold sentence and refuse the distractor written to tempt it",
		Long: `Measures whether the judge checks that an answer answers the question, apart
from retrieval and generation. For every row of a SQuAD-style gold file
(JSONL: id, doc, paragraph, question, is_impossible, answers, plausible; see
"eval qa --help") it takes the question's paragraph, the section titled
"Paragraph N" of the document whose file name is doc (with no paragraph, the
first section of doc holding the sentence), and the first sentence of it
that holds, as written:
  a gold answer (answers), for an answerable question;
  the "plausible" answer, the distractor the question was written to tempt
  with, for an unanswerable one.
The configured judge (offline, or the LLM judge with the deterministic checks
on top) then judges that sentence as the whole answer, "<sentence> (See
<paragraph's citation>)", with the paragraph as the only section, scored by
the retriever as it would be for the question. A judge that reads what the
question asks accepts the gold sentence and refuses the distractor. The
figures are what the pipeline would reach with this judge if it always
quoted the sentence a question was written from.

Figures: judged (a sentence was located; unlocated rows count as refused,
and when no row can be located the command stops with an error),
accepted_gold (answerable questions whose gold sentence was accepted),
accepted_distractors, accuracy = accepted_gold / all accepted,
answerable_accepted = accepted_gold / answerable questions,
distractors_refused = share of unanswerable questions whose distractor was
not accepted, and the curve: the accepted sentences by falling confidence,
one point per distinct confidence {threshold, accepted, accuracy,
answerable_accepted} (at most 50); at_half is its first point where
answerable_accepted reaches 0.5 (null if none). Use --min-confidence 0 for
the whole curve.

--json prints {questions, answerable, unanswerable, judged, unlocated,
accepted_gold, accepted_distractors, accuracy, answerable_accepted,
distractors_refused, curve, at_half, errors, results [{id, question,
answerable, section, sentence, accepted, confidence, reasoning, missing,
error}]}. --min-accuracy-at-half fails the command (exit 1) when the
accuracy at half the answerable questions is lower, or never reached.`,
		Example: `  docmind eval relevance --docs ../shared/data/squad2/docs --gold ../shared/data/squad2/gold.jsonl --min-confidence 0`,
		Args:    exactArgs(0, "no positional argument (the questions come from --gold)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.Gold == "" {
				return usageError{cmd: cmdPath(cmd), err: errors.New("no data: pass --gold FILE")}
			}
			p, src, err := a.openPipeline(cmd.Context(), cmd, &pf, nil)
			if err != nil {
				return err
			}
			if src.index == nil {
				return usageError{cmd: cmdPath(cmd), err: errors.New("eval relevance reads the paragraphs from the SQLite index: use --docs DIR or --index DIR, not --store")}
			}
			c.Index = src.index
			c.Judge = p.Judge()
			c.Stdout = a.stdout
			if isTerminal(a.stderr) && !c.JSON {
				c.Progress = a.stderr
			}
			_, err = c.Run(cmd.Context())
			return err
		},
	}
	pf.register(cmd)
	f := cmd.Flags()
	addJSONFlag(cmd, &c.JSON, "the figures")
	f.StringVar(&c.Gold, "gold", "", "SQuAD-style gold `FILE` (id, doc, paragraph, question, is_impossible, answers, plausible)")
	f.IntVar(&c.Concurrency, "concurrency", 2, "sentences judged at once")
	f.Float64Var(&c.MinAccuracyAtHalf, "min-accuracy-at-half", 0, "fail when the accuracy with half the answerable questions accepted is lower")
	return cmd
}

// parseDomains reads --domain NAME=SET,SET flags into set -> domain.
func parseDomains(specs []string) (map[string]string, error) {
	domains := map[string]string{}
	for _, spec := range specs {
		name, list, ok := strings.Cut(spec, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(list) == "" {
			return nil, fmt.Errorf("--domain %q: want NAME=SET[,SET...]", spec)
		}
		for _, set := range strings.Split(list, ",") {
			set = strings.TrimSpace(set)
			if prev, dup := domains[set]; dup && prev != name {
				return nil, fmt.Errorf("--domain: report %s is in domains %s and %s", set, prev, name)
			}
			domains[set] = strings.TrimSpace(name)
		}
	}
	return domains, nil
}

func (a *app) evalCalibrateCmd() *cobra.Command {
	var opts eval.CalibrationOptions
	var out string
	var domainSpecs []string
	var asJSON, shipped bool
	cmd := &cobra.Command{
		Use:   "calibrate REPORT.json... [flags]",
		Short: "Fit the offline decision model and its default threshold on eval qa reports",
		Long: `Fits the offline judge's decision model, the logistic model behind its
confidence_score (the estimated probability that an answer is correct) over
the answer's signals and the rules that fired on it, on development sets,
and chooses the default --min-confidence with it.

Each REPORT.json is the output of "docmind eval qa --min-confidence 0 --json"
on one development set, offline: every answer the judge's guards accept is
returned with its calibration signals (results[].signals). The answers of
each set weigh the same in the fit whatever the set's size; the label is the
result's "correct". The threshold is the one (0, 0.05, ..., 0.95) with the
highest mean over the sets of (correct - wrong-cost * wrong) / questions;
held_out_threshold is the one with the highest mean of the same utility over
the domains, each scored by the model fitted without it (below).

--out FILE writes the judge's generated calibration.go (judge/calibration.go);
scripts/calibrate.sh runs the whole procedure on the development sets.
--shipped fits nothing: it reports the model this build ships, with its
threshold, on the reports (what a report from a changed build scores under
today's weights; an answer under a threshold counts as refused, where a run
at that threshold would retry retrieval and may find another answer).

The report prints the weights; how well each signal, and the model's
confidence, tells each set's right answers from its wrong ones (the ROC
area: 0.5 tells nothing, under 0.5 marks wrong answers); and, for each
set, its AURC under the model and its answered, accuracy among answered,
share of answerable questions answered correctly and utility at every
threshold; --json prints {signals, weights, bias, wrong_cost, threshold,
shipped, sets [{name, questions, answerable, samples, aurc, points
[{threshold, answered, correct, answered_accuracy, answerable_correct,
utility}], separation {SIGNAL: area, confidence: area}}],
leave_one_domain_out, held_out_threshold}.

Leave one domain out: when the reports fall in two domains or more (each
report is its own domain unless --domain groups it), each domain is scored
by a model fitted on the other domains alone, beside its figures under the
model fitted on every report, both at the chosen threshold: how the
confidence fares on documents of a kind it was not fitted on.
leave_one_domain_out is [{domain, sets, held_out, all_sets}], each figure
{threshold, questions, answerable, answered, correct, answered_accuracy,
answerable_correct, aurc} pooled over the domain's reports (aurc: their
mean).`,
		Example: `  scripts/calibrate.sh
  docmind eval calibrate contract.json squad2.json filings.json --out judge/calibration.go
  docmind eval calibrate contract.json cuad.json policyqa.json filings.json squad2.json --domain contracts=contract,cuad`,
		Args: minArgs(1, "at least one REPORT.json"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var sets []eval.CalibrationSet
			for _, f := range args {
				s, err := eval.LoadCalibrationSet(f)
				if err != nil {
					return err
				}
				sets = append(sets, s)
			}
			var c *eval.Calibration
			var err error
			if shipped {
				if out != "" {
					return usageError{cmd: cmdPath(cmd), err: errors.New("--shipped reports the model this build ships; it writes no --out")}
				}
				w, b, t := judge.ShippedCalibration()
				c, err = eval.ShippedCalibration(sets, judge.DecisionSignals(), w, b, t, opts.WrongCost)
			} else {
				c, err = eval.FitCalibration(sets, judge.DecisionSignals(), opts)
			}
			if err != nil {
				return err
			}
			domains, err := parseDomains(domainSpecs)
			if err != nil {
				return usageError{cmd: cmdPath(cmd), err: err}
			}
			if !shipped {
				if c.Domains, err = eval.LeaveOneDomainOut(sets, judge.DecisionSignals(), opts, c, domains); err != nil {
					return err
				}
			}
			if out != "" {
				var b bytes.Buffer
				names := make([]string, len(args))
				for i, f := range args {
					names[i] = filepath.Base(f)
				}
				command := "docmind eval calibrate " + strings.Join(names, " ")
				for _, d := range domainSpecs {
					command += " --domain " + d
				}
				if err := eval.WriteCalibrationGo(&b, c, command); err != nil {
					return err
				}
				if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
					return fmt.Errorf("eval calibrate: %w", err)
				}
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(c)
			}
			if err := eval.WriteCalibrationTable(a.stdout, c); err != nil || len(c.Domains) == 0 {
				return err
			}
			return eval.WriteDomainTable(a.stdout, c.Domains)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "write the judge's generated calibration `FILE` (judge/calibration.go)")
	f.StringArrayVar(&domainSpecs, "domain", nil, "`NAME=SET,SET` puts the reports named SET (file names without .json) in one domain for the leave-one-domain-out figures (repeatable; a report in none is a domain of its own)")
	f.BoolVar(&shipped, "shipped", false, "report the model this build ships (judge/calibration.go) on the reports instead of fitting one")
	addJSONFlag(cmd, &asJSON, "the fit")
	f.Float64Var(&opts.WrongCost, "wrong-cost", eval.DefaultWrongCost, "what a wrong answer costs when choosing the threshold (a correct one gains 1, a refusal 0)")
	f.Float64Var(&opts.L2, "l2", eval.DefaultCalibrationL2, "ridge penalty on the weights")
	return cmd
}
