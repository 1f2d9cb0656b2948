package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/docmind/docmind/internal/eval"
)

func (a *app) evalRetrievalCmd() *cobra.Command {
	var dir string
	var asJSON bool
	var minNDCG float64
	opt := eval.RetrievalOptions{}
	cmd := &cobra.Command{
		Use:     "retrieval --beir DIR [flags]",
		Short:   "BM25 retrieval quality on BEIR-format data: nDCG@10 and recall@100",
		Example: `  docmind eval retrieval --beir ../shared/data/scifact --json`,
		Args:    exactArgs(0, "no arguments (use --beir DIR)"),
		RunE: func(c *cobra.Command, _ []string) error {
			if dir == "" {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("no data: pass --beir DIR")}
			}
			if opt.K1 < 0 || opt.B < 0 || opt.B > 1 {
				return usageError{cmd: cmdPath(c), err: fmt.Errorf("--k1 must be 0 or more and --b between 0 and 1, got %v and %v", opt.K1, opt.B)}
			}
			if isTerminal(a.stderr) && !asJSON {
				fmt.Fprintf(a.stderr, "indexing %s and running the %s queries...\n", dir, opt.Split)
			}
			rep, err := eval.Retrieval(c.Context(), dir, opt)
			if err != nil {
				return err
			}
			if rep.Queries == 0 {
				return fmt.Errorf("eval retrieval: %s has no query with judged documents in its %s split: nothing to measure", dir, opt.Split)
			}
			if asJSON {
				if err := writeJSON(a.stdout, rep); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.stdout, "split        %s (%d queries, %d documents)\nnDCG@10      %.4f\nrecall@100   %.4f\nBM25         k1=%.2f b=%.2f\ntime         index %.1fs, search %.2fs\n",
					rep.Split, rep.Queries, rep.Corpus, rep.NDCGAt10, rep.RecallAt100, rep.K1, rep.B, rep.IndexMS/1000, rep.SearchMS/1000)
			}
			if minNDCG > 0 && rep.NDCGAt10 < minNDCG {
				return fmt.Errorf("eval retrieval: nDCG@10 %.4f is below --min-ndcg %.4f", rep.NDCGAt10, minNDCG)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "beir", "", "BEIR-format folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)")
	f.StringVar(&opt.Split, "split", "test", "qrels split to evaluate")
	f.Float64Var(&opt.K1, "k1", 0, "BM25 k1 (default: the index's)")
	f.Float64Var(&opt.B, "b", 0, "BM25 b (default: the index's)")
	addJSONFlag(cmd, &asJSON, "the figures")
	f.Float64Var(&minNDCG, "min-ndcg", 0, "fail when nDCG@10 is lower")
	return cmd
}
