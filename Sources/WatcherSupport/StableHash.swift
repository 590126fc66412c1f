// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// A 64-bit FNV-1a hash: stable across runs, machines and Swift versions (unlike `Hasher`), for keys and file names.
///
/// Not for security.
public enum StableHash {
  /// The hash of `text`'s UTF-8 bytes as 16 lowercase hex digits.
  public static func hex(of text: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01b3
    }
    let digits = String(hash, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}

extension StableHash {
  /// A 64-bit fingerprint of `bytes` and `context`, as the byte count and 16 hex digits ("12345:0123…").
  ///
  /// It tells an unchanged body from a changed one: read eight bytes at a time, it costs far less than
  /// parsing what it fingerprints. Not for security (whoever writes the bytes can make two collide).
  public static func fingerprint(of bytes: UnsafeRawBufferPointer, context: String = "") -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    mix(bytes, into: &hash)
    var context = context
    context.withUTF8 { mix(UnsafeRawBufferPointer($0), into: &hash) }
    let digits = String(hash, radix: 16)
    return "\(bytes.count):" + String(repeating: "0", count: 16 - digits.count) + digits
  }

  private static func mix(_ bytes: UnsafeRawBufferPointer, into hash: inout UInt64) {
    func mix(_ word: UInt64) {
      hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
      hash ^= hash >> 29
    }
    var offset = 0
    while offset + 8 <= bytes.count {
      mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      offset += 8
    }
    var tail = UInt64(bytes.count) << 56
    for (shift, byte) in bytes[offset...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(shift)) }
    mix(tail)
  }
}
