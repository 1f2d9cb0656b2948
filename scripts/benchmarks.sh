#!/usr/bin/env bash
# Runs the offline evaluations that CI holds floors on, one at a time, and
# writes each one's --json report, with the command, machine, date and
# load, to benchmarks/reports/NAME.json; then rewrites BENCHMARKS.md from
# the reports (go run ./scripts/benchtable). The sets of ../shared are
# skipped when absent. About ten minutes on two cores.
#
#	scripts/benchmarks.sh            # every report
#	scripts/benchmarks.sh qa-contract retrieval-scifact   # only these
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/docmind
CGO_ENABLED=0 go build -o "$bin" ./cmd/docmind
go build -o "${bin%/*}/benchtable" ./scripts/benchtable
export XDG_CACHE_HOME="${bin%/*}/cache"
mkdir -p benchmarks/reports
only=" $* "

# report NAME KIND TITLE SHOWN ARGS...: runs docmind ARGS --json into the
# report, whose command reads SHOWN (temporary paths named) when not empty
report() {
  local name=$1 kind=$2 title=$3 shown=$4; shift 4
  if [ -n "${only// /}" ] && [[ "$only" != *" $name "* ]]; then return; fi
  local load start raw
  load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
  raw=$(mktemp)
  echo "== $name: docmind $*" >&2
  start=$SECONDS
  "$bin" "$@" --json > "$raw" || [ $? -eq 3 ]
  "${bin%/*}/benchtable" wrap -name "$name" -kind "$kind" -title "$title" -command "${shown:-docmind $* --json}" \
    -seconds $((SECONDS - start)) -load "$load" < "$raw" > "benchmarks/reports/$name.json"
  rm -f "$raw"
}

report qa-contract "eval qa" "contract, development set (55 questions)" "" \
  eval qa --docs examples/contract internal/eval/testdata/qa/contract.jsonl
report qa-contract-heldout "eval qa" "contract, held-out set" "" \
  eval qa --docs examples/contract internal/eval/testdata/qa/contract_heldout.jsonl
if [ -f ../shared/data/filings/qa.jsonl ]; then
  idx=$(mktemp -d)
  "$bin" ingest --index "$idx" ../shared/fixtures/filings > /dev/null
  report qa-filings "eval qa" "SEC filings (10 PDFs, ~1,070 pages), from the index" \
    "docmind ingest --index IDX ../shared/fixtures/filings && docmind eval qa --index IDX ../shared/data/filings/qa.jsonl --json" \
    eval qa --index "$idx" ../shared/data/filings/qa.jsonl
  rm -rf "$idx"
fi
if [ -f ../shared/data/squad2/qa.jsonl ]; then
  sq=$(mktemp --suffix=.jsonl)
  awk 'NR%8==1' ../shared/data/squad2/qa.jsonl > "$sq"
  report qa-squad2-every8th "eval qa" "SQuAD 2.0, every 8th question of 23 articles" \
    "awk 'NR%8==1' ../shared/data/squad2/qa.jsonl > Q.jsonl && docmind eval qa --docs ../shared/data/squad2/docs Q.jsonl --gold ../shared/data/squad2/gold.jsonl --json" \
    eval qa --docs ../shared/data/squad2/docs "$sq" --gold ../shared/data/squad2/gold.jsonl
  rm -f "$sq"
  report relevance-squad2 "eval relevance" "SQuAD 2.0 gold sentences and their distractors" "" \
    eval relevance --docs ../shared/data/squad2/docs --gold ../shared/data/squad2/gold.jsonl --min-confidence 0
fi
if [ -f ../shared/data/ragtruth/ragtruth_qa.jsonl ]; then
  report judge-ragtruth-qa "eval judge" "RAGTruth QA responses" "" \
    eval judge --ragtruth ../shared/data/ragtruth/ragtruth_qa.jsonl
fi
if [ -f ../shared/data/scifact/corpus.jsonl ]; then
  report retrieval-scifact "eval retrieval" "BEIR SciFact (test split)" "" \
    eval retrieval --beir ../shared/data/scifact
fi
go run ./scripts/benchtable
rm -rf "${bin%/*}"
