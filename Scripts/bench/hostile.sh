#!/usr/bin/env bash
# Hostile-input benchmark: time and peak RSS of `watcher parse --json` on an entity-expansion bomb
# (billion laughs), a quadratic blowup, an external-entity reference to a local file, a 100 MB title, a
# 15 MB title (under a raised cap), a truncated document and 100,000 nested elements. With strace present it
# also checks that no run opens any file but the input (and the system's libraries and locale data).
# Usage: Scripts/bench/hostile.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product watcher >/dev/null 2>&1
bin=$(pwd)/.build/release/watcher
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" <<'PY'
import sys, os
d = sys.argv[1]
lol = '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
prev = 'lol'
for i in range(2, 10):
    lol += ' <!ENTITY lol%d "%s">\n' % (i, ('&%s;' % prev) * 10); prev = 'lol%d' % i
lol += ']>\n<rss version="2.0"><channel><title>&lol9;</title><item><title>&lol9;</title><guid>1</guid></item></channel></rss>\n'
open(os.path.join(d, 'billion-laughs.xml'), 'w').write(lol)
open(os.path.join(d, 'quadratic.xml'), 'w').write(
    '<?xml version="1.0"?>\n<!DOCTYPE q [<!ENTITY a "%s">]>\n<rss version="2.0"><channel><title>q</title><item><title>%s</title><guid>1</guid></item></channel></rss>\n'
    % ('x' * 100000, '&a;' * 100000))
open(os.path.join(d, 'secret.txt'), 'w').write('TOPSECRET\n')
open(os.path.join(d, 'xxe.xml'), 'w').write(
    '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM "file://%s/secret.txt"><!ENTITY %% pe SYSTEM "file://%s/secret.txt"> %%pe;]>\n'
    '<rss version="2.0"><channel><title>xxe</title><item><title>&xxe;</title><guid>1</guid></item></channel></rss>\n' % (d, d))
for name, size in (('title-100mb.xml', 100), ('title-15mb.xml', 15)):
    with open(os.path.join(d, name), 'w') as f:
        f.write('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>big</title><item><title>')
        for _ in range(size): f.write('A' * 1000000)
        f.write('</title><guid>1</guid></item></channel></rss>\n')
open(os.path.join(d, 'truncated.xml'), 'w').write('<rss version="2.0"><channel><title>t</title><item><title>one</title><guid>1</guid></item><item><title>cut')
open(os.path.join(d, 'deep.xml'), 'w').write('<rss><channel><item><title>deep</title>' + '<x>' * 100000 + '</x>' * 100000 + '</item></channel></rss>')
PY
printf "%-20s %8s %10s %6s  %s\n" input seconds "peak RSS" exit "result"
for name in billion-laughs quadratic xxe title-100mb title-15mb truncated deep; do
  args=(parse --json)
  [ "$name" = title-15mb ] && args+=(--max-size 30000000)
  read -r secs kb code <<<"$(python3 - "$dir" "$bin" "${args[@]}" "$dir/$name.xml" <<'PY'
import os, subprocess, sys, time
d, cmd = sys.argv[1], sys.argv[2:]
with open(os.path.join(d, "out.json"), "wb") as out, open(os.path.join(d, "err"), "wb") as err:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=out, stderr=err)
    _, status, ru = os.wait4(p.pid, 0)
    print("%.3f %d %d" % (time.perf_counter() - t, ru.ru_maxrss, os.waitstatus_to_exitcode(status)))
PY
)"
  result="items=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["items"]))' "$dir/out.json" 2>/dev/null || echo -)"
  grep -q TOPSECRET "$dir/out.json" && result="$result LEAKED-FILE-CONTENT"
  [ "$code" -ne 0 ] && result="$(head -c 80 "$dir/err")"
  printf "%-20s %8s %8s MB %6s  %s\n" "$name" "$secs" "$((kb / 1024))" "$code" "$result"
done
if command -v strace >/dev/null; then
  strace -f -e trace=open,openat -o "$dir/trace" "$bin" parse --json "$dir/xxe.xml" >/dev/null 2>&1 || true
  if grep -q secret.txt "$dir/trace"; then echo "FAIL: the XXE document made watcher open secret.txt"; exit 1; fi
  echo "strace: parsing xxe.xml opened no file but the input (secret.txt never opened)"
fi
