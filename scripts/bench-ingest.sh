#!/usr/bin/env bash
# PDF ingest against pdftotext (poppler-utils), both on the same files in
# one run: docmind ingests ../shared/fixtures/filings (ten SEC filings,
# ~1,070 pages) into a new index, then pdftotext converts the same files
# with 2 jobs at a time (scripts/benchingest says exactly what is timed).
# Writes the "measurements" report benchmarks/reports/perf-ingest.json
# (pages/s ratio and peak RSS of each) and regenerates BENCHMARKS.md.
# About two minutes on two cores. Skipped, with a line saying so, when
# pdftotext or the filings are absent.
#
#	scripts/bench-ingest.sh [FOLDER]
set -euo pipefail
cd "$(dirname "$0")/.."
docs=${1:-../shared/fixtures/filings}
if ! command -v pdftotext > /dev/null; then
  echo "bench-ingest: skipped: pdftotext is not installed (apt-get install poppler-utils)" >&2
  exit 0
fi
if ! compgen -G "$docs/*.pdf" > /dev/null; then
  echo "bench-ingest: skipped: no PDF files in $docs" >&2
  exit 0
fi
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -o "$bin/docmind" ./cmd/docmind
go build -o "$bin/benchingest" ./scripts/benchingest
go build -o "$bin/benchtable" ./scripts/benchtable
export XDG_CACHE_HOME="$bin/cache" # PDFium compiled afresh, then cached for the timed run
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)
start=$SECONDS
"$bin/benchingest" -docmind "$bin/docmind" -jobs 2 "$docs" > "$bin/figures.json"
mkdir -p benchmarks/reports
"$bin/benchtable" wrap -name perf-ingest -kind measurements \
  -title "PDF ingest vs pdftotext, 2 jobs each, $(nproc) cores ($docs)" \
  -command "scripts/bench-ingest.sh${*:+ $*}" -seconds $((SECONDS - start)) -load "$load" \
  < "$bin/figures.json" > benchmarks/reports/perf-ingest.json
go run ./scripts/benchtable
cat "$bin/figures.json"
