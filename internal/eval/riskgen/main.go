// Command riskgen writes judge/risk's ragtruth_qa.go: the learned risk
// model trained on a RAGTruth QA file (eval.TrainRAGTruthQARiskModel). It
// is run by go generate in judge/risk:
//
//	go generate ./judge/risk/
//
// which runs
//
//	go run ../../internal/eval/riskgen -data ../../../shared/data/ragtruth/ragtruth_qa.jsonl -out ragtruth_qa.go
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/docmind/docmind/internal/eval"
)

func main() {
	data := flag.String("data", "", "RAGTruth QA JSONL `file` to train on")
	out := flag.String("out", "ragtruth_qa.go", "Go `file` to write")
	flag.Parse()
	if err := run(*data, *out); err != nil {
		fmt.Fprintln(os.Stderr, "riskgen:", err)
		os.Exit(1)
	}
}

func run(data, out string) error {
	if data == "" {
		return fmt.Errorf("no training data: pass -data FILE")
	}
	m, l2, err := eval.TrainRAGTruthQARiskModel(context.Background(), data)
	if err != nil {
		return err
	}
	src, err := eval.RiskModelSource(m, l2)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "riskgen: wrote %s (L2 %g, threshold %.3f)\n", out, l2, m.Threshold)
	return nil
}
