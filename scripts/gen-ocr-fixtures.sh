#!/usr/bin/env bash
# Makes the OCR fixtures of formats/ocr/testdata from real PDF pages in
# ../shared (three filings pages, two contract pages), with Debian's
# poppler-utils and img2pdf:
#   NAME-pN.scan.pdf  the page rendered at 300 DPI (grey, JPEG) and wrapped
#                     back into a PDF with img2pdf: no text layer, as a
#                     scanner makes it;
#   NAME-pN.txt       pdftotext's text of the original page, the reference
#                     the OCR quality test compares words with;
#   bxp-2015-p5-6.mixed.pdf  a text page, then a scanned one;
#   photo.png         a contract page at 150 DPI, tilted, unevenly lit and
#                     noisy, like a photo of a page (scripts/genfixtures).
# The outputs are committed; run this again only to change them:
#   bash scripts/gen-ocr-fixtures.sh
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${DOCMIND_SHARED:-../shared}"
out=formats/ocr/testdata
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# source PDF, 1-based page, short name (scripts/ocr-pages.txt)
mapfile -t pages < <(grep -v '^#' scripts/ocr-pages.txt)
for spec in "${pages[@]}"; do
  read -r src page name <<<"$spec"
  pdftoppm -f "$page" -l "$page" -r 300 -mono -png "$shared/$src" "$tmp/$name"
  img2pdf --producer "" --nodate "$tmp/$name"*.png -o "$out/$name-p$page.scan.pdf"
  pdftotext -f "$page" -l "$page" "$shared/$src" "$out/$name-p$page.txt"
  echo "$src page $page -> $out/$name-p$page.scan.pdf"
done

# A PDF of a text page followed by a scanned one (page 5 of the BXP
# filing, then the scan of its page 6): the index notes the page that
# needed OCR (ingest/ocrstale.go).
pdfseparate -f 5 -l 5 "$shared/fixtures/filings/BOSTONPROPERTIES_2015_10K.pdf" "$tmp/bxp-p5.pdf"
pdfunite "$tmp/bxp-p5.pdf" "$out/bxp-2015-p6.scan.pdf" "$out/bxp-2015-p5-6.mixed.pdf"
echo "text page 5 + scanned page 6 -> $out/bxp-2015-p5-6.mixed.pdf"

# The photo: a contract page at 150 DPI.
pdftoppm -f 2 -l 2 -r 150 -gray -png "$shared/data/cuad/docs/ArconicRolledProductsCorp_20191217_10-12B_EX-2.7_11923804_EX-2.7_Trademark_License_Agreement.pdf" "$tmp/photo"
go run ./scripts/genfixtures photo "$tmp"/photo*.png "$out/photo.png"
echo "photo -> $out/photo.png"
ls -l "$out"
