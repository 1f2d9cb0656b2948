#!/usr/bin/env bash
# Refits the offline judge's calibrated confidence and its default threshold
# (judge/calibration.go) on the development sets, each weighing the same:
#   contract   examples/contract, internal/eval/testdata/qa/contract.jsonl
#   squad2     ../shared/data/squad2: every 4th question from the 2nd
#              (disjoint from CI's every-8th-from-the-1st check)
#   filings    ../shared/fixtures/filings, ../shared/data/filings/qa.jsonl
# The held-out contract set and the rest of SQuAD 2.0 are not used.
# Usage: scripts/calibrate.sh [OUTDIR]   (reports kept in OUTDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
for f in "$shared/data/squad2/qa.jsonl" "$shared/data/filings/qa.jsonl"; do
  [ -f "$f" ] || { echo "calibrate: $f is missing (the development sets live in ../shared)" >&2; exit 1; }
done
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/docmind" ./cmd/docmind
dm="$out/docmind"
awk 'NR%4==2' "$shared/data/squad2/qa.jsonl" > "$out/squad2_dev.jsonl"
echo "calibrate: answering the development sets with --min-confidence 0 (reports in $out)" >&2
"$dm" eval qa --min-confidence 0 --json --docs examples/contract internal/eval/testdata/qa/contract.jsonl > "$out/contract.json"
"$dm" eval qa --min-confidence 0 --json --docs "$shared/data/squad2/docs" "$out/squad2_dev.jsonl" \
  --gold "$shared/data/squad2/gold.jsonl" > "$out/squad2.json"
"$dm" eval qa --min-confidence 0 --json --docs "$shared/fixtures/filings" "$shared/data/filings/qa.jsonl" > "$out/filings.json"
"$dm" eval calibrate "$out/contract.json" "$out/squad2.json" "$out/filings.json" --out judge/calibration.go
gofmt -l judge/calibration.go
echo "calibrate: judge/calibration.go written; re-run the evaluations in BENCHMARKS.md" >&2
