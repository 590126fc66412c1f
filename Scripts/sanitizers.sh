#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and then ThreadSanitizer, each in its own build
# directory (.build-asan, .build-tsan) so the normal build is untouched. Exit 0 only if both are clean.
#   Scripts/sanitizers.sh [address|thread]...     (default: both)
# LeakSanitizer is off: it reports XCTest's own leaks (docs/development.md). SWIFT_BACKTRACE=enable=no keeps
# Swift's crash handler from tripping ASan and burying the real stack.
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizers=("$@")
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(address thread)
status=0
for sanitizer in "${sanitizers[@]}"; do
  case "$sanitizer" in address) dir=.build-asan ;; thread) dir=.build-tsan ;; *) echo "unknown: $sanitizer" >&2; exit 64 ;; esac
  echo "== $sanitizer sanitizer: building" >&2
  start=$(date +%s)
  if ! swift build --build-tests --scratch-path "$dir" --sanitize="$sanitizer" 2>&1 | grep -E "error:|Compiling|Build complete" | tail -3 >&2; then :; fi
  log="$dir/sanitizer-tests.log"
  # The end-to-end tests run the binary built beside the tests, so it is sanitized too.
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1 \
    SWIFT_BACKTRACE=enable=no \
    swift test --skip-build --scratch-path "$dir" --sanitize="$sanitizer" > "$log" 2>&1
  rc=$?
  reports=$(grep -c -E "^(==[0-9]+==ERROR: AddressSanitizer|WARNING: ThreadSanitizer)" "$log" || true)
  summary=$(grep -E "Test run with|Executed .* tests" "$log" | tail -2 | tr '\n' ' ')
  echo "$sanitizer: exit $rc, $reports sanitizer report(s), $(( $(date +%s) - start )) s; $summary" >&2
  if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ]; then
    status=1
    grep -E -A 30 "^(==[0-9]+==ERROR: AddressSanitizer|WARNING: ThreadSanitizer)" "$log" | head -80 >&2
  fi
done
exit $status
