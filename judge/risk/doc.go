// Package risk is the learned hallucination-risk model of the offline
// judge: 21 features of an assessed answer (Features, named by Names) and
// a logistic regression over them (Model, Train), set on a judge with
// judge.WithRisk. The judge computes none of it unless a model is set; the
// pipeline's default judge sets none (the evaluator does, `docmind eval
// judge`).
//
// RAGTruthQA is a model trained on the RAGTruth QA subset. Its file,
// ragtruth_qa.go, is written by go generate from the documented command
// below (it needs ../shared/data/ragtruth, about a minute):
//
//	go generate ./judge/risk/
//
// FitLogistic and BestF1Threshold are the fitting tools the evaluator
// also uses for the judge's calibrated confidence.
package risk

//go:generate go run ../../internal/eval/riskgen -data ../../../shared/data/ragtruth/ragtruth_qa.jsonl -out ragtruth_qa.go
