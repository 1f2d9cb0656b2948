#!/usr/bin/env bash
# Writes the legacy Word (.doc), OpenDocument and RTF test fixtures again
# with LibreOffice (Debian: apt-get install libreoffice-writer-nogui, and
# libreoffice-calc-nogui for the .xls), from the shared fixtures' Word
# documents (../shared/fixtures/docs: contract, handbook, policy) and the
# sources kept beside each package's fixtures (features.html, zahlung.html,
# features.fodt, sample.html, revisions.docx). Not run by CI: the files it
# writes are committed. LibreOffice 7.4 wrote the committed ones.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${DOCMIND_SHARED:-../shared}/fixtures/docs
command -v soffice >/dev/null || { echo "soffice not found: apt-get install libreoffice-writer-nogui" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
convert() { # convert FILTER OUTDIR FILES...
  local filter=$1 out=$2; shift 2
  soffice --headless -env:UserInstallation=file://"$tmp"/profile --convert-to "$filter" --outdir "$out" "$@" >/dev/null
}
for pkg in doc odt rtf; do
  dir=formats/$pkg/testdata
  filter=$pkg
  [ "$pkg" = odt ] && filter=odt:writer8
  convert "$filter" "$dir" "$shared/contract.docx" "$shared/handbook.docx" "$shared/policy.docx"
  for src in "$dir"/features.html "$dir"/zahlung.html "$dir"/features.fodt "$dir"/sample.html "$dir"/revisions.docx; do
    [ -f "$src" ] && convert "$filter" "$dir" "$src"
  done
done
# a legacy Excel workbook, which the .doc reader refuses by name
printf 'Region,Budget\nEMEA,1250\n' >"$tmp/sheet.csv"
convert xls formats/doc/testdata "$tmp/sheet.csv"
echo "written: formats/{doc,odt,rtf}/testdata"
