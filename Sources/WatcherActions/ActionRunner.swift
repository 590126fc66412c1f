// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherState
import WatcherSupport

/// Why an action failed: typed here, turned into words only where it is shown or stored.
public enum ActionFailure: Error, Sendable, Equatable {
  /// A notification could not be shown: the service cannot be reached.
  case notification(ActionError)
  /// A hook failed: how it ended (exit status, signal, timeout, could not start) and its timeout.
  case hook(HookResult, timeout: Int)
  /// A webhook answered with a status that is not a success (`status`), or did not answer (`status` 0):
  /// why, in a few words.
  case webhook(status: Int, detail: String)
  /// Something else went wrong (used by test runners).
  case other(String)
}

extension ActionFailure {
  /// A failed hook's exit status, when it exited.
  public var exitStatus: Int? {
    if case .hook(let result, _) = self, result.signal == nil, !result.timedOut, result.startError == nil {
      return result.exitStatus.map(Int.init)
    }
    return nil
  }
}

extension ActionFailure {
  /// Why a notification was not shown, in a few words for a poll's line ("no session bus").
  public var briefly: String {
    let words = description
    if words.contains("DBUS_SESSION_BUS_ADDRESS") || words.contains("autolaunch") || words.contains("dbus-launch")
      || words.contains("Could not connect")
    {
      return "no session bus"
    }
    if words.contains("no notification server") || words.contains("ServiceUnknown") { return "no notification server" }
    return "the notification service cannot be reached"
  }
}

extension ActionFailure: CustomStringConvertible {
  /// "cannot reach the desktop notification service: …", "exit 3; stderr: …", "timed out after 30 s; …".
  public var description: String {
    switch self {
    case .notification(let error): return "\(error)"
    case .hook(let result, let timeout):
      var reason = result.describe(timeout: timeout)
      if !result.stderrTail.isEmpty {
        reason += "; stderr: " + result.stderrTail.replacing("\n", with: " | ")
      }
      return reason
    case .webhook(let status, let detail):
      return status == 0 ? "no answer: \(detail)" : "HTTP \(status)" + (detail.isEmpty ? "" : ": \(detail)")
    case .other(let reason): return reason
    }
  }
}

/// What became of one pending action.
public enum ActionOutcome: Sendable, Equatable {
  /// Done; remove it.
  case done
  /// Not carried out because watcher is stopping; it stays pending as it was.
  case notRun
  /// A hook that started and was killed after `seconds` because watcher was stopping: not its fault, so it
  /// stays pending as it was (no attempt counted) and runs again on the next pass.
  case interrupted(seconds: Int)
  /// A notification that could not be shown (the notification service is unreachable): keep it, bounded,
  /// and show it when the service is back; the reason is reported.
  case keep(ActionFailure)
  /// Failed: the poller counts the attempt and decides when to try again, or gives up
  /// (`settings.hook_retries`, `settings.hook_retry`).
  case failed(ActionFailure)
}

/// Carries out pending actions (notifications, hooks) and says what became of each (at least once; docs/design.md, "State").
///
/// The poller records actions as pending in the same state write that records their items as seen, then
/// hands them to the runner and saves what it reports. A crash in between repeats an action but never loses
/// one.
public protocol ActionRunner: Sendable {
  /// Runs `actions` of `feed`; one outcome per action, in order.
  func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> [ActionOutcome]

  /// Runs the actions of several feeds, one list of outcomes per feed, in order. A runner may overlap them
  /// (the hooks of a whole batch of feeds share the hook slots); by default each feed's run in turn.
  func run(batches: [PendingBatch]) -> [[ActionOutcome]]

  /// Shows notifications kept from earlier passes: one as it was, several as one "while you were away"
  /// summary. `.done` when shown, `.keep` when still not.
  func showKept(_ kept: [KeptNotification]) -> ActionOutcome

  /// Tells the user something they must hear once (a hook given up), as a notification when it can;
  /// the journal and `status` say it too.
  func announce(summary: String, body: String)
}

/// The pending actions of one feed.
public struct PendingBatch: Sendable {
  /// The actions, in order.
  public var actions: [FeedState.PendingAction]
  /// Their feed.
  public var feed: FeedConfig

  /// A feed's actions.
  public init(actions: [FeedState.PendingAction], feed: FeedConfig) {
    self.actions = actions
    self.feed = feed
  }
}

extension ActionRunner {
  /// By default, nothing beyond the journal and `status`.
  public func announce(summary: String, body: String) {}

  /// Each feed's actions in turn.
  public func run(batches: [PendingBatch]) -> [[ActionOutcome]] {
    batches.map { run($0.actions, feed: $0.feed) }
  }
}

/// Prints each action instead of carrying it out (for tests and dry runs); it never runs a command.
public struct PrintingActionRunner: ActionRunner {
  private let output: @Sendable (String) -> Void

  /// Creates a runner that writes one line per action through `output`.
  public init(output: @escaping @Sendable (String) -> Void) {
    self.output = output
  }

  public func showKept(_ kept: [KeptNotification]) -> ActionOutcome {
    for entry in kept { output("notify [\(entry.feed)] (kept) \(DesktopNotification(entry.action).summary)") }
    return .done
  }

  public func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> [ActionOutcome] {
    for action in actions {
      let rule = action.label(feed: feed.name) ?? ""
      switch action.payload {
      case .notify(let notification):
        output(
          "notify [\(feed.name)] \(notification.summary)\(notification.body.isEmpty ? "" : " — \(notification.body)")")
      case .hook(let hook):
        output(
          "hook [\(feed.name)] rule '\(rule)' would run: \(hook.command ?? hook.arguments?.joined(separator: " ") ?? "")"
        )
      case .webhook(let webhook):
        output("webhook [\(feed.name)] rule '\(rule)' would POST to \(URLSecrets.redacted(webhook.url))")
      case .apprise(let apprise):
        output("apprise [\(feed.name)] rule '\(rule)' would send: \(apprise.title)")
      }
    }
    return actions.map { _ in .done }
  }
}
