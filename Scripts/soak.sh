#!/usr/bin/env bash
# Soak test (issue #7): `watcher run` for MINUTES (default 10) against a loopback server that misbehaves at
# random (Scripts/soak/server.py), with a hook that fails or hangs now and then. Writes
# soak-out/series.csv (RSS and open fds every 5 s) and prints a summary line; exits non-zero unless RSS and
# fds stay flat after warm-up, every item served reached its hook, no state file was ever invalid, and the
# daemon ran until SIGTERM. Usage: Scripts/soak.sh [MINUTES] [FEEDS]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
feeds=${2:-20}
out=${SOAK_OUT:-soak-out}
rm -rf "$out"
mkdir -p "$out"
swift build -c release --product watcher 2>&1 | grep -E "error|warning: unre" || true
test -x .build/release/watcher
python3 Scripts/soak/soak.py "$PWD/.build/release/watcher" "$PWD/$out" "$minutes" "$feeds"
