// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherState
import WatcherSupport

extension DigestAction {
  /// `digest` timed by this schedule: as it is when it was timed by it (or by a version that did not say
  /// which), else due at this schedule's time after its first item came — a changed `at:` or `every:`
  /// counts at once, not after the old time has passed.
  public func timed(_ digest: Digest) -> Digest {
    var timed = digest
    timed.timing = timing
    guard let old = digest.timing, old != timing, let first = digest.items.map(\.collected).min() else { return timed }
    timed.due = due(after: first)
    return timed
  }
}

extension Config {
  /// The digests as their rules' current schedules time them (`DigestAction.timed`).
  public func timed(_ digests: [Digest]) -> [Digest] {
    digests.map { digest in
      rules.first { $0.name == digest.rule }?.actions.digest.map { $0.timed(digest) } ?? digest
    }
  }
}

extension Poller {
  /// Adds items to their rules' digests (a new digest goes out on its rule's schedule); returns warnings
  /// (entries dropped to keep the file within its budget).
  func collect(_ entries: [(rule: String, entry: Digest.Entry)], now: Date) throws(StateError) -> [String] {
    var digests = config.timed(try store.digests())
    for (rule, entry) in entries {
      if let index = digests.firstIndex(where: { $0.rule == rule }) {
        guard !digests[index].items.contains(where: { $0.feed == entry.feed && $0.key == entry.key }) else { continue }
        digests[index].items.append(entry)
        digests[index].items = Array(digests[index].items.suffix(Digest.maxItems))
      } else {
        let schedule = config.rules.first { $0.name == rule }?.actions.digest ?? DigestAction(every: 86_400)
        digests.append(Digest(rule: rule, due: schedule.due(after: now), items: [entry], timing: schedule.timing))
      }
    }
    return droppedNote(try saveDigests(digests, now: now)).map { [$0] } ?? []
  }

  /// What the poll says when digest entries were dropped to fit the file's budget.
  func droppedNote(_ dropped: Int) -> String? {
    guard dropped > 0 else { return nil }
    return "digests.json would pass its budget of \(ByteCount.format(store.budget.sharedFile)): dropped the "
      + "\(dropped) oldest digest entr\(dropped == 1 ? "y" : "ies") (see 'watcher log')"
  }

  /// Saves the digests within the file's byte budget, and returns how many entries were dropped to fit.
  ///
  /// Each entry dropped is journaled.
  func saveDigests(_ digests: [Digest], now: Date) throws(StateError) -> Int {
    let dropped = try store.saveDigests(digests)
    guard !dropped.isEmpty else { return 0 }
    let entries = dropped.map { rule, entry in
      JournalEntry(
        time: now, feed: entry.feed, title: entry.title, link: entry.link, key: entry.key, rule: rule,
        action: "digest", outcome: .dropped,
        detail: "digests.json would pass its budget of \(ByteCount.format(store.budget.sharedFile)); "
          + "the oldest entries were dropped")
    }
    try? store.appendJournal(entries, limits: journalLimits, now: now)
    return dropped.count
  }

  /// Whether a digest goes out now: at its time, or at once when that time is further off than its schedule
  /// allows (the clock was set back).
  func isDue(_ digest: Digest, now: Date) -> Bool {
    let every = config.rules.first { $0.name == digest.rule }?.actions.digest?.every ?? 86_400
    return digest.nextAttempt <= now || digest.nextAttempt > now.addingTimeInterval(Double(max(every, 86_400) * 2))
  }

  /// Sends the digests that are due.
  ///
  /// First the rule's digest hook (the items as a JSON array on stdin), then one notification listing the
  /// titles. A failing hook is retried on later passes (up to `hook_retries`);
  /// quiet hours hold the digest; a notification that cannot be shown is kept like any other.
  func deliverDigests(_ pass: inout Pass, now: Date) {
    let digests: [Digest]
    do {
      digests = config.timed(try store.digests())
    } catch {
      pass.digestProblems.append("\(error)")
      return
    }
    guard digests.contains(where: { isDue($0, now: now) }) else { return }
    let settings = config.settings.notify
    var remaining: [Digest] = []
    var journal: [JournalEntry] = []
    var toKeep: [KeptNotification] = []
    let digestFeed = FeedConfig(url: "", name: "digest")
    digestLoop: for var digest in digests {
      guard isDue(digest, now: now), !digest.items.isEmpty, !settings.quiet.holds(settings.urgency, at: now) else {
        if !digest.items.isEmpty { remaining.append(digest) }
        continue
      }
      let count = digest.items.count
      let lines = digest.items.prefix(20).map { "\($0.feed): \($0.title ?? $0.key)" }
      let summary = "Digest '\(digest.rule)': \(count) item\(count == 1 ? "" : "s")"
      let listing = (lines + (count > 20 ? ["… and \(count - 20) more"] : [])).joined(separator: "\n")
      // What the digest goes out through before its notification: the rule's digest hook, then Apprise (a
      // digest rule's apprise: gets the digest, not each item). A failure retries them all, spaced in time.
      let outputs = digestOutputs(digest, summary: summary, listing: listing, now: now)
      for action in outputs {
        var attempt = action
        attempt.attempts = digest.attempts
        let result = runner.run([attempt], feed: digestFeed).first ?? .notRun
        let entry = Self.entry(
          attempt, feed: digestFeed, outcome: .ok, now: now, exitStatus: 0, detail: "\(count) items")
        switch result {
        case .done: journal.append(entry)
        case .notRun, .interrupted, .keep:
          remaining.append(digest)
          continue digestLoop
        case .failed(let failure):
          digest.attempts += 1
          var failed = entry
          failed.exitStatus = failure.exitStatus
          let retry = config.settings.hookRetry
          // Spaced in time like any hook: given up only after hook_retries attempts over give_up_after.
          guard
            retry.givesUp(
              attempts: digest.attempts, retries: config.settings.hookRetries, created: digest.due, now: now)
          else {
            let next = now.addingTimeInterval(retry.wait(afterAttempts: digest.attempts))
            digest.nextTry = next
            remaining.append(digest)
            pass.digestProblems.append(
              "the digest \(attempt.kind.rawValue) of rule '\(digest.rule)' failed (\(failure)); will retry at \(ISODate.format(next))"
            )
            failed.outcome = .retry
            failed.detail = "\(failure); next try at \(ISODate.format(next))"
            journal.append(failed)
            continue digestLoop
          }
          let span = SpokenDuration.text(now.timeIntervalSince(digest.due))
          pass.digestProblems.append(
            "gave up on the digest \(attempt.kind.rawValue) of rule '\(digest.rule)' after \(digest.attempts) attempts over \(span): \(failure)"
          )
          runner.announce(
            summary: "watcher gave up on the digest \(attempt.kind.rawValue) of rule '\(digest.rule)'",
            body: "\(digest.attempts) attempts over \(span) failed; the last: \(failure)")
          failed.outcome = .dropped
          failed.detail = "gave up after \(digest.attempts) attempts over \(span): \(failure)"
          journal.append(failed)
        }
      }
      let notification = digestNotification(digest, summary: summary, listing: listing, now: now)
      if case .keep(let failure) = runner.showKept([KeptNotification(feed: "digest", action: notification)]) {
        toKeep.append(KeptNotification(feed: "digest", action: notification))
        journal.append(Self.entry(notification, feed: digestFeed, outcome: .kept, now: now, detail: "\(failure)"))
      } else {
        journal.append(Self.entry(notification, feed: digestFeed, outcome: .shown, now: now, detail: "\(count) items"))
      }
      pass.digestsShown.append((digest.rule, count))
    }
    do {
      if !toKeep.isEmpty { pass.keptDropped += try keep(try store.keptNotifications() + toKeep, now: now).dropped }
      if let note = droppedNote(try saveDigests(remaining, now: now)) { pass.digestProblems.append(note) }
    } catch {
      pass.digestProblems.append("\(error)")
    }
    try? store.appendJournal(journal, limits: journalLimits, now: now)
    pass.digestJournal += journal
  }

  /// What a digest goes out through before its notification: the rule's digest hook, then Apprise (a
  /// digest rule's apprise: gets the digest, not each item).
  private func digestOutputs(_ digest: Digest, summary: String, listing: String, now: Date)
    -> [FeedState.PendingAction]
  {
    let rule = config.rules.first { $0.name == digest.rule }
    let settings = config.settings.notify
    var outputs: [FeedState.PendingAction] = []
    if let hook = rule?.actions.digestHook {
      outputs.append(
        FeedState.PendingAction(
          kind: .hook, key: "digest:\(digest.rule)", rule: digest.rule, command: hook.command,
          arguments: hook.run?.map { $0.render(FeedItem(key: ""), feed: "digest", tags: []) },
          timeout: hook.timeout, item: "[" + digest.items.map(\.item).joined(separator: ",") + "]",
          title: "digest of rule '\(digest.rule)'", created: now))
    }
    if let apprise = rule?.actions.apprise {
      var message = FeedState.PendingAction.Apprise(
        title: summary, body: listing, urgency: apprise.message.urgency ?? settings.urgency)
      (message.urls, message.file) = (apprise.urls, apprise.file)
      outputs.append(
        FeedState.PendingAction(
          key: "digest:\(digest.rule)", source: .rule(digest.rule), payload: .apprise(message),
          title: "digest of rule '\(digest.rule)'", created: now))
    }
    return outputs
  }

  /// A digest's notification: its summary, the titles it lists, and "Open all" for its items.
  private func digestNotification(_ digest: Digest, summary: String, listing: String, now: Date)
    -> FeedState.PendingAction
  {
    let settings = config.settings.notify
    var notification = FeedState.PendingAction(
      kind: .notify, key: "digest:\(digest.rule)", rule: digest.rule, summary: summary, body: listing,
      urgency: settings.urgency, expire: settings.expire, icon: settings.icon,
      title: "digest of rule '\(digest.rule)'", created: now)
    // "Open all" opens the digest's items.
    if case .notify(var shown) = notification.payload {
      shown.links = Array(digest.items.compactMap(\.link).prefix(20))
      // A digest's notification replaces its previous bubble.
      (shown.category, shown.replaces) = (.digest, notification.key)
      notification.payload = .notify(shown)
    }
    return notification
  }
}
