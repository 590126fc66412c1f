// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherRules
import WatcherState
import WatcherSupport

extension Poller {
  /// Shows the kept notifications (one summary when several), or keeps them, pruned to the bounds.
  func showKept(_ pass: inout Pass, now: Date) {
    do {
      let stored = try store.keptNotifications()
      guard !stored.isEmpty else { return }
      let (all, dropped) = KeptNotification.prune(stored, settings: config.settings.notify, now: now)
      pass.keptDropped = dropped
      // What is due now: not held past now, and not held by quiet hours that are on now.
      let quiet = config.settings.notify.quiet
      let kept = all.filter {
        ($0.until ?? .distantPast) <= now && !quiet.holds($0.action.urgency ?? .normal, at: now)
      }
      let waiting = all.filter { entry in !kept.contains { $0 == entry } }
      pass.keptHeld = waiting.count
      guard !kept.isEmpty else {
        if dropped > 0 { try store.saveKept(all) }
        return
      }
      if case .keep(let failure) = runner.showKept(kept) {
        pass.keptError = .notShown(failure)
        if dropped > 0 { try store.saveKept(all) }
        return
      }
      pass.keptShown = kept.count
      try store.saveKept(waiting)
      let shown = kept.map { entry in
        Self.entry(
          entry.action, feed: FeedConfig(url: "", name: entry.feed), outcome: .shown, now: now,
          detail: kept.count > 1
            ? "kept from an earlier poll; in one summary of \(kept.count)" : "kept from an earlier poll")
      }
      try? store.appendJournal(shown, limits: journalLimits, now: now)
    } catch {
      pass.keptError = .store(error)
    }
  }
}

extension KeptNotification {
  /// The newest `settings.keepMax` of `kept` that are younger than `settings.keepFor`, and how many were
  /// dropped.
  package static func prune(_ kept: [KeptNotification], settings: NotifySettings, now: Date) -> (
    kept: [KeptNotification], dropped: Int
  ) {
    prune(kept, keepFor: settings.keepFor, keepMax: settings.keepMax, now: now)
  }
}
