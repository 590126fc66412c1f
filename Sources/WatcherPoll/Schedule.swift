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
  /// What the daemon needs to know after a pass, from one read of every state.
  public struct Overview: Sendable, Equatable {
    /// Seconds until it has something to do (see `nextWake`).
    public var wake: TimeInterval
    /// Feeds whose last fetch failed.
    public var failing: Int
    /// When the next feed is due (nil with no feeds).
    public var nextPoll: Date?
  }

  /// Seconds from `now` until the daemon has something to do: the next feed due, a failed action's next
  /// try, notifications held for quiet hours coming due, or a digest going out (0 when something is due
  /// already; 60 with no feeds).
  ///
  /// A digest that quiet hours hold wakes it when they end, not before: never a busy loop. The daemon adds a
  /// little jitter and sleeps that long, or until a signal.
  public static func nextWake(config: Config, store: StateStore, now: Date) -> TimeInterval {
    overview(config: config, store: store, now: now).wake
  }

  /// `nextWake`, the failing feeds and the next poll.
  public static func overview(config: Config, store: StateStore, now: Date) -> Overview {
    var polls: [Date] = []
    var retries: [Date] = []
    var failing = 0
    for feed in config.feeds {
      guard let state = try? store.load(url: feed.url, readOnly: true).state else { continue }
      polls.append(nextDue(feed, state: state, settings: config.settings))
      retries += state.pending.compactMap(\.nextTry)
      if state.consecutiveFailures > 0 { failing += 1 }
    }
    let nextFeed = (polls + retries).min().map { $0.timeIntervalSince(now) } ?? 60
    let notify = config.settings.notify
    // Held notifications go out when quiet hours no longer hold them (their `until` is only what was
    // expected: the config or the clock may have changed since).
    let holding = ((try? store.keptNotifications(readOnly: true)) ?? []).contains { $0.until != nil }
    let held = holding ? (notify.quiet.isQuiet(now) ? notify.quiet.end(after: now).timeIntervalSince(now) : 0) : nil
    let digest = ((try? store.digests(readOnly: true)) ?? []).filter { !$0.items.isEmpty }.map { digest in
      let at = max(digest.nextAttempt, now)
      return (notify.quiet.holds(notify.urgency, at: at) ? notify.quiet.end(after: at) : at).timeIntervalSince(now)
    }.min()
    return Overview(
      wake: max(0, min(nextFeed, held ?? .infinity, digest ?? .infinity)), failing: failing,
      nextPoll: polls.min().map { max($0, now) })
  }
}
