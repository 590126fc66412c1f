#!/bin/sh
# What a shell hook costs started as a new /bin/sh against run as a subshell of a shell already running
# (issue #39; the design of the hook path, docs/design.md "The shell host"). Both append each item's title
# to a file, as peers.py's hook does; the second is what a supervisor's host is given, without the pipes.
# Usage: Scripts/bench/shell-host.sh [COUNT] [CPUS]   (CPUS for taskset, default 0: one core)
set -eu
count=${1:-10000}
cpus=${2:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hook='printf "%s\n" "$WATCHER_TITLE" >> "$OUT"'
quoted=$(printf '%s' "$hook" | sed "s/'/'\\\\''/g")
i=0
while [ "$i" -lt "$count" ]; do
  printf "(\nexport WATCHER_TITLE='title %d'\nexec </dev/null\neval '%s'\n)\necho \$? >&3\n" "$i" "$quoted"
  i=$((i + 1))
done > "$work/host-input.sh"
measure() {  # name, command...
  name=$1
  shift
  : > "$work/out"
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@"
  lines=$(wc -l < "$work/out")
  read -r wall user sys < "$work/time"
  awk -v name="$name" -v wall="$wall" -v lines="$lines" -v u="$user" -v s="$sys" \
    'BEGIN { printf "| %s | %s | %.2f | %s |\n", name, wall, u + s, lines }'
}
export OUT="$work/out"
echo "| $count hooks on CPU(s) $cpus | wall s | CPU s | lines written |"
echo "|---|---:|---:|---:|"
measure "a new /bin/sh -c for each (xargs -P 2, the floor of peers.py)" taskset -c "$cpus" sh -c \
  "seq $count | xargs -P 2 -I{} /bin/sh -c 'WATCHER_TITLE=\"\$1\"; $quoted' sh 'title {}'"
measure "a subshell of one /bin/sh -s for each (the host)" taskset -c "$cpus" sh -c \
  "/bin/sh -s < '$work/host-input.sh' 3>/dev/null"
