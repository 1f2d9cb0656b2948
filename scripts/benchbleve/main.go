// Command benchbleve compares DocMind's lexical search with bleve v2.6.3
// in one process: latency on the synthetic corpus of the index package's
// BenchmarkLexicalFloor, and nDCG@10 on a BEIR data set (SciFact) with
// distractor paragraphs added. It is a separate Go module so that bleve
// never becomes a dependency of the docmind binary; scripts/bench-bleve.sh
// runs it end to end.
//
//	cd scripts/benchbleve && go run . -figures /tmp/perf-bleve.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"
)

type figure struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

type logf func(format string, args ...any)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchbleve:", err)
		os.Exit(1)
	}
}

func run() error {
	sizes := flag.String("sizes", "100000", "comma-separated corpus sizes (sections) for the latency comparison; empty skips it")
	rounds := flag.Int("rounds", 3, "timed passes over the 2,000 queries")
	beir := flag.String("beir", "../../../shared/data/scifact", "BEIR data set for the nDCG@10 comparison; empty skips it")
	docRoot := flag.String("distractors", "/usr/share/doc", "folder whose text and .gz files give the distractor paragraphs")
	total := flag.Int("total", 100_000, "sections of the BEIR corpus with its distractors")
	dir := flag.String("dir", "", "work folder for the indexes (default: a temporary folder, removed at the end)")
	out := flag.String("figures", "", "write the figures to FILE as a measurements report body ({\"figures\": [...]})")
	var sf sciFactOptions
	flag.BoolVar(&sf.docmindOnly, "docmind-only", false, "SciFact: measure DocMind's nDCG@10 only (no bleve, no latency), e.g. to compare DocMind revisions")
	flag.StringVar(&sf.perQuery, "perquery", "", "SciFact: write DocMind's nDCG@10 per query with distractors to FILE (query id, nDCG@10, its top 10 ids comma-separated; tab-separated, one query a line)")
	flag.Float64Var(&sf.k1, "k1", 0, "SciFact: DocMind's BM25 k1 (0: index.DefaultK1)")
	flag.Float64Var(&sf.b, "b", -1, "SciFact: DocMind's BM25 b (negative: index.DefaultB)")
	flag.Float64Var(&sf.contextWeight, "context-weight", -1, "SciFact: DocMind's context field weight for the searches (negative: the index default)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	work := *dir
	if work == "" {
		tmp, err := os.MkdirTemp("", "benchbleve-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	began := time.Now()
	log := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "[%5.0fs] %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	var figs []figure
	ns, err := parseSizes(*sizes)
	if err != nil {
		return err
	}
	for _, n := range ns {
		f, err := runLexical(ctx, work, n, *rounds, log)
		if err != nil {
			return err
		}
		figs = append(figs, f...)
		printFigures(f)
	}
	if *beir != "" {
		f, err := runSciFact(ctx, work, *beir, *docRoot, *total, *rounds, sf, log)
		if err != nil {
			return err
		}
		figs = append(figs, f...)
		printFigures(f)
	}
	if *out != "" {
		data, err := json.MarshalIndent(map[string]any{"figures": figs}, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(*out, append(data, '\n'), 0o644)
	}
	return nil
}

func printFigures(figs []figure) {
	for _, f := range figs {
		fmt.Printf("%s: %s\n", f.Label, f.Value)
	}
}

func parseSizes(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(f), &n); err != nil || n < benchPerDoc {
			return nil, fmt.Errorf("-sizes: %q is not a number of sections (at least %d)", f, benchPerDoc)
		}
		ns = append(ns, n)
	}
	return ns, nil
}
