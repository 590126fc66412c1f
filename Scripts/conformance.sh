#!/usr/bin/env bash
# Parser conformance against feedparser 6.0.14 over Tests/Corpus/registry (or the paths given).
# Usage: Scripts/conformance.sh [PATHS...] [--show N]
# Builds watcher in release mode, then runs Scripts/conformance/conformance.sh (which makes a private venv
# with feedparser from PyPI on first use). docs/conformance.md explains the figures and our deliberate
# differences.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product watcher 2>&1 | grep -E "error|Build complete" >&2 || true
exec Scripts/conformance/conformance.sh .build/release/watcher "$@"
