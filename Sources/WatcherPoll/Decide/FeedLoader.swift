// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherState
import WatcherSupport

/// Why a feed could not be loaded: typed, and turned into words only where they are shown.
public enum FeedLoadError: Error, Sendable, Equatable {
  /// The fetch failed (timeout, size, redirects, connection).
  case fetch(FetchError)
  /// The server answered with a status that is not a success.
  case status(Int, retryAfter: Int?)
  /// The document is not a feed, or too large.
  case parse(FeedParseError)
  /// The file cannot be read; the system's reason.
  case read(String)
  /// A bot check (`FeedHealth.botCheck`) answered instead of the feed: the status and the service.
  case blocked(status: Int, by: String)
  /// An HTML page, not a feed; the feeds it links to (maybe none).
  case page(links: [String])
  /// A watched page (`page: URL`) that gave no list of posts, and why.
  case noList(String)
}

extension FeedLoadError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .fetch(let error): return "\(error)"
    case .status(let status, let retryAfter):
      return "HTTP \(status)" + (retryAfter.map { "; the server asks to wait \($0) s" } ?? "")
    case .parse(let error): return "\(error)"
    case .read(let reason): return "cannot read: \(reason)"
    case .blocked(let status, let by):
      return "HTTP \(status): answered by a bot check (\(by)) instead of the feed"
    case .noList(let reason):
      return "no list of posts on the page: \(reason) ('watcher parse URL' shows what it holds)"
    case .page(let links):
      guard let first = links.first else {
        return "found an HTML page, not a feed, and it links to no feed: find the site's feed URL "
          + "(often /feed, /rss or /atom.xml)"
      }
      return "found an HTML page, not a feed; it links to the feed \(first)"
        + (links.count > 1 ? " (and \(links.count - 1) more)" : "") + ": use that (watcher add PAGE does)"
    }
  }
}

/// The one way a feed is loaded (fetched or read, decoded, parsed): `poll`, `parse` and `test-rules` all
/// go through it.
public enum FeedLoader {
  /// Loads every source, one result per source, in order.
  ///
  /// http(s) URLs are fetched together (at most `concurrency` at once, two per host); files are read
  /// directly.
  public static func load(
    _ sources: [String], options: FeedParser.Options, timeout: Int = 30, concurrency: Int = 8,
    transport: any HTTPTransport
  ) -> [Result<ParsedFeed, FeedLoadError>] {
    load(
      sources, requests: sources.map { .success(FetchRequest(url: $0, maxBytes: options.maxBytes, timeout: timeout)) },
      options: options, concurrency: concurrency, transport: transport)
  }

  /// Loads configured feeds as a poll requests them (their `user_agent`, `headers`, `netrc`, `cookies`,
  /// `proxy`), without validators: `test-rules` and `parse --as`.
  public static func load(_ feeds: [FeedConfig], settings: Settings, transport: any HTTPTransport) -> [Result<
    ParsedFeed, FeedLoadError
  >] {
    let environment = ProcessInfo.processInfo.environment
    return load(
      feeds.map(\.url),
      requests: feeds.map {
        Poller.request($0, state: FeedState(url: $0.url), settings: settings, environment: environment)
      }, options: FeedParser.options(settings), concurrency: settings.concurrency, transport: transport,
      pages: feeds.map(\.page))
  }

  /// `load`, with the request made for each source (one per source; only the http(s) ones are used).
  static func load(
    _ sources: [String], requests: [Result<FetchRequest, FetchError>], options: FeedParser.Options,
    concurrency: Int, transport: any HTTPTransport, pages: [FeedConfig.Page?]? = nil
  ) -> [Result<ParsedFeed, FeedLoadError>] {
    let remote = sources.indices.filter { FeedLocation.isHTTP(sources[$0]) }
    let made = remote.compactMap { try? requests[$0].get() }
    var fetched = transport.fetch(made, concurrency: concurrency).reversed() as [Result<FetchResponse, FetchError>]
    let pages = pages ?? sources.map { _ in nil }
    var results = sources.indices.map { index in
      let path = FeedLocation.path(of: sources[index])
      return pages[index].map { page(path: path, options: options, page: $0) } ?? read(path, options: options)
    }
    for index in remote {
      let result: Result<FetchResponse, FetchError>
      switch requests[index] {
      case .success: result = fetched.popLast() ?? .failure(.cancelled)
      case .failure(let error): result = .failure(error)
      }
      switch result {
      case .failure(let error): results[index] = .failure(.fetch(error))
      case .success(let response):
        guard (200..<300).contains(response.status) else {
          if let by = FeedHealth.botCheck(status: response.status, body: response.pieces) {
            results[index] = .failure(.blocked(status: response.status, by: by))
          } else {
            results[index] = .failure(.status(response.status, retryAfter: response.retryAfter))
          }
          continue
        }
        if let page = pages[index] {
          results[index] = Self.page(
            response.pieces.reduce(into: [UInt8]()) { $0 += $1 }, url: response.finalURL, charset: response.charset,
            page: page)
          continue
        }
        results[index] = parse(response, options: options)
        if case .failure(.parse(.notAFeed(found: "an HTML page"))) = results[index] {
          results[index] = .failure(.page(links: feedLinks(in: response.body, response: response)))
        }
      }
    }
    return results
  }

  /// Loads one source (see `load`).
  public static func load(_ source: String, options: FeedParser.Options, transport: any HTTPTransport) -> Result<
    ParsedFeed, FeedLoadError
  > {
    load([source], options: options, concurrency: 1, transport: transport)[0]
  }

  /// The feed in a successful HTTP response: its final URL resolves relative links, its charset is the
  /// fallback encoding.
  public static func parse(_ response: FetchResponse, options: FeedParser.Options) -> Result<
    ParsedFeed, FeedLoadError
  > {
    parse(response, pieces: response.pieces, options: options)
  }

  /// `parse(_:)` for a response whose body was taken out of it (`pieces`): each piece is released once
  /// read, when nothing else holds it.
  public static func parse(_ response: FetchResponse, pieces: consuming [Data], options: FeedParser.Options)
    -> Result<ParsedFeed, FeedLoadError>
  {
    var options = options
    options.documentURL = response.finalURL
    options.charset = options.charset ?? response.charset
    do {
      return .success(try FeedParser.parse(pieces: consume pieces, options: options))
    } catch {
      return .failure(.parse(error))
    }
  }

  /// What a URL given by a person is: a feed, or a page that links to feeds (autodiscovery).
  public enum Found: Sendable {
    /// The URL is a feed.
    case feed(ParsedFeed)
    /// The URL is an HTML page; these are the feeds it links to (maybe none), in page order, and the links
    /// refused, each with why (not http(s), or more private than the page); and the page, to read its list
    /// of posts from when it links to no feed.
    case page([FeedDiscovery.Link], refused: [String], page: [UInt8], url: String)
  }

  /// Loads `source` like `load`, and when it is an HTML page rather than a feed, finds the feeds it links to
  /// (`watcher add`).
  public static func loadOrDiscover(_ source: String, options: FeedParser.Options, transport: any HTTPTransport)
    -> Result<Found, FeedLoadError>
  {
    let body: Data
    let pageURL: String
    var pageScope: AddressScope?
    if FeedLocation.isHTTP(source) {
      let fetched = transport.fetch(
        [FetchRequest(url: source, maxBytes: options.maxBytes, timeout: 30)], concurrency: 1)[0]
      switch fetched {
      case .failure(let error): return .failure(.fetch(error))
      case .success(let response):
        guard (200..<300).contains(response.status) else {
          return .failure(.status(response.status, retryAfter: response.retryAfter))
        }
        if case .success(let parsed) = parse(response, options: options) { return .success(.feed(parsed)) }
        body = response.body
        pageURL = response.finalURL
        pageScope = response.scope
      }
    } else {
      let path = FeedLocation.path(of: source)
      switch read(path, options: options) {
      case .success(let parsed): return .success(.feed(parsed))
      case .failure(.parse(.notAFeed)):
        guard case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: options.maxBytes) else {
          return .failure(.read("cannot read"))
        }
        body = data
        pageURL = URL(fileURLWithPath: path).absoluteString
      case .failure(let error): return .failure(error)
      }
    }
    guard FeedDiscovery.looksLikeHTML(body) else {
      // Neither a feed nor a page: the parser's own words say what it is.
      var options = options
      options.documentURL = pageURL
      do {
        _ = try FeedParser.parse(body, options: options)
        return .failure(.parse(.empty))
      } catch {
        return .failure(.parse(error))
      }
    }
    // A page's links are the page's content: http(s) only, and no more private than the page itself (as for
    // redirects), so a page cannot make 'add' write a file path or a service of the user's network.
    var refused: [String] = []
    let links = FeedDiscovery.links(in: String(decoding: body, as: UTF8.self), pageURL: pageURL).filter { link in
      guard FeedLocation.isHTTP(link.url) else {
        refused.append("\(link.url): not an http or https URL")
        return false
      }
      let limit = AddressScope.limit(forLink: link.url, in: pageURL, sourceScope: pageScope)
      guard ProxyEnvironment.scope(ofHostIn: link.url) <= limit else {
        refused.append("\(link.url): a more private address than the page's")
        return false
      }
      return true
    }
    return .success(.page(links, refused: refused, page: Array(body), url: pageURL))
  }

  /// The http(s) feeds an HTML page in a response links to, no more private than the page.
  static func feedLinks(in page: Data, response: FetchResponse) -> [String] {
    FeedDiscovery.links(in: String(decoding: page, as: UTF8.self), pageURL: response.finalURL).map(\.url).filter {
      FeedLocation.isHTTP($0)
        && ProxyEnvironment.scope(ofHostIn: $0)
          <= AddressScope.limit(forLink: $0, in: response.finalURL, sourceScope: response.scope)
    }
  }

  /// Reads a local file like `read`, handing each item over as it is read (`FeedParser.stream`).
  ///
  /// `encode` runs on the parser's worker threads; its result comes with each item that waited for an
  /// earlier one, and `item` encodes the others itself (`FeedParser.stream(contentsOf:…encode:item:)`).
  public static func stream(
    _ path: String, options: FeedParser.Options, header: @escaping (Feed) -> Void,
    encode: (@Sendable (FeedItem) -> [UInt8])? = nil, item: @escaping (FeedItem, [UInt8]?) -> Void
  ) -> Result<FeedParser.Streamed, FeedLoadError> {
    do {
      return .success(
        try FeedParser.stream(contentsOf: path, options: options, header: header, encode: encode, item: item))
    } catch {
      return .failure(failure(error, path: path, options: options))
    }
  }

  /// `stream(_:)` from any source of bytes (standard input), of which at most `options.maxBytes` are read.
  package static func stream(
    input: inout some ByteSource, options: FeedParser.Options, header: @escaping (Feed) -> Void,
    encode: (@Sendable (FeedItem) -> [UInt8])? = nil, item: @escaping (FeedItem, [UInt8]?) -> Void
  ) -> Result<FeedParser.Streamed, FeedLoadError> {
    do {
      return .success(try FeedParser.stream(&input, options: options, header: header, encode: encode, item: item))
    } catch {
      return .failure(failure(error, path: nil, options: options))
    }
  }

  /// The feed in a local file (regular files only, at most `options.maxBytes`).
  public static func read(_ path: String, options: FeedParser.Options) -> Result<ParsedFeed, FeedLoadError> {
    do {
      return .success(try FeedParser.parse(contentsOf: path, options: options))
    } catch {
      return .failure(failure(error, path: path, options: options))
    }
  }

  /// What reading a feed failed with; a saved page at `path` says which feeds it links to.
  private static func failure(_ error: any Error, path: String?, options: FeedParser.Options) -> FeedLoadError {
    switch error {
    case FeedParseError.notAFeed(found: "an HTML page") where path != nil:
      // A saved page: the feeds it links to, as the page says (a file's links reach only the internet).
      guard let path, case .read(let data) = ChunkedFile.readRegularFile(path, maxBytes: options.maxBytes) else {
        return .parse(.notAFeed(found: "an HTML page"))
      }
      let response = FetchResponse(status: 200, body: data, finalURL: URL(fileURLWithPath: path).absoluteString)
      return .page(links: feedLinks(in: data, response: response))
    case let error as FeedParseError: return .parse(error)
    default: return .read(describe(error))
    }
  }

  /// The system's reason for a file error, in its own words ("No such file or directory").
  static func describe(_ error: any Error) -> String {
    if let error = error as? CocoaError, error.code == .fileReadNoSuchFile { return "no such file" }
    return error.message
  }
}
