#!/bin/sh
# Hooks of two kinds taking turns: a `hook:` command for one item, a `run:` shell script for the next
# (issue #39; docs/design.md "The shell host"). Each kind needs a kept shell with its own `$0`; a supervisor
# keeps two. Prints, for each binary and round, a cold `watcher poll` of COUNT items of one local feed with
# the two kinds taking turns ("mixed") and with the command alone ("one kind"), and checks that every hook
# wrote its line once. Usage: Scripts/bench/hook-kinds.sh [COUNT] [ROUNDS] WATCHER...
set -eu
count=${1:-3000}
rounds=${2:-3}
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$count" <<'PY'
import os, sys
work, count = sys.argv[1], int(sys.argv[2])
items = "".join("<item><title>t%d %s</title><guid>g%d</guid></item>" % (i, "odd" if i % 2 else "even", i)
                for i in range(count))
open(os.path.join(work, "feed.xml"), "w").write(
    '<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>%s</channel></rss>' % items)
hook = os.path.join(work, "hook.sh")
open(hook, "w").write("#!/bin/sh\nprintf '%%s\\n' \"$1\" >> '%s/out'\n" % work)
os.chmod(hook, 0o755)
command = "hook: { command: \"printf '%%s\\\\n' \\\"$WATCHER_TITLE\\\" >> '%s/out'\" }" % work
for name, rules in (("mixed", "  - match: { title: even }\n    %s\n  - match: { title: odd }\n"
                              "    hook: { run: ['%s', '{title}'] }\n" % (command, hook)),
                    ("one", "  - match: { title: t }\n    %s\n" % command)):
    open(os.path.join(work, name + ".yaml"), "w").write(
        "settings:\n  first_poll: all\n  max_age: none\n  state_dir: %s/state\nfeeds:\n"
        "  - { url: 'file://%s/feed.xml', name: f }\nrules:\n%s" % (work, work, rules))
PY
echo "| binary | round | config | wall s | CPU s | lines written |"
echo "|---|---:|---|---:|---:|---:|"
round=1
while [ "$round" -le "$rounds" ]; do
  for watcher in "$@"; do
    for config in mixed one; do
      rm -rf "$work/state" "$work/out"
      /usr/bin/time -f "%e %U %S" -o "$work/time" "$watcher" poll --config "$work/$config.yaml" >/dev/null 2>&1
      read -r wall user sys < "$work/time"
      lines=$(sort -u "$work/out" | wc -l)
      [ "$lines" -eq "$count" ] && [ "$(wc -l < "$work/out")" -eq "$count" ] || echo "$watcher $config: $lines lines" >&2
      awk -v w="$watcher" -v r="$round" -v c="$config" -v wall="$wall" -v u="$user" -v s="$sys" -v l="$lines" \
        'BEGIN { printf "| %s | %d | %s | %s | %.2f | %s |\n", w, r, c == "one" ? "one kind" : "mixed", wall, u + s, l }'
    done
  done
  round=$((round + 1))
done
