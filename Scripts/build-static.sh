#!/usr/bin/env bash
# Builds the release binary that the quick start, `make install` and `make deb` all use, once:
# .build-static/release/watcher, with the Swift runtime linked in (--static-swift-stdlib), so it runs without
# the toolchain. Prints each module as SwiftPM starts compiling it, with the time so far (a release build
# compiles a module in one step, so SwiftPM's own [n/m] counts say little); warnings and errors as they come.
set -euo pipefail
cd "$(dirname "$0")/.."
# SwiftPM's incremental release build can leave a module holding another module's old code: with
# cross-module optimization a module carries the bodies it inlined from the modules it imports, and a change
# to such a body (StoryRadar.Settings.init() in WatcherRules) rebuilt WatcherRules and WatcherPoll but not
# WatcherCLI, so `watcher stories` kept the old one. The binary that ships must be the sources as they
# are: whenever they (or the compiler) differ from what the last build read, it starts from scratch.
stamp=.build-static/sources.sha256
sources=$( { swift --version 2>&1; find Package.swift Sources -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; } |
  sha256sum | cut -d" " -f1)
if [ -d .build-static ] && [ "$(cat "$stamp" 2>/dev/null)" != "$sources" ]; then
  echo "the sources changed since the last build: building from scratch" >&2
  rm -rf .build-static/*-linux-gnu* .build-static/release "$stamp"
fi
echo "building watcher (release) in .build-static: a build takes about 3 minutes on 2 cores (15 modules), the same sources again seconds" >&2
status=0
seen=" "
# lld: GNU ld warns about a mktemp that FoundationEssentials links but never calls for us.
swift build -c release --product watcher --static-swift-stdlib --scratch-path .build-static \
  -Xswiftc -use-ld=lld -Xcc -D_FORTIFY_SOURCE=2 -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now 2>&1 |
  while IFS= read -r line; do
    if [[ $line =~ ^\[[0-9]+/[0-9]+\]\ (Compiling|Linking)\ ([A-Za-z_-]+) ]]; then
      step="${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
      if [[ $seen != *" $step "* ]]; then
        seen+="$step "
        echo "  ${SECONDS}s: ${step,}" >&2
      fi
    elif [[ $line == *"error:"* || $line == *"warning:"* || $line == *"note:"* && $line == /* ]]; then
      echo "$line" >&2
    fi
  done || status=$?
[ "$status" -eq 0 ] && [ -x .build-static/release/watcher ] || { echo "the build failed (above)" >&2; exit 1; }
echo "$sources" > "$stamp"
echo "built .build-static/release/watcher in ${SECONDS}s" >&2
