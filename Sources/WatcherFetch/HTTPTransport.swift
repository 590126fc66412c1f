// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import Synchronization
import WatcherSupport

/// One conditional GET.
public struct FetchRequest: Sendable, Equatable {
  /// The URL (http or https).
  public var url: String
  /// `If-None-Match`.
  public var etag: String?
  /// `If-Modified-Since`.
  public var lastModified: String?
  /// The most bytes accepted.
  public var maxBytes: Int
  /// Hard timeout for the whole transfer, seconds.
  public var timeout: Int
  /// The most private address the first hop may connect to (`nil`: any): an image named by a public feed
  /// may not be fetched from the user's own network.
  package var maxScope: AddressScope?
  /// Extra header lines (`Name: value`), sent after watcher's own.
  public var headers: [String] = []
  /// The User-Agent instead of the transport's.
  public var userAgent: String?
  /// A netrc file to take basic-auth credentials from (for the request's host only).
  public var netrc: String?
  /// A cookie file (Netscape format) to send cookies from.
  public var cookies: String?
  /// A proxy URL for this request, instead of the environment's.
  public var proxy: String?

  /// Creates a request.
  public init(
    url: String, etag: String? = nil, lastModified: String? = nil, maxBytes: Int = 20_000_000, timeout: Int = 30
  ) {
    self.url = url
    self.etag = etag
    self.lastModified = lastModified
    self.maxBytes = maxBytes
    self.timeout = timeout
  }
}

/// What a server answered.
public struct FetchResponse: Sendable, Equatable {
  /// The final status (after redirects).
  public var status: Int
  /// The body (decoded from gzip/deflate) in the pieces it arrived in, about `pieceSize` each, so that a
  /// large body can be read and released a piece at a time (`DataPieces`).
  public var pieces: [Data]
  /// The size of a body's pieces: a piece is started once the last one holds this much.
  public static let pieceSize = 1 << 20

  /// The body, whole (decoded from gzip/deflate).
  public var body: Data {
    get { pieces.count == 1 ? pieces[0] : pieces.reduce(into: Data()) { $0.append($1) } }
    set { pieces = newValue.isEmpty ? [] : [newValue] }
  }

  /// The body's size in bytes.
  public var bodyCount: Int { pieces.reduce(0) { $0 + $1.count } }
  /// `ETag`.
  public var etag: String?
  /// `Last-Modified`.
  public var lastModified: String?
  /// The `charset` of `Content-Type`.
  public var charset: String?
  /// The media type of `Content-Type`, lower-cased, without parameters (`text/html`).
  public var mediaType: String?
  /// `Retry-After`, as seconds from now.
  public var retryAfter: Int?
  /// `Cache-Control: max-age`, seconds.
  public var maxAge: Int?
  /// The URL the body came from (after redirects).
  public var finalURL: String
  /// Where a permanent redirect (301/308) chain from the requested URL ends, if it started with one.
  public var permanentRedirect: String?
  /// How private the address the body came from is (`nil`: not known, as for a response made in a test).
  package var scope: AddressScope?

  /// Creates a response.
  public init(
    status: Int, body: Data = Data(), etag: String? = nil, lastModified: String? = nil, charset: String? = nil,
    retryAfter: Int? = nil, maxAge: Int? = nil, finalURL: String, permanentRedirect: String? = nil
  ) {
    self.status = status
    self.pieces = body.isEmpty ? [] : [body]
    self.etag = etag
    self.lastModified = lastModified
    self.charset = charset
    self.retryAfter = retryAfter
    self.maxAge = maxAge
    self.finalURL = finalURL
    self.permanentRedirect = permanentRedirect
  }
}

/// Why a fetch failed before an HTTP answer could be used.
public enum FetchError: Error, Sendable, Equatable {
  /// No complete answer within the time limit (or the server was too slow).
  case timeout(seconds: Int)
  /// The body is larger than the cap.
  case tooLarge(limit: Int)
  /// More than five redirects, or a loop.
  case tooManyRedirects
  /// A redirect to a scheme other than http/https (file://, ftp://…) was refused; where it pointed.
  case forbiddenRedirect(location: String)
  /// The response's headers are larger than the limit.
  case headersTooLarge(limit: Int)
  /// A redirect led to an address more private than the first one (a public server pointing at
  /// 127.0.0.1, the LAN or a link-local metadata service); the address it would have connected to.
  case redirectedInward(address: String)
  /// The first hop's address is more private than the request may reach (a public feed's picture or page
  /// at 127.0.0.1 or on the LAN): not requested at all; the address.
  case refusedAddress(address: String)
  /// DNS, connection, TLS or transfer failure, in libcurl's words.
  case transport(String)
  /// Stopped because watcher is shutting down (not the feed's fault).
  case cancelled
  /// Not requested: its host answered 429 or 503 in this process and asked to wait this many seconds more.
  case hostHeld(seconds: Int)
  /// Not requested: the feed's request options could not be met (a header's file cannot be read); why.
  case notMade(String)
}

extension FetchError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .timeout(let seconds): return "no complete answer within \(seconds) s"
    case .tooLarge(let limit): return "the response is larger than the \(ByteCount.format(limit)) limit"
    case .tooManyRedirects: return "more than 5 redirects (a redirect loop?)"
    case .forbiddenRedirect(let location):
      return "redirected to \(location), which is not an http or https URL; refused"
    case .headersTooLarge(let limit):
      return "the server sent more than \(ByteCount.format(limit)) of headers; refused"
    case .redirectedInward(let address):
      return "redirected to \(address), a more private address than the feed's own; refused"
    case .refusedAddress(let address):
      return "not fetched: \(address) is a more private address than what linked to it"
    case .transport(let message): return message
    case .cancelled: return "cancelled (watcher is stopping)"
    case .hostHeld(let seconds):
      return "not requested: its host asked to wait (429/503) \(SpokenDuration.text(Double(seconds))) more"
    case .notMade(let why): return "not requested: \(why)"
    }
  }
}

/// Fetches URLs; `CurlTransport` in production, fakes in tests.
public protocol HTTPTransport: Sendable {
  /// Fetches every request, at most `concurrency` at once and two per host; results in request order.
  /// Transfers still running when `cancellation` is set end as `.cancelled` within about a second.
  func fetch(_ requests: [FetchRequest], concurrency: Int, cancellation: Cancellation?) -> [Result<
    FetchResponse, FetchError
  >]

  /// `fetch`, with requests to one host spaced and held as `pacer` says.
  func fetch(_ requests: [FetchRequest], concurrency: Int, cancellation: Cancellation?, pacer: HostPacer?) -> [Result<
    FetchResponse, FetchError
  >]
}

extension HTTPTransport {
  /// Fetches without cancellation.
  public func fetch(_ requests: [FetchRequest], concurrency: Int) -> [Result<FetchResponse, FetchError>] {
    fetch(requests, concurrency: concurrency, cancellation: nil)
  }
}

extension HTTPTransport {
  /// Transports made for tests do not pace.
  public func fetch(_ requests: [FetchRequest], concurrency: Int, cancellation: Cancellation?, pacer: HostPacer?)
    -> [Result<FetchResponse, FetchError>]
  {
    fetch(requests, concurrency: concurrency, cancellation: cancellation)
  }
}
