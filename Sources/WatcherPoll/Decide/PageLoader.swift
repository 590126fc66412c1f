// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherSupport

/// Page feeds (`page: URL`): the page's list of posts as a feed, each row an item keyed by its link.
extension FeedLoader {
  /// The items of the page `bytes` fetched from `url`.
  ///
  /// `remembered`: the selector of the list found last time (`ParsedFeed.pageSelector`), kept while it
  /// still picks the list.
  public static func page(
    _ bytes: [UInt8], url: String, charset: String?, page: FeedConfig.Page, remembered: String? = nil
  ) -> Result<ParsedFeed, FeedLoadError> {
    let listing = PageItems.read(bytes, url: url, encoding: charset, pins: page.pins, remembered: remembered)
    switch listing.status {
    case .blocked: return .failure(.blocked(status: 200, by: listing.blockedBy ?? "a bot check"))
    case .noList: return .failure(.noList(listing.reason))
    case .list:
      var parsed = ParsedFeed(feed: feed(listing, url: url))
      parsed.pageSelector = page.pins == nil ? listing.selector : nil
      return .success(parsed)
    }
  }

  /// The page read from a file (`page: /path/to/saved.html`).
  static func page(path: String, options: FeedParser.Options, page: FeedConfig.Page, remembered: String? = nil)
    -> Result<ParsedFeed, FeedLoadError>
  {
    guard case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: options.maxBytes) else {
      return .failure(.read("cannot read the page (not a regular file, or larger than max_size)"))
    }
    return Self.page(
      Array(data), url: URL(fileURLWithPath: path).absoluteString, charset: options.charset, page: page,
      remembered: remembered)
  }

  /// The listing as a feed: one item a row, keyed and linked by the row's link.
  static func feed(_ listing: PageListing, url: String) -> Feed {
    let items = listing.items.map { row in
      FeedItem(
        key: row.link, id: row.link, title: row.title, link: row.link,
        published: row.date.flatMap(DateParser.parse), text: row.summary, image: row.image)
    }
    return Feed(title: nil, link: url, format: .page, items: items)
  }
}

extension FeedLoader {
  /// The body at `url`, an address the page `page` named (its WordPress REST route): fetched under the rule
  /// for what a page links to, never from an address more private than the page's.
  public static func linked(_ url: String, from page: String, options: FeedParser.Options, transport: any HTTPTransport)
    -> Result<[UInt8], FeedLoadError>
  {
    var request = FetchRequest(url: url, maxBytes: options.maxBytes, timeout: 30)
    request.maxScope = AddressScope.limit(forLink: url, in: page)
    switch transport.fetch([request], concurrency: 1)[0] {
    case .failure(let error): return .failure(.fetch(error))
    case .success(let response):
      guard (200..<300).contains(response.status) else {
        return .failure(.status(response.status, retryAfter: response.retryAfter))
      }
      return .success(response.pieces.reduce(into: [UInt8]()) { $0 += $1 })
    }
  }
}
