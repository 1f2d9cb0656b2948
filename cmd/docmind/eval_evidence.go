package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/eval"
	"github.com/docmind/docmind/internal/eval/splits"
)

func (a *app) evalEvidenceCmd() *cobra.Command {
	var pf pipelineFlags
	var split string
	c := evidenceEval{}
	cmd := &cobra.Command{
		Use:   "evidence [--docs DIR | --index DIR | --store URL] FILE.jsonl [flags]",
		Short: "Evidence recall: does retrieval hand on the section that answers (at k = 1, 3, 5, 10, 20), and the right document",
		Long: `Measures retrieval alone on a QA set (the rows of "docmind eval qa"): for
every answerable question that says where its evidence is, whether the
sections retrieval finds hold it.

A section is evidence when it is from the row's source document and
  covers the row's page or one of its other_pages (the section's page
  through its last page), or
  holds one of the row's answers (words compared lower-cased, punctuation
  and spacing ignored, numbers normalised as eval qa does).
With --gold (a SQuAD-style gold file, as for eval qa), a row whose gold row
names a doc and a paragraph has that paragraph as its evidence: the section
titled "Paragraph N" of that document. Facts are not evidence (a number or a
name alone is found in many sections). Unanswerable rows and rows with no
page, answers or gold paragraph are skipped. --split dev|test keeps the
questions of one frozen split (see "eval qa --help").

Each question runs through the configured pipeline twice:
  first pass  the pipeline's own retrieval (speller, decomposition,
              retriever) asked for 20 sections instead of the at most 5
              it hands on (10 to a model that writes the answer); recall
              at k = 1, 3, 5, 10, 20 is the share of questions with
              evidence (or a section of the right document) in its first k
  a real run  the whole pipeline as "eval qa" runs it: handed_on is the
              first pass as it was handed to the generator, any_pass every
              retrieval pass of the run (retries too)
A question whose run fails counts as a miss (errors; the table names the
first failure). When every question fails (a rejected key, a server that is
down) there is no figure: the command fails (exit 1) with that error. With an
LLM the first pass costs one more decomposition call a question, and a model
that reads the question differently the second time makes the two runs
differ.

--json prints {questions, measured, skipped, depth, first_pass [{k,
evidence, document}], handed_on {evidence, document}, any_pass {evidence,
document}, mean_passes, errors, by_type {TYPE: {questions, at_5, at_20,
handed_on}} (rows with a type tag), results [{id, question, source, type,
evidence_rank, document_rank, handed_on, handed_on_document, any_pass,
any_pass_document, passes, error}]}: ranks are 1-based in the first pass's
20, 0 when absent.

Progress goes to stderr: one redrawn line on a terminal, a line per
question otherwise (none with --json unless on a terminal). The --min-*
flags fail the command (exit 1, one line naming the figure) when a figure
is lower.`,
		Example: `  docmind eval evidence --docs examples/contract internal/eval/testdata/qa/contract.jsonl
  docmind eval evidence --docs ../shared/data/squad2/docs ../shared/data/squad2/qa.jsonl --gold ../shared/data/squad2/gold.jsonl --json
  docmind ingest --index /tmp/fidx ../shared/fixtures/filings && docmind eval evidence --index /tmp/fidx ../shared/data/filings/qa.jsonl --min-recall-at-5 0.85`,
		Args: exactArgs(1, "one question file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
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
			c.Probe = eval.PipelineEvidence(p.Runner(), pf.runContext)
			c.Stdout = a.stdout
			switch {
			case isTerminal(a.stderr):
				c.Progress, c.Redraw = a.stderr, true
			case !c.JSON:
				c.Progress = a.stderr
			}
			_, err = c.Run(cmd.Context())
			return err
		},
	}
	pf.register(cmd)
	f := cmd.Flags()
	addJSONFlag(cmd, &c.JSON, "the figures")
	splitFlag(cmd, &split)
	f.StringVar(&c.Gold, "gold", "", "SQuAD-style gold `FILE`: a row's gold paragraph (doc, paragraph) is its evidence")
	f.Float64Var(&c.MinRecallAt1, "min-recall-at-1", 0, "fail when first-pass evidence recall at 1 is lower")
	f.Float64Var(&c.MinRecallAt5, "min-recall-at-5", 0, "fail when first-pass evidence recall at 5 is lower")
	f.Float64Var(&c.MinRecallAt20, "min-recall-at-20", 0, "fail when first-pass evidence recall at 20 is lower")
	f.Float64Var(&c.MinDocumentAt5, "min-document-at-5", 0, "fail when the share of questions with a section of the right document in the first pass's 5 is lower")
	f.Float64Var(&c.MinAnyPass, "min-any-pass", 0, "fail when evidence recall over every pass of the real run is lower")
	return cmd
}

// evidenceEval is what `docmind eval evidence` runs.
type evidenceEval struct {
	File string
	// Gold, when set, is a SQuAD-style gold file whose paragraphs are the
	// evidence.
	Gold string
	// Split selects the questions of a frozen split.
	Split splits.Split
	Probe eval.EvidenceFunc
	JSON  bool
	// Thresholds (0 = not checked).
	MinRecallAt1, MinRecallAt5, MinRecallAt20 float64
	MinDocumentAt5, MinAnyPass                float64
	Stdout                                    io.Writer
	// Progress, when not nil, receives progress: a redrawn line when
	// Redraw, a line per question otherwise.
	Progress io.Writer
	Redraw   bool
}

// Run loads the QA set (and the gold file), runs retrieval for every
// question with evidence, prints the report and checks the thresholds (a
// *thresholdError when one is missed).
func (c evidenceEval) Run(ctx context.Context) (*eval.EvidenceReport, error) {
	rows, err := loadQASplit(c.File, c.Split)
	if err != nil {
		return nil, err
	}
	var gold map[string]eval.GoldRow
	if c.Gold != "" {
		if gold, err = eval.LoadGold(c.Gold); err != nil {
			return nil, err
		}
	}
	var opts eval.EvidenceOptions
	if w := c.Progress; w != nil {
		opts.Progress = func(done, total int, r eval.EvidenceResult) {
			if c.Redraw {
				fmt.Fprintf(w, "\revidence %d/%d %-12s", done, total, r.ID)
				if done == total {
					fmt.Fprintf(w, "\r%-40s\r", "")
				}
				return
			}
			fmt.Fprintf(w, "evidence %d/%d %s: evidence rank %d, document rank %d\n", done, total, r.ID, r.EvidenceRank, r.DocumentRank)
		}
	}
	rep, err := eval.RunEvidence(ctx, c.Probe, rows, eval.EvidenceTargets(rows, gold), opts)
	if err != nil {
		return nil, err
	}
	if failed, first := failures(rep.Results, func(r eval.EvidenceResult) string { return r.Err }); failed > 0 && failed == len(rep.Results) {
		// Nothing was retrieved (a rejected key, a server that is down):
		// the figures would be those of a retriever that found nothing.
		return nil, fmt.Errorf("eval evidence: every question failed (%d of %d): %s", failed, failed, first)
	}
	if err := writeReport(c.Stdout, c.JSON, rep, func(w io.Writer) error { return writeEvidenceTable(w, rep) }); err != nil {
		return rep, fmt.Errorf("eval evidence: %w", err)
	}
	at := func(k int) eval.RecallAt { r, _ := rep.At(k); return r }
	var miss minChecks
	miss.check("evidence recall@1", "min-recall-at-1", at(1).Evidence, c.MinRecallAt1)
	miss.check("evidence recall@5", "min-recall-at-5", at(5).Evidence, c.MinRecallAt5)
	miss.check("evidence recall@20", "min-recall-at-20", at(20).Evidence, c.MinRecallAt20)
	miss.check("document recall@5", "min-document-at-5", at(5).Document, c.MinDocumentAt5)
	miss.check("evidence recall over every pass", "min-any-pass", rep.AnyPass.Evidence, c.MinAnyPass)
	return rep, miss.err()
}

// writeEvidenceTable prints the evidence report: recall at each k, the
// real run's, and the questions whose evidence the first pass did not hand
// on, with where it was.
func writeEvidenceTable(w io.Writer, rep *eval.EvidenceReport) error {
	fmt.Fprintf(w, "questions %d: %d with evidence to find, %d skipped (unanswerable or not located)\n\n", rep.Questions, rep.Measured, rep.Skipped)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "retrieval\tevidence\tdocument\t")
	for _, p := range rep.FirstPass {
		fmt.Fprintf(tw, "first pass @%d\t%.3f\t%.3f\t\n", p.K, p.Evidence, p.Document)
	}
	fmt.Fprintf(tw, "handed on (first pass)\t%.3f\t%.3f\t\n", rep.HandedOn.Evidence, rep.HandedOn.Document)
	fmt.Fprintf(tw, "any pass (%.2f passes)\t%.3f\t%.3f\t\n", rep.MeanPasses, rep.AnyPass.Evidence, rep.AnyPass.Document)
	if err := tw.Flush(); err != nil {
		return err
	}
	if failed, first := failures(rep.Results, func(r eval.EvidenceResult) string { return r.Err }); failed > 0 {
		fmt.Fprintf(w, "errors: %d of %d questions failed, counted as misses (first: %s)\n", failed, rep.Measured, first)
	}
	if len(rep.ByType) > 0 {
		fmt.Fprintln(w, "\nby type:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "type\tquestions\t@5\t@20\thanded on\t")
		for _, t := range slices.Sorted(maps.Keys(rep.ByType)) {
			r := rep.ByType[t]
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", t, r.Questions, r.At5, r.At20, r.HandedOn)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	first := true
	for _, r := range rep.Results {
		why := r.EvidenceMiss()
		if why == "" {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nno evidence handed on by the first pass:")
			first = false
		}
		fmt.Fprintf(w, "  %s  %s — %s\n", r.ID, r.Question, why)
	}
	return nil
}
