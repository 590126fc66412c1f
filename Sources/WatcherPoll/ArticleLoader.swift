// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherSupport
import WatcherXML

/// Why an article page gave no text: typed, and turned into words only where it is shown.
public enum ArticleLoadError: Error, Sendable, Equatable {
  /// The item has no http(s) link to fetch (none, or another scheme: a feed never makes watcher read a file).
  case noLink
  /// The fetch failed (timeout, size, redirects, connection).
  case fetch(FetchError)
  /// The server answered with a status that is not a success.
  case status(Int)
  /// The page is too large or corrupt.
  case extract(ArticleExtractor.Failure)
  /// The file cannot be read; the system's reason.
  case read(String)
  /// The page has no text.
  case empty
  /// The feed's `content_selector` matched nothing in the page.
  case selectorMatchedNothing(String)
  /// Not fetched: the feed's `full_text` budget (pages or seconds) was spent.
  case overBudget(String)
  /// The answer is not a web page (a picture, a PDF, binary data); its media type, if it named one.
  case notHTML(String?)
}

extension ArticleLoadError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .noLink: return "the item has no http(s) link"
    case .fetch(let error): return "\(error)"
    case .status(let status): return "HTTP \(status)"
    case .extract(.tooLarge(let limit)): return "the page is larger than the \(ByteCount.format(limit)) limit"
    case .extract(.unreadable): return "the page is gzip-compressed and cannot be decompressed"
    case .read(let reason): return "cannot read: \(reason)"
    case .empty: return "the page has no text"
    case .selectorMatchedNothing(let selector):
      return "its content_selector '\(selector)' matches nothing in the page (see it with 'watcher extract --feed')"
    case .overBudget(let what): return "not fetched: \(what)"
    case .notHTML(let type): return "not a web page (\(type ?? "no type, and not HTML by its content"))"
    }
  }
}

/// Fetches web pages and extracts their article: `watcher extract` and a feed's `full_text`.
public enum ArticleLoader {
  /// The limits of a page fetch.
  public struct Limits: Sendable {
    /// The largest page accepted.
    public var maxBytes: Int
    /// Seconds for the whole transfer.
    public var timeout: Int
    /// Pages fetched at once (the transport also keeps to two per host).
    public var concurrency: Int

    /// Limits for pages.
    public init(maxBytes: Int = ArticleExtractor.maxPageBytes, timeout: Int = 20, concurrency: Int = 4) {
      self.maxBytes = min(maxBytes, ArticleExtractor.maxPageBytes)
      self.timeout = timeout
      self.concurrency = concurrency
    }

    /// The limits a poll keeps to: its size cap, timeout and concurrency.
    public init(_ settings: Settings) {
      self.init(maxBytes: settings.maxBytes, timeout: settings.timeout, concurrency: settings.concurrency)
    }
  }

  /// The article at each http(s) URL, fetched together; a `nil` URL or one of another scheme is `.noLink`.
  ///
  /// `feedURL` is where the links came from (`feedScope`: how private the address it came from is, when
  /// known): a page is never fetched from an address more private than the feed's own, and on a private
  /// network or this machine only from the feed's own origin (`AddressScope.limit`), as for pictures.
  package static func fetch(
    _ urls: [String?], feedURL: String?, feedScope: AddressScope? = nil, limits: Limits,
    transport: any HTTPTransport, cancellation: Cancellation? = nil, selector: HTMLSelector? = nil
  ) -> [Result<ArticleExtractor.Article, ArticleLoadError>] {
    var results = [Result<ArticleExtractor.Article, ArticleLoadError>](repeating: .failure(.noLink), count: urls.count)
    let remote = urls.enumerated().compactMap { index, url in
      url.flatMap { FeedLocation.isHTTP($0) ? (index, $0) : nil }
    }
    guard !remote.isEmpty else { return results }
    // Within a time budget, no page may take longer than what is left of it.
    let timeout = cancellation?.secondsLeft.map { min(limits.timeout, max(1, Int($0.rounded(.up)))) } ?? limits.timeout
    let requests = remote.map { _, url in
      var request = FetchRequest(url: url, maxBytes: limits.maxBytes, timeout: timeout)
      request.maxScope = feedURL.map { AddressScope.limit(forLink: url, in: $0, sourceScope: feedScope) }
      return request
    }
    let responses = transport.fetch(requests, concurrency: limits.concurrency, cancellation: cancellation)
    for ((index, _), response) in zip(remote, responses) {
      switch response {
      case .failure(let error): results[index] = .failure(.fetch(error))
      case .success(let fetched):
        guard (200..<300).contains(fetched.status) else {
          results[index] = .failure(.status(fetched.status))
          continue
        }
        guard isPage(fetched.body, mediaType: fetched.mediaType) else {
          results[index] = .failure(.notHTML(fetched.mediaType))
          continue
        }
        results[index] = extract(fetched.body, encoding: fetched.charset, selector: selector)
      }
    }
    return results
  }

  /// Sets each item's `content` to the article its link leads to; returns the items whose page failed
  /// (they keep only their feed text), each named by its title, else its link or key.
  ///
  /// With a `budget`, at most `budget.pages` pages are fetched (the first items), within `budget.seconds`
  /// (together); pages past either fail as `.overBudget`. `cancellation` stops the fetches without a word.
  package static func addContent(
    to items: inout [FeedItem], feedURL: String, feedScope: AddressScope? = nil, limits: Limits,
    transport: any HTTPTransport, cancellation: Cancellation? = nil, selector: HTMLSelector? = nil,
    rewrite: LinkRewrite? = nil, budget: (pages: Int, deadline: ContinuousClock.Instant, seconds: Int)? = nil
  ) -> [(item: String, error: ArticleLoadError)] {
    var failed: [(item: String, error: ArticleLoadError)] = []
    func name(_ item: FeedItem) -> String { item.title ?? item.link ?? item.key }
    let fetched = budget.map { min($0.pages, items.count) } ?? items.count
    let timer = budget.map { Cancellation(parent: cancellation, deadline: $0.deadline) } ?? cancellation
    let articles = fetch(
      items.prefix(fetched).map { item in item.link.map { rewrite?.apply($0) ?? $0 } }, feedURL: feedURL,
      feedScope: feedScope, limits: limits,
      transport: transport, cancellation: timer, selector: selector)
    for (index, article) in articles.enumerated() {
      switch article {
      case .success(let found): items[index].content = found.text
      case .failure(.fetch(.cancelled)),
        .failure(.fetch(.timeout)) where timer?.isPastDeadline == true:
        // Stopping (SIGTERM) says nothing; a spent time budget (its page cut by the budget or by the timeout
        // that was what was left of it) says what was not read.
        guard cancellation?.isCancelled != true, let budget else { continue }
        failed.append(
          (
            name(items[index]),
            .overBudget(
              "the pages of this feed took \(SpokenDuration.text(Double(budget.seconds))), its time budget (settings.full_text_budget)"
            )
          ))
      case .failure(let error): failed.append((name(items[index]), error))
      }
    }
    if let budget, fetched < items.count {
      for item in items[fetched...] {
        failed.append(
          (name(item), .overBudget("more than \(budget.pages) pages in one poll (settings.full_text_budget.pages)")))
      }
    }
    return failed
  }

  /// The article in the page at `source`: an http(s) URL, a file path or `file://` URL (person's choice).
  public static func load(
    _ source: String, limits: Limits = Limits(), transport: any HTTPTransport, selector: HTMLSelector? = nil
  ) -> Result<ArticleExtractor.Article, ArticleLoadError> {
    if FeedLocation.isHTTP(source) {
      return fetch([source], feedURL: nil, limits: limits, transport: transport, selector: selector)[0]
    }
    switch RegularFile.read(FeedLocation.path(of: source), maxBytes: limits.maxBytes) {
    case .failure(let error): return .failure(.read(error.description))
    case .success(let data): return extract(data, encoding: nil, selector: selector)
    }
  }

  /// Whether a response is a web page: HTML by its type, or by its content when its type is missing or
  /// generic; never a body with NUL bytes or a picture's signature, whatever its type says.
  static func isPage(_ body: Data, mediaType: String?) -> Bool {
    let head = body.prefix(1_024)
    if head.contains(0) || BinarySignature.matches(head) { return false }
    switch mediaType {
    case "text/html", "application/xhtml+xml": return true
    case nil, "text/plain", "application/octet-stream", "binary/octet-stream": return FeedDiscovery.looksLikeHTML(body)
    default: return false
    }
  }

  /// The article in `body`.
  public static func extract(_ body: Data, encoding: String?, selector: HTMLSelector? = nil) -> Result<
    ArticleExtractor.Article, ArticleLoadError
  > {
    do {
      guard let article = try ArticleExtractor.extract([UInt8](body), encoding: encoding, selector: selector) else {
        return .failure(.empty)
      }
      if let selector, article.text.isEmpty { return .failure(.selectorMatchedNothing(selector.text)) }
      return .success(article)
    } catch {
      return .failure(.extract(error))
    }
  }
}

/// The first bytes of the pictures a server may send where a page was expected.
enum BinarySignature {
  static func matches(_ head: Data) -> Bool {
    let bytes = [UInt8](head.prefix(12))
    return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF])
      || bytes.starts(with: Array("GIF8".utf8)) || bytes.starts(with: Array("RIFF".utf8))
      || bytes.starts(with: Array("%PDF".utf8))
  }
}
