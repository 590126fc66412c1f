#!/usr/bin/env bash
# Build the libFuzzer targets (ASan + coverage) and run each for a given time, seeded from the corpus and
# the test fixtures. Usage: Fuzz/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Targets: feed date config opml state digests kept journal page (default: all, one after the other). Findings land in Fuzz/artifacts/;
# copy each into Tests/Fixtures/Fuzz/<target>/ as a regression fixture (FuzzRegressionTests
# runs every file there through the same code).
set -euo pipefail
cd "$(dirname "$0")"
# The main package through a symlink named "watcher" (see Package.swift).
mkdir -p .root && ln -sfn ../.. .root/watcher
seconds=${1:-600}; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(feed date config opml state digests kept journal page)
# SwiftPM's incremental build can keep a target compiled against an older layout of a type from another
# target (docs/development.md, "Incremental builds"), so the fuzzers are always built clean.
swift package clean
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
fuzzer_lib=$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)
swift build -c release -Xswiftc -sanitize=address \
  -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
  -Xlinker "$fuzzer_lib" -Xlinker -lstdc++ 2>&1 | grep -E "error|Compiling WatcherFuzz|Build complete" || true
bin=.build/release/WatcherFuzz
test -x "$bin"
mkdir -p artifacts work
export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
for target in "${targets[@]}"; do
  mkdir -p "work/$target"
  seeds=()
  case $target in
    feed) seeds=(../Tests/Fixtures/Feeds ../Tests/Corpus/registry
                 ../Tests/Corpus/feedparser-tests) ;;
    date) seeds=(seeds/date) ;;
    config) seeds=(seeds/config ../Tests/Fixtures/Config ../Tests/WatcherCLITests/Fixtures) ;;
    opml) seeds=(seeds/opml) ;;
    state) seeds=(seeds/state) ;;
    digests | kept | journal) seeds=("seeds/$target" ../Tests/Fixtures/State/release-0fd87cd) ;;
    page) seeds=(../Tests/Fixtures/Pages/Builders) ;;
    *) echo "unknown target '$target' (feed date config opml state digests kept journal page)" >&2; exit 2 ;;
  esac
  seeds+=("../Tests/Fixtures/Fuzz/$target")
  existing=()
  for s in "${seeds[@]}"; do [ -d "$s" ] && existing+=("$s"); done
  echo "== fuzzing '$target' for ${seconds}s" >&2
  WATCHER_FUZZ_TARGET=$target "$bin" -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="artifacts/$target-" "work/$target" "${existing[@]}" 2>&1 |
    grep -E "^#[0-9]+.*(INITED|DONE)|stat::|ERROR|SUMMARY|artifact|Test unit written" | tail -20
  echo "== '$target' findings: $(find artifacts -name "$target-*" | wc -l) file(s) in Fuzz/artifacts" >&2
done
