// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials

/// When the daemon does what: its next pass, a reload once the config file is quiet, the back-off after
/// passes that could not save, and how long to sleep.
///
/// A value, and every decision takes `now` (the daemon's one clock, `WallClock`): the loop's timing is
/// tested without a clock or a sleep.
struct DaemonPlan: Equatable {
  /// How long the config file must be quiet after a change before it is read (a save is several events).
  static let debounce: TimeInterval = 0.3
  /// The longest sleep: the loop looks around at least this often, whatever is due.
  static let longestSleep: TimeInterval = 3_600
  /// The shortest sleep, so that a pass due "now" that did not move its own due time cannot spin.
  static let shortestSleep: TimeInterval = 0.05

  /// When the next pass of its own is due.
  private(set) var nextPass = Date.distantPast
  /// When the config file last changed on disk, until it is read.
  private(set) var configChanged: Date?
  /// How many passes in a row had a feed that could not save its state.
  private(set) var unsavedPasses = 0

  /// The config file changed at `time` (the latest change counts: a save is several events).
  mutating func configFileChanged(at time: Date) {
    configChanged = max(configChanged ?? time, time)
  }

  /// Whether the config file has been quiet long enough to be read; once it says so, the change is taken.
  mutating func takeReload(at now: Date) -> Bool {
    guard let changed = configChanged, now.timeIntervalSince(changed) >= Self.debounce else { return false }
    configChanged = nil
    return true
  }

  /// A new config was loaded: its feeds may be due at once, so the next pass is worked out afresh.
  mutating func reloaded() { nextPass = .distantPast }

  /// Something wants a pass now (a clicked button whose hook is to run): never later than `now`.
  mutating func passSoon(at now: Date) { nextPass = min(nextPass, now) }

  /// Whether its own pass is due.
  func passDue(at now: Date) -> Bool { now >= nextPass }

  /// The next pass is due when the feeds' schedule says (`wake` seconds from `now`), plus `jitter`.
  mutating func schedule(at now: Date, wake: TimeInterval, jitter: TimeInterval) {
    nextPass = now.addingTimeInterval(wake + jitter)
  }

  /// The jitter that spreads feeds out: up to 5% of the wait, at most 5 s (`unit` in 0...1 picks it).
  static func jitter(wake: TimeInterval, unit: Double) -> TimeInterval {
    unit * min(5, max(0, wake) * 0.05)
  }

  /// A pass that began at `start` is done and scheduled; returns the back-off, if any.
  ///
  /// When a feed could not save its state (a full disk,
  /// a read-only file system) it would be due again at once: the next pass waits a minute, then twice as
  /// long each time, up to an hour. Returns that wait, or `nil` when the pass saved.
  mutating func passed(startedAt start: Date, unsaved: Bool) -> TimeInterval? {
    unsavedPasses = unsaved ? unsavedPasses + 1 : 0
    guard unsaved else { return nil }
    let wait = TimeInterval(min(60 << min(unsavedPasses - 1, 6), 3_600))
    nextPass = max(nextPass, start.addingTimeInterval(wait))
    return wait
  }

  /// How long to sleep at `now`: until the next pass, or until the config file has been quiet long enough,
  /// or until systemd's watchdog wants to hear from it, whichever comes first.
  func sleep(at now: Date, watchdog: TimeInterval?) -> TimeInterval {
    var sleep = min(max(nextPass.timeIntervalSince(now), Self.shortestSleep), Self.longestSleep)
    if let changed = configChanged {
      sleep = min(sleep, max(0.01, Self.debounce - now.timeIntervalSince(changed)))
    }
    if let watchdog { sleep = min(sleep, watchdog) }
    return sleep
  }
}
