#!/bin/sh
# The daemon with N loopback feeds under `interval: auto`: its first pass, then the CPU it uses while it
# waits for the next (the target is none), and its peak RSS.
# Usage: Scripts/bench/daemon-idle.sh [FEEDS] [IDLE_SECONDS] [WATCHER]
set -eu
feeds=${1:-1000}
idle=${2:-60}
watcher=${3:-.build/release/watcher}
work=$(mktemp -d)
trap 'kill $server $daemon 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/www" "$work/state"
python3 - "$work/www" "$feeds" <<'PY'
import sys, datetime
out, n = sys.argv[1], int(sys.argv[2])
now = datetime.datetime.now(datetime.timezone.utc)
for f in range(n):
    every = [600, 3600, 6 * 3600, 86400][f % 4]
    items = "".join(
        f"<item><guid>f{f}-{i}</guid><title>Post {i} of feed {f}</title><link>https://example.org/{f}/{i}</link>"
        f"<pubDate>{(now - datetime.timedelta(seconds=i * every)).strftime('%a, %d %b %Y %H:%M:%S GMT')}</pubDate></item>"
        for i in range(10))
    open(f"{out}/{f}.xml", "w").write(f'<?xml version="1.0"?><rss version="2.0"><channel><title>f{f}</title>{items}</channel></rss>')
PY
port=$((20000 + $$ % 20000))
(cd "$work/www" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
sleep 1
{
  echo "settings: { interval: auto, auto_interval: { min: 10m, max: 12h } }"
  echo "feeds:"
  i=0
  while [ "$i" -lt "$feeds" ]; do echo "  - url: http://127.0.0.1:$port/$i.xml"; i=$((i + 1)); done
} > "$work/rules.yaml"
start=$(date +%s.%N)
"$watcher" run --config "$work/rules.yaml" --state-dir "$work/state" 2>"$work/log" &
daemon=$!
while [ "$(ls "$work/state" | grep -c '^feed-')" -lt "$feeds" ]; do sleep 0.2; done
sleep 3
ticks=$(getconf CLK_TCK)
cpu() { awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$daemon/stat"; }
first=$(cpu)
pass=$(echo "$(date +%s.%N) - $start - 3" | bc)
sleep "$idle"
after=$(cpu)
rss=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$daemon/status")
echo "feeds $feeds: first pass within ${pass} s wall, ${first} s CPU; idle ${idle} s: $(echo "$after - $first" | bc) s CPU; peak RSS ${rss} MB"
grep -m1 "watching" "$work/log" | cut -c1-160 || true
