// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherPoll
import WatcherSupport

/// The words for what a pass did to each feed, shared by `poll`, `catch-up` and the daemon.
enum PollReport {
  /// "60 new: recorded silently (first poll)", "3 new: 1 notified, 1 hook, 1 muted; 2 older than max_age".
  static func describe(_ outcome: Poller.Outcome, mode: Poller.Mode) -> String {
    if outcome.notModified { return "not modified since the last poll" }
    if mode == .catchUp { return "\(outcome.items) items, all recorded as seen" }
    let new = outcome.newItems
    let updated =
      outcome.updated.isEmpty ? "" : "; \(outcome.updated.count) updated, not new (acted on by on_update rules)"
    guard new > 0 else { return "\(outcome.items) items, nothing new" + updated }
    if mode == .silentRestart { return "\(new) new: recorded silently (the feed started again)" }
    if case .silent = outcome.firstPoll {
      return "\(new) new: recorded silently (first poll; settings.first_poll is silent)"
    }
    var parts: [String] = []
    // Said as it went: shown, kept for when the notification service is back, or held for quiet hours.
    let shown = max(0, outcome.notified - outcome.kept - outcome.held - outcome.givenUp)
    if shown > 0 { parts.append("\(shown) notified") }
    if outcome.givenUp > 0 {
      parts.append("\(outcome.givenUp) notification\(outcome.givenUp == 1 ? "" : "s") given up (see the warning)")
    }
    if outcome.kept > 0 {
      let why = outcome.actionProblems.lazy.compactMap { problem -> String? in
        if case .notShown(let failure) = problem { failure.briefly } else { nil }
      }.first
      parts.append("\(outcome.kept) to notify, kept (\(why ?? "the notification service cannot be reached"))")
    }
    if outcome.hooked > 0 { parts.append("\(outcome.hooked) hook\(outcome.hooked == 1 ? "" : "s")") }
    if outcome.webhooks > 0 { parts.append("\(outcome.webhooks) to a webhook") }
    if outcome.apprised > 0 { parts.append("\(outcome.apprised) through Apprise") }
    if outcome.muted > 0 { parts.append("\(outcome.muted) muted") }
    if outcome.untouched > 0 { parts.append("\(outcome.untouched) matched no rule") }
    var extras: [String] = []
    let silent = new - outcome.actedOn - outcome.tooOld
    if silent > 0, case .latest(let n) = outcome.firstPoll {
      extras.append("\(silent) recorded silently (first poll: latest \(n))")
    }
    if !outcome.digested.isEmpty {
      let rules = Set(outcome.digested.map(\.rule)).sorted().map { "'\($0)'" }.joined(separator: ", ")
      parts.append("\(outcome.digested.count) for the digest of \(rules)")
    }
    if outcome.snoozed > 0 {
      extras.append("\(outcome.snoozed) not notified: the feed is snoozed ('watcher unsnooze \(outcome.feed.name)')")
    }
    if outcome.held > 0 {
      extras.append("\(outcome.held) notification\(outcome.held == 1 ? "" : "s") held for quiet hours")
    }
    if outcome.tooOld > 0 {
      extras.append("\(outcome.tooOld) older than max_age" + (outcome.actedOn == 0 ? " (recorded, not acted on)" : ""))
    }
    if !outcome.duplicates.isEmpty {
      let feeds = Set(outcome.duplicates.map(\.feed)).sorted().map { "'\($0)'" }.joined(separator: ", ")
      extras.append("\(outcome.duplicates.count) already acted on for \(feeds) (the same story, not again)")
    }
    let acted = parts.joined(separator: ", ")
    return "\(new) new: " + ([acted].filter { !$0.isEmpty } + extras).joined(separator: "; ") + updated
  }

  /// Who reads the lines of `lines(_:for:)`.
  enum Audience {
    /// `watcher poll` and `catch-up`, in that mode.
    case poll(Poller.Mode)
    /// The daemon's log: also every journal entry and each note, and a feed's warnings only while
    /// `newWarning` says they are new.
    case daemon(newWarning: (String) -> Bool)
    /// `poll --dry-run` and `pending --retry`: what failed.
    case failuresOnly
  }

  /// The one report of a feed's outcome, for every command that shows one: its warnings, why it was not
  /// polled, each item acted on (the daemon), its failure, and what it did.
  static func lines(_ outcome: Poller.Outcome, for audience: Audience) -> [String] {
    let feed = outcome.feed
    let failure =
      outcome.failures.isEmpty
      ? nil : "error: feed '\(feed.name)' (\(URLSecrets.redacted(feed.url))): \(outcome.failureText)"
    var lines: [String] = []
    switch audience {
    case .failuresOnly:
      return (failure.map { [$0] } ?? []) + (outcome.rekeyNote.map { ["note: feed '\(feed.name)' \($0)"] } ?? [])
    case .poll(let mode):
      lines += outcome.warnings.map { "warning: feed '\(feed.name)': \($0)" }
      if let until = outcome.heldUntil, outcome.heldInPass {
        lines.append(
          "note: feed '\(feed.name)': not polled: its host just answered another feed with 429/503; "
            + "it waits until \(WallClock.shown(until))")
      } else if let until = outcome.heldUntil {
        lines.append(
          "note: feed '\(feed.name)': not polled: its server asked to wait until \(WallClock.shown(until)) "
            + "(429/503, Retry-After); --force polls it anyway")
      }
      if let failure {
        lines.append(failure)
      } else if outcome.polled {
        lines.append("\(feed.name): " + describe(outcome, mode: mode))
      }
      if let note = outcome.rekeyNote { lines.append("note: feed '\(feed.name)' \(note)") }
    case .daemon(let newWarning):
      // A feed not due yet may still have retried what an earlier pass left pending.
      guard outcome.polled else {
        return outcome.journal.map { LogCommand.line($0, time: false) }
          + outcome.actionProblems.filter { !$0.isFailure }.map { "\($0.label): \($0)" }
      }
      for warning in outcome.warnings where newWarning(warning) {
        lines.append("warning: feed '\(feed.name)': \(warning) (said once; 'watcher parse' shows them all)")
      }
      // Every item acted on: feed, title, rule, action and outcome.
      lines += outcome.journal.map { LogCommand.line($0, time: false) }
      lines += outcome.actionProblems.filter { !$0.isFailure }.map { "\($0.label): \($0)" }
      if let failure {
        lines.append(failure)
      } else if outcome.newItems > 0 || !outcome.updated.isEmpty {
        lines.append("\(feed.name): " + describe(outcome, mode: .normal))
      }
      if let note = outcome.rekeyNote { lines.append("note: feed '\(feed.name)' \(note)") }
    }
    return lines
  }

  /// Lines for the feeds that were not due: one each, or one for all when there are many.
  static func notDue(_ outcomes: [Poller.Outcome], now: Date = WallClock.now()) -> [String] {
    let waiting = outcomes.compactMap { outcome -> (name: String, next: Date, because: [String])? in
      guard !outcome.polled, outcome.heldUntil == nil, outcome.failures.isEmpty, let next = outcome.nextDue else {
        return nil
      }
      return (outcome.feed.name, next, outcome.nextBecause)
    }.sorted { $0.next < $1.next }
    guard let first = waiting.first else { return [] }
    if waiting.count > 10 {
      return [
        "\(waiting.count) feeds not due; the next is '\(first.name)', \(StatusCommand.relative(first.next, now: now)) "
          + "(name feeds with --feed to poll them now)"
      ]
    }
    return waiting.map {
      // Due within the half minute "just now" stands for: said as it is.
      guard $0.next.timeIntervalSince(now) >= 30 else { return "\($0.name): due now (name it with --feed to poll now)" }
      return "\($0.name): not due: next poll \(StatusCommand.relative($0.next, now: now))"
        + ($0.because.isEmpty ? "" : " (\(WallClock.local($0.next))): " + $0.because.joined(separator: "; "))
        + " (name it with --feed to poll now)"
    }
  }
}
