// Package schema holds DocMind's domain: the pipeline State that flows
// through the five nodes (decompose, retrieve, generate, judge, output), the
// records it carries (Decomposition, Section, Verdict), and the small
// interfaces each stage implements (Decomposer, Retriever, Generator, Judge).
//
// The JSON field names of State are a contract shared with the seed
// specification (query, decomposition, retrieved_sections,
// generated_response, judge_verdict, final_output, retry_count,
// node_history); do not rename them.
//
// Library users normally import the root package github.com/docmind/docmind,
// which re-exports these types.
package schema
