// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherRules
import WatcherState
import WatcherSupport

extension Poller {
  /// Shows the kept notifications that are due (one summary when several), or keeps them, within their
  /// bounds.
  func showKept(_ pass: inout Pass, now: Date) {
    do {
      let stored = try store.keptNotifications()
      guard !stored.isEmpty else { return }
      let (all, pruned) = KeptNotification.prune(stored, settings: config.settings.notify, now: now)
      let quiet = config.settings.notify.quiet
      let due = all.filter { Self.isDue($0, quiet: quiet, now: now) }
      let waiting = all.filter { !Self.isDue($0, quiet: quiet, now: now) }
      pass.keptHeld = waiting.count
      guard !due.isEmpty else {
        if !pruned.isEmpty { pass.keptDropped += try keep(stored, now: now).dropped }
        return
      }
      if case .keep(let failure) = runner.showKept(due) {
        pass.keptError = .notShown(failure)
        if !pruned.isEmpty { pass.keptDropped += try keep(stored, now: now).dropped }
        return
      }
      pass.keptShown = due.count
      pass.keptDropped += try keep(waiting, now: now, alreadyDropped: pruned).dropped
      let shown = due.map { entry in
        Self.entry(
          entry.action, feed: FeedConfig(url: "", name: entry.feed), outcome: .shown, now: now,
          detail: due.count > 1
            ? "kept from an earlier poll; in one summary of \(due.count)" : "kept from an earlier poll")
      }
      try? store.appendJournal(shown, limits: journalLimits, now: now)
    } catch {
      pass.keptError = .store(error)
    }
  }

  /// Whether a kept notification goes out now.
  ///
  /// One held for quiet hours goes out when they no longer hold it: when they end, when they are removed
  /// from the config, or when the clock was set back (its `until` is then far off, and not waited for).
  static func isDue(_ kept: KeptNotification, quiet: QuietHours, now: Date) -> Bool {
    guard case .notify(let notification) = kept.action.payload else { return true }
    return !quiet.holds(notification.urgency, at: now)
  }

  /// Saves `all` as the kept notifications, within `keep_for`, `keep_max` and the file's byte budget.
  ///
  /// Each one given up is journaled. Returns those kept, how many were dropped, and why (for the poll's
  /// words).
  /// `alreadyDropped` are those the caller pruned from the file before (journaled here too).
  @discardableResult
  func keep(_ all: [KeptNotification], now: Date, alreadyDropped: [KeptNotification] = []) throws(StateError) -> (
    kept: [KeptNotification], dropped: Int, why: [String]
  ) {
    let settings = config.settings.notify
    var (bounded, pruned) = KeptNotification.prune(all, settings: settings, now: now)
    pruned = alreadyDropped + pruned
    let overBudget = try store.saveKept(bounded)
    let horizon = now.addingTimeInterval(-Double(settings.keepFor))
    let reasons = [
      "kept longer than settings.notify.keep_for (\(SpokenDuration.text(Double(settings.keepFor)))); given up",
      "more than settings.notify.keep_max (\(settings.keepMax)) notifications were kept; the oldest given up",
      "notifications.json would pass its budget of \(ByteCount.format(store.budget.sharedFile)); "
        + "the oldest kept notifications were given up",
    ]
    let dropped =
      pruned.map { ($0, $0.action.created < horizon ? reasons[0] : reasons[1]) } + overBudget.map { ($0, reasons[2]) }
    journal(dropped, now: now)
    // The budget drops the oldest: a prefix.
    let kept = Array(bounded.dropFirst(overBudget.count))
    return (kept, dropped.count, reasons.filter { reason in dropped.contains { $0.1 == reason } })
  }

  /// Journals kept notifications given up on, each with why.
  private func journal(_ dropped: [(KeptNotification, String)], now: Date) {
    guard !dropped.isEmpty else { return }
    let entries = dropped.map { entry, reason in
      Self.entry(entry.action, feed: FeedConfig(url: "", name: entry.feed), outcome: .dropped, now: now, detail: reason)
    }
    try? store.appendJournal(entries, limits: journalLimits, now: now)
  }
}

extension KeptNotification {
  /// The newest `settings.keepMax` of `kept` that are younger than `settings.keepFor`, and those dropped.
  package static func prune(_ kept: [KeptNotification], settings: NotifySettings, now: Date) -> (
    kept: [KeptNotification], dropped: [KeptNotification]
  ) {
    prune(kept, keepFor: settings.keepFor, keepMax: settings.keepMax, now: now)
  }
}
