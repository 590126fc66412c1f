// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherConfig
import WatcherState

/// When a feed is next due: the one answer `poll`, `run` and `status` all use.
public enum Schedule {
  /// The time from which `feed` is due, given its state.
  ///
  /// Never polled: at once (or when the server said). Failing: when its backoff (or `Retry-After`) ends.
  /// Otherwise: its interval after the last attempt, or later when the server's `Cache-Control: max-age`
  /// says so.
  public static func nextDue(_ feed: FeedConfig, state: FeedState, settings: Settings) -> Date {
    guard let last = state.lastAttempt else { return state.notBefore ?? .distantPast }
    let byInterval = last.addingTimeInterval(Double(feed.interval ?? settings.interval))
    guard let notBefore = state.notBefore else { return byInterval }
    return state.consecutiveFailures > 0 ? notBefore : max(byInterval, notBefore)
  }

  /// Whether `feed` is due at `now`.
  public static func isDue(_ feed: FeedConfig, state: FeedState, settings: Settings, now: Date) -> Bool {
    nextDue(feed, state: state, settings: settings) <= now
  }
}
