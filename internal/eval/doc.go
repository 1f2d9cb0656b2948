// Package eval measures DocMind: how well a judge detects hallucinated
// answers on RAGTruth-format data (response- and span-level precision,
// recall and F1, with thresholds chosen by cross-validation split by
// source), and how the whole pipeline answers a question set over a folder
// of documents (answered-correctly rate, coverage, accuracy among answered
// questions, a risk–coverage curve over the judge's confidence and its
// AURC, citation page accuracy, abstention precision and recall, retries,
// LLM usage and latency). QA sets are JSONL rows (QARow) with facts and/or
// any-of answers; a SQuAD-style gold file (GoldRow, MergeGold) can supply
// the answers.
//
// Everything here works with any schema.Judge or any pipeline run function,
// so the same figures can be produced for the offline engine and for an LLM
// configuration.
package eval
