// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherActions
import WatcherConfig
import WatcherState
import WatcherSupport

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

  /// Every kept notification shown so far.
  public var shownKept: [KeptNotification] { keptLog.withLock { $0 } }
  private let keptLog = Locked<[KeptNotification]>([])

  /// Set to false to act as if the notification service were unreachable: notifications are kept.
  public let notificationServiceUp = Locked(true)

  public func showKept(_ kept: [KeptNotification]) -> ActionOutcome {
    guard succeed, notificationServiceUp.withLock({ $0 }) else { return .keep(.other("no notification service")) }
    keptLog.withLock { $0 += kept }
    return .done
  }

  public func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> [ActionOutcome] {
    let serviceUp = notificationServiceUp.withLock { $0 }
    log.withLock { $0 += actions.filter { serviceUp || $0.kind != .notify }.map { (feed.name, $0) } }
    return actions.map { action in
      if action.kind == .notify, !serviceUp { return .keep(.other("no notification service")) }
      return succeed ? .done : .failed(.other("recorded failure"))
    }
  }
}
