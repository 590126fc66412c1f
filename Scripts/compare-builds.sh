#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Compares `watcher parse --json` of two builds over every feed file under a directory, to show that a
# change to the parser changes no output (or exactly which files it changes).
# Usage: Scripts/compare-builds.sh OLD_WATCHER NEW_WATCHER DIR
set -uo pipefail
old=$1 new=$2 dir=$3
files=0 differ=0
while IFS= read -r -d '' f; do
  files=$((files + 1))
  if ! cmp -s <("$old" parse --json "$f" 2>&1) <("$new" parse --json "$f" 2>&1); then
    differ=$((differ + 1))
    echo "differs: $f"
  fi
done < <(find "$dir" -type f \( -name '*.xml' -o -name '*.rss' -o -name '*.atom' -o -name '*.rdf' \
  -o -name '*.json' -o -name '*.feed' -o -name '*.txt' \) -print0 | sort -z)
echo "$files files, $differ differ"
[ "$differ" -eq 0 ]
