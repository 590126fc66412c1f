#!/usr/bin/env bash
# The parse benchmark on every workload of the generator (issue #70): plain, dense, mixed (CDATA-wrapped
# HTML, code blocks, CJK, urn guids), media (media:/itunes: extensions, enclosures), Atom with html content
# and Atom with xhtml content, each about 60 MB and 50,000 items. Each workload runs watcher and sfeed taking
# turns (parse-ab.py), so the CPU and wall ratios hold on a busy machine.
# Usage: Scripts/bench/parse-workloads.sh [WATCHER] [RUNS]    (default: the static release build, 5 rounds)
set -euo pipefail
cd "$(dirname "$0")/../.."
watcher=${1:-.build-static/release/watcher}
runs=${2:-5}
[ -x "$watcher" ] || Scripts/build-static.sh
mkdir -p bench-out
# sfeed reads no JSON Feed: the JSON workload is timed for watcher alone; compare it with plain RSS.
for spec in "plain rss" "dense rss" "mixed rss" "media rss" "plain atom" "plain xhtml" "plain json"; do
  set -- $spec
  feed="bench-out/workload-$1-$2.$([ "$2" = json ] && echo json || echo xml)"
  [ -s "$feed" ] || python3 Scripts/bench/gen-big-feed.py "$feed" --workload "$1" --format "$2"
  echo "## $1 ($2)"
  python3 Scripts/bench/parse-ab.py "$feed" "$watcher" --runs "$runs" | grep -v '^xmllint\|xmllint'
  echo
done
