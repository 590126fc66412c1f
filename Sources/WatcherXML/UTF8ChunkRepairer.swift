// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Cleans UTF-8 as it streams in, chunk by chunk, for the XML parser.
///
/// Clean chunks pass through without a copy. A chunk with invalid bytes or control characters XML forbids
/// is repaired (`InputDecoder.repairUTF8`). A bare `&` (`Fish & Chips`, `?a=1&b=2`) and a reference to an
/// entity nobody defines (`&utm;`) are escaped to `&amp;`, so they stay in the text as written instead of
/// being dropped by libxml2. A character or reference split across two chunks is carried over. Anything
/// before the document's first `<` (a BOM, blank lines, stray text) is dropped.
package struct UTF8ChunkRepairer {
  private var carry: [UInt8] = []
  private var started = false

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
  package mutating func process(
    _ chunk: UnsafeBufferPointer<UInt8>, isLast: Bool, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
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
    if !isLast { end = min(Self.completeLength(data), Self.decidableLength(data)) }
    if end < data.count { carry = Array(data[end...]) }
    let body = UnsafeBufferPointer(rebasing: data[0..<end])
    guard !body.isEmpty else { return }
    if let repaired = InputDecoder.repairUTF8(body) {
      invalidBytes += repaired.invalid
      try repaired.bytes.withUnsafeBufferPointer { try emitEscaped($0, emit: emit) }
    } else {
      try emitEscaped(body, emit: emit)
    }
  }

  /// Emits `body` with bare ampersands escaped (a copy only when there is one).
  private mutating func emitEscaped(
    _ body: UnsafeBufferPointer<UInt8>, emit: (UnsafeBufferPointer<UInt8>) throws -> Void
  ) rethrows {
    guard let first = Self.firstBareAmpersand(body, from: 0) else { return try emit(body) }
    var out: [UInt8] = []
    out.reserveCapacity(body.count + 64)
    var start = 0
    var bare: Int? = first
    while let at = bare {
      out.append(contentsOf: UnsafeBufferPointer(rebasing: body[start...at]))
      out.append(contentsOf: "amp;".utf8)
      escapedAmpersands += 1
      start = at + 1
      bare = Self.firstBareAmpersand(body, from: start)
    }
    out.append(contentsOf: UnsafeBufferPointer(rebasing: body[start...]))
    try out.withUnsafeBufferPointer { try emit($0) }
  }

  /// The offset of the first `&` at or after `from` that does not start a reference libxml2 can resolve.
  package static func firstBareAmpersand(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
    var i = from
    while let at = Self.index(of: UInt8(ascii: "&"), in: b, from: i) {
      if !startsKnownReference(b, at: at) { return at }
      i = at + 1
    }
    return nil
  }

  /// Whether the `&` at `i` starts `&#123;`, `&#x1F;`, a predefined XML entity or an HTML named entity.
  private static func startsKnownReference(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
    var j = i + 1
    let n = b.count
    guard j < n else { return false }
    // Escaped HTML is mostly `&lt;`, `&gt;`, `&amp;` and `&quot;`: compare those directly.
    if i + 4 <= n, let base = b.baseAddress {
      // As a little-endian number, "&lt;" is 0x3B746C26 and so on.
      let word = UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self))
      if word == 0x3B74_6C26 || word == 0x3B74_6726 { return true }
      if i + 5 <= n, word == 0x706D_6126, base[i + 4] == UInt8(ascii: ";") { return true }
      if i + 6 <= n, word == 0x6F75_7126, base[i + 4] == UInt8(ascii: "t"), base[i + 5] == UInt8(ascii: ";") {
        return true
      }
    }
    if b[j] == UInt8(ascii: "#") {
      j += 1
      var hex = false
      if j < n, b[j] | 0x20 == UInt8(ascii: "x") {
        hex = true
        j += 1
      }
      let digitsStart = j
      while j < n, j - digitsStart < 8, isDigit(b[j]) || (hex && isHexLetter(b[j])) { j += 1 }
      return j > digitsStart && j < n && b[j] == UInt8(ascii: ";")
    }
    let nameStart = j
    while j < n, j - nameStart <= 32, isNameByte(b[j]) { j += 1 }
    guard j > nameStart, j < n, b[j] == UInt8(ascii: ";") else { return false }
    let name = UnsafeBufferPointer(rebasing: b[nameStart..<j])
    if isPredefined(name) { return true }
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

  private static func isPredefined(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
    switch name.count {
    case 2: return (name[0] == UInt8(ascii: "l") || name[0] == UInt8(ascii: "g")) && name[1] == UInt8(ascii: "t")
    case 3: return name[0] == UInt8(ascii: "a") && name[1] == UInt8(ascii: "m") && name[2] == UInt8(ascii: "p")
    case 4:
      return name.elementsEqual("quot".utf8) || name.elementsEqual("apos".utf8)
    default: return false
    }
  }

  @inline(__always) private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
  @inline(__always) private static func isHexLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 97 && (c | 0x20) <= 102 }
  @inline(__always) private static func isNameByte(_ c: UInt8) -> Bool {
    (c | 0x20) >= 97 && (c | 0x20) <= 122 || isDigit(c) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
      || c == UInt8(ascii: ".") || c >= 0x80
  }

  /// The offset of the first `byte` at or after `from`.
  ///
  /// The corresponding C function is `memchr`.
  private static func index(of byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
    guard from < b.count, let base = b.baseAddress else { return nil }
    guard let found = memchr(base + from, Int32(byte), b.count - from) else { return nil }
    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
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
