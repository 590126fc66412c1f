#!/usr/bin/env bash
# Hook throughput: one `watcher poll` that runs a /bin/sh hook for each of N new items of a local feed
# (the hook appends the title to a file, which is checked). Prints the median wall time of RUNS runs.
# Usage: Scripts/bench/hook-speed.sh [WATCHER_BIN] [N] [RUNS] [shell|run]
#   shell: hook: 'printf "%s\n" "$WATCHER_TITLE" >> out'      (one /bin/sh -c per item)
#   run:   hook: { run: [append-title, "{title}"] }             (one exec of a script per item, no -c parsing)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-.build/release/watcher}; n=${2:-2000}; runs=${3:-5}; form=${4:-shell}
[ -x "$bin" ] || swift build -c release --product watcher >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work/feed.xml" "$n" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
items = "".join("<item><title>Item %d</title><guid>g%d</guid></item>" % (i, i) for i in range(n))
open(path, "w").write('<rss version="2.0"><channel><title>F</title>%s</channel></rss>' % items)
PY
printf '#!/bin/sh\nprintf "%%s\\n" "$1" >> "%s/out"\n' "$work" > "$work/append-title"
chmod +x "$work/append-title"
if [ "$form" = run ]; then
  hook="{ run: [$work/append-title, \"{title}\"] }"
else
  hook="'printf \"%s\\n\" \"\$WATCHER_TITLE\" >> \"$work/out\"'"
fi
cat > "$work/rules.yaml" <<YAML
settings: { first_poll: all, max_age: none, max_items: 100000 }
feeds:
  - { url: $work/feed.xml, name: f }
rules:
  - { name: r, match: { title: item }, hook: $hook }
YAML
times=()
for _ in $(seq "$runs"); do
  rm -rf "$work/state" "$work/out"
  start=$(date +%s.%N)
  "$bin" poll --config "$work/rules.yaml" --state-dir "$work/state" 2>/dev/null
  end=$(date +%s.%N)
  lines=$(wc -l < "$work/out")
  [ "$lines" -eq "$n" ] || { echo "expected $n hook runs, got $lines" >&2; exit 1; }
  times+=("$(echo "$end - $start" | bc -l)")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
printf 'hooks (%s): %d in %.2f s median of %d (%.0f hooks/s), %s\n' "$form" "$n" "$median" "$runs" "$(echo "$n / $median" | bc -l)" "$bin"
