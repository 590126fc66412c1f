// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport

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

extension JSONValueTests {
  /// The outcome of a document: "ok" or the reader's error.
  static func outcome(_ body: () throws -> Void) -> String {
    do {
      try body()
      return "ok"
    } catch {
      return "\(error)"
    }
  }

  @Test("checking a string where it is written and reading it agree: valid, or refused with the same error")
  func checkingAgreesWithReading() {
    let pieces: [[UInt8]] = [
      Array("plain".utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\/\b\f\n\r\t"#.utf8),
      Array(#"\u00e9"#.utf8), Array(#"\ud83d\ude00"#.utf8), Array(#"\ud83d"#.utf8), Array(#"\ude00"#.utf8),
      Array(#"\ud83dx"#.utf8), Array(#"\u12"#.utf8), Array(#"\x"#.utf8), [0x01], [0xC3, 0xA9], [0xC3], [0xFF],
      [0xE2, 0x82], [0xED, 0xA0, 0x80], Array("東京".utf8), Array(String(repeating: "long text ", count: 4).utf8),
    ]
    var rng = SystemRandomNumberGenerator()
    for round in 0..<2_000 {
      var string: [UInt8] = []
      for _ in 0..<(1 + round % 5) { string += pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
      let document = Array(#"{"k": ""#.utf8) + string + Array(#"", "n": 1}"#.utf8)
      let checked = Self.outcome { try JSONReader.read(document) { try $0.skipValue() } }
      let read = Self.outcome { _ = try JSONValue.read(document) }
      #expect(checked == read, "\(document)")
    }
  }
}
