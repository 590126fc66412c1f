// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherCore
import WatcherTestSupport

/// libcurl against a real loopback server.
@Suite("HTTP fetching", .serialized)
struct CurlTransportTests {
  static let feed = "<rss version=\"2.0\"><channel><title>T</title><item><guid>1</guid></item></channel></rss>"
  let transport = CurlTransport(userAgent: "watcher-test/1")

  func fetch(
    _ server: LoopbackHTTPServer, _ path: String, etag: String? = nil, modified: String? = nil,
    maxBytes: Int = 20_000_000, timeout: Int = 30
  ) -> Result<FetchResponse, FetchError> {
    transport.fetch(
      [FetchRequest(url: server.url(path), etag: etag, lastModified: modified, maxBytes: maxBytes, timeout: timeout)],
      concurrency: 8)[0]
  }

  @Test("conditional GET: validators are sent, 304 comes back, headers are read")
  func conditional() throws {
    let server = try LoopbackHTTPServer { request in
      if request.headers["if-none-match"] == "\"v1\"" { return .init(status: 304) }
      return .ok(
        Self.feed,
        headers: [
          ("ETag", "\"v1\""), ("Last-Modified", "Sat, 28 Nov 2026 10:00:00 GMT"),
          ("Content-Type", "application/rss+xml; charset=ISO-8859-1"), ("Cache-Control", "public, max-age=600"),
        ])
    }
    defer { server.stop() }
    let first = try fetch(server, "/feed").get()
    #expect(first.status == 200 && first.body == Data(Self.feed.utf8))
    #expect(first.etag == "\"v1\"" && first.lastModified == "Sat, 28 Nov 2026 10:00:00 GMT")
    #expect(first.charset == "ISO-8859-1" && first.maxAge == 600)
    let second = try fetch(server, "/feed", etag: first.etag, modified: first.lastModified).get()
    #expect(second.status == 304 && second.body.isEmpty)
    let sent = server.requests
    #expect(sent.count == 2)
    #expect(sent[0].headers["user-agent"] == "watcher-test/1")
    #expect(sent[0].headers["if-none-match"] == nil)
    #expect(sent[1].headers["if-none-match"] == "\"v1\"")
    #expect(sent[1].headers["if-modified-since"] == "Sat, 28 Nov 2026 10:00:00 GMT")
    #expect(sent[0].headers["accept-encoding"]?.contains("gzip") == true)
  }

  @Test("redirects: permanent chains are reported, temporary ones are not, loops and file:// are refused")
  func redirects() throws {
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/old": return .init(status: 301, headers: [("Location", "/older")])
      case "/older": return .init(status: 308, headers: [("Location", "/new")])
      case "/temp": return .init(status: 302, headers: [("Location", "/new")])
      case "/loop": return .init(status: 302, headers: [("Location", "/loop")])
      case "/file": return .init(status: 302, headers: [("Location", "file:///etc/passwd")])
      default: return .ok(Self.feed)
      }
    }
    defer { server.stop() }
    let moved = try fetch(server, "/old").get()
    #expect(moved.status == 200 && moved.permanentRedirect == server.url("/new"))
    let temporary = try fetch(server, "/temp").get()
    #expect(temporary.status == 200 && temporary.permanentRedirect == nil)
    #expect(fetch(server, "/loop") == .failure(.tooManyRedirects))
    guard case .failure = fetch(server, "/file") else {
      Issue.record("a redirect to file:// was followed")
      return
    }
  }

  @Test("errors: statuses, Retry-After, size cap, timeouts, truncation")
  func failures() throws {
    let big = Data(repeating: 65, count: 3_000_000)
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/404": return .init(status: 404)
      case "/429": return .init(status: 429, headers: [("Retry-After", "120")])
      case "/big": return .init(status: 200, body: big)
      case "/big-unknown": return .init(status: 200, headers: [("Content-Length", "")], body: big)
      case "/slow": return .init(status: 200, body: Data(Self.feed.utf8), trickle: 1, trickleDelay: 0.5)
      case "/silent": return .init(silent: true)
      case "/truncated": return .init(status: 200, body: Data(Self.feed.utf8), truncateAt: 20)
      default: return .ok(Self.feed)
      }
    }
    defer { server.stop() }
    #expect(try fetch(server, "/404").get().status == 404)
    let limited = try fetch(server, "/429").get()
    #expect(limited.status == 429 && limited.retryAfter == 120)
    #expect(fetch(server, "/big", maxBytes: 1_000_000) == .failure(.tooLarge(limit: 1_000_000)))
    #expect(fetch(server, "/slow", timeout: 2) == .failure(.timeout(seconds: 2)))
    #expect(fetch(server, "/silent", timeout: 1) == .failure(.timeout(seconds: 1)))
    #expect(
      fetch(server, "/truncated")
        == .failure(.transport("the connection closed after 20 bytes, before the whole response arrived")))
    let closed = try LoopbackHTTPServer { _ in .ok("") }
    let url = closed.url("/")
    closed.stop()
    #expect(
      transport.fetch([FetchRequest(url: url)], concurrency: 1)[0]
        == .failure(.transport("cannot connect: nothing answers at that address and port")))
  }

  @Test("many feeds at once, at most two per host, results in order")
  func concurrency() throws {
    let active = Locked((now: 0, peak: 0))
    let server = try LoopbackHTTPServer { request in
      active.withLock {
        $0.now += 1
        $0.peak = max($0.peak, $0.now)
      }
      Thread.sleep(forTimeInterval: 0.05)
      active.withLock { $0.now -= 1 }
      return .ok("<rss><channel><title>\(request.path)</title></channel></rss>")
    }
    defer { server.stop() }
    let requests = (0..<8).map { FetchRequest(url: server.url("/f\($0)")) }
    let results = transport.fetch(requests, concurrency: 8)
    for (index, result) in results.enumerated() {
      #expect(String(decoding: try result.get().body, as: UTF8.self).contains("/f\(index)"))
    }
    #expect(active.withLock { $0.peak } <= 2)
  }
}
