#!/bin/sh
# The daemon at scale (issue #39): `watcher run` holding N loopback feeds under `interval: auto`, served by
# nginx with ETag and Last-Modified. Measures its first pass (every feed 200), the CPU it uses while it waits,
# a forced pass of N unchanged feeds (every one 304: `watcher poll --force`, handed to the daemon over its
# socket), and its peak RSS. CPU is the daemon's own (/proc/PID/stat), beside the pass's wall time.
# Usage: Scripts/bench/daemon-scale.sh [WATCHER] [IDLE_SECONDS] [FEEDS...]   (default: 1000 10000 feeds)
# ITEMS=50 BODY=1000 in the environment give each feed 50 items of about 1,000 bytes of escaped HTML each
# (default: 10 items of one sentence).
set -eu
watcher=$(realpath "${1:-.build-static/release/watcher}")
idle=${2:-30}
shift 2 2>/dev/null || shift $#
sizes=${*:-1000 10000}
command -v nginx >/dev/null || { echo "daemon-scale.sh: needs nginx (apt-get install nginx)" >&2; exit 1; }
ticks=$(getconf CLK_TCK)
now() { date +%s.%N; }
printf '| feeds | first pass: wall s | CPU s | peak RSS MB | idle %s s: CPU s | forced pass, all 304: wall s | CPU s | 304s | peak RSS MB | RSS after MB |\n' "$idle"
printf '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for feeds in $sizes; do
  work=$(mktemp -d)
  chmod 755 "$work"
  mkdir -p "$work/www" "$work/state" "$work/nginx"
  python3 - "$work/www" "$feeds" "${ITEMS:-10}" "${BODY:-0}" <<'PY'
import sys, datetime
out, n, count, body = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
extra = "".join("&lt;p&gt;Paragraph %d of the post, with &lt;em&gt;São Paulo&lt;/em&gt; &amp;amp; more.&lt;/p&gt;" % k
                for k in range(body // 80))
now = datetime.datetime.now(datetime.timezone.utc)
for f in range(n):
    every = [600, 3600, 6 * 3600, 86400][f % 4]
    items = "".join(
        f"<item><guid>f{f}-{i}</guid><title>Post {i} of feed {f}</title><link>https://example.org/{f}/{i}</link>"
        f"<pubDate>{(now - datetime.timedelta(seconds=i * every)).strftime('%a, %d %b %Y %H:%M:%S GMT')}</pubDate>"
        f"<description>A short summary of post {i}, as most feeds carry.{extra}</description></item>"
        for i in range(count))
    open(f"{out}/{f}.xml", "w").write(f'<?xml version="1.0"?><rss version="2.0"><channel><title>f{f}</title>{items}</channel></rss>')
PY
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat > "$work/nginx/nginx.conf" <<CONF
daemon off; worker_processes 2; pid $work/nginx/pid; error_log $work/nginx/error.log;
events { worker_connections 4096; }
http { log_format s '\$status'; access_log $work/nginx/access.log s; etag on;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx; types { application/rss+xml xml; }
  server { listen 127.0.0.1:$port; root $work/www; } }
CONF
  nginx -c "$work/nginx/nginx.conf" -p "$work" &
  server=$!
  sleep 0.5
  {
    echo "settings: { interval: auto, auto_interval: { min: 10m, max: 12h }, state_dir: $work/state }"
    echo "feeds:"
    i=0
    while [ "$i" -lt "$feeds" ]; do echo "  - { url: 'http://127.0.0.1:$port/$i.xml', name: f$i }"; i=$((i + 1)); done
  } > "$work/rules.yaml"
  start=$(now)
  "$watcher" run --config "$work/rules.yaml" 2>"$work/log" &
  daemon=$!
  cpu() { awk -v t="$ticks" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$daemon/stat"; }
  # The first pass is over when every feed has its state file.
  while [ "$(find "$work/state" -name 'feed-*' | wc -l)" -lt "$feeds" ]; do sleep 0.1; done
  first_wall=$(echo "$(now) - $start" | bc)
  sleep 2
  first_cpu=$(cpu)
  first_rss=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$daemon/status")
  sleep "$idle"
  idle_cpu=$(echo "$(cpu) - $first_cpu" | bc)
  before=$(wc -l < "$work/nginx/access.log")
  cpu0=$(cpu)
  t0=$(now)
  "$watcher" poll --all --config "$work/rules.yaml" > "$work/poll.out" 2>&1 || true
  pass_wall=$(echo "$(now) - $t0" | bc)
  pass_cpu=$(echo "$(cpu) - $cpu0" | bc)
  not_modified=$(tail -n +"$((before + 1))" "$work/nginx/access.log" | grep -c '^304$' || true)
  rss=$(awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$daemon/status")
  now_rss=$(awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$daemon/status")
  printf '| %s | %.2f | %.2f | %s | %.2f | %.2f | %.2f | %s | %s | %s |\n' "$feeds" "$first_wall" "$first_cpu" \
    "$first_rss" "$idle_cpu" "$pass_wall" "$pass_cpu" "$not_modified" "$rss" "$now_rss"
  kill "$daemon" 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  [ -n "${KEEP:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
done
