#!/usr/bin/env bash
# Writes the OpenDocument, RTF and legacy Word (.doc) test fixtures again
# with LibreOffice (Debian: apt-get install libreoffice-writer-nogui), from
# the shared fixtures' Word documents (../shared/fixtures/docs) and each
# package's features.html. Not run by CI: the files it writes are
# committed. LibreOffice 7.4 wrote the committed ones.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${DOCMIND_SHARED:-../shared}/fixtures/docs
command -v soffice >/dev/null || { echo "soffice not found: apt-get install libreoffice-writer-nogui" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
convert() { # convert FORMAT OUTDIR FILES...
  local fmt=$1 out=$2; shift 2
  soffice --headless -env:UserInstallation=file://"$tmp"/profile --convert-to "$fmt" --outdir "$out" "$@" >/dev/null
}
for pkg in odt rtf doc; do
  dir=formats/$pkg/testdata
  [ -d "$dir" ] || continue
  fmt=$pkg
  [ "$pkg" = odt ] && fmt=odt:writer8
  convert "$fmt" "$dir" "$shared/contract.docx" "$shared/handbook.docx" "$shared/policy.docx"
  [ -f "$dir/features.html" ] && convert "$fmt" "$dir" "$dir/features.html"
done
echo "written: formats/{odt,rtf,doc}/testdata"
