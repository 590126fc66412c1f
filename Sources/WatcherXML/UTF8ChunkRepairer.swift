// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

internal import CWatcherXML
import FoundationEssentials
import Glibc

/// Cleans UTF-8 as it streams in, chunk by chunk, for the XML parser.
///
/// Clean chunks pass through without a copy. A chunk with invalid bytes or control characters XML forbids
/// is repaired: an invalid byte is read as windows-1252, a control character becomes a space. A bare `&`
/// (`Fish & Chips`, `?a=1&b=2`) and a reference to an entity nobody defines (`&utm;`) are escaped to `&amp;`,
/// so they stay in the text as written instead of being dropped by libxml2; inside a CDATA section or a
/// comment, where `&` is text as written, nothing is escaped (`<link><![CDATA[…?a=1&b=2]]></link>` keeps its
/// `&`). A character, reference or section marker split across two chunks is carried over. Anything before
/// the document's first `<` (a BOM, blank lines, stray text) is dropped.
package struct UTF8ChunkRepairer {
  private var carry: [UInt8] = []
  private var started = false
  /// Whether the input read so far ends in text, a CDATA section or a comment (`WATCHER_CLEAN_TEXT` …).
  private var mode = Int32(WATCHER_CLEAN_TEXT)

  package init() {}
  /// Invalid bytes met so far (each was read as windows-1252).
  package private(set) var invalidBytes = 0
  /// Ampersands that started no known reference and were escaped.
  package private(set) var escapedAmpersands = 0
  /// Whether the document had a `<` at all.
  package var sawMarkup: Bool { started }

  /// Cleans `chunk` and hands the result to `emit` (possibly in two pieces, possibly not at all).
  ///
  /// Call with `isLast` for the final chunk (which may be empty) so that a truncated character at the very end is
  /// repaired rather than carried.
  package mutating func process(_ chunk: Span<UInt8>, isLast: Bool, emit: (Span<UInt8>) -> Void) {
    chunk.withUnsafeBufferPointer { process(buffer: $0, isLast: isLast) { emit($0.span) } }
  }

  mutating func process(
    buffer chunk: UnsafeBufferPointer<UInt8>, isLast: Bool, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
  ) rethrows {
    if carry.isEmpty {
      try processJoined(chunk, isLast: isLast, emit: emit)
    } else {
      let joined = carry + Array(chunk)
      carry = []
      try joined.withUnsafeBufferPointer { try processJoined($0, isLast: isLast, emit: emit) }
    }
  }

  private mutating func processJoined(
    _ input: UnsafeBufferPointer<UInt8>, isLast: Bool, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
  ) rethrows {
    var data = input
    if !started {
      guard let lt = data.firstIndex(of: UInt8(ascii: "<")) else { return }
      started = true
      data = UnsafeBufferPointer(rebasing: data[lt...])
    }
    var end = data.count
    if !isLast {
      end = min(Self.completeLength(data), Self.decidableLength(data))
      if let base = data.baseAddress { end = min(end, watcher_clean_safe_length(base, data.count)) }
    }
    if end < data.count { carry = Array(data[end...]) }
    let body = UnsafeBufferPointer(rebasing: data[0..<end])
    guard !body.isEmpty else { return }
    try emitCleaned(body, emit: emit)
  }

  /// Emits `body` with its controls, invalid bytes and bare ampersands repaired, in one pass (a copy only when
  /// something needs repair).
  private mutating func emitCleaned(
    _ body: UnsafeBufferPointer<UInt8>, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
  ) rethrows {
    guard let base = body.baseAddress else { return }
    let n = body.count
    var at = watcher_find_unclean(base, 0, n, &mode)
    guard at < n else { return try emit(body) }
    var out: [UInt8] = []
    var start = 0
    while at < n {
      let c = base[at]
      if c == UInt8(ascii: "&"), Self.startsKnownReference(body, at: at) {
        at = watcher_find_unclean(base, at + 1, n, &mode)
        continue
      }
      if out.isEmpty { out.reserveCapacity(n + n / 16 + 64) }
      if c == UInt8(ascii: "&") {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: body[start...at]))
        out.append(contentsOf: "amp;".utf8)
        escapedAmpersands += 1
      } else {
        out.append(contentsOf: UnsafeBufferPointer(rebasing: body[start..<at]))
        if c < 0x80 {
          out.append(0x20)  // a control character XML forbids
        } else {
          invalidBytes += 1
          InputDecoder.appendUTF8(of: InputDecoder.windows1252(c), to: &out)
        }
      }
      start = at + 1
      at = watcher_find_unclean(base, start, n, &mode)
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: body[start...]))
    try out.withUnsafeBufferPointer { try emit($0) }
  }

  /// `text` with every `&` that starts no reference libxml2 can resolve written `&amp;`, as the cleaner
  /// escapes a bare `&` in text; `nil` when there is none.
  package static func escapingBareAmpersands(_ text: String) -> String? {
    // Most keys have no `&`: look before copying.
    var text = text
    guard text.withUTF8({ $0.contains(UInt8(ascii: "&")) }) else { return nil }
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    var escaped = false
    bytes.withUnsafeBufferPointer { b in
      for i in b.indices {
        out.append(b[i])
        if b[i] == UInt8(ascii: "&"), !startsKnownReference(b, at: i) {
          out.append(contentsOf: "amp;".utf8)
          escaped = true
        }
      }
    }
    return escaped ? String(decoding: out, as: UTF8.self) : nil
  }

  /// Whether the `&` at `i` starts a reference libxml2 can resolve: one `watcher_is_plain_reference` knows
  /// (`&lt;`, `&#123;`), or an HTML named entity (`&nbsp;`).
  private static func startsKnownReference(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
    guard let base = b.baseAddress else { return false }
    if watcher_is_plain_reference(base, i, b.count) != 0 { return true }
    var j = i + 1
    let n = b.count
    let nameStart = j
    while j < n, j - nameStart <= 32, isNameByte(b[j]) { j += 1 }
    guard j > nameStart, j < n, b[j] == UInt8(ascii: ";") else { return false }
    let name = UnsafeBufferPointer(rebasing: b[nameStart..<j])
    return HTMLEntities.scalar(named: String(decoding: name, as: UTF8.self)) != nil
  }

  /// The length of `data` without a trailing `&…` whose end is in the next chunk.
  private static func decidableLength(_ data: UnsafeBufferPointer<UInt8>) -> Int {
    let n = data.count
    var k = n - 1
    // A reference is at most `&` + 33 name bytes + `;`; look back that far for an unfinished one.
    while k >= 0, k >= n - 36 {
      let c = data[k]
      if c == UInt8(ascii: "&") { return k }
      if c == UInt8(ascii: ";") || c == UInt8(ascii: "<") || c == 32 || c == 10 { return n }
      k -= 1
    }
    return n
  }

  @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
  @inline(__always) private static func isNameByte(_ c: UInt8) -> Bool {
    (c | 0x20) >= 97 && (c | 0x20) <= 122 || isDigit(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
      || c == UInt8(ascii: ".") || c >= 0x80
  }

  /// The length of `data` without a multi-byte sequence that is cut off at its end.
  private static func completeLength(_ data: UnsafeBufferPointer<UInt8>) -> Int {
    let n = data.count
    var k = n - 1
    // Walk back over at most three continuation bytes to the lead byte.
    while k >= 0, k > n - 4, data[k] & 0xC0 == 0x80 { k -= 1 }
    guard k >= 0 else { return n }
    let lead = data[k]
    let needed: Int
    switch lead {
    case 0xC2...0xDF: needed = 2
    case 0xE0...0xEF: needed = 3
    case 0xF0...0xF4: needed = 4
    default: return n
    }
    return n - k < needed ? k : n
  }
}
