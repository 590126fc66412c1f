// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// What watcher remembers about one feed between polls, stored as one JSON file.
public struct FeedState: Sendable, Equatable {
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
  /// How many rows a page feed's list had when last read: a list that shrinks to almost nothing is told.
  public var pageRows: Int?
  /// The selector of the list a page feed's last read found, taken first next time (bounded: at most 1,000
  /// characters are kept).
  public var pageSelector: String? {
    get { storedPageSelector }
    set { storedPageSelector = newValue.flatMap { $0.utf8.count <= 1_000 ? $0 : nil } }
  }
  private var storedPageSelector: String?
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
  /// The feed's name in the config when this state was last saved: a feed whose URL changes (by a 301
  /// followed in the config, an edit, `remove` and `add` of the same name) takes its history along
  /// (`StateStore.adoptMoved`).
  public var name: String?
  /// Set when this history came from the feed's previous URL: the last success there.
  ///
  /// The first poll of the
  /// new URL acts on the items published after it (and those without a date), and records the others.
  public var movedSince: Date?
  /// Whether the feed has been polled successfully at least once (first-poll policy applies until then).
  public var initialized: Bool = false
  /// Items known, by key.
  public var items: [String: KnownItem] = [:]
  /// The hash of each known item's title and text (`StoryIdentity.digest`), to tell an edit; kept only for a
  /// feed with a rule that acts on edits (`on_update`).
  public var itemDigests: [String: UInt64] = [:]
  /// Actions decided but not yet done (the action layer marks them done).
  public var pending: [PendingAction] = []
  /// Set when the file was read without its items (`StateStore.load(…, items: false)`, enough to schedule
  /// the feed): such a state is never saved.
  public private(set) var itemsSkipped = false
  /// The most recent actions given up on after too many failures (the last 20), for `status`.
  public var dropped: [DroppedAction] = []
  /// The identity watcher switched the feed to (`link`) because its ids changed on every fetch while its
  /// links stayed, and why; nil while its ids are used.
  public var autoIdentity: String?
  public var autoIdentityReason: String?
  /// Fetches in a row whose items came back under new ids with the same links.
  public var churn: Int = 0
  /// The last time the feed's items were met under new keys, said once by the poll and kept for `status`.
  public var lastRekey: String?
  /// Whether its items' stories are kept (false for a state written before they were: they are learnt at
  /// the next fetch).
  public var storiesKept = false
  /// What the feed's last answers say about when to poll it (for `interval: auto`).
  public var hints = PollHints()
  /// Since when it has failed without a success in between.
  public var failingSince: Date?
  /// What the last failure says of the feed's health: `blocked:SERVICE` (a bot check answered), `gone`
  /// (410); nil otherwise.
  public var problem: String?
  /// The health problem last told in a notification (`FeedHealth.key`), so each is told once.
  public var healthTold: String?
  /// When a wholesale change of the feed's ids was last told in a notification (told at most once a day).
  public var rekeyTold: Date?
  /// Keys of items the user asked to act on after all (`watcher items FEED --announce KEY`): the next poll
  /// takes each for a new item whatever it resembles or however old it is (at most `maxAnnounce`).
  public var announce: [String] = []
  public static let maxAnnounce = 100

  /// When to poll again, as the feed's last successful answer says (`Schedule` reads it).
  public struct PollHints: Sendable, Equatable {
    /// Its recent items (the ten newest by date, else by when first seen): how many, and the oldest's
    /// time; how often it posts is the time from then to the poll, divided by the count.
    public var posts = 0
    public var postsSince: Date?
    /// RSS `ttl`, seconds.
    public var ttl: Int?
    /// `sy:updatePeriod` / `sy:updateFrequency`, seconds.
    public var updatePeriod: Int?
    /// RSS `skipHours` (GMT) and `skipDays` (1: Sunday).
    public var skipHours: [Int] = []
    public var skipDays: [Int] = []

    public init() {}

    var isEmpty: Bool { self == PollHints() }
  }

  /// An action that failed too often.
  public struct DroppedAction: Sendable, Equatable {
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

  /// One item seen in the feed.
  public struct KnownItem: Sendable, Equatable {
    /// When it was first seen.
    public var firstSeen: Date
    /// When it was last seen in the feed.
    public var lastSeen: Date
    /// Its story: the hash of its link's compared form, or of its title and date without a link.
    ///
    /// 0 when its key tells the same (`StoryIdentity.story`). An item met again under a new key with this
    /// story is this item (its feed changed its ids). A number, not a string: every known item has one.
    public var story: UInt64 = 0
    /// For an item with a link: the hash of its title and date (`StoryIdentity.fingerprint`), which a
    /// migration that changes every id and link at once is recognised by (0: none, or not kept).
    public var titleAndDate: UInt64 = 0

    package init(firstSeen: Date, lastSeen: Date, story: UInt64 = 0, titleAndDate: UInt64 = 0) {
      self.firstSeen = firstSeen
      self.lastSeen = lastSeen
      self.story = story
      self.titleAndDate = titleAndDate
    }
  }
}

extension FeedState {
  /// Brings numbers from a file into the ranges watcher computes with, so that no value a file can hold
  /// (a hand edit, a bit flip, a hostile file) makes later arithmetic overflow and trap.
  package mutating func sanitize() {
    consecutiveFailures = min(max(consecutiveFailures, 0), 1_000_000)
    // Seconds, from a minute to a year, whatever the file says.
    for path in [\PollHints.ttl, \PollHints.updatePeriod] {
      hints[keyPath: path] = hints[keyPath: path].map { min(max($0, 60), 365 * 86_400) }
    }
    for index in pending.indices {
      pending[index].attempts = min(max(pending[index].attempts, 0), 1_000_000)
      switch pending[index].payload {
      case .hook(var hook):
        hook.timeout = hook.timeout.map { min(max($0, 1), 7 * 86_400) }
        pending[index].payload = .hook(hook)
      case .notify(var notification):
        notification.expire = notification.expire.map { min(max($0, -1), 86_400) }
        pending[index].payload = .notify(notification)
      case .webhook(var webhook):
        webhook.timeout = webhook.timeout.map { min(max($0, 1), 600) }
        pending[index].payload = .webhook(webhook)
      case .apprise: break
      }
    }
  }

  /// The state file's text: JSON with ISO 8601 dates, written by hand (JSONEncoder took most of the time of
  /// an unchanged re-poll; a `JSONOutput` tree, half of a save).
  ///
  /// `version` comes first and the known items last (`item_digests`, then `items`), the other keys sorted
  /// between them: a reader that schedules the feed stops where the items begin (`init(reading:items:)`),
  /// and they are most of the file.
  package var pretty: [UInt8] {
    var json = PrettyJSON(capacity: 1_024 + items.count * 200 + itemDigests.count * 100 + pending.count * 4_096)
    json.object { json in
      json.member("version", version)
      json.member("auto_identity", autoIdentity)
      json.member("auto_identity_reason", autoIdentityReason)
      json.member("body_fingerprint", bodyFingerprint)
      json.member("churn", churn == 0 ? nil : churn)
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
      json.member("failing_since", failingSince)
      json.member("health_told", healthTold)
      json.member("rekey_told", rekeyTold)
      if !announce.isEmpty {
        json.key("announce")
        json.array { json in
          for key in announce {
            json.element()
            json.string(key)
          }
        }
      }
      if !hints.isEmpty {
        json.key("hints")
        json.object { json in
          json.member("posts", hints.posts == 0 ? nil : hints.posts)
          json.member("posts_since", hints.postsSince)
          if !hints.skipDays.isEmpty {
            json.member("skip_days", hints.skipDays.map(String.init).joined(separator: ","))
          }
          if !hints.skipHours.isEmpty {
            json.member("skip_hours", hints.skipHours.map(String.init).joined(separator: ","))
          }
          json.member("ttl", hints.ttl)
          json.member("update_period", hints.updatePeriod)
        }
      }
      json.member("initialized", initialized)
      json.member("last_action_error", lastActionError)
      json.member("last_attempt", lastAttempt)
      json.member("last_error", lastError)
      json.member("last_modified", lastModified)
      json.member("last_rekey", lastRekey)
      json.member("last_success", lastSuccess)
      json.member("last_success_before", lastSuccessBefore)
      json.member("moved_since", movedSince)
      json.member("moved_to", movedTo)
      json.member("name", name)
      json.member("not_before", notBefore)
      json.member("page_rows", pageRows)
      json.member("page_selector", pageSelector)
      json.member("problem", problem)
      json.member("retry_after_until", retryAfterUntil)
      if storiesKept { json.member("stories", true) }
      json.key("pending")
      json.array { json in
        for action in pending {
          json.element()
          action.write(to: &json)
        }
      }
      json.member("url", URLSecrets.redacted(url))  // what it is (the file is named by the whole URL)
      if !itemDigests.isEmpty {
        json.key("item_digests")
        json.object { json in
          for (key, digest) in itemDigests.sorted(by: { $0.key < $1.key }) { json.member(key, hash: digest) }
        }
      }
      json.key("items")
      json.object { json in
        for (key, item) in items.sorted(by: { $0.key < $1.key }) {
          json.key(key)
          json.object { json in
            json.member("first_seen", item.firstSeen)
            json.member("last_seen", item.lastSeen)
            if item.story != 0 { json.member("story", hash: item.story) }
            if item.titleAndDate != 0 { json.member("title_date", hash: item.titleAndDate) }
          }
        }
      }
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
  ///
  /// With `items: false` the known items and their digests are passed over (`itemsSkipped`): where the file
  /// starts with its `version`, as `pretty` writes it, they are its last members and reading stops there;
  /// in a file written otherwise (an earlier release sorted every key) they are skipped.
  package init(reading json: inout JSONReader, items: Bool = true) throws {
    var url: String?
    var state = FeedState(url: "")
    state.itemsSkipped = !items
    var (first, itemsLast) = (true, false)
    try json.object { json, key in
      defer { first = false }
      switch key {
      case "version":
        state.version = try json.optional { try $0.int() } ?? FeedState.currentVersion
        itemsLast = first
      case "url": url = try json.string()
      case "etag": state.etag = try json.optional { try $0.string() }
      case "last_modified": state.lastModified = try json.optional { try $0.string() }
      case "body_fingerprint": state.bodyFingerprint = try json.optional { try $0.string() }
      case "page_rows": state.pageRows = try json.optional { try $0.int() }
      case "page_selector": state.pageSelector = try json.optional { try $0.string() }
      case "last_attempt": state.lastAttempt = try json.optional { try $0.date() }
      case "last_success": state.lastSuccess = try json.optional { try $0.date() }
      case "last_success_before": state.lastSuccessBefore = try json.optional { try $0.date() }
      case "consecutive_failures": state.consecutiveFailures = try json.optional { try $0.int() } ?? 0
      case "last_error": state.lastError = try json.optional { try $0.string() }
      case "last_action_error": state.lastActionError = try json.optional { try $0.string() }
      case "not_before": state.notBefore = try json.optional { try $0.date() }
      case "retry_after_until": state.retryAfterUntil = try json.optional { try $0.date() }
      case "moved_to": state.movedTo = try json.optional { try $0.string() }
      case "moved_since": state.movedSince = try json.optional { try $0.date() }
      case "name": state.name = try json.optional { try $0.string() }
      case "initialized": state.initialized = try json.optional { try $0.bool() } ?? false
      case "auto_identity": state.autoIdentity = try json.optional { try $0.string() }
      case "auto_identity_reason": state.autoIdentityReason = try json.optional { try $0.string() }
      case "churn": state.churn = min(max(try json.optional { try $0.int() } ?? 0, 0), 1_000)
      case "last_rekey": state.lastRekey = try json.optional { try $0.string() }
      case "stories": state.storiesKept = try json.optional { try $0.bool() } ?? false
      case "failing_since": state.failingSince = try json.optional { try $0.date() }
      case "health_told": state.healthTold = try json.optional { try $0.string() }
      case "rekey_told": state.rekeyTold = try json.optional { try $0.date() }
      case "announce":
        guard try !json.null() else { break }
        try json.array { json in
          let key = try json.string()
          if state.announce.count < FeedState.maxAnnounce { state.announce.append(key) }
        }
      case "problem": state.problem = try json.optional { try $0.string() }
      case "hints":
        guard try !json.null() else { break }
        try json.object { json, key in
          func numbers(_ text: String?, _ range: ClosedRange<Int>) -> [Int] {
            Array((text ?? "").split(separator: ",").compactMap { Int($0) }.filter(range.contains).prefix(24))
          }
          switch key {
          case "posts": state.hints.posts = min(max(try json.optional { try $0.int() } ?? 0, 0), 10)
          case "posts_since": state.hints.postsSince = try json.optional { try $0.date() }
          case "ttl": state.hints.ttl = try json.optional { try $0.int() }
          case "update_period": state.hints.updatePeriod = try json.optional { try $0.int() }
          case "skip_hours": state.hints.skipHours = numbers(try json.optional { try $0.string() }, 0...23)
          case "skip_days": state.hints.skipDays = numbers(try json.optional { try $0.string() }, 1...7)
          default: try json.skipValue()
          }
        }
      case "items" where items:
        guard try !json.null() else { break }
        try json.object { json, key in state.items[key] = try KnownItem(reading: &json) }
      case "item_digests" where items:
        guard try !json.null() else { break }
        try json.object { json, key in state.itemDigests[key] = StableHash.value(hex: try json.string()) }
      case "items" where itemsLast, "item_digests" where itemsLast: json.stopReading()
      case "items", "item_digests": try json.skipUnchecked()
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
    var (story, titleAndDate): (UInt64, UInt64) = (0, 0)
    try json.object { json, key in
      switch key {
      case "first_seen": first = try json.date()
      case "last_seen": last = try json.date()
      case "story": story = try json.optional { try $0.hexNumber() } ?? 0
      case "title_date": titleAndDate = try json.optional { try $0.hexNumber() } ?? 0
      default: try json.skipValue()
      }
    }
    guard let first, let last else { throw json.failure("an item needs 'first_seen' and 'last_seen'") }
    self.init(firstSeen: first, lastSeen: last, story: story, titleAndDate: titleAndDate)
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

extension FeedState {
  /// Drops the oldest pending actions until the state's file fits `budget` bytes, and returns them: none,
  /// unless thousands of huge items wait (each action's item is already cut to `FeedItem.stored`).
  public mutating func fitPending(budget: Int) -> [PendingAction] {
    guard !pending.isEmpty else { return [] }
    // A generous bound first (escaping at most doubles an item's JSON; keys are at most 1 KiB): nearly
    // every state is far under its budget and is not encoded twice.
    let bound = pending.reduce(8_192 + items.count * 1_200 + dropped.count * 1_024) { total, action in
      total + 1_024 + 2 * action.textBytes
    }
    guard bound > budget else { return [] }
    let sizes = pending.map { action in
      var json = PrettyJSON()
      action.write(to: &json)
      return json.count + 8
    }
    let order = pending.indices.sorted { (pending[$0].created, $0) < (pending[$1].created, $1) }
    let over = ByteBudget.overflow(sizes: sizes, oldestFirst: order, total: pretty.count, budget: budget)
    guard !over.isEmpty else { return [] }
    let removed = over.sorted().map { pending[$0] }
    pending = pending.indices.filter { !over.contains($0) }.map { pending[$0] }
    return removed
  }
}

extension FeedState.PendingAction {
  /// The UTF-8 bytes of its texts, as written (before escaping).
  var textBytes: Int {
    func bytes(_ texts: [String?]) -> Int { texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) } }
    let common = bytes([title, link, lastError, key])
    switch payload {
    case .notify(let notification): return common + bytes([notification.summary, notification.body])
    case .hook(let hook):
      return common + bytes([hook.item, hook.command] + (hook.arguments ?? []))
        + (hook.environment ?? [:]).reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    case .webhook(let webhook): return common + bytes([webhook.item, webhook.url])
    case .apprise: return common
    }
  }
}
