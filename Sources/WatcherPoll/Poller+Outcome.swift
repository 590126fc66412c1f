// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherRules
import WatcherState

extension Poller {
  /// What happened to one feed.
  public struct Outcome: Sendable {
    /// The feed.
    public var feed: FeedConfig
    /// Whether it was polled (false: not due yet).
    public var polled = false
    /// HTTP 304 (or an unchanged file).
    public var notModified = false
    /// Items in the feed now.
    public var items = 0
    /// Items not seen before.
    public var newItems = 0
    /// New items acted on (rules evaluated).
    public var actedOn = 0
    /// Actions recorded as pending.
    public var actions = 0
    /// Why the feed could not be polled, or its state saved (empty when all went well).
    public var failures: [FeedFailure] = []
    /// Set when the feed was named (forced) but not polled because its server asked to wait until then.
    public var heldUntil: Date?
    /// Held because another feed of its host was told to wait in this very pass (even a forced one).
    public var heldInPass = false
    /// Problems worth reporting that did not stop the feed (corrupt state, parse warnings).
    public var warnings: [String] = []
    /// Actions that failed (a notification service that cannot be reached, a failing hook).
    public var actionProblems: [ActionProblem] = []
    /// Actions still pending after the pass (to retry, or not run because watcher was stopping).
    public var pendingLeft = 0
    /// Notifications that could not be shown and were kept to show later.
    public var kept = 0
    /// In a dry run: the actions the real poll would carry out for this feed (new ones and retries).
    public var planned: [FeedState.PendingAction] = []
    /// Set when this pass was the feed's first: what `first_poll` did with its items.
    public var firstPoll: Settings.FirstPoll?
    /// New items not acted on because they were published longer ago than `max_age`.
    public var tooOld = 0
    /// New items acted on that a rule muted, that got a notification, that got a hook, that nothing touched.
    public var muted = 0
    public var notified = 0
    /// New items POSTed to a webhook.
    public var webhooks = 0
    /// New items sent through Apprise.
    public var apprised = 0
    public var hooked = 0
    public var untouched = 0
    /// When the feed is due next (set for a feed that was not due).
    public var nextDue: Date?
    /// Why it is due then ("posts about every 3 h", "the server asks for 1 h (Cache-Control or Expires)").
    public var nextBecause: [String] = []
    /// What became of each action (as the journal records it).
    public var journal: [JournalEntry] = []
    /// Notifications held for quiet hours.
    public var held = 0
    /// This pass's notifications that could neither be shown nor kept (past `keep_max`, `keep_for` or the
    /// file's budget): given up, and journaled.
    public var givenUp = 0
    /// Items whose notifications were not made because the feed is snoozed.
    public var snoozed = 0
    /// Items collected for digests in this pass: (rule, item title).
    public var digested: [(rule: String, title: String)] = []
    /// Known items met under new keys (their feed changed its ids): re-keyed, not announced.
    public var rekeyed = 0
    /// "changed its item ids (https): 10 items re-keyed, none announced", said once.
    public var rekeyNote: String?
    /// Items seen before whose title or text changed, acted on by the rules with `on_update` (their titles).
    public var updated: [String] = []
    /// Items taken for known ones under new keys, and new items that resembled known ones: one journal entry
    /// each (at most `Novelty.notesPerPoll`), so that `items` and `log` show the decision.
    public var identityNotes: [JournalEntry] = []
    /// Repeats of an item inside one document: the same item, not new.
    public var repeats = 0
    /// New items whose story was acted on for another feed: (item title, that feed).
    public var duplicates: [(title: String, feed: String)] = []

    /// Records a problem once: the same failure of several actions is one problem.
    mutating func report(_ problem: ActionProblem) {
      if !actionProblems.contains(problem) { actionProblems.append(problem) }
    }
  }

  /// Why the notifications kept from earlier passes were not shown.
  public enum KeptFailure: Sendable, Equatable, CustomStringConvertible {
    /// The notification service is still unreachable.
    case notShown(ActionFailure)
    /// The kept list could not be read or written.
    case store(StateError)

    public var description: String {
      switch self {
      case .notShown(let failure): return "\(failure)"
      case .store(let error): return "\(error)"
      }
    }
  }

  /// What a pass did: one outcome per feed, and what became of the notifications kept for later.
  public struct Pass: Sendable {
    /// One outcome per feed, in the order given.
    public var outcomes: [Outcome]
    /// Kept notifications shown at the start of this pass (several as one summary).
    public var keptShown = 0
    /// Notifications kept at the end of the pass, waiting for the notification service.
    public var keptWaiting = 0
    /// Kept notifications given up on (older than `keep_for`, or beyond `keep_max`).
    public var keptDropped = 0
    /// Kept notifications still held for quiet hours.
    public var keptHeld = 0
    /// Notification buttons clicked that could not be made pending actions (said by the poll).
    public var clickProblems: [String] = []
    /// Digests that went out: (rule, items).
    public var digestsShown: [(rule: String, items: Int)] = []
    /// Why a digest did not go out, when one did not.
    public var digestProblems: [String] = []
    /// What became of each digest's hook, Apprise message and notification (as the journal records it).
    public var digestJournal: [JournalEntry] = []

    /// A pass of these outcomes, nothing else done.
    public init(outcomes: [Outcome]) {
      self.outcomes = outcomes
    }
    /// Why the kept notifications could not be shown or stored, when they could not.
    public var keptError: KeptFailure?
  }
}
