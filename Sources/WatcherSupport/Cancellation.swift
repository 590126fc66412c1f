// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Synchronization

/// A flag another thread sets to ask long work to stop (the daemon's SIGTERM).
public final class Cancellation: Sendable {
  private let flag = Atomic<Bool>(false)

  /// Creates an unset flag.
  public init() {}

  /// Asks the work to stop.
  public func cancel() { flag.store(true, ordering: .relaxed) }

  /// Whether stopping was asked for.
  public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
