// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

#if canImport(Glibc)
  import Glibc
#endif

/// Substring search on UTF-8 bytes, for the rule engine's literals and the regex engine's required literal.
package enum ByteSearch {
  /// The byte offset of the first occurrence of `needle` in `haystack` (UTF-8), or `nil`.
  ///
  /// memchr for the first byte, memcmp for the rest (glibc's memmem needs _GNU_SOURCE, which the Glibc
  /// module does not expose). With `wholeWord`, an occurrence counts only when no letter or digit touches it.
  package static func find(_ haystack: String, _ needle: String, wholeWord: Bool) -> Int? {
    var h = haystack
    var n = needle
    return h.withUTF8 { hay -> Int? in
      n.withUTF8 { nee -> Int? in
        guard nee.count > 0 else { return 0 }
        guard let hayBase = hay.baseAddress, let neeBase = nee.baseAddress, hay.count >= nee.count else {
          return nil
        }
        let first = Int32(nee[0])
        let last = hay.count - nee.count
        var offset = 0
        while offset <= last {
          guard let found = memchr(hayBase + offset, first, last - offset + 1) else { return nil }
          let start = hayBase.distance(to: found.assumingMemoryBound(to: UInt8.self))
          // The last byte first: a cheap test that rejects most false starts before memcmp.
          if hayBase[start + nee.count - 1] == neeBase[nee.count - 1], memcmp(hayBase + start, neeBase, nee.count) == 0,
            !wholeWord
              || (!isWordScalar(before: start, inBuffer: hay) && !isWordScalar(at: start + nee.count, inBuffer: hay))
          {
            return start
          }
          offset = start + 1
        }
        return nil
      }
    }
  }

  /// Whether a letter or digit starts at `offset` (after: before it) in `bytes`.
  package static func isWordScalar(at offset: Int, in bytes: Span<UInt8>) -> Bool {
    bytes.withUnsafeBufferPointer { isWordScalar(at: offset, inBuffer: $0) }
  }

  package static func isWordScalar(before offset: Int, in bytes: Span<UInt8>) -> Bool {
    bytes.withUnsafeBufferPointer { isWordScalar(before: offset, inBuffer: $0) }
  }

  static func isWordScalar(at offset: Int, inBuffer bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard offset < bytes.count else { return false }
    let c = bytes[offset]
    if c < 0x80 { return isASCIIWord(c) }
    var iterator = bytes[offset...].makeIterator()
    var decoder = UTF8()
    guard case .scalarValue(let scalar) = decoder.decode(&iterator) else { return false }
    return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
  }

  static func isWordScalar(before offset: Int, inBuffer bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard offset > 0 else { return false }
    if bytes[offset - 1] < 0x80 { return isASCIIWord(bytes[offset - 1]) }
    var start = offset - 1
    while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
    return isWordScalar(at: start, inBuffer: bytes)
  }

  @inline(__always) private static func isASCIIWord(_ c: UInt8) -> Bool {
    (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c == 95
  }
}
