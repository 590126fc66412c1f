// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

extension FeedState {
  /// An action decided for a new item, recorded in the same write that records the item as seen: what
  /// every action has (the item, who asked, when, its attempts), and what its kind needs (the payload).
  public struct PendingAction: Sendable, Equatable {
    /// What kind.
    public enum Kind: String, Sendable {
      case notify, hook, webhook, apprise
    }

    /// A desktop notification, rendered when it was decided: the one shape from the rule to libnotify
    /// (`NotificationContent`).
    public typealias Notification = NotificationContent

    /// A hook: a shell command, or a `run:` program with its arguments.
    public struct Hook: Sendable {
      /// The command as written (for the shell form; for display otherwise).
      public var command: String?
      /// A `run:` hook's program and arguments, filled in when the action was decided.
      public var arguments: [String]?
      public var timeout: Int?
      /// The document the hook gets on stdin.
      ///
      /// The item as `watcher parse --json` prints it (with `feed`, `feed_url`, `rule` and `tags`), or a
      /// digest's items as an array. Its `WATCHER_*` variables are derived from it when the hook runs.
      public var item: String?
      /// The `WATCHER_*` variables, as versions before 2026-12-01 stored them beside the item.
      ///
      /// They are used as they are for those actions. New actions store none.
      public var environment: [String: String]?
      /// Whether it was decided in this pass (in memory, never stored): its arguments were just filled in
      /// from the item; a retry fills them in again from `item`.
      public var decidedInPass = false

      public init(
        command: String?, arguments: [String]? = nil, timeout: Int? = nil, item: String? = nil,
        environment: [String: String]? = nil
      ) {
        self.command = command
        self.arguments = arguments
        self.timeout = timeout
        self.item = item
        self.environment = environment
      }
    }

    /// A webhook: the item's document POSTed to a URL, signed with a secret read when it is sent (the
    /// secret itself is never stored, only where it is).
    public struct Webhook: Sendable, Equatable {
      public var url: String
      /// A file holding the secret, or an environment variable naming it.
      public var secretFile: String?
      public var secretEnv: String?
      public var timeout: Int?
      /// The document POSTed: the item as a hook's stdin has it.
      public var item: String?

      public init(
        url: String, secretFile: String? = nil, secretEnv: String? = nil, timeout: Int? = nil, item: String? = nil
      ) {
        self.url = url
        self.secretFile = secretFile
        self.secretEnv = secretEnv
        self.timeout = timeout
        self.item = item
      }
    }

    /// A message sent through Apprise: its title and body rendered when it was decided.
    ///
    /// Its URLs (which carry tokens) are never stored: they are the rule's, filled in before it is sent.
    public struct Apprise: Sendable, Equatable {
      public var title: String
      public var body: String
      public var urgency: Urgency
      /// The item's picture, attached where the service takes one.
      public var attach: String?
      /// In memory only: the rule's URLs and URL file when it is sent.
      public var urls: [String] = []
      public var file: String?

      public init(title: String, body: String, urgency: Urgency = .normal, attach: String? = nil) {
        self.title = title
        self.body = body
        self.urgency = urgency
        self.attach = attach
      }

      /// The same message (where it goes is the rule's, not the message's).
      public static func == (a: Self, b: Self) -> Bool {
        a.title == b.title && a.body == b.body && a.urgency == b.urgency && a.attach == b.attach
      }
    }

    /// What the action does.
    public enum Payload: Sendable, Equatable {
      case notify(Notification)
      case hook(Hook)
      case webhook(Webhook)
      case apprise(Apprise)
    }

    /// The item's key.
    public var key: String
    /// Who asked for it.
    public var source: ActionSource
    /// The item's title and link (for `watcher pending`, `log`, messages, and a notification's click).
    public var title: String?
    public var link: String?
    /// When it was decided.
    public var created: Date
    /// Attempts so far.
    public var attempts: Int = 0
    /// Why the last attempt failed, when one did.
    public var lastError: String?
    /// When a failed action is tried again (nil: at the next pass).
    public var nextTry: Date?
    /// What it does.
    public var payload: Payload

    /// Creates a pending action.
    public init(
      key: String, source: ActionSource, payload: Payload, title: String? = nil, link: String? = nil, created: Date
    ) {
      self.key = key
      self.source = source
      self.payload = payload
      self.title = title
      self.link = link
      self.created = created
    }

    /// Creates a pending action from its fields by name (`rule: nil` is the feed's own).
    public init(
      kind: Kind, key: String, rule: String?, summary: String? = nil, body: String? = nil, urgency: Urgency? = nil,
      command: String? = nil, arguments: [String]? = nil, timeout: Int? = nil, item: String? = nil,
      environment: [String: String]? = nil,
      expire: Int? = nil, icon: String? = nil, link: String? = nil, title: String? = nil, created: Date
    ) {
      let payload: Payload
      switch kind {
      case .notify:
        payload = .notify(
          Notification(
            summary: summary ?? "", body: body ?? "", urgency: urgency ?? .normal, expire: expire, icon: icon))
      case .hook:
        payload = .hook(
          Hook(command: command, arguments: arguments, timeout: timeout, item: item, environment: environment))
      case .webhook:
        payload = .webhook(Webhook(url: command ?? "", timeout: timeout, item: item))
      case .apprise:
        payload = .apprise(Apprise(title: summary ?? "", body: body ?? "", urgency: urgency ?? .normal))
      }
      self.init(
        key: key, source: rule.map { .rule($0) } ?? .feed, payload: payload, title: title, link: link,
        created: created)
    }

    /// What kind.
    public var kind: Kind {
      switch payload {
      case .notify: return .notify
      case .hook: return .hook
      case .webhook: return .webhook
      case .apprise: return .apprise
      }
    }

    /// The rule that asked for it (`nil` for the feed's own).
    public var rule: String? { source.ruleName }

    /// What `status` and the dropped list call it: a hook's command, a notification's summary.
    public var what: String {
      switch payload {
      case .hook(let hook): hook.command ?? ""
      case .webhook(let webhook): "webhook \(webhook.url)"
      case .apprise(let apprise): "apprise: \(apprise.title)"
      case .notify(let notification): notification.summary
      }
    }

    /// How messages and the journal name who asked for it (see `ActionSource.label`).
    public func label(feed: String) -> String? { source.label(feed: feed, hook: kind != .notify) }
  }
}

extension FeedState.PendingAction {
  /// Writes the action as state files, `notifications.json` and `digests.json` hold it: one object, keys
  /// sorted, absent values left out; the payload's members beside the common ones, told apart by `kind`.
  package func write(to json: inout PrettyJSON) {
    // The one member its kind has; the others stay nil and are left out.
    var (notification, hook): (Notification?, Hook?) = (nil, nil)
    var (webhook, apprise): (Webhook?, Apprise?) = (nil, nil)
    switch payload {
    case .notify(let value): notification = value
    case .hook(let value): hook = value
    case .webhook(let value): webhook = value
    case .apprise(let value): apprise = value
    }
    json.object { json in
      if let arguments = hook?.arguments {
        json.key("arguments")
        json.array { json in
          for argument in arguments {
            json.element()
            json.string(argument)
          }
        }
      }
      json.member("attach", apprise?.attach)
      json.member("attempts", attempts)
      json.member("body", notification?.body ?? apprise?.body)
      json.member("command", hook?.command)
      json.member("created", created)
      if let environment = hook?.environment {
        json.key("environment")
        json.object { json in
          for (name, value) in environment.sorted(by: { $0.key < $1.key }) { json.member(name, value) }
        }
      }
      json.member("expire", notification?.expire)
      json.member("icon", notification?.icon)
      json.member("image", notification?.image)
      json.member("link", link)
      json.member("item", hook?.item ?? webhook?.item ?? notification?.item)
      if notification?.learn == true { json.member("learn", true) }
      for (name, list) in [("buttons", notification?.buttons ?? []), ("links", notification?.links ?? [])]
      where !list.isEmpty {
        json.key(name)
        json.array { json in
          for text in list {
            json.element()
            json.string(text)
          }
        }
      }
      json.member("key", key)
      json.member("kind", kind.rawValue)
      json.member("last_error", lastError)
      json.member("next_try", nextTry)
      json.member("replaces", notification?.replaces)
      if let category = notification?.category, category != .item { json.member("category", category.rawValue) }
      // The feed's own action has no rule (and is read back as the feed's: `source` is never written).
      json.member("rule", source.ruleName)
      if case .button(_, let label) = source { json.member("button", label) }
      json.member("secret_env", webhook?.secretEnv)
      json.member("secret_file", webhook?.secretFile)
      json.member("summary", notification?.summary ?? apprise?.title)
      json.member("timeout", hook?.timeout ?? webhook?.timeout)
      json.member("title", title)
      json.member("urgency", (notification?.urgency ?? apprise?.urgency)?.rawValue)
      // Without its secrets: the URL as the rule has it is taken again before each try (PendingRefresh).
      json.member("url", webhook.map { URLSecrets.redacted($0.url) })
    }
  }

  /// Reads an action as `write(to:)` writes it, and as earlier versions wrote it: without `source`, `rule`
  /// absent or null is the feed's own.
  package init(reading json: inout JSONReader) throws {
    var kind: Kind?
    var key: String?
    var attempts: Int?
    var created: Date?
    var (rule, source, button): (String?, String?, String?) = (nil, nil, nil)
    var (title, link, lastError): (String?, String?, String?) = (nil, nil, nil)
    var nextTry: Date?
    var notification = Notification(summary: "", body: "")
    var hook = Hook(command: nil)
    var webhook = Webhook(url: "")
    var attach: String?
    try json.object { json, member in
      switch member {
      case "kind":
        let name = try json.string()
        guard let known = Kind(rawValue: name) else { throw json.failure("an unknown action kind '\(name)'") }
        kind = known
      case "key": key = try json.string()
      case "attempts": attempts = try json.int()
      case "created": created = try json.date()
      case "rule": rule = try json.optional { try $0.string() }
      case "source": source = try json.optional { try $0.string() }
      case "button": button = try json.optional { try $0.string() }
      case "summary": notification.summary = try json.optional { try $0.string() } ?? ""
      case "body": notification.body = try json.optional { try $0.string() } ?? ""
      case "urgency":
        notification.urgency = try json.optional { try $0.string() }.flatMap(Urgency.init(rawValue:)) ?? .normal
      case "expire": notification.expire = try json.optional { try $0.int() }
      case "icon": notification.icon = try json.optional { try $0.string() }
      case "image": notification.image = try json.optional { try $0.string() }
      case "link": link = try json.optional { try $0.string() }
      case "command": hook.command = try json.optional { try $0.string() }
      case "arguments":
        hook.arguments = try json.optional { json in
          var arguments: [String] = []
          try json.array { arguments.append(try $0.string()) }
          return arguments
        }
      case "timeout": hook.timeout = try json.optional { try $0.int() }
      case "item": hook.item = try json.optional { try $0.string() }
      case "learn": notification.learn = try json.optional { try $0.bool() } ?? false
      case "replaces": notification.replaces = try json.optional { try $0.string() }
      case "category":
        notification.category = try json.optional { try $0.string() }.flatMap(Notification.Category.init) ?? .item
      case "buttons", "links":
        let list: [String] =
          try json.optional { json -> [String] in
            var list: [String] = []
            try json.array { json in if list.count < 20 { list.append(try json.string()) } else { try json.skipValue() }
            }
            return list
          } ?? []
        if member == "buttons" { notification.buttons = list } else { notification.links = list }
      case "environment":
        hook.environment = try json.optional { json in
          var environment: [String: String] = [:]
          try json.object { json, name in environment[name] = try json.string() }
          return environment
        }
      case "url": webhook.url = try json.optional { try $0.string() } ?? ""
      case "attach": attach = try json.optional { try $0.string() }
      case "secret_file": webhook.secretFile = try json.optional { try $0.string() }
      case "secret_env": webhook.secretEnv = try json.optional { try $0.string() }
      case "title": title = try json.optional { try $0.string() }
      case "last_error": lastError = try json.optional { try $0.string() }
      case "next_try": nextTry = try json.optional { try $0.date() }
      default: try json.skipValue()
      }
    }
    guard let kind, let key, let attempts, let created else {
      throw json.failure("a pending action needs 'kind', 'key', 'attempts' and 'created'")
    }
    var from: ActionSource = source == "feed" ? .feed : rule.map { .rule($0) } ?? .feed
    if let button, let rule { from = .button(rule: rule, label: button) }
    let payload: Payload
    switch kind {
    case .notify:
      notification.item = hook.item
      // Written before the category was kept: it was told by the key.
      if key.hasPrefix("digest:"), notification.category == .item {
        notification.category = .digest
        notification.replaces = notification.replaces ?? key
      }
      if key.hasPrefix("health:"), notification.category == .item { notification.category = .health }
      payload = .notify(notification)
    case .hook: payload = .hook(hook)
    case .webhook:
      (webhook.timeout, webhook.item) = (hook.timeout, hook.item)
      payload = .webhook(webhook)
    case .apprise:
      payload = .apprise(
        Apprise(title: notification.summary, body: notification.body, urgency: notification.urgency, attach: attach))
    }
    self.init(key: key, source: from, payload: payload, title: title, link: link, created: created)
    self.attempts = attempts
    self.lastError = lastError
    self.nextTry = nextTry
  }
}

extension FeedState.PendingAction.Hook: Equatable {
  /// The same hook: whether it was decided in this pass (kept in memory only) is left out.
  public static func == (a: Self, b: Self) -> Bool {
    a.command == b.command && a.arguments == b.arguments && a.timeout == b.timeout && a.item == b.item
      && a.environment == b.environment
  }
}
