// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport
import WatcherXML

@testable import WatcherFeed

/// A JSON document read from a file a value at a time (`JSONWindow`) reads as it does whole, whatever the
/// window's size and wherever its edges fall (inside a number, a literal, an escape, a UTF-8 sequence).
@Suite("JSON read through a window")
struct JSONWindowTests {
  /// Writes `bytes` to a scratch file and opens it.
  static func file(_ bytes: [UInt8], in directory: TemporaryDirectory) throws -> ChunkedFile {
    let path = directory.url.appendingPathComponent("doc-\(UUID().uuidString).json").path
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return try ChunkedFile(path: path)
  }

  /// The document's value read through the window: a top-level object or array walked by the window, each
  /// member or element read as a `JSONValue`; any other value read whole.
  static func windowed(_ json: inout JSONWindow) throws -> JSONValue {
    let value: JSONValue
    switch try json.peek() {
    case UInt8(ascii: "{"):
      var members: [(String, JSONValue)] = []
      try json.object { json, key in members.append((key, try json.value { try JSONValue.read(&$0) })) }
      // The first of duplicate keys counts, as in `JSONValue`.
      var object: [String: JSONValue] = [:]
      for (key, member) in members where object[key] == nil { object[key] = member }
      value = .object(object)
    case UInt8(ascii: "["):
      var elements: [JSONValue] = []
      try json.array { json in elements.append(try json.value { try JSONValue.read(&$0) }) }
      value = .array(elements)
    default:
      value = try json.value { try JSONValue.read(&$0) }
    }
    try json.finish()
    return value
  }

  static func outcome(_ body: () throws -> JSONValue) -> String {
    do { return canonical(try body()) } catch { return "refused" }
  }

  /// A value written out with its objects' keys in order, to compare two reads.
  static func canonical(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let value): "\(value)"
    case .number(let value): "\(value)"
    case .string(let value): "\"\(value)\""
    case .array(let elements): "[" + elements.map(canonical).joined(separator: ",") + "]"
    case .object(let members):
      "{" + members.sorted { $0.key < $1.key }.map { "\($0.key):\(canonical($0.value))" }.joined(separator: ",") + "}"
    }
  }

  static let pieces: [String] = [
    #"{"a": 1, "b": [true, false, null], "c": "text"}"#, #"[1.5e3, -0, 12345678901234567890]"#,
    #""caf\u00e9 \ud83d\ude00 \"q\" \\ \/""#, "\"東京 é 😀\"", #"{"deep": {"x": [[[{"y": "z"}]]]}}"#,
    "  \n\t ", #"{"k": "v", "k": "second"}"#, "123", "true", "null", #""""#, "[]", "{}",
  ]

  /// A random document: a container of the pieces above, sometimes cut short or with a byte changed.
  static func document(_ rng: inout some RandomNumberGenerator) -> [UInt8] {
    let count = Int.random(in: 0...6, using: &rng)
    let values = (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }
      .filter { !$0.allSatisfy(\.isWhitespace) }
    var text =
      Bool.random(using: &rng)
      ? "[" + values.joined(separator: ", ") + "]"
      : "{" + values.enumerated().map { "\"m\($0.offset % 3)\": \($0.element)" }.joined(separator: ",\n") + "}"
    if Int.random(in: 0..<4, using: &rng) == 0 { text = "\u{FEFF} " + text + "\n" }
    var bytes = Array(text.utf8)
    switch Int.random(in: 0..<6, using: &rng) {
    case 0 where !bytes.isEmpty: bytes.removeLast(Int.random(in: 1...min(5, bytes.count), using: &rng))
    case 1 where !bytes.isEmpty:
      bytes[Int.random(in: 0..<bytes.count, using: &rng)] =
        [0x22, 0x5C, 0xFF, 0x2C, 0x5D].randomElement(using: &rng) ?? 0
    case 2: bytes += Array(" x".utf8)
    default: break
    }
    return bytes
  }

  @Test("any document, any window size: the same value, or refused as the whole read refuses it")
  func agreesWithWhole() throws {
    let directory = try TemporaryDirectory()
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<400 {
      let bytes = Self.document(&rng)
      let whole = Self.outcome {
        try JSONValue.read(bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes[3...]) : bytes)
      }
      for chunk in [1, 2, 3, 5, 16, 1 << 20] {
        let file = try Self.file(bytes, in: directory)
        let read = Self.outcome {
          var json = try JSONWindow(file: file, limit: .max, chunk: chunk)
          return try Self.windowed(&json)
        }
        #expect(read == whole, "chunk \(chunk): \(String(decoding: bytes, as: UTF8.self))")
      }
      var memory = JSONWindow(bytes: bytes)
      #expect(Self.outcome { try Self.windowed(&memory) } == whole)
    }
  }

  @Test("nesting is counted from the document's top, as a whole read counts it", arguments: [255, 256, 257])
  func depth(_ levels: Int) throws {
    let directory = try TemporaryDirectory()
    let bytes = Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
    let whole = Self.outcome { try JSONValue.read(bytes) }
    let read = Self.outcome {
      var json = try JSONWindow(file: try Self.file(bytes, in: directory), limit: .max, chunk: 7)
      return try Self.windowed(&json)
    }
    #expect(read == whole)
    #expect((whole == "refused") == (levels > JSONReader.maxDepth))
  }

  @Test("more bytes than the limit are refused; rewinding reads the document again from its first byte")
  func limitAndRewind() throws {
    let directory = try TemporaryDirectory()
    let bytes = Array(#"{"items": [1, 2, 3], "title": "x"}"#.utf8)
    #expect(throws: JSONWindow.TooLarge.self) {
      var json = try JSONWindow(file: try Self.file(bytes, in: directory), limit: 10, chunk: 4)
      _ = try Self.windowed(&json)
    }
    var json = try JSONWindow(file: try Self.file(bytes, in: directory), limit: bytes.count, chunk: 4)
    let first = Self.canonical(try Self.windowed(&json))
    try json.rewind()
    #expect(Self.canonical(try Self.windowed(&json)) == first)
  }

  @Test("a JSON Feed read through a small window reads as the whole parse, items and warnings")
  func feedThroughSmallWindow() throws {
    let directory = try TemporaryDirectory()
    let fixtures = ["jsonfeed10", "jsonfeed11", "escaped-slashes-authors"].map {
      Fixtures.url("Feeds/json/\($0).json")
    }
    let made = Array(
      (#"{"version": "https://jsonfeed.org/version/1.1", "items": ["#
        + (0..<40).map {
          #"{"id": "\#($0)", "title": "Caf\u00e9 \#($0) 東京", "content_html": "<p>x</p>", "date_published": "bad"}"#
        }.joined(separator: ", ") + #", 7], "title": "After"}"#).utf8)
    for document in try fixtures.map({ Array(try Data(contentsOf: $0)) }) + [made] {
      let whole = try FeedParser.parse(Data(document))
      for chunk in [1, 3, 64] {
        var json = try JSONWindow(file: try Self.file(document, in: directory), limit: .max, chunk: chunk)
        var header: Feed?
        var items: [FeedItem] = []
        let warnings = try JSONFeedParser.stream(&json, header: { header = $0 }) { raw in
          items.append(JSONFeedParser.item(raw, base: header?.link))
        }
        #expect(header?.title == whole.feed.title && header?.link == whole.feed.link)
        #expect(items.count == whole.feed.items.count)
        #expect(items.map(\.title) == whole.feed.items.map(\.title))
        #expect(warnings?.map(\.message) == whole.warnings.map(\.message))
      }
    }
  }

  @Test("a file cut short between the check and the read: the items read so far and a warning, no failure")
  func fileChangedBetweenPasses() throws {
    let directory = try TemporaryDirectory()
    let path = directory.url.appendingPathComponent("feed.json").path
    let items = (0..<10).map { #"{"id": "\#($0)", "title": "Item \#($0)"}"# }.joined(separator: ", ")
    let text = #"{"version": "https://jsonfeed.org/version/1.1", "title": "T", "items": [\#(items)]}"#
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    var json = try JSONWindow(file: try ChunkedFile(path: path), limit: .max, chunk: 16)
    var titles: [String] = []
    let warnings = try JSONFeedParser.stream(
      &json,
      header: { _ in
        // Between the two passes: the file loses its second half.
        if let handle = FileHandle(forWritingAtPath: path) {
          try? handle.truncate(atOffset: UInt64(text.utf8.count / 2))
          try? handle.close()
        }
      },
      item: { titles.append(JSONFeedParser.item($0, base: nil).title ?? "") })
    #expect(!titles.isEmpty && titles.count < 10)
    #expect(titles == (0..<titles.count).map { "Item \($0)" })
    #expect(warnings?.last?.message.contains("the file changed while it was read") == true, "\(warnings ?? [])")
  }
}
