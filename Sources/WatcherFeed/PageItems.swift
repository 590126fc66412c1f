// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport
import WatcherXML

/// One post of a page that has no feed: a row of its list.
public struct PageItem: Sendable, Equatable {
  /// The row's title (its main link's text, or its heading's).
  public var title: String
  /// The absolute address the row links to; the item's key.
  public var link: String
  /// The date the row shows, as written (`datetime` of a `<time>` when there is one).
  public var date: String?
  /// The row's longest paragraph, when it has one besides the title.
  public var summary: String?
  /// The row's first picture, absolute.
  public var image: String?

  public init(title: String, link: String, date: String? = nil, summary: String? = nil, image: String? = nil) {
    self.title = title
    self.link = link
    self.date = date
    self.summary = summary
    self.image = image
  }
}

/// What a page gave as a list of posts: the items, where they were found, or why there are none.
public struct PageListing: Sendable, Equatable {
  /// Whether the page gave items, and if not, why.
  public enum Status: String, Sendable {
    /// Items were found.
    case list
    /// The page is a bot challenge (Cloudflare, DataDome, Vercel, a CAPTCHA), not the site's content.
    case blocked
    /// The page has no list of posts (a single article, an app shell that renders in the browser, a page
    /// without repeated links).
    case noList = "no-list"
  }

  public var status: Status
  /// The posts, in page order, one per distinct link.
  public var items: [PageItem]
  /// Where the items came from ("main > section > article", "the page's Next.js data") or why there are
  /// none ("a single article, not a list").
  public var reason: String
  /// A CSS selector that picks the items' elements on this page, when they came from its markup: what
  /// `items:` pins.
  public var selector: String? = nil
  /// The protection whose challenge the page is (`blocked`).
  public var blockedBy: String?
  /// Where the page's posts can be read instead, when it has no list but names an API (WordPress's REST
  /// route): a page feed of that address gives them.
  public var alternative: String?

  /// A page without items, and why.
  public static func none(_ status: Status, _ reason: String) -> PageListing {
    PageListing(status: status, items: [], reason: reason)
  }
}

/// Feeds from pages that have none: the page's repeated list of posts, found without selectors.
///
/// The list is the largest group of elements of one kind, each with a link and a title, in the page's main
/// content rather than its navigation, tag clouds or footers (``PageList``); pages built by scripts are read
/// from the data they embed (Next.js, Nuxt, Redux state, JSON-LD `ItemList`: ``PageState``). A bot challenge,
/// a single article or an app shell gives no items and says why.
public enum PageItems {
  /// Selectors a feed entry pins the list with (`items:`, and inside an item `title:`, `link:`, `date:`).
  public struct Pins: Sendable, Equatable {
    public var items: HTMLSelector
    public var title: HTMLSelector?
    public var link: HTMLSelector?
    public var date: HTMLSelector?

    public init(items: HTMLSelector, title: HTMLSelector? = nil, link: HTMLSelector? = nil, date: HTMLSelector? = nil) {
      self.items = items
      self.title = title
      self.link = link
      self.date = date
    }
  }

  /// The list of posts on the page `bytes` fetched from `url`.
  ///
  /// `remembered` is the selector of the list an earlier read found: while it still picks three rows or
  /// more, it is the list, so a page whose layout shifts a little does not make another group win (and
  /// every row of it look new).
  public static func read(
    _ bytes: [UInt8], url: String, encoding: String? = nil, pins: Pins? = nil, remembered: String? = nil
  ) -> PageListing {
    // An API's JSON list of posts (WordPress's REST route, a headless CMS's) reads as the data a page embeds.
    if let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
      first == UInt8(ascii: "[") || first == UInt8(ascii: "{")
    {
      return PageState.items(inJSON: bytes, base: url)
    }
    guard let root = HTMLTree.parse(bytes, encoding: encoding) else { return .none(.noList, "the page is empty") }
    let base = baseURL(of: root, url: url)
    if pins == nil, let remembered, let rows = try? HTMLSelector(remembered), rows.xpath == nil {
      var listing = PageList.pinned(Pins(items: rows), root: root, base: base, page: url)
      if listing.items.count >= 3 {
        listing.reason = "the list found before: \(listing.items.count) posts in \(remembered)"
        return listing
      }
    }
    let markup = pins == nil ? PageList.best(in: root, base: base, page: url) : nil
    // A challenge says little else; a page with a clear list only loads the protection's script.
    if markup?.strong != true, let challenge = BotCheck.challenge(in: bytes, root: root) {
      var listing = PageListing.none(.blocked, "the page is a bot challenge (\(challenge)), not the site's content")
      listing.blockedBy = challenge
      return listing
    }
    if let pins { return PageList.pinned(pins, root: root, base: base, page: url) }
    if PageList.isArticle(root, list: markup) { return .none(.noList, "a single article, not a list of posts") }
    if let markup, markup.strong { return markup.listing }
    if let embedded = PageState.items(in: root, base: base), !embedded.items.isEmpty { return embedded }
    if let markup { return markup.listing }
    var none = PageListing.none(.noList, "no repeated list of links with titles on the page")
    if PageList.visibleText(root).count < 200 {
      none.reason = "the page has almost no content of its own (an app that renders in the browser?)"
    }
    if let posts = PageState.wordPressPosts(in: root, base: base) {
      none.reason += "; it names a WordPress REST API, whose posts are at \(posts)"
      none.alternative = posts
    }
    return none
  }

  /// The page's `<base href>` resolved against its address, else its address.
  static func baseURL(of root: HTMLElement, url: String) -> String {
    for element in root.elements where element.name == "head" {
      for base in element.elements where base.name == "base" {
        if let href = base.attributes["href"]?.trimming(.spacesAndNewlines), !href.isEmpty {
          return URLResolver.resolve(href, against: url)
        }
      }
    }
    return url
  }

  /// `reference` resolved against `base` when that gives an http(s) address.
  static func absolute(_ reference: String, base: String) -> String? {
    let trimmed = reference.trimming(.spacesAndNewlines)
    guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
    let resolved = URLResolver.resolve(trimmed, against: base)
    let lower = resolved.prefix(8).lowercased()
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
    return resolved
  }
}

/// Bot challenges: the pages a site's protection shows instead of its content.
public enum BotCheck {
  /// The marks of each protection's challenge pages, in lower case.
  static let signatures: [(String, [String])] = [
    (
      "Cloudflare",
      [
        "cf-chl", "cf_chl_opt", "just a moment...", "just a moment…", "challenge-platform",
        "attention required! | cloudflare", "cf-browser-verification",
      ]
    ),
    ("DDoS-Guard", ["ddos-guard"]),
    ("Sucuri", ["sucuri website firewall", "sucuri-cloudproxy"]),
    ("Imperva", ["_incapsula_resource", "incapsula incident id"]),
    ("Akamai", ["akamai bot manager", "errors.edgesuite.net"]),
    ("PerimeterX", ["px-captcha", "perimeterx"]),
    ("DataDome", ["captcha-delivery.com", "datadome"]),
    ("AWS WAF", ["awswaf", "aws-waf-token"]),
    ("Vercel", ["vercel security checkpoint"]),
    ("Anubis", ["anubis_challenge", "making sure you're not a bot", "making sure you&#39;re not a bot"]),
    ("Reddit", ["whoa there, pardner", "blocked by network security"]),
  ]

  /// The protection whose marks the start of a page (in lower case) carries, or `nil`.
  public static func service(in head: LowercasedASCII) -> String? {
    for (service, marks) in signatures where marks.contains(where: head.contains) { return service }
    return nil
  }

  /// The protection whose challenge the page `bytes` (answered with success) is, or `nil`.
  ///
  /// Sites behind a protection load its script on every page, so on a page that came with success the
  /// marks count only when the page says little else: a challenge has a line or two of text.
  static func challenge(in bytes: [UInt8], root: HTMLElement) -> String? {
    let head = LowercasedASCII(Data(bytes.prefix(65_536)))
    let service = service(in: head) ?? (head.contains("captcha") ? "a CAPTCHA" : nil)
    guard let service, PageList.visibleText(root).count < 1_500 else { return nil }
    return service
  }
}
