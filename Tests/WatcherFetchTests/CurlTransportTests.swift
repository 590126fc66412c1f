// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

@testable import WatcherFetch
@testable import WatcherSupport

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

  @Test("a large body arrives in pieces of about a MiB, which join to exactly the bytes sent")
  func bodyInPieces() throws {
    // 3.5 MiB of distinct bytes, so a piece out of place or a byte lost would show.
    let body = Data((0..<(7 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
    let server = try LoopbackHTTPServer { _ in .init(status: 200, body: body) }
    defer { server.stop() }
    let response = try fetch(server, "/big").get()
    #expect(response.pieces.count >= 3)
    #expect(response.pieces.dropLast().allSatisfy { $0.count >= FetchResponse.pieceSize })
    #expect(response.bodyCount == body.count && response.body == body)
    var source = DataPieces(response.pieces)
    var read: [UInt8] = []
    while case let next = source.read(upTo: 100_000), !next.isEmpty { read += next }
    #expect(read == [UInt8](body))
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
      case "/ftp": return .init(status: 301, headers: [("Location", "ftp://example.com/feed")])
      default: return .ok(Self.feed)
      }
    }
    defer { server.stop() }
    let moved = try fetch(server, "/old").get()
    #expect(moved.status == 200 && moved.permanentRedirect == server.url("/new"))
    let temporary = try fetch(server, "/temp").get()
    #expect(temporary.status == 200 && temporary.permanentRedirect == nil)
    #expect(fetch(server, "/loop") == .failure(.tooManyRedirects))
    #expect(fetch(server, "/file") == .failure(.forbiddenRedirect(location: "file:///etc/passwd")))
    #expect(fetch(server, "/ftp") == .failure(.forbiddenRedirect(location: "ftp://example.com/feed")))
    #expect(
      "\(FetchError.forbiddenRedirect(location: "ftp://example.com/feed"))"
        == "redirected to ftp://example.com/feed, which is not an http or https URL; refused")
  }

  @Test("headers over the limit are named as such", arguments: [1, 20, 2_000])
  func hugeHeaders(count: Int) throws {
    // One 200 KB header (past libcurl's own line limit), or many that add up past ours.
    let server = try LoopbackHTTPServer { _ in
      let size = count == 1 ? 200_000 : 2_000
      let headers = (0..<count).map { ("X-Filler-\($0)", String(repeating: "a", count: size)) }
      return .init(status: 200, headers: headers, body: Data(Self.feed.utf8))
    }
    defer { server.stop() }
    let result = fetch(server, "/")
    if count == 1 || count == 2_000 {
      #expect(result == .failure(.headersTooLarge(limit: 65_536)), "\(result)")
    } else {
      #expect((try? result.get().status) == 200, "40 KB of headers is under the limit: \(result)")
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

  @Test(
    "address scopes: the internet, private networks, this machine",
    arguments: [
      ("93.184.216.34", AddressScope.internet), ("192.0.2.77", .internet), ("2606:4700::1", .internet),
      ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
      ("172.32.0.1", .internet), ("192.168.1.1", .privateNetwork), ("169.254.169.254", .privateNetwork),
      ("100.64.0.1", .privateNetwork), ("fd00::77", .privateNetwork), ("fe80::1", .privateNetwork),
      ("127.0.0.1", .thisMachine), ("127.9.9.9", .thisMachine), ("0.0.0.0", .thisMachine), ("::1", .thisMachine),
      ("::ffff:127.0.0.1", .thisMachine), ("::ffff:8.8.8.8", .internet), ("not an address", .thisMachine),
    ])
  func scopes(_ address: String, _ expected: AddressScope) {
    // An address of this machine's own interfaces is this machine, whatever its range.
    #expect(AddressScope(address) == (AddressScope.ownAddresses.contains(address) ? .thisMachine : expected))
  }

  /// This machine's first IPv4 address that is not loopback, if it has one.
  static let outwardAddress: String? = {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    var entry = list
    while let current = entry {
      defer { entry = current.pointee.ifa_next }
      guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
        var raw = v4.pointee.sin_addr
        _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
      }
      let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if !string.hasPrefix("127.") { return string }
    }
    return nil
  }()

  @Test(
    "this machine's own interface address is this machine, not the internet; within one scope a redirect is followed",
    .enabled(if: outwardAddress != nil, "needs an address other than loopback"))
  func ownAddressIsThisMachine() throws {
    let inside = try LoopbackHTTPServer { _ in .ok(Self.feed) }
    let target = inside.url("/secret")
    let outside = try LoopbackHTTPServer(everyAddress: true) { request in
      .init(status: 302, headers: [("Location", request.path == "/in" ? target : "/feed")], body: Data())
    }
    let address = try #require(Self.outwardAddress)
    // Its services answer there as on 127.0.0.1: a public feed's picture or page may not be fetched from it.
    #expect(AddressScope(address) == .thisMachine)
    var request = FetchRequest(url: "http://\(address):\(outside.port)/in")
    request.maxScope = .internet
    // Refused at the first hop: said so, not reported as a redirect.
    let refused = transport.fetch([request], concurrency: 1)[0]
    #expect(refused == .failure(.refusedAddress(address: address)))
    #expect("\(refused)".contains("not fetched") && !"\(refused)".contains("redirect"))
    // From it to 127.0.0.1 stays on this machine: followed, as loopback to loopback is.
    let followed = transport.fetch([FetchRequest(url: "http://\(address):\(outside.port)/in")], concurrency: 1)[0]
    #expect(try followed.get().status == 200)
    let local = try LoopbackHTTPServer { _ in .init(status: 301, headers: [("Location", target)], body: Data()) }
    #expect(try fetch(local, "/moved").get().status == 200)
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
