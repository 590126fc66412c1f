// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Cleans UTF-8 as it streams in, chunk by chunk, for the XML parser.
///
/// Clean chunks pass through without a copy. A chunk with invalid bytes or control characters XML forbids
/// is repaired (`InputDecoder.repairUTF8`). A character split across two chunks is carried over. Anything
/// before the document's first `<` (a BOM, blank lines, stray text) is dropped.
struct UTF8ChunkRepairer {
  private var carry: [UInt8] = []
  private var started = false
  /// Invalid bytes met so far (each was read as windows-1252).
  private(set) var invalidBytes = 0
  /// Whether the document had a `<` at all.
  var sawMarkup: Bool { started }

  /// Cleans `chunk` and hands the result to `emit` (possibly in two pieces, possibly not at all).
  ///
  /// Call with `isLast` for the final chunk (which may be empty) so that a truncated character at the very end is
  /// repaired rather than carried.
  mutating func process(
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
    if !isLast { end = Self.completeLength(data) }
    if end < data.count { carry = Array(data[end...]) }
    let body = UnsafeBufferPointer(rebasing: data[0..<end])
    guard !body.isEmpty else { return }
    if let repaired = InputDecoder.repairUTF8(body) {
      invalidBytes += repaired.invalid
      try repaired.bytes.withUnsafeBufferPointer { try emit($0) }
    } else {
      try emit(body)
    }
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
