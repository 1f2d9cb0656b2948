#!/usr/bin/env bash
# Runs the offline evaluations that CI holds floors on, one at a time, and
# writes each one's --json report, with the command, machine, date and
# load, to benchmarks/reports/NAME.json; then rewrites BENCHMARKS.md from
# the reports (go run ./scripts/benchtable). The sets of ../shared are
# skipped when absent. About six minutes on two cores, every report
# (measured 2026-11-28).
#
#	scripts/benchmarks.sh            # every report
#	scripts/benchmarks.sh qa-contract retrieval-scifact   # only these
#
# "-test" reports run the frozen test split (--split test, see
# internal/eval/splits/README.md); the others every question of the set.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/docmind
CGO_ENABLED=0 go build -o "$bin" ./cmd/docmind
go build -o "${bin%/*}/benchtable" ./scripts/benchtable
export XDG_CACHE_HOME="${bin%/*}/cache"
mkdir -p benchmarks/reports
only=" $* "

# wanted NAME...: whether any of the reports NAME is to be written (every
# report when none were named)
wanted() {
  [ -z "${only// /}" ] && return 0
  local n
  for n; do [[ "$only" == *" $n "* ]] && return 0; done
  return 1
}

# report NAME KIND TITLE SHOWN ARGS...: runs docmind ARGS --json into the
# report, whose command reads SHOWN (temporary paths named) when not empty
report() {
  local name=$1 kind=$2 title=$3 shown=$4; shift 4
  wanted "$name" || return 0
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
report evidence-contract "eval evidence" "contract, development set" "" \
  eval evidence --docs examples/contract internal/eval/testdata/qa/contract.jsonl
report evidence-contract-heldout "eval evidence" "contract, held-out set" "" \
  eval evidence --docs examples/contract internal/eval/testdata/qa/contract_heldout.jsonl
if [ -f ../shared/data/filings/qa.jsonl ] && wanted qa-filings evidence-filings evidence-filings-test; then
  # one index for every filings report
  idx=$(mktemp -d)
  "$bin" ingest --index "$idx" ../shared/fixtures/filings > /dev/null
  report qa-filings "eval qa" "SEC filings (10 PDFs, ~1,070 pages), from the index" \
    "docmind ingest --index IDX ../shared/fixtures/filings && docmind eval qa --index IDX ../shared/data/filings/qa.jsonl --json" \
    eval qa --index "$idx" ../shared/data/filings/qa.jsonl
  report evidence-filings "eval evidence" "SEC filings (10 PDFs, ~1,070 pages), from the index" \
    "docmind ingest --index IDX ../shared/fixtures/filings && docmind eval evidence --index IDX ../shared/data/filings/qa.jsonl --json" \
    eval evidence --index "$idx" ../shared/data/filings/qa.jsonl
  report evidence-filings-test "eval evidence" "SEC filings, test split (3 of 10 filings), from the index" \
    "docmind ingest --index IDX ../shared/fixtures/filings && docmind eval evidence --index IDX ../shared/data/filings/qa.jsonl --split test --json" \
    eval evidence --index "$idx" ../shared/data/filings/qa.jsonl --split test
  rm -rf "$idx"
fi

# shared_set SET TITLE TEST_TITLE [FLAG...]: qa-SET and evidence-SET over
# every question of ../shared/data/SET, and their -test reports over its
# test split; FLAGs are eval qa's alone
shared_set() {
  local set=$1 title=$2 test_title=$3; shift 3
  local docs=../shared/data/$set/docs qa=../shared/data/$set/qa.jsonl
  [ -f "$qa" ] || return 0
  report "qa-$set" "eval qa" "$title" "" eval qa --docs "$docs" "$qa" "$@"
  report "qa-$set-test" "eval qa" "$test_title" "" eval qa --docs "$docs" "$qa" "$@" --split test
  report "evidence-$set" "eval evidence" "$title" "" eval evidence --docs "$docs" "$qa"
  report "evidence-$set-test" "eval evidence" "$test_title" "" eval evidence --docs "$docs" "$qa" --split test
}
shared_set cuad "CUAD clauses (36 contracts)" "CUAD clauses, test split (7 of 36 contracts)" --match jaccard
shared_set policyqa "PolicyQA privacy policies (30 websites)" "PolicyQA privacy policies, test split (9 of 30 websites)"

if [ -f ../shared/data/squad2/qa.jsonl ]; then
  report evidence-squad2 "eval evidence" "SQuAD 2.0, test split (every 8th question of 23 articles)" "" \
    eval evidence --docs ../shared/data/squad2/docs ../shared/data/squad2/qa.jsonl --gold ../shared/data/squad2/gold.jsonl --split test
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
