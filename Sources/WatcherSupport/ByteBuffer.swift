// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Glibc

/// Where an encoder appends its bytes: an array, or a `ByteBuffer`.
public protocol ByteAppender {
  mutating func append(_ byte: UInt8)
  mutating func append(bytes: Span<UInt8>)
}

extension Array: ByteAppender where Element == UInt8 {
  @inlinable
  public mutating func append(bytes: Span<UInt8>) { bytes.withUnsafeBufferPointer { append(contentsOf: $0) } }
}

/// Bytes appended through a pointer, for an encoder that appends many short pieces: `parse --json` writes
/// each item as some sixty of them (keys, values, the runs between escapes), and `Array.append(contentsOf:)`
/// costs about ninety instructions a call beside its copy.
public final class ByteBuffer: ByteAppender {
  @usableFromInline var base: UnsafeMutablePointer<UInt8>
  @usableFromInline var count = 0
  @usableFromInline var capacity: Int

  /// An empty buffer with room for `capacity` bytes (it grows as needed).
  public init(capacity: Int) {
    self.capacity = max(capacity, 64)
    base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// The bytes appended so far, copied into an array.
  public var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Calls `body` with the bytes appended so far, in place.
  public func withBytes<R>(_ body: (Span<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(start: base, count: count).span)
  }

  /// How many bytes have been appended.
  public var byteCount: Int { count }

  /// Forgets the bytes appended, keeping the room.
  public func removeAll() { count = 0 }

  /// Forgets the bytes appended from `newCount` on (none if there are fewer).
  public func truncate(to newCount: Int) { count = min(count, max(0, newCount)) }

  /// The byte appended at `index` (below `byteCount`).
  public subscript(index: Int) -> UInt8 {
    get {
      precondition(index >= 0 && index < count)
      return base[index]
    }
    set {
      precondition(index >= 0 && index < count)
      base[index] = newValue
    }
  }

  @inlinable @inline(__always)
  public func append(_ byte: UInt8) {
    if count == capacity { grow(to: count + 1) }
    base[count] = byte
    count &+= 1
  }

  @inlinable @inline(__always)
  public func append(bytes: Span<UInt8>) {
    bytes.withUnsafeBufferPointer { append(buffer: $0) }
  }

  @inlinable @inline(__always)
  func append(buffer bytes: UnsafeBufferPointer<UInt8>) {
    guard let source = bytes.baseAddress else { return }
    if capacity &- count < bytes.count { grow(to: count + bytes.count) }
    (base + count).update(from: source, count: bytes.count)
    count &+= bytes.count
  }

  /// Moves the bytes to room for at least `needed`, twice the room there was.
  @usableFromInline func grow(to needed: Int) {
    let grown = max(needed, capacity * 2)
    let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
    moved.update(from: base, count: count)
    base.deallocate()
    base = moved
    capacity = grown
  }
}
