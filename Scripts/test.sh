#!/usr/bin/env bash
# The whole test suite: the README's test command, and what .ci/run runs.
# Installs what the build and the tests need (Scripts/packages.sh; only what is missing), builds the static
# release binary that the quick start, `make install` and the package ship, and runs every end-to-end test on
# it (WATCHER_TEST_BINARY); checks formatting, runs every test (unit, fixtures with goldens, corpus robustness
# when the whole corpus is in Tests/Corpus, the CLI in-process and the built binary), then fails if a golden
# changed.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/packages.sh
install_watcher_packages test
Scripts/build-static.sh
export WATCHER_TEST_BINARY="$PWD/.build-static/release/watcher"
WATCHER_MCP_PYTHON=$(install_mcp_client)
export WATCHER_MCP_PYTHON
swift build 2>&1 | grep -v "warning: 'main': Source files for target" || true
test "${PIPESTATUS[0]}" -eq 0
swift format lint --strict -r Sources Tests Package.swift
before=$( [ -d .git ] && git status --porcelain -- Tests || true)
swift test 2>&1 | grep -v "^\s*$"
status=${PIPESTATUS[0]}
after=$( [ -d .git ] && git status --porcelain -- Tests || true)
if [ "$before" != "$after" ]; then
  echo "error: the tests changed files under Tests/ (goldens rewritten?): review with git diff -- Tests" >&2
  exit 1
fi
exit "$status"
