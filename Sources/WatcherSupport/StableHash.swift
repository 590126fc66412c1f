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
