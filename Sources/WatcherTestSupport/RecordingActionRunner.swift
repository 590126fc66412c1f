// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherCore

/// An `ActionRunner` that records what it was asked to do and reports success (or failure, when told).
public final class RecordingActionRunner: ActionRunner {
  private let log = Locked<[(feed: String, action: FeedState.PendingAction)]>([])
  private let succeed: Bool

  /// Creates a runner; with `succeed: false` it reports nothing done, so actions stay pending.
  public init(succeed: Bool = true) {
    self.succeed = succeed
  }

  /// Every action run so far, with its feed's name.
  public var actions: [(feed: String, action: FeedState.PendingAction)] { log.withLock { $0 } }

  public func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> [ActionOutcome] {
    log.withLock { $0 += actions.map { (feed.name, $0) } }
    return actions.map { action in
      var again = action
      again.attempts += 1
      return succeed ? .done : .retry(again, reason: "recorded failure")
    }
  }
}
