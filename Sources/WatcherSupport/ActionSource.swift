// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// Who asked for an action: a rule of the config, or the feed itself (its `notify: true` or `hook:`).
///
/// Typed, so that a rule named like a feed's own hook is never taken for it.
public enum ActionSource: Sendable, Equatable, Hashable {
  /// The rule of that name (a digest's actions are its rule's).
  case rule(String)
  /// The feed's own `notify: true` or `hook:`.
  case feed
  /// A button of that rule's notification, clicked: its hook.
  case button(rule: String, label: String)

  /// The rule's name; `nil` for the feed.
  public var ruleName: String? {
    switch self {
    case .rule(let name), .button(let name, _): return name
    case .feed: return nil
    }
  }

  /// How messages, the journal and `watcher pending` name it: the rule's name; the feed's own hook as
  /// "feed 'NAME'"; the feed's own notification as nothing (`nil`).
  public func label(feed: String, hook: Bool) -> String? {
    switch self {
    case .rule(let name): return name
    case .feed: return hook ? "feed '\(feed)'" : nil
    case .button(let rule, let label): return "\(rule) (button '\(label)')"
    }
  }
}
