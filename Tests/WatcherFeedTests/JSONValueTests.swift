// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing

@testable import WatcherFeed

/// `JSONValue.read` (JSONReader, the fast path of JSON Feed) builds the tree `JSONDecoder` built.
@Suite("JSONValue")
struct JSONValueTests {
  static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    case (.number(let x), .number(let y)): x == y
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.object(let x), .object(let y)): x.keys == y.keys && x.allSatisfy { same($0.value, y[$0.key] ?? .null) }
    default: false
    }
  }

  @Test(
    "the reader and JSONDecoder agree: numbers, booleans, escapes, nesting, duplicate keys",
    arguments: [
      #"{"a": 1, "b": true, "c": 1.5e3, "d": -0.25, "e": null, "f": "x\u00e9\ud83d\ude00\n", "g": [1, [2, {}]]}"#,
      #"[true, false, 0, 1, "1", "true", {"k": {"k": {"k": []}}}]"#, #"{"dup": 1, "dup": 2}"#, "  \"only\"  ",
      #"{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": 12345678901234, "title": "東京"}]}"#,
    ])
  func agrees(_ text: String) throws {
    let fast = try JSONValue.read(Array(text.utf8))
    let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    #expect(Self.same(fast, decoded), "\(text)")
  }
}
