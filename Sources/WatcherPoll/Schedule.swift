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

extension Schedule {
  /// Seconds from `now` until the daemon has something to do: the next feed due, a failed action's next
  /// try, notifications held for quiet hours coming due, or a digest going out (0 when something is due
  /// already; 60 with no feeds).
  ///
  /// A digest that quiet hours hold wakes it when they end, not before: never a busy loop. The daemon adds a
  /// little jitter and sleeps that long, or until a signal.
  public static func nextWake(config: Config, store: StateStore, now: Date) -> TimeInterval {
    var next: [Date] = []
    for feed in config.feeds {
      guard let state = try? store.load(url: feed.url, readOnly: true).state else { continue }
      next.append(nextDue(feed, state: state, settings: config.settings))
      next += state.pending.compactMap(\.nextTry)
    }
    let nextFeed = next.min().map { $0.timeIntervalSince(now) } ?? 60
    let held = ((try? store.keptNotifications(readOnly: true)) ?? []).compactMap(\.until)
      .map { $0.timeIntervalSince(now) }.filter { $0 > 0 }.min()
    let notify = config.settings.notify
    let digest = ((try? store.digests(readOnly: true)) ?? []).filter { !$0.items.isEmpty }.map { digest in
      let at = max(digest.nextAttempt, now)
      return (notify.quiet.holds(notify.urgency, at: at) ? notify.quiet.end(after: at) : at).timeIntervalSince(now)
    }.min()
    return max(0, min(nextFeed, held ?? .infinity, digest ?? .infinity))
  }
}
