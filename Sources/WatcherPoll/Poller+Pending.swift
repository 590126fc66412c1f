// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherRules
import WatcherState
import WatcherSupport

extension Poller {
  /// Runs the pending actions of `feeds` now (those of the items in `keys`, or all), without fetching:
  /// `watcher pending --retry`.
  public func retryPending(_ feeds: [FeedConfig], keys: Set<String>? = nil, now: Date = WallClock.now()) -> [Outcome] {
    feeds.compactMap { feed in
      var outcome = Outcome(feed: feed)
      guard var state = try? store.load(url: feed.url).state, !state.pending.isEmpty else { return nil }
      let chosen = state.pending.filter { keys?.contains($0.key) ?? true }
      guard !chosen.isEmpty else { return nil }
      let others = state.pending.filter { !(keys?.contains($0.key) ?? true) }
      state.pending = chosen
      // Asked for by the user: now, whenever their next try was.
      runPending(&state, feed: feed, outcome: &outcome, now: now, everyAction: true)
      if !others.isEmpty {
        state.pending += others
        outcome.pendingLeft = state.pending.count
        save(&state, outcome: &outcome)
      }
      return outcome
    }
  }

  /// Forgets the pending actions of `feeds` (those of the items in `keys`, or all): `watcher pending --drop`.
  ///
  /// They are recorded as dropped (in the state and the journal). Returns how many were dropped per feed.
  public func dropPending(_ feeds: [FeedConfig], keys: Set<String>? = nil, now: Date = WallClock.now()) -> [(
    feed: FeedConfig, dropped: Int, failure: FeedFailure?
  )] {
    feeds.compactMap { feed in
      guard var state = try? store.load(url: feed.url).state else { return nil }
      let dropped = state.pending.filter { keys?.contains($0.key) ?? true }
      guard !dropped.isEmpty else { return nil }
      state.pending.removeAll { keys?.contains($0.key) ?? true }
      for action in dropped {
        Self.drop(action, of: feed, from: &state, reason: "dropped by 'watcher pending --drop'", now: now)
      }
      var outcome = Outcome(feed: feed)
      guard save(&state, outcome: &outcome, durably: true) else { return (feed, 0, outcome.failures.first) }
      try? store.appendJournal(
        dropped.map {
          Self.entry($0, feed: feed, outcome: .dropped, now: now, attempt: $0.attempts, detail: "dropped by the user")
        },
        limits: journalLimits, now: now)
      return (feed, dropped.count, nil)
    }
  }

  /// Hands the pending actions to the runner and saves the state without the ones it did (the pending
  /// list was saved before, so a crash here repeats actions but never loses one).
  func runPending(
    _ state: inout FeedState, feed: FeedConfig, outcome: inout Outcome, now: Date, everyAction: Bool = false
  ) {
    let prepared = preparePending(&state, feed: feed, outcome: &outcome, now: now, everyAction: everyAction)
    let results = runner.run(state.pending, feed: feed)
    recordPending(&state, feed: feed, outcome: &outcome, prepared: prepared, results: results, now: now)
  }

  /// What `preparePending` decided before the actions run: the journal so far, the notifications held.
  struct PreparedPending: Sendable {
    var journal: [JournalEntry] = []
    var held: [KeptNotification] = []
    /// Failed actions whose next try has not come: they stay pending, untouched.
    var waiting: [FeedState.PendingAction] = []
  }

  /// Whether a pending action is to be tried at `now`: a new one, or a failed one whose wait is over.
  static func isDue(_ action: FeedState.PendingAction, now: Date) -> Bool {
    action.nextTry.map { StoredTime.deadline($0, longest: Schedule.longestRetry, now: now) <= now } ?? true
  }

  /// Refreshes the pending actions from the config, holds the notifications quiet hours hold and sets
  /// aside the failed ones whose next try has not come (unless `everyAction`); the ones left in
  /// `state.pending` are to run now.
  func preparePending(
    _ state: inout FeedState, feed: FeedConfig, outcome: inout Outcome, now: Date, everyAction: Bool = false
  ) -> PreparedPending {
    var journal: [JournalEntry] = []
    // Each action runs as its rule says now: a hook fixed in the config fixes its retries; an action
    // whose rule is gone is dropped.
    let refreshed = PendingRefresh.refresh(state.pending, feed: feed, config: config)
    for action in refreshed.gone {
      Self.drop(
        action, of: feed, from: &state,
        reason: "its rule '\(action.label(feed: feed.name) ?? "")' is no longer in the config", now: now)
      outcome.report(.ruleGone(rule: action.label(feed: feed.name) ?? ""))
      journal.append(
        Self.entry(
          action, feed: feed, outcome: .dropped, now: now, attempt: action.attempts,
          detail: "its rule is no longer in the config"))
    }
    state.pending = refreshed.current
    var waiting = everyAction ? [] : state.pending.filter { !Self.isDue($0, now: now) }
    if !waiting.isEmpty { state.pending.removeAll { !Self.isDue($0, now: now) } }
    // Quiet hours: notifications wait (kept, durably, until the quiet time ends), and so do messages to
    // Apprise (they stay pending, tried again when quiet hours end); hooks and webhooks are not held.
    let quiet = config.settings.notify.quiet
    var held: [KeptNotification] = []
    if quiet.isQuiet(now) {
      let until = quiet.end(after: now)
      state.pending.removeAll { action in
        guard case .apprise(let apprise) = action.payload, quiet.holds(apprise.urgency, at: now) else { return false }
        var later = action
        later.nextTry = until
        waiting.append(later)
        journal.append(
          Self.entry(
            action, feed: feed, outcome: .held, now: now, detail: "quiet hours; sent at \(ISODate.format(until))"))
        return true
      }
      state.pending.removeAll { action in
        guard case .notify(let notification) = action.payload, quiet.holds(notification.urgency, at: now) else {
          return false
        }
        held.append(KeptNotification(feed: feed.name, action: action, until: until))
        return true
      }
      for entry in held {
        journal.append(
          Self.entry(
            entry.action, feed: feed, outcome: .held, now: now,
            detail: "quiet hours; shown at \(ISODate.format(until))"))
      }
    }
    return PreparedPending(journal: journal, held: held, waiting: waiting)
  }

  /// Records a dropped action in the state (the last 20 are kept for status).
  static func drop(
    _ action: FeedState.PendingAction, of feed: FeedConfig, from state: inout FeedState, reason: String, now: Date
  ) {
    state.dropped.append(
      FeedState.DroppedAction(
        key: action.key, rule: action.label(feed: feed.name), what: action.what, reason: reason, time: now))
    state.dropped = Array(state.dropped.suffix(20))
  }

  /// Journals what became of each action, keeps what must wait, and saves the state without the actions
  /// that are done (the pending list was saved before they ran: a crash repeats, never loses).
  func recordPending(
    _ state: inout FeedState, feed: FeedConfig, outcome: inout Outcome, prepared: PreparedPending,
    results: [ActionOutcome], now: Date
  ) {
    var journal = prepared.journal
    let held = prepared.held
    var kept: [FeedState.PendingAction] = []
    var toKeep: [FeedState.PendingAction] = []
    let notifications = state.pending.filter { $0.kind == .notify }.count
    let summary =
      notifications > config.settings.notify.maxPerPoll ? "in one summary of \(notifications)" : nil
    for (action, result) in zip(state.pending, results) {
      switch result {
      case .done:
        journal.append(
          Self.entry(
            action, feed: feed, outcome: action.kind == .notify ? .shown : .ok, now: now,
            exitStatus: action.kind == .hook ? 0 : nil, detail: action.kind == .notify ? summary : nil))
      case .notRun:
        kept.append(action)
        journal.append(Self.entry(action, feed: feed, outcome: .stopped, now: now, detail: "watcher was stopping"))
      case .interrupted(let seconds):
        kept.append(action)
        journal.append(
          Self.entry(
            action, feed: feed, outcome: .interrupted, now: now,
            detail: "killed after \(seconds) s as watcher stopped; it runs again on the next poll"))
      case .keep(let failure):
        toKeep.append(action)
        outcome.report(.notShown(failure))
        journal.append(Self.entry(action, feed: feed, outcome: .kept, now: now, detail: "\(failure)"))
      case .failed(let failure):
        var updated = action
        updated.attempts += 1
        updated.lastError = "\(failure)"
        let rule = action.label(feed: feed.name) ?? ""
        let settings = config.settings
        if settings.hookRetry.givesUp(
          attempts: updated.attempts, retries: settings.hookRetries, created: action.created, now: now)
        {
          Self.drop(action, of: feed, from: &state, reason: "\(failure)", now: now)
          let span = SpokenDuration.text(now.timeIntervalSince(action.created))
          outcome.report(
            .hookDropped(rule: rule, item: Self.itemName(action), attempts: updated.attempts, span: span, failure))
          runner.announce(
            summary: "watcher gave up on hook '\(rule)' for \(JSONString.literal(Self.itemName(action)))",
            body: "\(updated.attempts) attempts over \(span) failed; the last: \(failure)")
          journal.append(
            Self.entry(
              action, feed: feed, outcome: .dropped, now: now, exitStatus: failure.exitStatus,
              detail: "gave up after \(updated.attempts) attempts over \(span): \(failure)"))
        } else {
          let next = now.addingTimeInterval(settings.hookRetry.wait(afterAttempts: updated.attempts))
          updated.nextTry = next
          kept.append(updated)
          outcome.report(.hookWillRetry(rule: rule, item: Self.itemName(action), next: next, failure))
          journal.append(
            Self.entry(
              action, feed: feed, outcome: .retry, now: now, exitStatus: failure.exitStatus,
              detail: "\(failure); next try at \(ISODate.format(next))"))
        }
      }
    }
    outcome.journal += journal
    // What failed this time, for status (cleared once every action went through). A notification kept for
    // later is not a failure of the feed: status tells of kept notifications apart.
    if let failed = journal.first(where: { [.retry, .dropped].contains($0.outcome) && $0.detail != nil }) {
      state.lastActionError = "\(failed.action) of rule '\(failed.rule ?? "feed notify")': \(failed.detail ?? "")"
    } else if !journal.isEmpty {
      state.lastActionError = nil
    }
    do {
      try store.appendJournal(journal, limits: journalLimits, now: now)
    } catch {
      outcome.warnings.append("cannot write the journal: \(error)")
    }
    kept += moveToKept(toKeep, held: held, feed: feed, outcome: &outcome, now: now)
    // Actions the runner did not report on (a shorter answer), and those waiting for their next try, stay
    // pending.
    kept += state.pending.dropFirst(results.count) + prepared.waiting
    state.pending = kept
    outcome.pendingLeft = kept.count
    save(&state, outcome: &outcome)
  }

  /// Moves notifications that could not be shown, or wait for quiet hours to end, to the kept list (saved
  /// first: never lost); returns those that must stay pending because it could not be saved.
  private func moveToKept(
    _ toKeep: [FeedState.PendingAction], held: [KeptNotification], feed: FeedConfig, outcome: inout Outcome,
    now: Date
  ) -> [FeedState.PendingAction] {
    guard !toKeep.isEmpty || !held.isEmpty else { return [] }
    do {
      let stored = try store.keptNotifications()
      let added = toKeep.map { KeptNotification(feed: feed.name, action: $0) } + held
      let (bounded, dropped, why) = try keep(stored + added, now: now)
      // Counted as kept or held only when they are: past the bounds, the oldest are given up (and said so),
      // so those added (the newest, the held last) that stay are the last of what is kept.
      let stayed = min(added.count, bounded.count)
      outcome.held += min(held.count, stayed)
      outcome.kept += max(0, stayed - held.count)
      outcome.givenUp += added.count - stayed
      if dropped > 0 {
        outcome.warnings.append(
          "gave up on \(dropped) kept notification\(dropped == 1 ? "" : "s"): \(why.joined(separator: "; ")) "
            + "(see 'watcher log')")
      }
    } catch {
      outcome.report(.cannotKeep(error))
      return toKeep + held.map(\.action)
    }
    return []
  }

  /// Keeps the feed's state file within its byte budget: the oldest pending actions past it are given up,
  /// journaled and reported (only thousands of huge items waiting at once come near it).
  func fitBudget(_ job: inout FeedJob, now: Date) {
    let dropped = job.state.fitPending(budget: store.budget.feedFile)
    guard !dropped.isEmpty else { return }
    let reason =
      "the feed's state file would pass its budget of \(ByteCount.format(store.budget.feedFile)); "
      + "the oldest waiting actions were given up"
    for action in dropped { Self.drop(action, of: job.feed, from: &job.state, reason: reason, now: now) }
    let entries = dropped.map { Self.entry($0, feed: job.feed, outcome: .dropped, now: now, detail: reason) }
    job.outcome.journal += entries
    try? store.appendJournal(entries, limits: journalLimits, now: now)
    job.outcome.warnings.append(
      "gave up on \(dropped.count) waiting action\(dropped.count == 1 ? "" : "s"): \(reason) (see 'watcher log')")
  }

  /// An item as messages name it: its title, else its key.
  static func itemName(_ action: FeedState.PendingAction) -> String {
    action.title ?? HookEnvironment.variables(for: action)["WATCHER_TITLE"] ?? action.key
  }

  /// The journal's bounds, from `settings.journal`.
  package var journalLimits: JournalLimits {
    JournalLimits(keepFor: config.settings.journalKeepFor, keepMax: config.settings.journalKeepMax)
  }

  /// A journal entry for `action` of `feed`.
  static func entry(
    _ action: FeedState.PendingAction, feed: FeedConfig, outcome: JournalEntry.Outcome, now: Date,
    exitStatus: Int? = nil, attempt: Int? = nil, detail: String? = nil
  ) -> JournalEntry {
    // A hook's title and link, as its variables have them, when the action has none of its own.
    func hookVariables() -> [String: String] {
      action.kind == .hook ? HookEnvironment.variables(for: action) : [:]
    }
    return JournalEntry(
      time: now, feed: feed.name, title: action.title ?? hookVariables()["WATCHER_TITLE"],
      link: action.link ?? hookVariables()["WATCHER_LINK"], key: action.key, rule: action.label(feed: feed.name),
      action: action.kind.rawValue, outcome: outcome, exitStatus: exitStatus, attempt: attempt ?? action.attempts + 1,
      detail: detail)
  }
}
