// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Small byte-level helpers for the hot paths of parsing and output.
public enum ByteScanning {
  // The word tests are `@inlinable`: they run per eight bytes in other modules' hot loops, where a call
  // each time cost more than the test.
  @inlinable static var ones: UInt64 { 0x0101_0101_0101_0101 }
  @inlinable static var highs: UInt64 { 0x8080_8080_8080_8080 }

  /// Whether any byte of `word` is zero (the classic SWAR test; exact, no false positives).
  @inlinable @inline(__always)
  public static func hasZeroByte(_ word: UInt64) -> Bool {
    (word &- ones) & ~word & highs != 0
  }

  /// Whether any byte of `word` equals `byte`.
  @inlinable @inline(__always)
  public static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
    hasZeroByte(word ^ (ones &* UInt64(byte)))
  }

  /// Whether any byte of `word` is below `limit` (`limit` ≤ 128; exact when no byte is ≥ 128).
  @inlinable @inline(__always)
  public static func hasByteBelow(_ word: UInt64, _ limit: UInt8) -> Bool {
    (word &- ones &* UInt64(limit)) & ~word & highs != 0
  }

  /// The high bit of each byte of `word` that is zero, and no other bit (exact, unlike `hasZeroByte`'s
  /// intermediate value).
  @inlinable @inline(__always)
  public static func zeroBytes(_ word: UInt64) -> UInt64 {
    ~(((word & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | word | 0x7F7F_7F7F_7F7F_7F7F)
  }

  /// The high bit of each byte of `word` that is a C0 control character other than tab, newline and
  /// carriage return, or DEL (exact, whatever the other bytes).
  @inlinable @inline(__always)
  public static func controlBytes(_ word: UInt64) -> UInt64 {
    // Below 0x20: clear each byte's high bit so adding 0x60 cannot carry into the next byte.
    let low = word & 0x7F7F_7F7F_7F7F_7F7F
    let below = (((low &+ 0x6060_6060_6060_6060) | word) & highs) ^ highs
    let allowed = zeroBytes(word ^ (ones &* 0x09)) | zeroBytes(word ^ (ones &* 0x0A)) | zeroBytes(word ^ (ones &* 0x0D))
    return (below & ~allowed) | zeroBytes(word ^ (ones &* 0x7F))
  }

  /// A 64-bit FNV-1a hash of bytes, lowercasing ASCII letters: a Set key for tag names without making a
  /// String.
  @inlinable @inline(__always)
  public static func lowercaseHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for c in bytes {
      hash ^= UInt64(c >= 65 && c <= 90 ? c | 0x20 : c)
      hash &*= 0x0000_0100_0000_01b3
    }
    return hash
  }

  /// `lowercaseHash` of a string's UTF-8.
  package static func lowercaseHash(_ text: String) -> UInt64 {
    var copy = text
    return copy.withUTF8 { lowercaseHash($0) }
  }
}

extension String {
  /// A string from UTF-8 bytes, repairing invalid sequences, through the fast contiguous path.
  package init(utf8Bytes bytes: [UInt8]) {
    self = bytes.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
  }

  /// The string without leading and trailing ASCII whitespace; returns itself when there is none.
  package var trimmingASCIIWhitespace: String {
    let utf8 = self.utf8
    guard let first = utf8.first, let last = utf8.last else { return self }
    @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 32 || (c >= 9 && c <= 13) }
    if !isSpace(first) && !isSpace(last) { return self }
    var start = utf8.startIndex
    var end = utf8.endIndex
    while start < end, isSpace(utf8[start]) { start = utf8.index(after: start) }
    while end > start, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
    return String(self[start..<end])
  }
}
