// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Carries out pending actions (notifications, hooks) and says which are done (SPEC §5: at-least-once).
///
/// The poller records actions as pending in the same state write that records their items as seen, then
/// hands them to the runner; the ones the runner reports done are removed in a second write. A crash in
/// between repeats an action but never loses one.
public protocol ActionRunner: Sendable {
  /// Runs `actions` of `feed`; returns the indices (into `actions`) that are done.
  func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> Set<Int>
}

/// Prints each action instead of carrying it out: the stand-in until desktop notifications and hooks are built (issue #5).
///
/// It never runs a command.
public struct PrintingActionRunner: ActionRunner {
  private let output: @Sendable (String) -> Void

  /// Creates a runner that writes one line per action through `output`.
  public init(output: @escaping @Sendable (String) -> Void) {
    self.output = output
  }

  public func run(_ actions: [FeedState.PendingAction], feed: FeedConfig) -> Set<Int> {
    for action in actions {
      switch action.kind {
      case .notify:
        output("notify [\(feed.name)] \(action.summary ?? "")\(action.body.map { $0.isEmpty ? "" : " — \($0)" } ?? "")")
      case .hook:
        output(
          "hook [\(feed.name)] rule '\(action.rule ?? "")' would run: \(action.command ?? "") (hooks are not run yet)")
      }
    }
    return Set(actions.indices)
  }
}
