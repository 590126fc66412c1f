// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// A value behind a lock, for state that threads share.
///
/// Why not `Synchronization.Mutex`: its lock lives in a library built without ThreadSanitizer, so TSan
/// cannot see it and reports races on correctly locked values (a 6-line `Mutex` + `concurrentPerform`
/// program is flagged). This is a pthread mutex, which TSan intercepts, so `Scripts/sanitizers.sh thread`
/// reports only real races.
public final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = Lock()

  /// Creates the lock around `value`.
  public init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
