// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// A 64-bit FNV-1a hash: stable across runs, machines and Swift versions (unlike `Hasher`), for keys and file names.
///
/// Not for security.
public enum StableHash {
  /// The 64-bit FNV-1a hash `hex(of:)` spells, of these bytes; never 0 (0 stands for "none" where it is kept).
  @inlinable
  public static func value<Bytes: Sequence>(of bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
    var hash = Running()
    let contiguous: Bool? = bytes.withContiguousStorageIfAvailable { buffer in
      for byte in buffer { hash.add(byte) }
      return true
    }
    if contiguous == nil {
      for byte in bytes { hash.add(byte) }
    }
    return hash.value
  }

  /// `value(of:)` taken a byte at a time, for bytes that are walked rather than kept.
  public struct Running {
    @usableFromInline var hash: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable public init() {}

    /// The hash of the bytes added so far; never 0.
    @inlinable public var value: UInt64 { hash == 0 ? 1 : hash }

    @inlinable public mutating func add(_ byte: UInt8) {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01b3
    }

    /// A string's UTF-8 bytes, read in place (a native string's storage is contiguous).
    @inlinable public mutating func add(_ text: String) {
      let contiguous: Bool? = text.utf8.withContiguousStorageIfAvailable { buffer in
        for byte in buffer { add(byte) }
        return true
      }
      if contiguous == nil { for byte in text.utf8 { add(byte) } }
    }
  }

  /// Sixteen hex digits for a hash value.
  public static func hex(_ value: UInt64) -> String {
    String(unsafeUninitializedCapacity: 16) { writeHex(value, into: $0) }
  }

  /// `hex(value)`'s sixteen digits appended to `bytes`, with no string made (a state file writes two for
  /// each known item: `String(_:radix:)` and padding took a third of a first poll's save).
  public static func appendHex(_ value: UInt64, to bytes: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { digits in
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<writeHex(value, into: digits)]))
    }
  }

  /// Writes `value`'s sixteen hex digits (JSON's lowercase ones) to `digits`; returns 16.
  private static func writeHex(_ value: UInt64, into digits: UnsafeMutableBufferPointer<UInt8>) -> Int {
    for index in 0..<16 {
      digits[index] = JSONString.hexDigit(UInt8(truncatingIfNeeded: value >> (60 - 4 * index)) & 0xF)
    }
    return 16
  }

  /// A hash value from its sixteen hex digits (0 when they are not).
  public static func value(hex: String) -> UInt64 { value(hexDigits: hex.utf8) }

  /// `value(hex:)` of the digits' bytes (`JSONReader.hexNumber` reads them where they are).
  static func value(hexDigits: some Sequence<UInt8>) -> UInt64 {
    // Read byte by byte: `UInt64(_:radix:)` is generic over the string's characters, and a state file has
    // two of these an item.
    var value: UInt64 = 0
    var count = 0
    for byte in hexDigits {
      // A digit, or a letter a-f in either case (`| 0x20` lowercases); anything else makes it no number.
      var digit = byte &- UInt8(ascii: "0")
      if digit > 9 {
        digit = (byte | 0x20) &- UInt8(ascii: "a")
        guard digit < 6 else { return 0 }
        digit += 10
      }
      count += 1
      guard count <= 16 else { return 0 }
      value = value << 4 | UInt64(digit)
    }
    return value
  }

  /// The hash of `text`'s UTF-8 bytes as 16 lowercase hex digits.
  public static func hex(of text: String) -> String {
    var hash = Running()
    for byte in text.utf8 { hash.add(byte) }
    return hex(hash.hash)
  }
}

extension StableHash {
  /// A 64-bit fingerprint of some bytes, given in any number of pieces, and a context, as the byte count and
  /// 16 hex digits ("12345:0123…").
  ///
  /// It tells an unchanged body from a changed one: read eight bytes at a time, it costs far less than
  /// parsing what it fingerprints, and the same bytes split differently give the same fingerprint. Not for
  /// security (whoever writes the bytes can make two collide).
  public struct Fingerprint {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    private var count = 0
    /// Bytes of an unfinished eight-byte word, low byte first, and how many.
    private var pending: UInt64 = 0
    private var pendingCount = 0

    public init() {}

    /// Adds the next bytes.
    public mutating func add(_ bytes: RawSpan) {
      bytes.withUnsafeBytes { add(buffer: $0) }
    }

    mutating func add(buffer bytes: UnsafeRawBufferPointer) {
      count += bytes.count
      var offset = 0
      while pendingCount > 0, pendingCount < 8, offset < bytes.count {
        pending |= UInt64(bytes[offset]) << (8 * UInt64(pendingCount))
        pendingCount += 1
        offset += 1
      }
      if pendingCount == 8 {
        mix(pending)
        (pending, pendingCount) = (0, 0)
      }
      while offset + 8 <= bytes.count {
        mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        offset += 8
      }
      while offset < bytes.count {
        pending |= UInt64(bytes[offset]) << (8 * UInt64(pendingCount))
        pendingCount += 1
        offset += 1
      }
    }

    /// The fingerprint of the bytes added, with `context` (a URL, a charset) mixed in.
    public func finish(context: String = "") -> String {
      var copy = self
      copy.mix(pending | UInt64(pendingCount) << 56)
      (copy.pending, copy.pendingCount) = (0, 0)
      let bytes = copy.count
      var context = context
      context.withUTF8 { copy.add(buffer: UnsafeRawBufferPointer($0)) }
      copy.mix(copy.pending | UInt64(copy.pendingCount) << 56)
      let digits = String(copy.hash, radix: 16)
      return "\(bytes):" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    private mutating func mix(_ word: UInt64) {
      hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
      hash ^= hash >> 29
    }
  }

  /// The `Fingerprint` of one buffer.
  public static func fingerprint(of bytes: RawSpan, context: String = "") -> String {
    var fingerprint = Fingerprint()
    fingerprint.add(bytes)
    return fingerprint.finish(context: context)
  }
}

extension StableHash.Running: ByteAppender {
  @inlinable public mutating func append(_ byte: UInt8) { add(byte) }
  @inlinable public mutating func append(bytes: Span<UInt8>) {
    bytes.withUnsafeBufferPointer { for byte in $0 { add(byte) } }
  }
}
