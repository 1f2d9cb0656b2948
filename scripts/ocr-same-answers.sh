#!/usr/bin/env bash
# Do scanned pages give the same answers as the original pages? (issue 38)
#
# Each page of formats/ocr/testdata (NAME-pN.scan.pdf, made by
# scripts/gen-ocr-fixtures.sh from a real filings or contract page) is
# put back in its document: two PDFs NAME.pdf are made from the original
# in ../shared with poppler-utils, its first pages (up to two: the cover,
# which names the company and period; none when the PDF is encrypted,
# which pdfunite cannot merge) followed by page N, once as printed
# (original/) and once with the scan in its place (scan/, no text layer:
# read by OCR). The filings and CUAD questions whose evidence page is one
# of these pages are asked, offline, of an index of each folder (docmind
# eval qa), and scripts/ocrsame compares the answers: a person must read
# the same final answer from both — both abstain, or both answer with the
# same words (case and punctuation aside) citing the same pages — for at
# least --min-same questions (default: all), and nothing answered
# correctly from an original may be missed from its scan. It prints a line
# per question and a summary, and exits 1 otherwise.
#   bash scripts/ocr-same-answers.sh [--min-same N] [path/to/docmind]
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${DOCMIND_SHARED:-../shared}"
min_same=()
if [ "${1:-}" = "--min-same" ]; then min_same=(-min-same "$2"); shift 2; fi
bin="${1:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then bin="$tmp/docmind"; go build -o "$bin" ./cmd/docmind; fi
go build -o "$tmp/ocrsame" ./scripts/ocrsame
mkdir -p "$tmp/original" "$tmp/scan" "$tmp/pages"

# source PDF, 1-based page, short name (scripts/ocr-pages.txt)
mapfile -t pages < <(grep -v '^#' scripts/ocr-pages.txt)
for spec in "${pages[@]}"; do
  read -r src page name <<<"$spec"
  head=()
  for p in $(seq 1 $(( page - 1 < 2 ? page - 1 : 2 ))); do
    pdfseparate -f "$p" -l "$p" "$shared/$src" "$tmp/pages/$name-$p.pdf"
    head+=("$tmp/pages/$name-$p.pdf")
  done
  pdfseparate -f "$page" -l "$page" "$shared/$src" "$tmp/pages/$name-$page.pdf"
  scan="formats/ocr/testdata/$name-p$page.scan.pdf"
  if [ ${#head[@]} -gt 0 ] && pdfunite "${head[@]}" "$tmp/pages/$name-$page.pdf" "$tmp/original/$name.pdf" 2>/dev/null; then
    pdfunite "${head[@]}" "$scan" "$tmp/scan/$name.pdf"
  else
    head=()
    cp "$tmp/pages/$name-$page.pdf" "$tmp/original/$name.pdf"
    cp "$scan" "$tmp/scan/$name.pdf"
  fi
  printf '%s\t%s\t%s\t%s\n' "$(basename "$src")" "$page" "$name.pdf" $(( ${#head[@]} + 1 )) >> "$tmp/evidence.tsv"
done
"$tmp/ocrsame" questions "$shared" "$tmp/evidence.tsv" > "$tmp/questions.jsonl"

export DOCMIND_PROVIDER=offline
for set in original scan; do
  start=$SECONDS
  "$bin" ingest --index "$tmp/ix-$set" "$tmp/$set" >/dev/null 2>"$tmp/ingest-$set.log" || { cat "$tmp/ingest-$set.log"; exit 1; }
  echo "ingest $set: $(( SECONDS - start )) s"
  "$bin" eval qa --provider offline --index "$tmp/ix-$set" "$tmp/questions.jsonl" --json > "$tmp/$set.json" 2>/dev/null || true
done
"$tmp/ocrsame" compare "${min_same[@]}" "$tmp/original.json" "$tmp/scan.json"
