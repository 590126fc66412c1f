#!/usr/bin/env bash
# Parse-speed benchmark (issue 2): generate a 60 MB, 50,000-item RSS 2.0 feed, then time
# `watcher parse --json` beside `xmllint --stream --noout` and `sfeed < file` in the same run.
# Usage: Scripts/bench/parse-speed.sh [RUNS]     (installs libxml2-utils and sfeed if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
missing=()
command -v xmllint >/dev/null || missing+=(libxml2-utils)
command -v sfeed >/dev/null || missing+=(sfeed)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
swift build -c release --product watcher >/dev/null
mkdir -p bench-out
feed=bench-out/big-60mb.xml
[ -s "$feed" ] || python3 Scripts/bench/gen-big-feed.py "$feed"
floor=()
if command -v gcc >/dev/null; then
  gcc -O2 -o bench-out/sax-floor Scripts/bench/sax-floor.c $(pkg-config --cflags --libs libxml-2.0) && floor=(--floor bench-out/sax-floor)
fi
python3 Scripts/bench/parse-speed.py .build/release/watcher "$feed" --runs "$runs" "${floor[@]}"
