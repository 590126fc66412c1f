// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// Writes a `ParsedFeed` in the stable `watcher parse --json` schema.
///
/// It streams through `sink` in chunks, so a 60 MB feed never needs its whole JSON in memory. The schema
/// (docs/parse-json.md):
///
/// ```
/// {"feed":{"title","link","format"},
///  "items":[{"key","id","title","link","author","categories":[],"published","updated","text","html",
///            "enclosures":[{"url","type","length"}],"image"}],
///  "warnings":["LINE:COL: message"]}
/// ```
/// Keys always appear in this order; a missing value is `null`; dates are ISO 8601 UTC to the second.
public struct FeedJSONWriter {
  private var buffer: [UInt8] = []
  private let sink: ([UInt8]) -> Void
  private let chunkSize = 1 << 16

  /// Creates a writer that hands each filled chunk to `sink`.
  public init(sink: @escaping ([UInt8]) -> Void) {
    self.sink = sink
    buffer.reserveCapacity(chunkSize + 4_096)
  }

  /// Writes the whole document, then flushes.
  public mutating func write(_ parsed: ParsedFeed) {
    raw("{\"feed\":{\"title\":")
    string(parsed.feed.title)
    raw(",\"link\":")
    string(parsed.feed.link)
    raw(",\"format\":")
    string(parsed.feed.format.rawValue)
    raw("},\"items\":[")
    for (index, item) in parsed.feed.items.enumerated() {
      if index > 0 { raw(",") }
      raw("\n{\"key\":")
      string(item.key)
      raw(",\"id\":")
      string(item.id)
      raw(",\"title\":")
      string(item.title)
      raw(",\"link\":")
      string(item.link)
      raw(",\"author\":")
      string(item.author)
      raw(",\"categories\":[")
      for (k, category) in item.categories.enumerated() {
        if k > 0 { raw(",") }
        string(category)
      }
      raw("],\"published\":")
      string(item.published.map(ISODate.format))
      raw(",\"updated\":")
      string(item.updated.map(ISODate.format))
      raw(",\"text\":")
      string(item.text)
      raw(",\"html\":")
      string(item.html)
      raw(",\"enclosures\":[")
      for (k, enclosure) in item.enclosures.enumerated() {
        if k > 0 { raw(",") }
        raw("{\"url\":")
        string(enclosure.url)
        raw(",\"type\":")
        string(enclosure.type)
        raw(",\"length\":")
        raw(enclosure.length.map(String.init) ?? "null")
        raw("}")
      }
      raw("],\"image\":")
      string(item.image)
      raw("}")
      if buffer.count >= chunkSize { flush() }
    }
    raw("\n],\"warnings\":[")
    for (index, warning) in parsed.warnings.enumerated() {
      if index > 0 { raw(",") }
      string(warning.description)
    }
    raw("]}\n")
    flush()
  }

  private mutating func flush() {
    guard !buffer.isEmpty else { return }
    sink(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  private mutating func raw(_ s: StaticString) {
    s.withUTF8Buffer { buffer.append(contentsOf: $0) }
  }

  private mutating func raw(_ s: String) {
    buffer.append(contentsOf: s.utf8)
  }

  /// Whether any byte of `word` is a C0 control character (exact even when some bytes are ≥ 0x80).
  @inline(__always)
  private func hasControl(_ word: UInt64) -> Bool {
    // Clear the high bit of every byte so the subtraction test is exact, then test < 0x20 on the bytes
    // that had no high bit.
    let low = word & 0x7F7F_7F7F_7F7F_7F7F
    let below = ((low &+ 0x6060_6060_6060_6060) & 0x8080_8080_8080_8080) ^ 0x8080_8080_8080_8080
    return below & ~word & 0x8080_8080_8080_8080 != 0
  }

  /// A JSON string (or `null`), escaping only what JSON requires; `/` is left alone.
  private mutating func string(_ value: String?) {
    guard var value else {
      raw("null")
      return
    }
    buffer.append(UInt8(ascii: "\""))
    value.withUTF8 { bytes in
      var start = 0
      var i = 0
      let n = bytes.count
      while i < n {
        // Skip eight plain bytes at a time.
        if i + 8 <= n, let base = bytes.baseAddress {
          let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
          if !hasControl(word), !ByteScanning.hasByte(word, UInt8(ascii: "\"")),
            !ByteScanning.hasByte(word, UInt8(ascii: "\\"))
          {
            i += 8
            continue
          }
        }
        let c = bytes[i]
        i += 1
        guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
        let at = i - 1
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<at]))
        switch c {
        case UInt8(ascii: "\""): buffer.append(contentsOf: [92, 34])
        case UInt8(ascii: "\\"): buffer.append(contentsOf: [92, 92])
        case 10: buffer.append(contentsOf: [92, 110])
        case 13: buffer.append(contentsOf: [92, 114])
        case 9: buffer.append(contentsOf: [92, 116])
        default:
          let hex = Array("0123456789abcdef".utf8)
          buffer.append(contentsOf: [92, 117, 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
        }
        start = i
      }
      buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<n]))
    }
    buffer.append(UInt8(ascii: "\""))
  }
}
