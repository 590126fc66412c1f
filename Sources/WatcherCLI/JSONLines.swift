// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherFeed

/// Items read as JSON lines on standard input, for the commands that take them (`score --jsonl`,
/// `stories --jsonl`).
enum JSONLines {
  /// The JSON objects with an `id` of JSON lines read from standard input (`score`, `stories`); a line that
  /// is not one is skipped with a warning that names it, a blank line silently.
  static func objects(_ input: Data, terminal: Terminal) -> [(id: String, value: JSONValue)] {
    var lines: [(id: String, value: JSONValue)] = []
    input.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      var start = 0
      var number = 0
      while start < bytes.count {
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        defer { start = end + 1 }
        number += 1
        let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard line.contains(where: { $0 > 0x20 }) else { continue }
        guard let value = try? JSONValue.read(line), let id = value["id"]?.stringOrNumber else {
          terminal.error("warning: line \(number): not a JSON object with an \"id\"; skipped")
          continue
        }
        lines.append((id, value))
      }
    }
    return lines
  }
}
