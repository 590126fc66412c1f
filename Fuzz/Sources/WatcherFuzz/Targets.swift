// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherFuzzing

/// The target named by `WATCHER_FUZZ_TARGET` (default `feed`); its code is `FuzzHarness` in WatcherFuzzing.
let selectedTarget =
  FuzzHarness(rawValue: ProcessInfo.processInfo.environment["WATCHER_FUZZ_TARGET"] ?? "feed") ?? .feed

/// The callback libFuzzer calls for each input.
let fuzzOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { bytes, count in
  let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
  selectedTarget.run(data)
  return 0
}
