// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// One feed after parsing, in the normalized model every format translates into.
///
/// Which source element fills each field is documented on the field, for every format.
public struct Feed: Sendable, Equatable {
  /// The feed's title as plain text: RSS `channel/title`, Atom `feed/title`, JSON Feed `title`.
  public var title: String?
  /// The feed's home page: RSS `channel/link` (else an `atom:link rel=alternate`), Atom `link rel=alternate`,
  /// JSON Feed `home_page_url`.
  public var link: String?
  /// The format and version the content was recognised as.
  public var format: FeedFormat
  /// The items in document order.
  public var items: [FeedItem]
  /// How often the feed says it may be polled (RSS `ttl`, `skipHours`, `skipDays`, `sy:updatePeriod`).
  public var refresh = FeedRefresh()

  /// Creates a feed from its parts.
  public init(title: String? = nil, link: String? = nil, format: FeedFormat, items: [FeedItem] = []) {
    self.title = title
    self.link = link
    self.format = format
    self.items = items
  }
}

/// A feed format and version, sniffed from the content (never from the URL or the Content-Type).
public enum FeedFormat: String, Sendable, Equatable, CaseIterable {
  /// RSS 0.90 (`rdf:RDF` with the Netscape 0.9 namespace).
  case rss090 = "rss-0.90"
  /// RSS 0.91 (UserLand or Netscape).
  case rss091 = "rss-0.91"
  /// RSS 0.92.
  case rss092 = "rss-0.92"
  /// RSS 0.93.
  case rss093 = "rss-0.93"
  /// RSS 0.94.
  case rss094 = "rss-0.94"
  /// RSS 1.0 (RDF).
  case rss10 = "rss-1.0"
  /// RSS 2.0, also used for an `<rss>` element with no or an unknown version.
  case rss20 = "rss-2.0"
  /// Atom 0.3.
  case atom03 = "atom-0.3"
  /// Atom 1.0 (RFC 4287), also used for Atom with no or an unusual namespace.
  case atom10 = "atom-1.0"
  /// JSON Feed 1.0.
  case json10 = "json-1.0"
  /// JSON Feed 1.1.
  case json11 = "json-1.1"
  /// A web page's list of posts (a page feed, `page: URL`), not a feed format.
  case page = "html-page"
}

/// What a feed says about how often to poll it.
///
/// Read for `interval: auto` only: a fixed interval is the
/// user's word.
public struct FeedRefresh: Sendable, Equatable {
  /// RSS `ttl`, in seconds (written in minutes).
  public var ttl: Int?
  /// `sy:updatePeriod` divided by `sy:updateFrequency`, in seconds (`hourly` with frequency 2: 1,800).
  public var updatePeriod: Int?
  /// RSS `skipHours`: hours of the day (0–23, GMT) in which the feed should not be polled.
  public var skipHours: [Int] = []
  /// RSS `skipDays`: days in which it should not be polled, 1 (Sunday) to 7 (Saturday).
  public var skipDays: [Int] = []

  public init(ttl: Int? = nil, updatePeriod: Int? = nil, skipHours: [Int] = [], skipDays: [Int] = []) {
    self.ttl = ttl
    self.updatePeriod = updatePeriod
    self.skipHours = skipHours
    self.skipDays = skipDays
  }

  /// The weekday numbers of `skipDays` names, as `Calendar` counts them (1: Sunday).
  public static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

  /// The seconds of an `sy:updatePeriod`.
  static func seconds(ofPeriod period: String) -> Int? {
    switch period.lowercased() {
    case "hourly": return 3_600
    case "daily": return 86_400
    case "weekly": return 7 * 86_400
    case "monthly": return 30 * 86_400
    case "yearly": return 365 * 86_400
    default: return nil
    }
  }
}
