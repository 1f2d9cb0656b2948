#!/usr/bin/env bash
# DocMind's lexical search against bleve v2.6.3, both in one process
# (scripts/benchbleve, a separate Go module: bleve is never a dependency
# of the docmind binary). Not run in CI: it takes several minutes and
# downloads bleve through the Go module proxy.
#
#  - latency: the synthetic corpus and 2,000 queries of the index
#    package's BenchmarkLexicalFloor at 100k sections (and 1M with
#    --1m: ~20 more minutes and ~3 GiB of disk), every query through both
#    engines alternately, 5 rounds; p50/p99 wall, CPU per query, ratio;
#  - SciFact (../shared/data/scifact) nDCG@10 on its own corpus
#    and with distractor paragraphs of /usr/share/doc added up to 100k
#    sections, for both engines, and the latency of its test queries.
#
# Writes the "measurements" report benchmarks/reports/perf-bleve.json and
# regenerates BENCHMARKS.md. docs/notes/bleve.md says how bleve is
# configured and what the figures were.
#
#	scripts/bench-bleve.sh [--1m]
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=100000
if [ "${1:-}" = "--1m" ]; then
  sizes=100000,1000000
fi
beir=../shared/data/scifact
if [ ! -f "$beir/corpus.jsonl" ]; then
  echo "bench-bleve: SciFact is not in $beir: the nDCG@10 comparison is skipped" >&2
  beir=
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd scripts/benchbleve && go build -o "$work/benchbleve" .)
go build -o "$work/benchtable" ./scripts/benchtable
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
start=$SECONDS
"$work/benchbleve" -sizes "$sizes" -rounds 5 -beir "${beir:+$PWD/$beir}" -distractors /usr/share/doc -total 100000 \
  -dir "$work/indexes" -figures "$work/figures.json"
mkdir -p benchmarks/reports
"$work/benchtable" wrap -name perf-bleve -kind measurements \
  -title "lexical search vs bleve v2.6.3 (BM25) in one process, $(nproc) cores" \
  -command "scripts/bench-bleve.sh${*:+ $*}" -seconds $((SECONDS - start)) -load "$load" \
  < "$work/figures.json" > benchmarks/reports/perf-bleve.json
go run ./scripts/benchtable
cat "$work/figures.json"
