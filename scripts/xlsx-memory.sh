#!/usr/bin/env bash
# Peak memory of ingesting one large spreadsheet (issue 38, "XLSX
# memory"): for each row count, a one-sheet workbook of that many rows (6
# columns, scripts/genfixtures bigxlsx) and the same rows as CSV
# (bigcsv) are each ingested into a new index with /usr/bin/time, and the
# peak RSS, time and sections are reported. A line per file goes to
# stderr; stdout is a "measurements" report's figures ({"figures":
# [{"label", "value"}]}) for
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
declare -A first_rss
first_rows=""
for n in "${rows[@]}"; do
  for kind in xlsx csv; do
    mkdir -p "$tmp/$n-$kind"
    "$tmp/genfixtures" "big$kind" "$tmp/$n-$kind/big.$kind" "$n"
    size=$(stat -c %s "$tmp/$n-$kind/big.$kind")
    /usr/bin/time -f "%M %e %U" -o "$tmp/time" "$bin" ingest --json --index "$tmp/ix" "$tmp/$n-$kind" > "$tmp/sum.json"
    read -r rss wall user < "$tmp/time"
    sections=$(grep -o '"sections": *[0-9]*' "$tmp/sum.json" | tail -1 | grep -o '[0-9]*$')
    mb=$(( (rss + 512) / 1024 ))
    label="${kind^^} of $n rows ($(( size / 1024 )) KiB)"
    echo "$label: peak RSS $mb MB, $sections sections, $wall s wall, $user s user" >&2
    figures+=("{\"label\": \"$label, ingest peak RSS\", \"value\": \"$mb MB ($sections sections, $wall s wall, $user s CPU)\"}")
    if [ -z "${first_rss[$kind]:-}" ]; then
      first_rss[$kind]=$rss
    else
      figures+=("{\"label\": \"${kind^^}: peak RSS at $n rows against ${first_rows} rows\", \"value\": \"$(awk -v a="$rss" -v b="${first_rss[$kind]}" -v n="$n" -v m="$first_rows" 'BEGIN { printf "%.2f× for %g× the rows", a / b, n / m }')\"}")
    fi
    rm -rf "$tmp/ix" "$tmp/$n-$kind"
  done
  [ -n "$first_rows" ] || first_rows=$n
done
printf '{"figures": [%s]}\n' "$(IFS=,; echo "${figures[*]}")"
