#!/usr/bin/env bash
# Refits the offline decision model and its default threshold
# (judge/calibration.go) on the dev parts of the development sets, each set
# weighing the same (internal/eval/splits; no test-split row is read):
#   contract   examples/contract, internal/eval/testdata/qa/contract.jsonl
#   cuad       ../shared/data/cuad, --split dev (scored --match jaccard)
#   policyqa   ../shared/data/policyqa, --split dev
#   filings    ../shared/fixtures/filings, ../shared/data/filings, --split dev
#   squad2     ../shared/data/squad2: every 4th question from the 2nd (dev)
# The threshold has the highest mean utility over the sets, a right answer
# worth 1 and a wrong one costing 1 (refusing a right draft loses what
# answering a wrong one costs); the leave-one-domain-out figures (domains:
# contracts = contract + cuad, policyqa, filings, squad2) are printed
# beside. See docs/decision.md.
# Usage: scripts/calibrate.sh [OUTDIR]   (reports kept in OUTDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
for d in squad2 filings cuad policyqa; do
  [ -f "$shared/data/$d/qa.jsonl" ] || { echo "calibrate: $shared/data/$d/qa.jsonl is missing (the development sets live in ../shared)" >&2; exit 1; }
done
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/docmind" ./cmd/docmind
dm="$out/docmind"
awk 'NR%4==2' "$shared/data/squad2/qa.jsonl" > "$out/squad2_dev.jsonl"
echo "calibrate: answering the dev splits with --min-confidence 0 (reports in $out)" >&2
"$dm" eval qa --min-confidence 0 --json --docs examples/contract internal/eval/testdata/qa/contract.jsonl > "$out/contract.json"
"$dm" eval qa --min-confidence 0 --json --split dev --match jaccard --docs "$shared/data/cuad/docs" "$shared/data/cuad/qa.jsonl" > "$out/cuad.json"
"$dm" eval qa --min-confidence 0 --json --split dev --docs "$shared/data/policyqa/docs" "$shared/data/policyqa/qa.jsonl" > "$out/policyqa.json"
"$dm" eval qa --min-confidence 0 --json --split dev --docs "$shared/fixtures/filings" "$shared/data/filings/qa.jsonl" > "$out/filings.json"
"$dm" eval qa --min-confidence 0 --json --docs "$shared/data/squad2/docs" "$out/squad2_dev.jsonl" \
  --gold "$shared/data/squad2/gold.jsonl" > "$out/squad2.json"
"$dm" eval calibrate "$out/contract.json" "$out/cuad.json" "$out/policyqa.json" "$out/filings.json" "$out/squad2.json" \
  --domain contracts=contract,cuad --wrong-cost 1 --out judge/calibration.go
gofmt -l judge/calibration.go
echo "calibrate: judge/calibration.go written; re-run the evaluations (docs/decision.md)" >&2
