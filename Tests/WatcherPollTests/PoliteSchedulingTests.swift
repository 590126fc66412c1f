// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport
import WatcherTestSupport

/// `interval: auto`, what feeds and servers ask for, politeness to hosts, feed health and private feeds:
/// a real loopback server, an injected clock.
@Suite("Polite, adaptive polling and feed health", .serialized)
struct PoliteSchedulingTests {
  static let now = PollerTests.now

  /// A feed of `count` items, one every `every` seconds, the newest at `newest`, with `channel` extra.
  static func rss(count: Int, every: TimeInterval, newest: Date = now, channel: String = "", prefix: String = "i")
    -> String
  {
    let items = (0..<count).map { index in
      let date = newest.addingTimeInterval(-Double(index) * every)
      return
        "<item><guid>\(prefix)\(index)</guid><title>T\(index)</title><link>https://example.org/\(prefix)\(index)</link>"
        + "<pubDate>\(ISODate.format(date))</pubDate></item>"
    }.joined()
    return """
      <?xml version="1.0"?><rss version="2.0" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel>
      <title>t</title><link>https://example.org/</link>\(channel)\(items)</channel></rss>
      """
  }

  /// A server answering each path with what `routes` says now.
  final class Site: Sendable {
    let routes = Locked<[String: LoopbackHTTPServer.Response]>([:])
    let server: LoopbackHTTPServer
    init() throws {
      let routes = self.routes
      server = try LoopbackHTTPServer { request in
        routes.withLock { $0[request.path] } ?? .init(status: 404)
      }
    }
    func set(_ path: String, _ response: LoopbackHTTPServer.Response) { routes.withLock { $0[path] = response } }
    func set(_ path: String, _ body: String, headers: [(String, String)] = []) {
      set(path, .ok(body, headers: headers))
    }
    func hits(_ path: String) -> [LoopbackHTTPServer.Request] { server.requests.filter { $0.path == path } }
  }

  struct Setup {
    let site: Site
    let dir: TemporaryDirectory
    let store: StateStore
    let runner = RecordingActionRunner()
    let config: Config

    init(_ yaml: (Site) -> String) throws {
      site = try Site()
      dir = try TemporaryDirectory()
      store = try StateStore(directory: dir.url.appendingPathComponent("state").path)
      config = try ConfigLoader.parse(yaml(site), path: "t.yaml")
    }

    func poll(at time: Date, force: Bool = false) -> [Poller.Outcome] {
      Poller(config: config, store: store, transport: CurlTransport(userAgent: "test"), runner: runner)
        .poll(config.feeds, force: force, now: time)
    }

    /// The feed's plan as seen at `now` (by default, at its last poll).
    func plan(_ index: Int = 0, now: Date? = nil) throws -> Schedule.Plan {
      let feed = config.feeds[index]
      let state = try store.load(url: feed.url).state
      let holds = try store.hostHolds(readOnly: true)
      return Schedule.plan(
        feed, state: state, settings: config.settings, hostHold: Schedule.hold(feed, in: holds),
        now: now ?? state.lastAttempt ?? WallClock.now())
    }
  }

  @Test("auto: a busy feed is polled about as often as it posts, a quiet one at the upper bound; jittered, bounded")
  func busyAndQuiet() throws {
    let s = try Setup { site in
      """
      settings: { interval: auto, auto_interval: { min: 10m, max: 12h } }
      feeds:
        - { url: "\(site.server.url("/busy"))", name: busy }
        - { url: "\(site.server.url("/quiet"))", name: quiet }
        - { url: "\(site.server.url("/fixed"))", name: fixed, interval: 20m }
      """
    }
    defer { s.site.server.stop() }
    s.site.set("/busy", Self.rss(count: 10, every: 3 * 3_600))
    s.site.set("/quiet", Self.rss(count: 5, every: 30 * 86_400, newest: Self.now.addingTimeInterval(-20 * 86_400)))
    s.site.set("/fixed", Self.rss(count: 10, every: 60))
    let outcomes = s.poll(at: Self.now)
    #expect(outcomes.allSatisfy { $0.failures.isEmpty && $0.polled })
    let busy = try s.plan(0)
    let gap = busy.at.timeIntervalSince(Self.now)
    // Ten posts 3 h apart, the newest now: about every 3 h (27 h / 10 = 2.7 h), ±10%.
    #expect(gap >= 0.9 * 2.7 * 3_600 && gap <= 1.1 * 2.7 * 3_600, "\(gap)")
    #expect(busy.reasons.first?.hasPrefix("posts about every 2 h") == true, "\(busy.reasons)")
    let quiet = try s.plan(1)
    let quietGap = quiet.at.timeIntervalSince(Self.now)
    #expect(quietGap >= 0.9 * 12 * 3_600 && quietGap <= 1.1 * 12 * 3_600, "\(quietGap)")
    #expect(quiet.reasons.joined().contains("auto polls at least every 12 h"), "\(quiet.reasons)")
    // A fixed interval is the user's word: exactly that, no jitter.
    let fixed = try s.plan(2)
    #expect(fixed.at == Self.now.addingTimeInterval(1_200) && fixed.reasons == ["every 20 min"])
    // Not due before, due after: the second poll at +1 h fetches nothing; at +3.5 h, only busy.
    _ = s.poll(at: Self.now.addingTimeInterval(3_600))
    #expect(s.site.hits("/busy").count == 1 && s.site.hits("/quiet").count == 1)
    _ = s.poll(at: Self.now.addingTimeInterval(3.5 * 3_600))
    #expect(s.site.hits("/busy").count == 2 && s.site.hits("/quiet").count == 1)
    #expect(s.site.hits("/fixed").count == 3)
    // A feed posting every 2 minutes is polled at most every 10 minutes (the lower bound).
    s.site.set("/busy", Self.rss(count: 10, every: 120, newest: Self.now.addingTimeInterval(6 * 3_600)))
    _ = s.poll(at: Self.now.addingTimeInterval(6 * 3_600), force: true)
    let fast = try s.plan(0).at.timeIntervalSince(Self.now.addingTimeInterval(6 * 3_600))
    #expect(fast >= 540 && fast <= 660, "\(fast)")
  }

  @Test("auto never polls sooner than ttl, sy:updatePeriod or Cache-Control, and never in skipHours/skipDays")
  func feedAndServerAsk() throws {
    let s = try Setup { site in
      """
      feeds:
        - { url: "\(site.server.url("/ttl"))", name: ttl, interval: auto }
        - { url: "\(site.server.url("/sy"))", name: sy, interval: auto }
        - { url: "\(site.server.url("/cache"))", name: cache, interval: auto }
        - { url: "\(site.server.url("/skip"))", name: skip, interval: auto }
        - { url: "\(site.server.url("/fixedttl"))", name: fixedttl, interval: 15m }
      """
    }
    defer { s.site.server.stop() }
    let busy = { (channel: String) in Self.rss(count: 10, every: 60, channel: channel) }
    s.site.set("/ttl", busy("<ttl>180</ttl>"))
    s.site.set("/sy", busy("<sy:updatePeriod>daily</sy:updatePeriod><sy:updateFrequency>4</sy:updateFrequency>"))
    s.site.set("/cache", busy(""), headers: [("Cache-Control", "public, max-age=7200")])
    // Now is 12:00 GMT; the 10-minute poll would fall at 12:10: skipped through 12:59, and then 13:00-13:59.
    s.site.set("/skip", busy("<skipHours><hour>12</hour><hour>13</hour></skipHours>"))
    s.site.set("/fixedttl", busy("<ttl>180</ttl>"))
    _ = s.poll(at: Self.now)
    let ttl = try s.plan(0)
    #expect(ttl.at == Self.now.addingTimeInterval(3 * 3_600), "\(ttl)")
    #expect(ttl.reasons.last == "the feed asks for 3 h (ttl)", "\(ttl.reasons)")
    let sy = try s.plan(1)
    #expect(
      sy.at == Self.now.addingTimeInterval(6 * 3_600) && sy.reasons.last == "the feed asks for 6 h (sy:updatePeriod)")
    let cache = try s.plan(2)
    #expect(cache.at == Self.now.addingTimeInterval(7_200), "\(cache)")
    #expect(cache.reasons.last == "the server asks for 2 h (Cache-Control or Expires)", "\(cache.reasons)")
    let skip = try s.plan(3)
    #expect(skip.at == Self.now.addingTimeInterval(2 * 3_600), "\(skip)")
    #expect(skip.reasons.last == "the feed skips hours 12,13 GMT", "\(skip.reasons)")
    // A fixed interval keeps its word (ttl is for auto).
    #expect(try s.plan(4).at == Self.now.addingTimeInterval(900))
    // skipDays: Sunday 2026-11-29 is skipped whole.
    s.site.set("/skip", busy("<skipDays><day>Sunday</day></skipDays>"))
    _ = s.poll(at: Self.now, force: true)
    #expect(try s.plan(3).at == DateParser.parse("2026-11-30T00:00:00Z"))
    // Expires counts from the server's Date.
    s.site.set(
      "/cache", busy(""),
      headers: [("Date", "Sun, 29 Nov 2026 12:00:00 GMT"), ("Expires", "Sun, 29 Nov 2026 16:00:00 GMT")])
    _ = s.poll(at: Self.now, force: true)
    #expect(try s.plan(2).at == Self.now.addingTimeInterval(4 * 3_600))
  }

  @Test("requests to one host are spaced by host_gap; a 429 holds the host, not only the feed, across polls")
  func politeToHosts() throws {
    let s = try Setup { site in
      """
      settings: { host_gap: 300ms, interval: 5m }
      feeds:
        - { url: "\(site.server.url("/a"))", name: a }
        - { url: "\(site.server.url("/b"))", name: b }
        - { url: "\(site.server.url("/c"))", name: c }
      """
    }
    defer { s.site.server.stop() }
    for path in ["/a", "/b", "/c"] { s.site.set(path, Self.rss(count: 2, every: 60, prefix: path)) }
    _ = s.poll(at: Self.now)
    let times = s.site.server.requests.map(\.time).sorted()
    #expect(times.count == 3)
    for (earlier, later) in zip(times, times.dropFirst()) {
      #expect(later.timeIntervalSince(earlier) >= 0.25, "\(times)")
    }
    // The first feed's 429 with Retry-After 600: the others of its host are not requested.
    s.site.set("/a", .init(status: 429, headers: [("Retry-After", "600")]))
    let held = s.poll(at: Self.now.addingTimeInterval(400))
    #expect(s.site.hits("/a").count == 2 && s.site.hits("/b").count == 1 && s.site.hits("/c").count == 1)
    #expect(held[0].failures.count == 1)
    #expect(held[1].failures.isEmpty && held[1].heldUntil != nil && !held[1].polled)
    let plan = try s.plan(1)
    #expect(plan.at == Self.now.addingTimeInterval(1_000) && plan.reasons.last == "its host asked to wait (429/503)")
    // A later poll (a new process) still holds the host until the hold ends.
    s.site.set("/a", Self.rss(count: 2, every: 60, prefix: "/a"))
    _ = s.poll(at: Self.now.addingTimeInterval(900))
    #expect(s.site.server.requests.count == 4)
    _ = s.poll(at: Self.now.addingTimeInterval(1_001))
    #expect(s.site.hits("/a").count == 3 && s.site.hits("/b").count == 2 && s.site.hits("/c").count == 2)
    // A success cleared the hold; a 503 without Retry-After holds it a minute, then longer.
    #expect(try s.store.hostHolds().isEmpty)
    s.site.set("/a", .init(status: 503))
    _ = s.poll(at: Self.now.addingTimeInterval(2_000), force: true)
    let first = try #require(try s.store.hostHolds().values.first)
    #expect(first.until == Self.now.addingTimeInterval(2_060) && first.throttles == 1)
  }

  @Test("with the default settings too, a 429 holds its server (this machine's as well), not only its feed")
  func holdByDefault() throws {
    let s = try Setup { site in
      """
      settings: { interval: 5m }
      feeds:
        - { url: "\(site.server.url("/a"))", name: a }
        - { url: "\(site.server.url("/b"))", name: b }
      """
    }
    defer { s.site.server.stop() }
    s.site.set("/a", .init(status: 429, headers: [("Retry-After", "3600")]))
    s.site.set("/b", Self.rss(count: 1, every: 60))
    _ = s.poll(at: Self.now)
    #expect(
      try s.store.hostHolds()[HostPacer.host(of: s.config.feeds[1].url)]?.until == Self.now.addingTimeInterval(3_600))
    // b is due again after 5 minutes, but its server asked to wait an hour.
    let later = s.poll(at: Self.now.addingTimeInterval(600))
    #expect(s.site.hits("/b").count == 1 && !later[1].polled)
    #expect(try s.plan(1).reasons.last == "its host asked to wait (429/503)")
    _ = s.poll(at: Self.now.addingTimeInterval(3_601))
    #expect(s.site.hits("/b").count == 2)
    #expect(HostPacer.host(of: "https://Example.org:443/f") == "example.org")
    #expect(HostPacer.host(of: "http://[::1]:8080/f") == "[::1]:8080" && HostPacer.isLocal("[::1]:8080"))
    #expect(HostPacer.isLocal("localhost:631") && !HostPacer.isLocal("example.org:8080"))
  }

  @Test("a bot-check page is recognised and told once, low urgency; 410 is gone; a day of failures is told")
  func health() throws {
    let s = try Setup { site in
      """
      settings: { interval: 5m }
      feeds:
        - { url: "\(site.server.url("/cf"))", name: cf }
        - { url: "\(site.server.url("/gone"))", name: gone }
        - { url: "\(site.server.url("/down"))", name: down }
      """
    }
    defer { s.site.server.stop() }
    let challenge =
      "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title></head><body>"
      + "<script>window._cf_chl_opt={cvId: '3'}</script></body></html>"
    s.site.set("/cf", .init(status: 403, body: Data(challenge.utf8)))
    s.site.set("/gone", .init(status: 410))
    s.site.set("/down", .init(status: 500))
    let first = s.poll(at: Self.now)
    #expect("\(first[0].failureWords)".contains("answered by a bot check (Cloudflare) instead of the feed"))
    let told = s.runner.actions.filter { $0.action.key.hasPrefix("health:") }
    #expect(told.count == 2, "\(told.map(\.action.key))")
    let notification = try #require(told.first { $0.feed == "cf" }?.action)
    guard case .notify(let shown) = notification.payload else { Issue.record("not a notification"); return }
    #expect(shown.urgency == .low && shown.summary.contains("bot check (Cloudflare)"))
    #expect(shown.body.contains("user_agent"))
    #expect(told.contains { $0.feed == "gone" && $0.action.key == "health:gone" })
    // Told once: the same problem again is not told again; the failing feed is told after a day.
    _ = s.poll(at: Self.now.addingTimeInterval(86_400), force: true)
    let after = s.runner.actions.filter { $0.action.key.hasPrefix("health:") }
    #expect(after.count == 3 && after.last?.feed == "down" && after.last?.action.key == "health:failing")
    _ = s.poll(at: Self.now.addingTimeInterval(2 * 86_400), force: true)
    #expect(s.runner.actions.filter { $0.action.key.hasPrefix("health:") }.count == 3)
    // Never disabled: the feed that was gone comes back, and a later problem is told again.
    s.site.set("/gone", Self.rss(count: 1, every: 60))
    _ = s.poll(at: Self.now.addingTimeInterval(3 * 86_400), force: true)
    #expect(try s.store.load(url: s.config.feeds[1].url).state.healthTold == nil)
    let state = try s.store.load(url: s.config.feeds[0].url).state
    #expect(FeedHealth.current(state, now: Self.now)?.kind == .blocked)
    // Backoff is capped at a day, whatever the count.
    let backoff = try s.plan(2).at.timeIntervalSince(Self.now.addingTimeInterval(3 * 86_400))
    #expect(backoff > 0 && backoff <= 86_400, "\(backoff)")
  }

  @Test("bot checks of several services are told apart; an ordinary error page is not one")
  func botChecks() {
    func check(_ status: Int, _ html: String) -> String? {
      FeedHealth.botCheck(status: status, body: [Data(html.utf8)])
    }
    #expect(check(503, "<html><head><title>DDoS-Guard</title></head></html>") == "DDoS-Guard")
    #expect(check(403, "<html><title>Access Denied - Sucuri Website Firewall</title></html>") == "Sucuri")
    #expect(check(403, "<html><body><div id=\"px-captcha\"></div></body></html>") == "PerimeterX")
    #expect(check(403, "<html><script src=\"https://ct.captcha-delivery.com/c.js\"></script></html>") == "DataDome")
    #expect(check(200, "<!doctype html><html><title>Making sure you&#39;re not a bot!</title></html>") == "Anubis")
    #expect(check(429, "<html><body>please solve this captcha</body></html>") == "a CAPTCHA page")
    #expect(check(403, "<html><body><h1>403 Forbidden</h1>nginx</body></html>") == nil)
    #expect(check(404, "<html>cf-chl</html>") == nil)
    #expect(check(403, "Just a moment...") == nil)
  }

  @Test("a private feed gets its header from a file or a variable, basic auth from netrc; values never shown")
  func privateFeeds() throws {
    let dir = try TemporaryDirectory()
    let token = dir.url.appendingPathComponent("token").path
    try "Bearer s3cr3t-token\n".write(toFile: token, atomically: true, encoding: .utf8)
    let netrc = dir.url.appendingPathComponent("netrc").path
    try "machine 127.0.0.1 login reader password pa55word\n".write(toFile: netrc, atomically: true, encoding: .utf8)
    let s = try Setup { site in
      """
      settings: { user_agent: "my-reader/1.0", headers: { X-Client: watcher } }
      feeds:
        - url: "\(site.server.url("/token"))"
          name: token
          headers: { Authorization: { file: "\(token)" } }
        - { url: "\(site.server.url("/basic"))", name: basic, netrc: "\(netrc)" }
        - url: "\(site.server.url("/missing"))"
          name: missing
          headers: { Authorization: { file: "\(token).gone" } }
      """
    }
    defer { s.site.server.stop() }
    s.site.set("/token", Self.rss(count: 1, every: 60))
    s.site.set("/basic", Self.rss(count: 1, every: 60))
    let outcomes = s.poll(at: Self.now)
    let tokenRequest = try #require(s.site.hits("/token").first)
    #expect(tokenRequest.headers["authorization"] == "Bearer s3cr3t-token")
    #expect(tokenRequest.headers["user-agent"] == "my-reader/1.0" && tokenRequest.headers["x-client"] == "watcher")
    let basic = try #require(s.site.hits("/basic").first)
    #expect(basic.headers["authorization"] == "Basic " + Data("reader:pa55word".utf8).base64EncodedString())
    #expect(outcomes[0].failures.isEmpty && outcomes[1].failures.isEmpty)
    // A header whose file is missing: the feed is not requested, and says why without any value.
    #expect(s.site.hits("/missing").isEmpty)
    let why = outcomes[2].failureWords
    #expect(
      why.contains("header 'Authorization': its file \(token).gone does not exist") && !why.contains("s3cr3t"), "\(why)"
    )
    let state = try s.store.load(url: s.config.feeds[2].url).state
    #expect(state.lastError?.contains("s3cr3t") == false)
    // From a variable.
    let feed = try ConfigLoader.parse(
      "feeds: [{ url: http://x/, headers: { X-Api-Key: { env: WATCHER_TEST_KEY } } }]", path: "t.yaml"
    ).feeds[0]
    let made = Poller.request(
      feed, state: FeedState(url: feed.url), settings: Settings(),
      environment: [
        "WATCHER_TEST_KEY": "k1"
      ])
    #expect((try? made.get().headers) == ["X-Api-Key: k1"])
    let unset = Poller.request(feed, state: FeedState(url: feed.url), settings: Settings(), environment: [:])
    #expect(unset == .failure(.notMade("header 'X-Api-Key': the environment variable WATCHER_TEST_KEY is not set")))
    // A FIFO as the header's file is refused, not waited on.
    let fifo = dir.url.appendingPathComponent("fifo").path
    mkfifo(fifo, 0o600)
    let piped = try ConfigLoader.parse(
      "feeds: [{ url: http://x/, headers: { Authorization: { file: \"\(fifo)\" } } }]", path: "t.yaml"
    ).feeds[0]
    let refused = Poller.request(piped, state: FeedState(url: piped.url), settings: Settings(), environment: [:])
    guard case .failure(.notMade(let reason)) = refused else {
      Issue.record("a FIFO was read: \(refused)")
      return
    }
    #expect(reason.contains("FIFO"), "\(reason)")
  }

  @Test("a cookie file is sent to its host; a feed's proxy carries its request")
  func cookiesAndProxy() throws {
    let dir = try TemporaryDirectory()
    let cookies = dir.url.appendingPathComponent("cookies.txt").path
    try "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n".write(
      toFile: cookies, atomically: true, encoding: .utf8)
    let s = try Setup { site in
      """
      feeds:
        - { url: "\(site.server.url("/members"))", name: members, cookies: "\(cookies)" }
        - { url: "http://feeds.example/via-proxy.xml", name: proxied, proxy: "\(site.server.url(""))" }
      """
    }
    defer { s.site.server.stop() }
    s.site.set("/members", Self.rss(count: 1, every: 60))
    s.site.set("http://feeds.example/via-proxy.xml", Self.rss(count: 1, every: 60))
    let outcomes = s.poll(at: Self.now)
    #expect(s.site.hits("/members").first?.headers["cookie"] == "session=abc123")
    #expect(outcomes[0].failures.isEmpty)
    let proxied = s.site.server.requests.first { $0.path.contains("via-proxy") }
    #expect(proxied?.path == "http://feeds.example/via-proxy.xml", "\(s.site.server.requests.map(\.path))")
    #expect(outcomes[1].failures.isEmpty, "\(outcomes[1].failureWords)")
    // The cookie file is read, never written.
    #expect(try String(contentsOfFile: cookies, encoding: .utf8).hasPrefix("# Netscape HTTP Cookie File\n127"))
  }

  @Test("new ids for every item are told once as news of the feed, not as new items")
  func newIdsTold() throws {
    let s = try Setup { site in "feeds: [{ url: \"\(site.server.url("/f"))\", name: f }]" }
    defer { s.site.server.stop() }
    s.site.set("/f", Self.rss(count: 5, every: 3_600))
    _ = s.poll(at: Self.now)
    // The same posts (links), every id new: the state directory's stories know them.
    s.site.set(
      "/f",
      Self.rss(count: 5, every: 3_600).replacingOccurrences(of: "<guid>i", with: "<guid>https://example.org/new-id/"))
    let outcome = s.poll(at: Self.now.addingTimeInterval(3_600), force: true)[0]
    #expect(outcome.newItems == 0 && outcome.rekeyNote != nil, "\(outcome)")
    let told = s.runner.actions.filter { $0.action.key.hasPrefix("health:rekeyed") }
    #expect(told.count == 1)
    guard case .notify(let shown)? = told.first?.action.payload else { return }
    #expect(shown.summary == "watcher: feed 'f' changed its item ids" && shown.urgency == .low)
  }

  @Test("a home page in the config is told apart from a feed, and names the feed it links to")
  func pageNotFeed() throws {
    let s = try Setup { site in "feeds: [{ url: \"\(site.server.url("/home"))\", name: home }]" }
    defer { s.site.server.stop() }
    s.site.set(
      "/home",
      "<!doctype html>\n<html><head><link rel=\"alternate\" type=\"application/atom+xml\" href=\"/atom.xml\"></head>"
        + "<body><p>Welcome</p></body></html>", headers: [("Content-Type", "text/html")])
    let outcome = s.poll(at: Self.now)[0]
    #expect(
      outcome.failureWords
        == "found an HTML page, not a feed; it links to the feed \(s.site.server.url("/atom.xml")): use that "
        + "(watcher add PAGE does)", "\(outcome.failureWords)")
  }
}

extension Poller.Outcome {
  fileprivate var failureWords: String { failures.map(\.description).joined(separator: "; ") }
}
