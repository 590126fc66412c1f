#!/usr/bin/env bash
# watcher against sfeed, newsboat, rss2email and feed2exec in one run (issues #8, #39): installs the peers if
# missing (Debian: sfeed, newsboat, nginx; PyPI, in a private venv: rss2email, feed2exec), builds
# watcher, generates both workloads and their big feeds, and prints a table for each (also
# bench-out/peers/table.md for the first workload, every peer; bench-out/peers-dense/table.md for the second,
# the dense one of 1.3 KB items, watcher and sfeed).
# Usage: Scripts/bench/peers.sh [RUNS] [SLOW_RUNS]   (SLOW_RUNS: rss2email, feed2exec and feedparser, default 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
slow_runs=${2:-1}
sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
missing=()
for tool in sfeed_update:sfeed newsboat:newsboat nginx:nginx xmllint:libxml2-utils curl:curl; do
  command -v "${tool%%:*}" >/dev/null || missing+=("${tool##*:}")
done
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
venv=bench-out/peers-venv
if [ ! -x "$venv/bin/r2e" ] || [ ! -x "$venv/bin/feed2exec" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q rss2email feed2exec
fi
# The binary measured is the one `make install` and the .deb install: release, with the Swift runtime and
# Foundation linked in (it starts in about half the time of a build that loads them from the toolchain).
mkdir -p bench-out
if ! make static > bench-out/build.log 2>&1; then
  grep -E "error:" bench-out/build.log >&2
  echo "peers.sh: make static failed (bench-out/build.log); nothing measured" >&2
  exit 1
fi
feed=bench-out/big-60mb.xml
[ -s "$feed" ] || python3 Scripts/bench/gen-big-feed.py "$feed"
huge=bench-out/huge-256mb.xml
[ -s "$huge" ] || python3 Scripts/bench/gen-big-feed.py "$huge" --items 210000 --target-mb 256
cap=bench-out/cap-19mb.xml
[ -s "$cap" ] || python3 Scripts/bench/gen-big-feed.py "$cap" --items 16000 --target-mb 19.5
dense=bench-out/dense-64mb.xml
[ -s "$dense" ] || python3 Scripts/bench/gen-big-feed.py "$dense" --workload dense --items 50000 --target-mb 64.5
python3 Scripts/bench/peers.py .build-static/release/watcher "$venv" bench-out/peers --runs "$runs" --slow-runs "$slow_runs" \
  --big "$feed" --huge "$huge" --cap-feed "$cap"
python3 Scripts/bench/peers.py .build-static/release/watcher "$venv" bench-out/peers-dense --runs "$runs" \
  --workload dense --tools watcher,watcher-sh-c,watcher-run,sfeed --big "$dense"
