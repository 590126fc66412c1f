// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The one JSON string escaper: `parse --json`, `status --json`, state files and the config editor's YAML
/// double-quoted scalars (YAML's escapes include JSON's) all write strings through it.
///
/// Escapes only what JSON requires (`"`, `\\`, C0 controls); `/` and non-ASCII are left alone. Eight plain
/// bytes are skipped at a time, so long texts cost little more than a copy.
package enum JSONString {
  /// Appends `value` as a JSON string literal to `bytes`.
  package static func append(_ value: String, to bytes: inout [UInt8]) {
    var value = value
    bytes.append(UInt8(ascii: "\""))
    value.withUTF8 { utf8 in
      var start = 0
      var i = 0
      let n = utf8.count
      while i < n {
        // Skip eight plain bytes at a time, or straight to the first byte to escape among them.
        if i + 8 <= n, let base = utf8.baseAddress {
          let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
          let special =
            controls(word) | ByteScanning.zeroBytes(word ^ 0x2222_2222_2222_2222)
            | ByteScanning.zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
          if special == 0 {
            i += 8
            continue
          }
          i += special.trailingZeroBitCount / 8
        }
        let c = utf8[i]
        i += 1
        guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
        let at = i - 1
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<at]))
        // Two appends, not an array literal: this runs for every quote of an embedded JSON text.
        bytes.append(92)
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
        case 10: bytes.append(110)
        case 13: bytes.append(114)
        case 9: bytes.append(116)
        default:
          let hex = Array("0123456789abcdef".utf8)
          bytes.append(contentsOf: [117, 48, 48, hex[Int(c >> 4)], hex[Int(c & 15)]])
        }
        start = i
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<n]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `value` as a JSON string literal.
  package static func literal(_ value: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    append(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The high bit of each byte of `word` that is a C0 control character, and no other bit (exact even when
  /// some bytes are ≥ 0x80).
  @inline(__always)
  private static func controls(_ word: UInt64) -> UInt64 {
    // Clear the high bit of every byte so the addition cannot carry, then test < 0x20 on the bytes that had
    // no high bit.
    let low = word & 0x7F7F_7F7F_7F7F_7F7F
    let below = ((low &+ 0x6060_6060_6060_6060) & 0x8080_8080_8080_8080) ^ 0x8080_8080_8080_8080
    return below & ~word & 0x8080_8080_8080_8080
  }
}
