#!/usr/bin/env bash
# Article extraction quality on an evaluation set (see extract-quality.py for the metric and the layouts):
#   Scripts/bench/extract-quality.sh PATH [WATCHER] [--worst N]
# WATCHER defaults to the release binary (.build-static/release/watcher, built when missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 PATH [WATCHER] [--worst N]" >&2; exit 64; }
if [ $# -lt 2 ] || [[ $2 == --* ]]; then
  [ -x .build-static/release/watcher ] || Scripts/build-static.sh
fi
exec python3 Scripts/bench/extract-quality.py "$@"
