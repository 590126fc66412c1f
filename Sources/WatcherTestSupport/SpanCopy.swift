// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

extension Array where Element == UInt8 {
  /// A copy of `bytes` (a test keeping what a writer's sink was handed).
  public init(copying bytes: Span<UInt8>) {
    self = bytes.withUnsafeBufferPointer { Array($0) }
  }
}
