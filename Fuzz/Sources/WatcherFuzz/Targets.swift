// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherCore

/// One fuzz target: bytes in, no crash, no leak, no hang.
enum FuzzTarget: String {
  /// The whole feed parser: sniffing, decoding, libxml2 SAX, RSS/Atom/JSON adapters, JSON output.
  case feed
  /// The date parser alone.
  case date

  /// The target named by `WATCHER_FUZZ_TARGET` (default `feed`).
  static let selected =
    FuzzTarget(rawValue: ProcessInfo.processInfo.environment["WATCHER_FUZZ_TARGET"] ?? "feed") ?? .feed

  func run(_ data: Data) {
    switch self {
    case .feed:
      guard let parsed = try? FeedParser.parse(data, options: .init(maxBytes: 1 << 20)) else { return }
      var writer = FeedJSONWriter { _ in }
      writer.write(parsed)
    case .date:
      _ = DateParser.parse(String(decoding: data, as: UTF8.self))
    }
  }
}

/// The callback libFuzzer calls for each input.
let fuzzOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { bytes, count in
  let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
  FuzzTarget.selected.run(data)
  return 0
}
