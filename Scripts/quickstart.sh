#!/usr/bin/env bash
# Quick start: install what is missing, build watcher in release mode, and run it on the bundled sample
# feeds (offline). Later versions run the full watcher (rules, notifications) on rules.example.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/packages.sh
install_watcher_packages
echo "building watcher (release)..." >&2
swift build -c release --product watcher 2>&1 | grep -E "error|Compiling watcher|Build complete" >&2 || true
test -x .build/release/watcher
for feed in samples/*.atom samples/*.rss; do
  echo "== watcher parse $feed"
  .build/release/watcher parse "$feed"
  echo
done
echo "watcher is at $(pwd)/.build/release/watcher; try: .build/release/watcher parse --json samples/swift-blog.atom"
