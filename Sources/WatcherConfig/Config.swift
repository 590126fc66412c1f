// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherRegex
import WatcherSupport
import WatcherXML

/// The whole configuration: settings, feeds and rules.
public struct Config: Sendable {
  /// Global settings, all optional in the file.
  public var settings: Settings
  /// The feeds to watch, in file order.
  public var feeds: [FeedConfig]
  /// The rules, in file order.
  public var rules: [Rule]
  /// Warnings and notes about a config that loaded (a feed file that does not exist yet, where a relative
  /// path points), rendered by `watcher check`.
  public var notices: [Diagnostic] = []

  /// Creates a config.
  public init(settings: Settings = Settings(), feeds: [FeedConfig] = [], rules: [Rule] = []) {
    self.settings = settings
    self.feeds = feeds
    self.rules = rules
  }
}

/// Global settings (`settings:` in the file).
public struct Settings: Sendable, Equatable {
  /// What a never-polled feed does with the items it already has.
  public enum FirstPoll: Sendable, Equatable {
    /// Record everything, act on nothing (the default).
    case silent
    /// Act on the newest N items.
    case latest(Int)
    /// Act on every item.
    case all
  }

  /// Default poll interval, seconds (`15m`).
  public var interval: Int = 15 * 60
  /// `interval: auto`: feeds without an interval of their own are polled as often as they post.
  public var autoInterval = false
  /// The bounds of `auto` (`settings.auto_interval`).
  public var autoBounds = AutoInterval()
  /// The least time between two requests to one host, seconds (`settings.host_gap`); `nil`: 1 s, and
  /// none for hosts on this machine.
  public var hostGap: Double?
  /// How feeds are requested (`user_agent`, `headers`, `netrc`, `cookies`, `proxy`).
  public var fetch = FetchOptions()
  /// Feeds fetched at once.
  public var concurrency: Int = 8
  /// Fetch timeout, seconds.
  public var timeout: Int = 30
  /// First-poll behaviour.
  public var firstPoll: FirstPoll = .silent
  /// Items published longer ago than this (seconds) are recorded, never acted on; `nil` for no limit.
  public var maxAge: Int? = 7 * 86_400
  /// How long an item that left the feed is remembered, seconds.
  public var retention: Int = 90 * 86_400
  /// Largest response accepted, bytes.
  public var maxBytes: Int = 20_000_000
  /// The most items read from one feed document (`max_items`); later ones are ignored with a warning.
  public var maxItems: Int = 10_000
  /// Where state files live; `nil` for the XDG default.
  public var stateDir: String?
  /// Hooks run at once: by default twice the processors (each hook's fork and exec wait on the kernel
  /// as much as they compute: docs/benchmarks.md, "Measurements behind the code"), at most 16.
  public var hookConcurrency: Int = Settings.defaultHookConcurrency
  /// Twice the processors the process may use (`Processors.available`), at least 2 and at most 16.
  public static let defaultHookConcurrency = min(16, max(2, 2 * Processors.available))
  /// Attempts for a failing hook before it is dropped (and only once `hookRetry.giveUpAfter` has passed).
  public var hookRetries: Int = 5
  /// When a failing hook is tried again (`settings.hook_retry`).
  public var hookRetry = RetrySettings()
  /// Notification defaults.
  public var notify = NotifySettings()
  /// Query parameters that do not identify a story, beyond `StoryIdentity.trackingParameters`
  /// (`settings.ignore_parameters`; `name*` is a prefix).
  public var ignoreParameters: [String] = []
  /// An item whose story was acted on for another feed within `retention` is not acted on again.
  public var dedupe = true
  /// Whether new items of different feeds that report the same story are grouped (one bubble updated in
  /// place, spread triggers); `stories: false` on a feed leaves its items out.
  public var stories = true
  /// Whether the learned score comes from a model of the labels of the item's feed tag (`score_scope: tag`,
  /// when that tag has labels enough) rather than one model of every label (`all`, the default).
  public var scoreByTag = false
  /// Fetch each new item's link and match rules on the article's main text (`content`).
  public var fullText = false
  /// What `full_text` may spend on pages (`settings.full_text_budget`).
  public var fullTextBudget = FullTextBudget()
  /// How long the journal keeps an entry (seconds) and how many it keeps (`settings.journal`).
  public var journalKeepFor: Int = 30 * 86_400
  public var journalKeepMax: Int = 10_000

  /// What `full_text` may spend: pages per feed and pass, and seconds per feed and per pass.
  ///
  /// An item past the budget is acted on with its feed text, and the poll says so.
  public struct FullTextBudget: Sendable, Equatable {
    /// Pages one feed fetches in one pass (its newest items first).
    public var pages = 20
    /// Seconds one feed's pages may take together.
    public var feedSeconds = 60
    /// Seconds the pages of all feeds may take in one pass.
    public var passSeconds = 180

    public init(pages: Int = 20, feedSeconds: Int = 60, passSeconds: Int = 180) {
      self.pages = pages
      self.feedSeconds = feedSeconds
      self.passSeconds = passSeconds
    }
  }

  /// Creates default settings.
  public init() {}
}

/// When a failed hook is tried again (`settings.hook_retry`): backoff measured in time, whatever passes happen
/// in between.
public struct RetrySettings: Sendable, Equatable {
  /// The wait before the first retry, seconds; each later wait doubles it.
  public var delay: Int = 60
  /// The longest wait between two attempts, seconds.
  public var maxDelay: Int = 6 * 3_600
  /// A failing hook is given up only after `hook_retries` attempts *and* this long since it was decided
  /// (seconds, at least a minute).
  public var giveUpAfter: Int = 86_400

  /// Creates the defaults.
  public init() {}

  /// The wait after the `attempts`-th failed attempt: `delay`, doubling, at most `maxDelay`.
  public func wait(afterAttempts attempts: Int) -> TimeInterval {
    let doublings = min(max(attempts - 1, 0), 30)
    let (scaled, overflow) = max(delay, 1).multipliedReportingOverflow(by: 1 << doublings)
    return Double(overflow ? maxDelay : min(scaled, max(maxDelay, 1)))
  }

  /// Whether an action decided at `created`, having failed `attempts` times, is given up at `now`.
  public func givesUp(attempts: Int, retries: Int, created: Date, now: Date) -> Bool {
    attempts >= retries && now.timeIntervalSince(created) >= Double(max(giveUpAfter, 60))
  }
}

/// Notification defaults (`settings.notify`).
public struct NotifySettings: Sendable, Equatable {
  /// Default urgency.
  public var urgency: Urgency = .normal
  /// How long a notification stays, seconds (`nil`: the server's default).
  public var expire: Int? = 10
  /// More notifiable items than this from one feed in one poll become one summary notification.
  public var maxPerPoll: Int = 5
  /// Icon name or path (the freedesktop icon for feeds by default).
  public var icon: String? = NotifySettings.defaultIcon
  /// How long a notification that could not be shown (no notification service) is kept to show later.
  public var keepFor: Int = 86_400
  /// The most notifications kept to show later (the newest are kept).
  public var keepMax: Int = 200
  /// When notifications wait (`quiet`, `quiet_allows`).
  public var quiet = QuietHours()
  /// Whether a feed's health (failing for a day, moved, blocked by a bot check, gone, new ids) is told by
  /// a notification (`settings.notify.health`); `status` says it either way.
  public var health = true
  /// How long "Snooze feed" on a notification mutes its feed's notifications (`settings.notify.snooze`).
  public var snooze = 86_400
  /// Whether an item's notification carries 👍 and 👎 buttons that label it for the learner
  /// (`settings.notify.learn`).
  public var learn = false

  /// The icon a notification gets when nothing else is set: the freedesktop icon name for feeds.
  public static let defaultIcon = "application-rss+xml"

  /// Creates defaults.
  public init() {}
}

/// One feed to watch (`feeds:` entries).
public struct FeedConfig: Sendable, Equatable {
  /// How items of this feed are identified.
  public enum Identity: String, Sendable, Equatable, CaseIterable {
    /// guid/id, then link, then content hash (the parser's `key`).
    case guid
    /// The link.
    case link
    /// The title.
    case title
    /// A hash of title, date and text.
    case hash
  }

  /// Where to fetch it: an http(s) or file URL, or a path.
  public var url: String
  /// Its name in rules and messages (default: a slug of host and path).
  public var name: String
  /// The feed's own title, as `add` and `import-opml` found it (`export-opml` writes it back); display only.
  public var title: String?
  /// The site's home page; display only.
  ///
  /// As `add` (the feed's link) and `import-opml` (`htmlUrl`) found it; `export-opml` writes it back as
  /// `htmlUrl`.
  public var site: String?
  /// Poll interval, seconds (`nil`: the global one).
  public var interval: Int?
  /// `interval: auto` on the feed (`nil`: as the settings say, when `interval` is not set either).
  public var autoInterval: Bool?
  /// How it is requested, over `settings` (`user_agent`, `headers`, `netrc`, `cookies`, `proxy`).
  public var fetch = FetchOptions()
  /// Tags applied to every item.
  public var tags: [String]
  /// Notify every new unmuted item, rule or not.
  public var notify: Bool
  /// Identity scheme.
  public var identity: Identity
  /// Whether `identity` was written in the config (else watcher may switch a churning feed to `link`).
  public var identityChosen = false
  /// Whether an item already acted on for another feed is skipped here (`nil`: as `settings.dedupe` says).
  public var dedupe: Bool?
  /// Whether its new items are grouped with other feeds' into stories (`nil`: as `settings.stories` says).
  public var stories: Bool?
  /// A hook run for every new (unmuted) item of this feed, rule or not.
  public var hook: HookAction?
  /// The feed's own `apprise:`: every new item of it sent through Apprise.
  public var apprise: AppriseAction?
  /// Fetch each new item's article for the `content` field (`nil`: as `settings.full_text` says).
  public var fullText: Bool?
  /// Where the article is in its pages, for sites where no heuristic finds it (`content_selector:`, a CSS
  /// selector, checked when the config loads): `full_text` and `watcher extract --feed` take the text of
  /// what it matches.
  public var contentSelector: HTMLSelector?
  /// The address `full_text` fetches instead of an item's link (`link_rewrite: { match, replace }`).
  ///
  /// A printer-friendly or text-only page; the item's own link stays as it is.
  public var linkRewrite: LinkRewrite?
  /// A page watched for its list of posts (`page: URL`), not a feed: its rows are the items, each keyed by
  /// its link.
  public struct Page: Sendable, Equatable {
    /// The selectors that pin the list (`items:`); `nil`: the list is found on each fetch.
    public var pins: PageItems.Pins?

    public init(pins: PageItems.Pins? = nil) { self.pins = pins }
  }

  /// The entry's page options when it is a page (`page: URL`), `nil` for a feed.
  public var page: Page?
  /// What this feed's first poll acts on (`first_poll:`); nil: `settings.first_poll`.
  public var firstPoll: Settings.FirstPoll?
  /// Where the entry starts in the file.
  public var mark: Mark?

  /// Creates a feed entry.
  public init(
    url: String, name: String, title: String? = nil, interval: Int? = nil, tags: [String] = [],
    notify: Bool = false, identity: Identity = .guid, mark: Mark? = nil
  ) {
    self.url = url
    self.name = name
    self.title = title
    self.interval = interval
    self.tags = tags
    self.notify = notify
    self.identity = identity
    self.mark = mark
  }

  /// Whether the feed is polled as often as it posts (`interval: auto`), under `settings`.
  public func isAuto(_ settings: Settings) -> Bool {
    if let autoInterval { return autoInterval }
    return interval == nil && settings.autoInterval
  }

  /// Whether new items of this feed get their article's text, under `settings`.
  public func wantsFullText(_ settings: Settings) -> Bool { fullText ?? settings.fullText }

  /// A name for a URL: host and path, lowercased, non-alphanumerics as `-` ("www-swift-org-atom-xml").
  public static func slug(for url: String) -> String {
    var text = url.lowercased()
    for prefix in ["https://", "http://", "file://"] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
    let slug = slugify(text)
    return slug.isEmpty ? "feed" : slug
  }

  /// `text` lowercased, with each run of characters other than letters and digits as one `-` ("" when none).
  public static func slugify(_ text: String) -> String {
    var slug = ""
    for scalar in text.lowercased().unicodeScalars {
      if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
        slug.unicodeScalars.append(scalar)
      } else if !slug.isEmpty, slug.last != "-" {
        slug.append("-")
      }
    }
    while slug.hasSuffix("-") { slug.removeLast() }
    return slug
  }
}

/// `link_rewrite: { match: REGEX, replace: TEXT }`: the first match of `match` in a link is replaced by `replace`.
public struct LinkRewrite: Sendable, Equatable {
  public let match: LinearRegex
  public let replace: String

  public init(match: LinearRegex, replace: String) {
    self.match = match
    self.replace = replace
  }

  /// `link` with its first match replaced, or as it is when nothing matches.
  public func apply(_ link: String) -> String {
    guard let range = match.firstMatch(in: link) else { return link }
    let bytes = Array(link.utf8)
    return String(
      decoding: bytes[..<range.lowerBound] + Array(replace.utf8) + bytes[range.upperBound...], as: UTF8.self)
  }

  public static func == (a: LinkRewrite, b: LinkRewrite) -> Bool {
    a.match.pattern == b.match.pattern && a.replace == b.replace
  }
}
