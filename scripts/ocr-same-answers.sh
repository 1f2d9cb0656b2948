#!/usr/bin/env bash
# Do scanned pages give the same answers as the original pages?
#
# For each page of formats/ocr/testdata (NAME-pN.scan.pdf, made by
# scripts/gen-ocr-fixtures.sh from a real filings or contract page), the
# original page is cut out of the PDF in ../shared with pdfseparate. The
# filings and CUAD questions whose evidence page is one of these pages are
# asked, offline, of an index of the original pages and of an index of the
# scans (read by OCR), with docmind eval qa; the script prints, per
# question, whether each was answered correctly and whether the two
# answers are the same text, and exits 1 when a question is answered
# correctly from an original page and not from its scan.
#   bash scripts/ocr-same-answers.sh [path/to/docmind]
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${DOCMIND_SHARED:-../shared}"
bin="${1:-}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then bin="$tmp/docmind"; go build -o "$bin" ./cmd/docmind; fi
mkdir -p "$tmp/orig" "$tmp/scan"

python3 - "$shared" "$tmp" <<'PY'
import json, os, subprocess, sys
shared, tmp = sys.argv[1], sys.argv[2]
# the pages of scripts/gen-ocr-fixtures.sh: source, page, name
pages = {
    ("BOSTONPROPERTIES_2015_10K.pdf", 6): ("fixtures/filings", "bxp-2015"),
    ("FEDEX_2023_10K.pdf", 15): ("fixtures/filings", "fedex-2023"),
    ("APPLE_2022_10K.pdf", 27): ("fixtures/filings", "apple-2022"),
    ("ArconicRolledProductsCorp_20191217_10-12B_EX-2.7_11923804_EX-2.7_Trademark_License_Agreement.pdf", 2): ("data/cuad/docs", "arconic-license"),
    ("BIOAMBERINC_04_10_2013-EX-10.34-DEVELOPMENT_AGREEMENT_1.pdf", 8): ("data/cuad/docs", "bioamber-development"),
}
orig, scan = [], []
for (src, page), (folder, name) in pages.items():
    base = f"{name}-p{page}"
    subprocess.run(["pdfseparate", "-f", str(page), "-l", str(page), os.path.join(shared, folder, src), f"{tmp}/orig/{base}.pdf"], check=True)
    subprocess.run(["cp", f"formats/ocr/testdata/{base}.scan.pdf", f"{tmp}/scan/"], check=True)
for qa in ("data/filings/qa.jsonl", "data/cuad/qa.jsonl"):
    for line in open(os.path.join(shared, qa)):
        r = json.loads(line)
        key = (r.get("source"), r.get("page"))
        if r.get("kind") != "answerable" or key not in pages:
            continue
        base = f"{pages[key][1]}-p{key[1]}"
        r["page"] = 1
        r.pop("other_pages", None)
        r.pop("printed_page", None)
        orig.append(dict(r, source=base + ".pdf"))
        scan.append(dict(r, source=base + ".scan.pdf"))
for name, rows in (("orig", orig), ("scan", scan)):
    with open(f"{tmp}/{name}.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
print(f"{len(orig)} questions over {len(pages)} pages")
PY

export DOCMIND_PROVIDER=offline
for set in orig scan; do
  /usr/bin/time -f "ingest $set: %e s wall, %U s user, %S s system, %M KiB peak RSS" "$bin" ingest --index "$tmp/ix-$set" "$tmp/$set" >/dev/null
  "$bin" eval qa --provider offline --index "$tmp/ix-$set" "$tmp/$set.jsonl" --json > "$tmp/$set.json" || true
done

python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
o = {r["id"]: r for r in json.load(open(f"{tmp}/orig.json"))["results"]}
s = {r["id"]: r for r in json.load(open(f"{tmp}/scan.json"))["results"]}
same = right_o = right_s = lost = ans_o = ans_s = 0
for id in o:
    a, b = o[id], s[id]
    eq = (a.get("answer") or "").split("(See")[0].strip() == (b.get("answer") or "").split("(See")[0].strip()
    same += eq
    ans_o += bool(a.get("answered"))
    ans_s += bool(b.get("answered"))
    right_o += bool(a.get("correct"))
    right_s += bool(b.get("correct"))
    if a.get("correct") and not b.get("correct"):
        lost += 1
    verdict = lambda r: ("right" if r.get("correct") else "wrong") if r.get("answered") else "abstained"
    print(f"{id}: original {verdict(a)}, scan {verdict(b)}, same answer text: {'yes' if eq else 'no'}")
n = len(o)
print(f"{n} questions: answered from the originals {ans_o}, from the scans {ans_s}; correct from the originals {right_o}, from the scans {right_s}; same answer text (abstentions included) {same}/{n}; right from the original but not the scan: {lost}")
sys.exit(1 if lost else 0)
PY
