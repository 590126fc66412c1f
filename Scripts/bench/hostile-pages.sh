#!/usr/bin/env bash
# Hostile pages for full_text (issue #33): wall time, CPU seconds and peak RSS of `watcher extract` on 8 MiB
# pages built to be costly: 2.8 million empty <p>, 1.15 million <i></i>, 1.2 million "<p>a, b", an
# ordinary 8 MB article of 33,000 paragraphs, and paragraphs each nesting 250 spans around links (read up to
# HTMLTree.maxTags), and shown paragraphs each followed by a hidden part of two (each read as the rest of an
# article a button shows), and one box of 100,000 short paragraphs each beside a box with a "Subscribe" button
# (each paragraph asks what its box holds), and an article whose paragraphs each have a described picture and
# its caption beside them (each caption is checked against the description), and 90,000 quotations each
# linking to a post on a social network (each a quoted post, each link's address read). Usage: Scripts/bench/hostile-pages.sh [WATCHER]
# SIZES="1 2 4 8" builds each page at each of those sizes in MiB (default 8), to show the cost is linear.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -gt 0 ]; then bin=$1; else
  swift build -c release --product watcher >/dev/null 2>&1
  bin=$(pwd)/.build/release/watcher
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sizes=${SIZES:-8}
python3 - "$dir" $sizes <<'PY'
import os, sys
d = sys.argv[1]
for mib in map(int, sys.argv[2:]):
    limit = mib * 1024 * 1024 - 64
    sentence = '<p>' + ' '.join('word%d' % i for i in range(40)) + ', and more text here.</p>\n'
    hidden = '<p>' + ' '.join('word%d' % i for i in range(20)) + '.</p><div hidden>' + sentence * 2 + '</div>'
    flat = '<p>' + ' '.join('word%d' % i for i in range(8)) + ', more.</p><div><button>Subscribe</button></div>'
    alt = 'A picture of ' + ' '.join('thing%d' % i for i in range(8))
    pictured = sentence + '<div><div><img src=x alt="' + alt + '"></div><div>' + alt + ' less</div></div>'
    quote = '<blockquote><p>word, word, word <a href="https://twitter.com/a/status/1">d</a></p></blockquote>'
    nested = '<p>' + '<span>' * 250 + '<img src=x><a href=/a>' + 'a' * 60 + '</a><a href=/b>b</a>' + '</span>' * 250 + '</p>'
    pages = {
        'empty-p': '<p>' * (limit // 3),
        'empty-i': '<i></i>' * (1_150_000 * mib // 8),
        'comma-p': '<p>a, b' * (limit // 7),
        'article': '<article>' + sentence * (limit // len(sentence) - 1) + '</article>',
        'nested': nested * (limit // len(nested)),
        'hidden-rest': '<article>' + hidden * (limit // len(hidden) - 1) + '</article>',
        'flat-div': '<div>' + flat * (limit // len(flat) - 1) + '</div>',
        'pictured': '<article>' + pictured * (limit // len(pictured) - 1) + '</article>',
        'quotes': '<article>' + quote * (limit // len(quote) - 1) + '</article>',
    }
    suffix = '' if sys.argv[2:] == ['8'] else '-%dM' % mib
    for name, body in pages.items():
        open(os.path.join(d, name + suffix + '.html'), 'w').write('<html><body>' + body + '</body></html>')
PY
names=()
for size in $sizes; do
  for name in empty-p empty-i comma-p article nested hidden-rest flat-div pictured quotes; do
    if [ "$sizes" = 8 ]; then names+=("$name"); else names+=("$name-${size}M"); fi
  done
done
printf "%-12s %8s %8s %9s  %s\n" page wall "CPU s" "peak RSS" result
for name in "${names[@]}"; do
  python3 - "$bin" "$dir/$name.html" "$name" <<'PY'
import resource, subprocess, sys, time
binary, page, name = sys.argv[1:]
start = time.perf_counter()
p = subprocess.Popen([binary, "extract", page], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
out, err = p.communicate()
wall = time.perf_counter() - start
ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # this process's only child: the extract
result = f"{len(out)} bytes of text" if p.returncode == 0 else err.decode(errors="replace").strip().rsplit(": ", 1)[-1]
print(f"{name:<12} {wall:7.2f}s {ru.ru_utime + ru.ru_stime:7.2f}s {ru.ru_maxrss // 1024:6d} MB  {result}")
PY
done
