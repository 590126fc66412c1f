#!/usr/bin/env bash
# The whole test suite: the README's test command, and what .ci/run runs.
# Builds, checks formatting, runs every test (unit, fixtures with goldens, corpus robustness when
# the whole corpus in Tests/Corpus, the CLI in-process and the built binary), then fails if a golden changed.
set -euo pipefail
cd "$(dirname "$0")/.."
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
