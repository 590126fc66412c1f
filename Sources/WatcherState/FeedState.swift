// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherSupport

/// What watcher remembers about one feed between polls, stored as one JSON file.
public struct FeedState: Codable, Sendable, Equatable {
  /// The file format version; bumped when the layout changes incompatibly.
  public static let currentVersion = 1

  /// The format version of this state.
  public var version: Int = FeedState.currentVersion
  /// The feed URL this state belongs to.
  public var url: String
  /// HTTP validators from the last 200 response.
  public var etag: String?
  /// `Last-Modified` from the last 200 response.
  public var lastModified: String?
  /// The fingerprint of the last 200 response's body (with its URL and charset), set once its items were
  /// read: the same body again, from a server that ignores conditional GET, is handled like a 304.
  public var bodyFingerprint: String?
  /// When a poll was last attempted.
  public var lastAttempt: Date?
  /// When a poll last succeeded (200 or 304).
  public var lastSuccess: Date?
  /// The success before `lastSuccess` (items last seen then are still in an unchanged feed).
  public var lastSuccessBefore: Date?
  /// Failures in a row since the last success.
  public var consecutiveFailures: Int = 0
  /// The last failure's description.
  public var lastError: String?
  /// Why actions failed the last time they ran (a notification not shown, a hook that failed); cleared when
  /// they all succeed.
  public var lastActionError: String?
  /// Not before this time (from `Retry-After`, `Cache-Control: max-age`, or backoff).
  public var notBefore: Date?
  /// Until when the server asked not to be polled (`Retry-After` on 429/503); holds even for a feed named
  /// on the command line, unless forced.
  public var retryAfterUntil: Date?
  /// Where a permanent redirect (301/308) pointed.
  public var movedTo: String?
  /// Whether the feed has been polled successfully at least once (first-poll policy applies until then).
  public var initialized: Bool = false
  /// Items known, by key.
  public var items: [String: KnownItem] = [:]
  /// Actions decided but not yet done (the action layer marks them done).
  public var pending: [PendingAction] = []
  /// The most recent actions given up on after too many failures (the last 20), for `status`.
  public var dropped: [DroppedAction] = []

  /// An action that failed too often.
  public struct DroppedAction: Codable, Sendable, Equatable {
    /// The item's key.
    public var key: String
    /// The rule.
    public var rule: String?
    /// What it was (the hook's command).
    public var what: String
    /// The last failure.
    public var reason: String
    /// When it was dropped.
    public var time: Date

    package init(key: String, rule: String?, what: String, reason: String, time: Date) {
      self.key = key
      self.rule = rule
      self.what = what
      self.reason = reason
      self.time = time
    }
  }

  /// Creates an empty state for a feed.
  public init(url: String) {
    self.url = url
  }

  /// Reads a state file; keys added in later versions may be missing and take their defaults.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    version = try c.decodeIfPresent(Int.self, forKey: .version) ?? FeedState.currentVersion
    url = try c.decode(String.self, forKey: .url)
    etag = try c.decodeIfPresent(String.self, forKey: .etag)
    lastModified = try c.decodeIfPresent(String.self, forKey: .lastModified)
    bodyFingerprint = try c.decodeIfPresent(String.self, forKey: .bodyFingerprint)
    lastAttempt = try c.decodeIfPresent(Date.self, forKey: .lastAttempt)
    lastSuccess = try c.decodeIfPresent(Date.self, forKey: .lastSuccess)
    lastSuccessBefore = try c.decodeIfPresent(Date.self, forKey: .lastSuccessBefore)
    consecutiveFailures = try c.decodeIfPresent(Int.self, forKey: .consecutiveFailures) ?? 0
    lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
    lastActionError = try c.decodeIfPresent(String.self, forKey: .lastActionError)
    notBefore = try c.decodeIfPresent(Date.self, forKey: .notBefore)
    movedTo = try c.decodeIfPresent(String.self, forKey: .movedTo)
    retryAfterUntil = try c.decodeIfPresent(Date.self, forKey: .retryAfterUntil)
    initialized = try c.decodeIfPresent(Bool.self, forKey: .initialized) ?? false
    items = try c.decodeIfPresent([String: KnownItem].self, forKey: .items) ?? [:]
    pending = try c.decodeIfPresent([PendingAction].self, forKey: .pending) ?? []
    dropped = try c.decodeIfPresent([DroppedAction].self, forKey: .dropped) ?? []
  }

  // Explicit snake_case keys: a key-conversion strategy costs more than the rest of the decoding.
  package enum CodingKeys: String, CodingKey {
    case version, url, etag, items, pending, initialized
    case lastModified = "last_modified"
    case bodyFingerprint = "body_fingerprint"
    case lastAttempt = "last_attempt"
    case lastSuccess = "last_success"
    case lastSuccessBefore = "last_success_before"
    case consecutiveFailures = "consecutive_failures"
    case lastError = "last_error"
    case lastActionError = "last_action_error"
    case notBefore = "not_before"
    case movedTo = "moved_to"
    case retryAfterUntil = "retry_after_until"
    case dropped
  }

  /// One item seen in the feed.
  public struct KnownItem: Codable, Sendable, Equatable {
    /// When it was first seen.
    public var firstSeen: Date
    /// When it was last seen in the feed.
    public var lastSeen: Date

    package init(firstSeen: Date, lastSeen: Date) {
      self.firstSeen = firstSeen
      self.lastSeen = lastSeen
    }

    package enum CodingKeys: String, CodingKey {
      case firstSeen = "first_seen"
      case lastSeen = "last_seen"
    }
  }

  /// An action decided for a new item, recorded in the same write that records the item as seen.
  public struct PendingAction: Codable, Sendable, Equatable {
    /// What kind.
    public enum Kind: String, Codable, Sendable {
      case notify, hook
    }

    /// What kind.
    public var kind: Kind
    /// The item's key.
    public var key: String
    /// The rule that asked for it (`nil` for a feed's `notify: true`).
    public var rule: String?
    /// A notification's summary and body, or a hook's command.
    public var summary: String?
    public var body: String?
    public var urgency: Urgency?
    /// A notification's expire time, seconds, and icon.
    public var expire: Int?
    public var icon: String?
    /// A notification's item link (clicking it opens the link).
    public var link: String?
    public var command: String?
    /// A `run:` hook's program and arguments, filled in when the action was decided.
    public var arguments: [String]?
    public var timeout: Int?
    /// The item as `watcher parse --json` prints it, for the hook's stdin and environment.
    public var item: String?
    /// Attempts so far.
    public var attempts: Int = 0
    /// A hook's `WATCHER_*` variables.
    public var environment: [String: String]?
    /// When it was decided.
    public var created: Date
    /// The item's title (for `watcher pending`, `log` and messages).
    public var title: String?
    /// Why the last attempt failed, when one did.
    public var lastError: String?
    /// A notification's picture: the item's image (or the first image of its HTML), an http(s) URL.
    public var image: String?

    package enum CodingKeys: String, CodingKey {
      case kind, key, rule, summary, body, urgency, command, arguments, timeout, item, attempts, created, environment
      case expire, icon, link, title, image
      case lastError = "last_error"
    }

    /// Creates a pending action.
    public init(
      kind: Kind, key: String, rule: String?, summary: String? = nil, body: String? = nil, urgency: Urgency? = nil,
      command: String? = nil, arguments: [String]? = nil, timeout: Int? = nil, item: String? = nil,
      environment: [String: String]? = nil,
      expire: Int? = nil, icon: String? = nil, link: String? = nil, title: String? = nil, created: Date
    ) {
      self.title = title
      self.link = link
      self.environment = environment
      self.expire = expire
      self.icon = icon
      self.kind = kind
      self.key = key
      self.rule = rule
      self.summary = summary
      self.body = body
      self.urgency = urgency
      self.command = command
      self.arguments = arguments
      self.timeout = timeout
      self.item = item
      self.created = created
    }
  }
}

extension FeedState.PendingAction {
  /// Writes the action as state files hold it: keys sorted, absent values left out.
  package func write(to json: inout PrettyJSON) {
    json.object { json in
      if let arguments {
        json.key("arguments")
        json.array { json in
          for argument in arguments {
            json.element()
            json.string(argument)
          }
        }
      }
      json.member("attempts", attempts)
      json.member("body", body)
      json.member("command", command)
      json.member("created", created)
      if let environment {
        json.key("environment")
        json.object { json in
          for (name, value) in environment.sorted(by: { $0.key < $1.key }) { json.member(name, value) }
        }
      }
      json.member("expire", expire)
      json.member("icon", icon)
      json.member("image", image)
      json.member("link", link)
      json.member("item", item)
      json.member("key", key)
      json.member("kind", kind.rawValue)
      json.member("last_error", lastError)
      json.member("rule", rule)
      json.member("summary", summary)
      json.member("timeout", timeout)
      json.member("title", title)
      json.member("urgency", urgency?.rawValue)
    }
  }
}

extension FeedState {
  /// Brings numbers from a file into the ranges watcher computes with, so that no value a file can hold
  /// (a hand edit, a bit flip, a hostile file) makes later arithmetic overflow and trap.
  package mutating func sanitize() {
    consecutiveFailures = min(max(consecutiveFailures, 0), 1_000_000)
    for index in pending.indices {
      pending[index].attempts = min(max(pending[index].attempts, 0), 1_000_000)
      if let timeout = pending[index].timeout { pending[index].timeout = min(max(timeout, 1), 7 * 86_400) }
      if let expire = pending[index].expire { pending[index].expire = min(max(expire, -1), 86_400) }
    }
  }

  /// The state file's text: JSON with sorted keys and ISO 8601 dates, written by hand (JSONEncoder took most
  /// of the time of an unchanged re-poll; a `JSONOutput` tree, half of a save).
  package var pretty: [UInt8] {
    var json = PrettyJSON(capacity: 1_024 + items.count * 120 + pending.count * 4_096)
    json.object { json in
      json.member("body_fingerprint", bodyFingerprint)
      json.member("consecutive_failures", consecutiveFailures)
      json.key("dropped")
      json.array { json in
        for action in dropped {
          json.element()
          json.object { json in
            json.member("key", action.key)
            json.member("reason", action.reason)
            json.member("rule", action.rule)
            json.member("time", action.time)
            json.member("what", action.what)
          }
        }
      }
      json.member("etag", etag)
      json.member("initialized", initialized)
      json.key("items")
      json.object { json in
        for (key, item) in items.sorted(by: { $0.key < $1.key }) {
          json.key(key)
          json.object { json in
            json.member("first_seen", item.firstSeen)
            json.member("last_seen", item.lastSeen)
          }
        }
      }
      json.member("last_action_error", lastActionError)
      json.member("last_attempt", lastAttempt)
      json.member("last_error", lastError)
      json.member("last_modified", lastModified)
      json.member("last_success", lastSuccess)
      json.member("last_success_before", lastSuccessBefore)
      json.member("moved_to", movedTo)
      json.member("not_before", notBefore)
      json.member("retry_after_until", retryAfterUntil)
      json.key("pending")
      json.array { json in
        for action in pending {
          json.element()
          action.write(to: &json)
        }
      }
      json.member("url", url)
      json.member("version", version)
    }
    return json.document()
  }
}

extension FeedState {
  /// Reads a state file's JSON.
  ///
  /// Members this version does not know are skipped; a missing optional member
  /// takes its default, a missing required one (`url`, an item's dates, an action's kind, key and creation)
  /// is an error, as is a value of the wrong type.
  package init(reading json: inout JSONReader) throws {
    var url: String?
    var state = FeedState(url: "")
    try json.object { json, key in
      switch key {
      case "version": state.version = try json.optional { try $0.int() } ?? FeedState.currentVersion
      case "url": url = try json.string()
      case "etag": state.etag = try json.optional { try $0.string() }
      case "last_modified": state.lastModified = try json.optional { try $0.string() }
      case "body_fingerprint": state.bodyFingerprint = try json.optional { try $0.string() }
      case "last_attempt": state.lastAttempt = try json.optional { try $0.date() }
      case "last_success": state.lastSuccess = try json.optional { try $0.date() }
      case "last_success_before": state.lastSuccessBefore = try json.optional { try $0.date() }
      case "consecutive_failures": state.consecutiveFailures = try json.optional { try $0.int() } ?? 0
      case "last_error": state.lastError = try json.optional { try $0.string() }
      case "last_action_error": state.lastActionError = try json.optional { try $0.string() }
      case "not_before": state.notBefore = try json.optional { try $0.date() }
      case "retry_after_until": state.retryAfterUntil = try json.optional { try $0.date() }
      case "moved_to": state.movedTo = try json.optional { try $0.string() }
      case "initialized": state.initialized = try json.optional { try $0.bool() } ?? false
      case "items":
        guard try !json.null() else { break }
        try json.object { json, key in state.items[key] = try KnownItem(reading: &json) }
      case "pending":
        guard try !json.null() else { break }
        try json.array { json in state.pending.append(try PendingAction(reading: &json)) }
      case "dropped":
        guard try !json.null() else { break }
        try json.array { json in state.dropped.append(try DroppedAction(reading: &json)) }
      default: try json.skipValue()
      }
    }
    guard let url else { throw json.failure("the state has no 'url'") }
    state.url = url
    self = state
  }
}

extension FeedState.KnownItem {
  package init(reading json: inout JSONReader) throws {
    var first: Date?
    var last: Date?
    try json.object { json, key in
      switch key {
      case "first_seen": first = try json.date()
      case "last_seen": last = try json.date()
      default: try json.skipValue()
      }
    }
    guard let first, let last else { throw json.failure("an item needs 'first_seen' and 'last_seen'") }
    self.init(firstSeen: first, lastSeen: last)
  }
}

extension FeedState.PendingAction {
  package init(reading json: inout JSONReader) throws {
    var kind: Kind?
    var key: String?
    var attempts: Int?
    var created: Date?
    var action = FeedState.PendingAction(kind: .notify, key: "", rule: nil, created: Date(timeIntervalSince1970: 0))
    try json.object { json, member in
      switch member {
      case "kind":
        let name = try json.string()
        guard let known = Kind(rawValue: name) else { throw json.failure("an unknown action kind '\(name)'") }
        kind = known
      case "key": key = try json.string()
      case "attempts": attempts = try json.int()
      case "created": created = try json.date()
      case "rule": action.rule = try json.optional { try $0.string() }
      case "summary": action.summary = try json.optional { try $0.string() }
      case "body": action.body = try json.optional { try $0.string() }
      case "urgency": action.urgency = try json.optional { Urgency(rawValue: try $0.string()) ?? .normal }
      case "expire": action.expire = try json.optional { try $0.int() }
      case "icon": action.icon = try json.optional { try $0.string() }
      case "link": action.link = try json.optional { try $0.string() }
      case "command": action.command = try json.optional { try $0.string() }
      case "arguments":
        action.arguments = try json.optional { json in
          var arguments: [String] = []
          try json.array { arguments.append(try $0.string()) }
          return arguments
        }
      case "timeout": action.timeout = try json.optional { try $0.int() }
      case "item": action.item = try json.optional { try $0.string() }
      case "environment":
        action.environment = try json.optional { json in
          var environment: [String: String] = [:]
          try json.object { json, name in environment[name] = try json.string() }
          return environment
        }
      case "title": action.title = try json.optional { try $0.string() }
      case "last_error": action.lastError = try json.optional { try $0.string() }
      case "image": action.image = try json.optional { try $0.string() }
      default: try json.skipValue()
      }
    }
    guard let kind, let key, let attempts, let created else {
      throw json.failure("a pending action needs 'kind', 'key', 'attempts' and 'created'")
    }
    (action.kind, action.key, action.attempts, action.created) = (kind, key, attempts, created)
    self = action
  }
}

extension FeedState.DroppedAction {
  package init(reading json: inout JSONReader) throws {
    var (key, rule, what, reason, time): (String?, String?, String?, String?, Date?)
    try json.object { json, member in
      switch member {
      case "key": key = try json.string()
      case "rule": rule = try json.optional { try $0.string() }
      case "what": what = try json.string()
      case "reason": reason = try json.string()
      case "time": time = try json.date()
      default: try json.skipValue()
      }
    }
    guard let key, let what, let reason, let time else {
      throw json.failure("a dropped action needs 'key', 'what', 'reason' and 'time'")
    }
    self.init(key: key, rule: rule, what: what, reason: reason, time: time)
  }
}

extension JSONReader {
  /// A date as state files write it (ISO 8601; any form `DateParser` reads is accepted).
  fileprivate mutating func date() throws -> Date {
    try stringBytes(as: "a date") { DateParser.parse(bytes: $0) }
  }
}
