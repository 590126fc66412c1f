// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig
import WatcherPoll
import WatcherSupport

extension PollReport {
  /// `poll --json` and `catch-up --json`: what the pass did, feed by feed (docs/json.md).
  static func json(_ pass: Poller.Pass, command: String, failed: Int, signal: Int32?) -> JSONOutput {
    let outcomes = pass.outcomes
    let feeds = outcomes.map { outcome in
      JSONOutput.object([
        ("feed", .string(outcome.feed.name)), ("polled", .bool(outcome.polled)),
        ("not_modified", .bool(outcome.notModified)), ("items", .int(outcome.items)),
        ("new_items", .int(outcome.newItems)), ("acted_on", .int(outcome.actedOn)), ("actions", .int(outcome.actions)),
        ("notified", .int(outcome.notified)), ("hooks", .int(outcome.hooked)), ("webhooks", .int(outcome.webhooks)),
        ("apprise", .int(outcome.apprised)), ("muted", .int(outcome.muted)), ("too_old", .int(outcome.tooOld)),
        ("repeats", .int(outcome.repeats)), ("pending_left", .int(outcome.pendingLeft)), ("kept", .int(outcome.kept)),
        ("held_until", .optional(outcome.heldUntil.map(ISODate.format))),
        ("next_due", .optional(outcome.nextDue.map(ISODate.format))),
        ("failures", .array(outcome.failures.map { .string(Printable.line("\($0)")) })),
        ("action_problems", .array(outcome.actionProblems.map { .string(Printable.line("\($0)")) })),
        ("warnings", .array(outcome.warnings.map { .string(Printable.line($0)) })),
      ])
    }
    return .document([
      ("command", .string(command)), ("feeds_polled", .int(outcomes.reduce(0) { $0 + ($1.polled ? 1 : 0) })),
      ("feeds", .array(feeds)), ("new_items", .int(outcomes.reduce(0) { $0 + $1.newItems })),
      ("actions", .int(outcomes.reduce(0) { $0 + $1.actions })), ("failed", .int(failed)),
      ("stopped_by_signal", signal.map { .int(Int($0)) } ?? .null),
    ])
  }
}
