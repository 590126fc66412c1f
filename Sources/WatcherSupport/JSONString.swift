// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// The one JSON string escaper: `parse --json`, `status --json`, state files and the config editor's YAML
/// double-quoted scalars (YAML's escapes include JSON's) all write strings through it.
///
/// Escapes only what JSON requires (`"`, `\\`, C0 controls); `/` and non-ASCII are left alone. Sixteen plain
/// bytes are skipped at a time, so long texts cost little more than a copy.
public enum JSONString {
  /// Appends `value` as a JSON string literal to `bytes`.
  @inlinable
  public static func append<Out: ByteAppender>(_ value: String, to bytes: inout Out) {
    bytes.append(UInt8(ascii: "\""))
    value.withUTF8Bytes { utf8 in
      var start = 0
      let n = utf8.count
      while true {
        // Straight to the next byte to escape, sixteen plain bytes at a time.
        let at = ByteScanning.firstIndex(
          buffer: utf8, from: start,
          vector: { v in
            (v .< ByteScanning.splat(0x20)) .| (v .== ByteScanning.splat(0x22)) .| (v .== ByteScanning.splat(0x5C))
          },
          byte: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C })
        guard at < n else { break }
        let c = utf8[at]
        bytes.append(bytes: UnsafeBufferPointer(rebasing: utf8[start..<at]).span)
        // Two appends, not an array literal: this runs for every quote of an embedded JSON text.
        bytes.append(92)
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
        case 10: bytes.append(110)
        case 13: bytes.append(114)
        case 9: bytes.append(116)
        default:
          bytes.append(117)
          bytes.append(48)
          bytes.append(48)
          bytes.append(hexDigit(c >> 4))
          bytes.append(hexDigit(c & 15))
        }
        start = at + 1
      }
      bytes.append(bytes: UnsafeBufferPointer(rebasing: utf8[start..<n]).span)
    }
    bytes.append(UInt8(ascii: "\""))
  }

  @inlinable @inline(__always)
  public static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 48 &+ value : 87 &+ value }

  /// `value` as a JSON string literal.
  package static func literal(_ value: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    append(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
