#!/usr/bin/env bash
# Quick start: install what is missing, build watcher in release mode, and run it on the bundled default
# (offline): rules.example.yaml over the sample feeds in samples/, as a dry run that shows what each rule
# does and why. Polling, notifications and hooks come with later versions.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/packages.sh
install_watcher_packages
echo "building watcher (release)..." >&2
swift build -c release --product watcher 2>&1 | grep -E "error:|Build complete" >&2 || true
test -x .build/release/watcher
echo "== watcher check --config rules.example.yaml"
.build/release/watcher check --config rules.example.yaml
echo
echo "== watcher test-rules --config rules.example.yaml"
.build/release/watcher test-rules --config rules.example.yaml
echo
echo "watcher is at $(pwd)/.build/release/watcher; also try: .build/release/watcher parse samples/swift-blog.atom"
