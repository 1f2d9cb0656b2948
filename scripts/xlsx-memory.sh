#!/usr/bin/env bash
# Peak memory of ingesting one large workbook (issue 38, "XLSX memory"):
# for each row count, a one-sheet workbook of that many rows (6 columns,
# scripts/genfixtures bigxlsx) is ingested into a new index with
# /usr/bin/time, and its peak RSS, time and sections are reported. A line
# per workbook goes to stderr; stdout is a "measurements" report's
# figures ({"figures": [{"label", "value"}]}) for
#   go run ./scripts/benchtable wrap -name perf-xlsx -kind measurements ...
#   bash scripts/xlsx-memory.sh [path/to/docmind] [ROWS...]   (default 100000 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-}"
shift || true
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(100000 200000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then bin="$tmp/docmind"; go build -o "$bin" ./cmd/docmind; fi
go build -o "$tmp/genfixtures" ./scripts/genfixtures

figures=()
first_rss=""; first_rows=""
for n in "${rows[@]}"; do
  mkdir -p "$tmp/$n"
  "$tmp/genfixtures" bigxlsx "$tmp/$n/big.xlsx" "$n"
  size=$(stat -c %s "$tmp/$n/big.xlsx")
  /usr/bin/time -f "%M %e %U" -o "$tmp/time" "$bin" ingest --json --index "$tmp/ix-$n" "$tmp/$n" > "$tmp/sum.json"
  read -r rss wall user < "$tmp/time"
  sections=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sections"])' "$tmp/sum.json")
  mb=$(( (rss + 512) / 1024 ))
  echo "$n rows ($(( size / 1024 )) KiB): peak RSS $mb MB, $sections sections, $wall s wall, $user s user" >&2
  figures+=("{\"label\": \"XLSX of $n rows ($(( size / 1024 )) KiB), ingest peak RSS\", \"value\": \"$mb MB ($sections sections, $wall s wall, $user s CPU)\"}")
  if [ -z "$first_rss" ]; then first_rss=$rss; first_rows=$n; else
    ratio=$(python3 -c "print(f'{$rss/$first_rss:.2f}')")
    figures+=("{\"label\": \"peak RSS at $n rows against $first_rows rows\", \"value\": \"${ratio}× for $(python3 -c "print(f'{$n/$first_rows:g}')")× the rows\"}")
  fi
  rm -rf "$tmp/ix-$n" "$tmp/$n"
done
printf '{"figures": [%s]}\n' "$(IFS=,; echo "${figures[*]}")"
