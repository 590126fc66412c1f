// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig
import WatcherSupport

/// What the rules decided for one item, and why (the result of `RuleEngine.evaluate`).
public struct Decision: Sendable, Equatable {
  /// One reason: a rule matched because this field had this text.
  public struct Match: Sendable, Equatable {
    /// The rule's name.
    public var rule: String
    /// The field that matched (`published` for age conditions).
    public var field: String
    /// The text that matched (the needle found, the regex match, or the date).
    public var text: String
  }

  /// A notification to show: what the rule rendered (the shape the state keeps and libnotify shows), and
  /// the rule that asked for it.
  @dynamicMemberLookup
  public struct Notification: Sendable, Equatable {
    /// The rule that asked for it, or `nil` for a feed's `notify: true`.
    public var rule: String?
    public var content: NotificationContent

    public init(
      rule: String?, summary: String, body: String, urgency: Urgency, expire: Int? = nil, icon: String? = nil
    ) {
      self.rule = rule
      content = NotificationContent(summary: summary, body: body, urgency: urgency, expire: expire, icon: icon)
    }

    /// The content's members read and written as the notification's own (`notification.summary`).
    public subscript<Value>(dynamicMember path: WritableKeyPath<NotificationContent, Value>) -> Value {
      get { content[keyPath: path] }
      set { content[keyPath: path] = newValue }
    }
  }

  /// A hook to run.
  public struct Hook: Sendable, Equatable {
    /// The rule that asked for it, as messages name it (the feed's own hook is "feed 'NAME'").
    public var rule: String
    /// Who asked for it: the rule, or the feed's own `hook:`.
    public var source: ActionSource
    /// The command exactly as written.
    public var command: String
    /// For a `run:` hook: the program and its arguments with the item's values filled in, one argument each.
    public var arguments: [String]?
    /// Timeout, seconds.
    public var timeout: Int?

    /// Creates a hook decision; `source` is the rule of that name unless given.
    public init(
      rule: String, source: ActionSource? = nil, command: String, arguments: [String]? = nil, timeout: Int?
    ) {
      self.rule = rule
      self.source = source ?? .rule(rule)
      self.command = command
      self.arguments = arguments
      self.timeout = timeout
    }
  }

  /// Tags in the order given, feed tags first, without duplicates.
  public var tags: [String] = []
  /// Whether a rule muted the item.
  public var muted: Bool { mutedBy != nil }
  /// The first rule that muted it.
  public var mutedBy: String?
  /// Notifications to show (empty when muted).
  public var notifications: [Notification] = []
  /// Hooks to run (empty when muted).
  public var hooks: [Hook] = []
  /// Webhooks to POST the item to, each with its rule.
  public var webhooks: [Webhook] = []
  /// Messages to send through Apprise, each with its rule, rendered.
  public var apprise: [Apprise] = []

  /// A rule's Apprise message: its title and body rendered like a notification's.
  public struct Apprise: Sendable, Equatable {
    /// The rule, as messages name it (the feed's own is "feed 'NAME'").
    public var rule: String
    public var source: ActionSource
    public var message: Notification
  }

  /// A rule's webhook.
  public struct Webhook: Sendable, Equatable {
    public var rule: String
    public var action: WebhookAction
  }
  /// The rules whose digest collects the item (empty when muted).
  public var digests: [String] = []
  /// Every matching rule's reasons, in rule order.
  public var matches: [Match] = []
  /// The rule that stopped evaluation, if any.
  public var stoppedBy: String?

  /// Whether any rule matched or the feed acts on every item.
  public var isTouched: Bool { !matches.isEmpty || !notifications.isEmpty || muted }
}

extension Decision {
  /// The decision in two: the actions of the rules not in `rules`, and those of `rules` (spread triggers,
  /// which wait for their story to reach its feeds); tags, matches and the mute stay with the first.
  public func split(by rules: Set<String>) -> (now: Decision, waiting: Decision) {
    guard !rules.isEmpty else { return (self, Decision()) }
    var now = self
    var waiting = Decision()
    func keep(_ rule: String?) -> Bool { !rules.contains(rule ?? "") }
    now.notifications = notifications.filter { keep($0.rule) }
    waiting.notifications = notifications.filter { !keep($0.rule) }
    now.hooks = hooks.filter { keep($0.source.ruleName) }
    waiting.hooks = hooks.filter { !keep($0.source.ruleName) }
    now.webhooks = webhooks.filter { keep($0.rule) }
    waiting.webhooks = webhooks.filter { !keep($0.rule) }
    now.apprise = apprise.filter { keep($0.source.ruleName) }
    waiting.apprise = apprise.filter { !keep($0.source.ruleName) }
    now.digests = digests.filter { keep($0) }
    waiting.digests = digests.filter { !keep($0) }
    waiting.tags = tags
    return (now, waiting)
  }

  /// Whether it asks for anything to be done.
  public var hasActions: Bool {
    !notifications.isEmpty || !hooks.isEmpty || !webhooks.isEmpty || !apprise.isEmpty || !digests.isEmpty
  }
}
