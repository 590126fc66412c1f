#!/usr/bin/env bash
# Polling benchmark (issue 4): 200 feeds x 50 items on a loopback nginx; cold silent first poll,
# unchanged re-poll (all 304), re-poll with 10% new. Usage: Scripts/bench/poll-speed.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v nginx >/dev/null; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
fi
swift build -c release --product watcher >/dev/null
python3 Scripts/bench/poll-speed.py .build/release/watcher bench-out/poll --runs "${1:-3}"
