// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherConfig
import WatcherPoll

/// The words for what a pass did to each feed, shared by `poll`, `catch-up` and the daemon.
enum PollReport {
  /// "60 new: recorded silently (first poll)", "3 new: 1 notified, 1 hook, 1 muted; 2 older than max_age".
  static func describe(_ outcome: Poller.Outcome, mode: Poller.Mode) -> String {
    if outcome.notModified { return "not modified since the last poll" }
    if mode == .catchUp { return "\(outcome.items) items, all recorded as seen" }
    let new = outcome.newItems
    guard new > 0 else { return "\(outcome.items) items, nothing new" }
    if mode == .silentRestart { return "\(new) new: recorded silently (the feed started again)" }
    if case .silent = outcome.firstPoll {
      return "\(new) new: recorded silently (first poll; settings.first_poll is silent)"
    }
    var parts: [String] = []
    if outcome.notified > 0 { parts.append("\(outcome.notified) notified") }
    if outcome.hooked > 0 { parts.append("\(outcome.hooked) hook\(outcome.hooked == 1 ? "" : "s")") }
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
    if outcome.held > 0 {
      extras.append("\(outcome.held) notification\(outcome.held == 1 ? "" : "s") held for quiet hours")
    }
    if outcome.tooOld > 0 {
      extras.append("\(outcome.tooOld) older than max_age" + (outcome.actedOn == 0 ? " (recorded, not acted on)" : ""))
    }
    let acted = parts.joined(separator: ", ")
    return "\(new) new: " + ([acted].filter { !$0.isEmpty } + extras).joined(separator: "; ")
  }

  /// Lines for the feeds that were not due: one each, or one for all when there are many.
  static func notDue(_ outcomes: [Poller.Outcome], now: Date = Date()) -> [String] {
    let waiting = outcomes.compactMap { outcome -> (name: String, next: Date)? in
      guard !outcome.polled, outcome.heldUntil == nil, outcome.failures.isEmpty, let next = outcome.nextDue else {
        return nil
      }
      return (outcome.feed.name, next)
    }.sorted { $0.next < $1.next }
    guard let first = waiting.first else { return [] }
    if waiting.count > 10 {
      return [
        "\(waiting.count) feeds not due; the next is '\(first.name)', \(StatusCommand.relative(first.next, now: now)) "
          + "(name feeds with --feed to poll them now)"
      ]
    }
    return waiting.map {
      "\($0.name): not due: next poll \(StatusCommand.relative($0.next, now: now)) (name it with --feed to poll now)"
    }
  }
}
