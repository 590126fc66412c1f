// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherState
import WatcherSupport

/// When a feed is next due: the one answer `poll`, `run` and `status` all use.
public enum Schedule {
  /// The time from which `feed` is due, given its state.
  public static func nextDue(
    _ feed: FeedConfig, state: FeedState, settings: Settings, hostHold: Date? = nil, now: Date
  ) -> Date {
    plan(feed, state: state, settings: settings, hostHold: hostHold, now: now).at
  }

  /// When a feed is next due, and why, in words (`status`, `poll`: "posts about every 3 h; the server asks
  /// for 1 h").
  public struct Plan: Sendable, Equatable {
    public var at: Date
    public var reasons: [String]
  }

  /// When `feed` is next due, and why.
  ///
  /// Never polled: at once (or when the server said). Failing: when its backoff (or `Retry-After`) ends.
  /// A fixed interval: that long after the last attempt, or later when the server's `Cache-Control:
  /// max-age` or `Expires` says so. `interval: auto`: `autoInterval` after the last attempt, never sooner
  /// than the feed's `ttl` or `sy:updatePeriod` (up to a day) or the server's `max-age`, and never in an
  /// hour or day the feed's `skipHours`/`skipDays` name.
  ///
  /// `hostHold`: until when the feed's host asked not to be polled (429/503, `hosts.json`).
  ///
  /// Stored times are checked against `now` (`StoredTime`): a last poll recorded in the future, or a wait
  /// longer than any watcher sets, was written while the clock was ahead, and the feed is due now.
  public static func plan(
    _ feed: FeedConfig, state: FeedState, settings: Settings, hostHold: Date? = nil, now: Date
  ) -> Plan {
    if let last = state.lastAttempt, StoredTime.isAhead(last, now: now) {
      return Plan(at: now, reasons: ["its last poll is recorded in the future (the clock was ahead)"])
    }
    var state = state
    state.notBefore = state.notBefore.map { StoredTime.deadline($0, longest: longestWait, now: now) }
    var plan = feedPlan(feed, state: state, settings: settings)
    if let hostHold = hostHold.map({ StoredTime.deadline($0, longest: longestWait, now: now) }), hostHold > plan.at {
      plan.at = hostHold
      plan.reasons.append("its host asked to wait (429/503)")
    }
    return plan
  }

  /// The longest wait watcher sets on a feed or host: a server's `Retry-After`, capped.
  public static let longestWait = Double(Poller.maxRetryAfter)

  /// The longest wait of a failed action before its next try (a retry's back-off, quiet hours).
  public static let longestRetry: TimeInterval = 30 * 86_400

  /// The hold on `feed`'s host in `holds`, if it is an HTTP feed.
  public static func hold(_ feed: FeedConfig, in holds: [String: HostHold]) -> Date? {
    guard !holds.isEmpty, FeedLocation.isHTTP(feed.url) else { return nil }
    return holds[HostPacer.host(of: feed.url)]?.until
  }

  private static func feedPlan(_ feed: FeedConfig, state: FeedState, settings: Settings) -> Plan {
    guard let last = state.lastAttempt else {
      return Plan(at: state.notBefore ?? .distantPast, reasons: ["never polled"])
    }
    if state.consecutiveFailures > 0, let notBefore = state.notBefore {
      let failures = state.consecutiveFailures
      let why =
        state.retryAfterUntil.map { _ in "the server asked to wait (Retry-After)" }
        ?? "failing: backing off after \(failures) failure\(failures == 1 ? "" : "s")"
      return Plan(at: notBefore, reasons: [why])
    }
    var reasons: [String] = []
    var at: Date
    if feed.isAuto(settings) {
      let (interval, why) = autoInterval(feed, state: state, settings: settings)
      at = last.addingTimeInterval(Double(interval))
      reasons += why
    } else {
      let interval = feed.interval ?? settings.interval
      at = last.addingTimeInterval(Double(interval))
      reasons.append("every \(SpokenDuration.text(Double(interval)))")
    }
    if let notBefore = state.notBefore, notBefore > at {
      at = notBefore
      reasons.append(
        "the server asks for \(SpokenDuration.text(notBefore.timeIntervalSince(last))) (Cache-Control or Expires)")
    }
    if feed.isAuto(settings), let skipped = skip(at, hours: state.hints.skipHours, days: state.hints.skipDays) {
      at = skipped
      reasons.append("the feed skips \(describeSkips(state.hints))")
    }
    return Plan(at: at, reasons: reasons)
  }

  /// The interval `auto` picks for a feed, and why: how often it posts, within `settings.auto_interval`,
  /// with ±10% jitter (the same for one feed and attempt), and never below what the feed asks for.
  public static func autoInterval(_ feed: FeedConfig, state: FeedState, settings: Settings) -> (Int, [String]) {
    let bounds = settings.autoBounds
    var reasons: [String] = []
    let base: Int
    if let every = postInterval(state.hints, at: state.lastAttempt ?? .distantPast) {
      base = min(max(every, bounds.min), bounds.max)
      var why = "posts about every \(SpokenDuration.text(Double(every)))"
      if every < bounds.min { why += "; auto polls at most every \(SpokenDuration.text(Double(bounds.min)))" }
      if every > bounds.max { why += "; auto polls at least every \(SpokenDuration.text(Double(bounds.max)))" }
      reasons.append(why)
    } else {
      base = bounds.max
      reasons.append("no dated posts yet; auto polls every \(SpokenDuration.text(Double(bounds.max)))")
    }
    let seed = feed.url + "\n" + String(Int(state.lastAttempt?.timeIntervalSince1970 ?? 0))
    let jitter = Double(StableHash.value(of: seed.utf8) % 2_001) / 10_000 - 0.1
    var interval = max(60, Int((Double(base) * (1 + jitter)).rounded()))
    // What the feed itself asks for (up to a day: a ttl of a week would hide a week of posts).
    let asks = [
      state.hints.ttl.map { ($0, "ttl") }, state.hints.updatePeriod.map { ($0, "sy:updatePeriod") },
    ].compactMap { $0 }.max { $0.0 < $1.0 }
    if let (seconds, source) = asks, min(seconds, 86_400) > interval {
      interval = min(seconds, 86_400)
      reasons.append("the feed asks for \(SpokenDuration.text(Double(interval))) (\(source))")
    }
    return (interval, reasons)
  }

  /// A feed's recent posts from its items' times (published, else first seen): the ten newest (or all,
  /// when fewer), as their count and the oldest's time.
  public static func recentPosts(_ times: [Date], now: Date) -> (count: Int, since: Date?) {
    let recent = times.map { min($0, now) }.sorted(by: >).prefix(10)
    return (recent.count, recent.last)
  }

  /// How often a feed posts, in seconds, at `now`.
  ///
  /// The time from the oldest of its recent posts to `now`,
  /// divided by their number. A feed that stops posting is read as posting ever more rarely; `nil` with no
  /// posts.
  public static func postInterval(_ hints: FeedState.PollHints, at now: Date) -> Int? {
    guard hints.posts > 0, let since = hints.postsSince else { return nil }
    let span = now.timeIntervalSince(since) / Double(hints.posts)
    return Int(min(max(span, 60), 365 * 86_400))
  }

  /// The first time from `date` on that is in none of the skipped hours (GMT) and days, or nil when
  /// `date` is in none (or every hour of the week is skipped).
  static func skip(_ date: Date, hours: [Int], days: [Int]) -> Date? {
    guard !hours.isEmpty || !days.isEmpty else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
    var at = date
    for step in 0..<(7 * 24 + 1) {
      let parts = calendar.dateComponents([.hour, .weekday], from: at)
      if !hours.contains(parts.hour ?? -1), !days.contains(parts.weekday ?? -1) { return step == 0 ? nil : at }
      let hour = calendar.dateInterval(of: .hour, for: at)?.end ?? at.addingTimeInterval(3_600)
      at = hour
    }
    return nil
  }

  static func describeSkips(_ hints: FeedState.PollHints) -> String {
    var parts: [String] = []
    if !hints.skipHours.isEmpty {
      parts.append(
        "hours " + hints.skipHours.sorted().map { ($0 < 10 ? "0" : "") + String($0) }.joined(separator: ",") + " GMT")
    }
    if !hints.skipDays.isEmpty {
      parts.append(hints.skipDays.sorted().map { FeedRefresh.weekdays[$0 - 1].capitalized }.joined(separator: ", "))
    }
    return parts.joined(separator: " and ")
  }

  /// Whether `feed` is due at `now`.
  public static func isDue(
    _ feed: FeedConfig, state: FeedState, settings: Settings, hostHold: Date? = nil, now: Date
  ) -> Bool {
    nextDue(feed, state: state, settings: settings, hostHold: hostHold, now: now) <= now
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
    let holds = (try? store.hostHolds(readOnly: true)) ?? [:]
    for feed in config.feeds {
      // Without the known items, which scheduling never looks at (most of each file, read after every pass).
      guard let state = try? store.load(url: feed.url, readOnly: true, items: false).state else { continue }
      polls.append(nextDue(feed, state: state, settings: config.settings, hostHold: hold(feed, in: holds), now: now))
      retries += state.pending.compactMap {
        $0.nextTry.map { StoredTime.deadline($0, longest: longestRetry, now: now) }
      }
      if state.consecutiveFailures > 0 { failing += 1 }
    }
    let nextFeed = (polls + retries).min().map { $0.timeIntervalSince(now) } ?? 60
    let notify = config.settings.notify
    // Held notifications go out when quiet hours no longer hold them (their `until` is only what was
    // expected: the config or the clock may have changed since).
    let holding = ((try? store.keptNotifications(readOnly: true)) ?? []).contains { $0.until != nil }
    let held = holding ? (notify.quiet.isQuiet(now) ? notify.quiet.end(after: now).timeIntervalSince(now) : 0) : nil
    let digest = config.timed((try? store.digests(readOnly: true)) ?? []).filter { !$0.items.isEmpty }.map { digest in
      let at = max(digest.nextAttempt, now)
      return (notify.quiet.holds(notify.urgency, at: at) ? notify.quiet.end(after: at) : at).timeIntervalSince(now)
    }.min()
    return Overview(
      wake: max(0, min(nextFeed, held ?? .infinity, digest ?? .infinity)), failing: failing,
      nextPoll: polls.min().map { max($0, now) })
  }
}
