// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Synchronization

/// A flag another thread sets to ask long work to stop (the daemon's SIGTERM), or a time budget.
public final class Cancellation: Sendable {
  private let flag = Atomic<Bool>(false)
  private let parent: Cancellation?
  private let deadline: ContinuousClock.Instant?

  /// Creates an unset flag.
  public init() {
    parent = nil
    deadline = nil
  }

  /// A budget: cancelled when `parent` is, or once `deadline` has passed.
  public init(parent: Cancellation?, deadline: ContinuousClock.Instant) {
    self.parent = parent
    self.deadline = deadline
  }

  /// Asks the work to stop.
  public func cancel() { flag.store(true, ordering: .relaxed) }

  /// Whether stopping was asked for (here or by the parent), or the deadline has passed.
  public var isCancelled: Bool { flag.load(ordering: .relaxed) || parent?.isCancelled == true || isPastDeadline }

  /// Whether it has a deadline, and it has passed.
  public var isPastDeadline: Bool { deadline.map { ContinuousClock.now >= $0 } ?? false }

  /// The seconds left before the deadline (`nil`: none).
  public var secondsLeft: Double? {
    deadline.map { deadline in
      let left = ContinuousClock.now.duration(to: deadline).components
      return Double(left.seconds) + Double(left.attoseconds) / 1e18
    }
  }
}
