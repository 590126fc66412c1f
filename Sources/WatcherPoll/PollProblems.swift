// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherState
import WatcherSupport

/// Why a feed could not be polled, or its state could not be saved: typed, and turned into words only where
/// it is shown.
public enum FeedFailure: Error, Sendable, Equatable {
  /// The feed's state file exists but cannot be read; it is left alone and the feed does nothing.
  case unreadableState(StateError)
  /// The feed could not be fetched, read or parsed.
  case load(FeedLoadError)
  /// The state could not be saved; `unsavedActions` new actions wait until it can be.
  case save(StateError, unsavedActions: Int)
}

extension FeedFailure: CustomStringConvertible {
  public var description: String {
    switch self {
    case .unreadableState(let error): return "\(error)"
    case .load(let error): return "\(error)"
    case .save(let error, let unsaved):
      return "\(error)"
        + (unsaved > 0 ? "; its \(unsaved) new action(s) are not run until the state can be saved" : "")
    }
  }
}

/// An action of a pass that did not go as planned (the feed itself was polled).
public enum ActionProblem: Sendable, Equatable {
  /// Notifications could not be shown; they were kept to show later.
  case notShown(ActionFailure)
  /// A hook failed for the item titled `item` and will be retried on a later pass.
  case hookWillRetry(rule: String, item: String, next: Date, ActionFailure)
  /// A hook failed `hook_retries` times over at least `hook_retry.give_up_after` (`span`) for the item
  /// titled `item`, and was given up.
  case hookDropped(rule: String, item: String, attempts: Int, span: String, ActionFailure)
  /// Notifications that could not be shown could not be kept either; they stay pending.
  case cannotKeep(StateError)
  /// Pending actions whose rule is no longer in the config were dropped.
  case ruleGone(rule: String)
}

extension ActionProblem {
  /// Whether it is a failure (the poll exits 1) rather than a note (a config change took effect).
  public var isFailure: Bool {
    switch self {
    // Kept notifications are shown later and a rule removed on purpose: nothing failed.
    case .ruleGone, .notShown: return false
    default: return true
    }
  }

  /// How a line about it starts: "error", "warning" (kept to show later) or "note".
  public var label: String {
    if isFailure { return "error" }
    if case .notShown = self { return "warning" }
    return "note"
  }
}

extension ActionProblem: CustomStringConvertible {
  public var description: String {
    switch self {
    case .notShown(let failure): return "\(failure)"
    case .hookWillRetry(let rule, let item, let next, let failure):
      return
        "hook of rule '\(rule)' failed for \(JSONString.literal(item)) (\(failure)); will retry at \(ISODate.format(next))"
    case .hookDropped(let rule, let item, let attempts, let span, let failure):
      return
        "gave up on hook of rule '\(rule)' for \(JSONString.literal(item)) after \(attempts) attempts over \(span): \(failure)"
    case .cannotKeep(let error): return "cannot keep notifications for later: \(error)"
    case .ruleGone(let rule):
      return "dropped pending actions of rule '\(rule)': it is no longer in the config"
    }
  }
}
