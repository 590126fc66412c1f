// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherTestSupport

/// `full_text` within bounds: what a page adds to the state is cut, and pages cost a bounded time.
@Suite("Full text bounds", .serialized)
struct FullTextBoundsTests {
  /// A feed of `count` items linking to `page(index)`, and a second feed of one item.
  static func site(count: Int, page: @escaping @Sendable (Int) -> LoopbackHTTPServer.Response) throws
    -> LoopbackHTTPServer
  {
    try LoopbackHTTPServer { request in
      if request.path == "/other.xml" {
        return .ok(
          "<rss version=\"2.0\"><channel><title>O</title><item><title>Other news</title><guid>o1</guid>"
            + "</item></channel></rss>")
      }
      if request.path.hasPrefix("/page/"), let index = Int(request.path.dropFirst(6)) { return page(index) }
      let items = (0..<count).map { index in
        "<item><title>Story \(index)</title><link>/page/\(index)</link><guid>g\(index)</guid>"
          + "<description>Short.</description></item>"
      }
      return .ok("<rss version=\"2.0\"><channel><title>Site</title>\(items.joined())</channel></rss>")
    }
  }

  static func poller(_ config: Config, store: StateStore) -> Poller {
    let runner = DeliveringActionRunner(
      notifier: KeptNotificationTests.SwitchableNotifier(), settings: config.settings, environment: [:],
      log: { _ in })
    return Poller(config: config, store: store, transport: CurlTransport(userAgent: "t"), runner: runner)
  }

  @Test("10 items linking to an 8 MB page and a failing hook: the state stays small and readable, the hooks retry")
  func bigPagesFailingHook() throws {
    signal(SIGPIPE, SIG_IGN)  // as watcher does: 'exit 1' never reads the item written to its stdin
    let paragraph = "<p>" + String(repeating: "words, and more words in a sentence. ", count: 40) + "</p>\n"
    let page = Data(
      ("<html><body><article>" + String(repeating: paragraph, count: 8_000_000 / paragraph.utf8.count)
        + "</article></body></html>").utf8)
    let server = try Self.site(count: 10) { _ in
      .init(status: 200, headers: [("Content-Type", "text/html")], body: page)
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.path + "/state")
    let config = try ConfigLoader.parse(
      """
      settings: { first_poll: all, max_age: none, hook_retries: 5 }
      feeds:
        - { url: "\(server.url("/feed.xml"))", name: site, full_text: true }
      rules:
        - { name: stories, match: { content: words }, hook: 'exit 1' }
      """, path: "r.yaml")
    let first = Self.poller(config, store: store).poll(config.feeds, force: true, now: PollerTests.now)[0]
    #expect(first.failures.isEmpty, "\(first.failures)")
    let path = store.path(for: config.feeds[0].url)
    let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    // Each page's text is kept to 256 KiB for the hook: about 3 MB for ten, not 321 MB.
    #expect(size < 6 << 20, "the state file is \(size) bytes")
    let loaded = try store.load(url: config.feeds[0].url)
    #expect(loaded.restarted == nil && loaded.state.pending.count == 10)
    let retried = Self.poller(config, store: store).retryPending(
      config.feeds, now: PollerTests.now.addingTimeInterval(3_600))
    #expect(retried[0].failures.isEmpty)
    #expect(try store.load(url: config.feeds[0].url).state.pending.allSatisfy { $0.attempts == 2 })
  }

  @Test("pages that trickle cost the feed's time budget, not the pass's hours; past the page count, feed text")
  func timeBudget() throws {
    let slow = Data(repeating: UInt8(ascii: "x"), count: 4_000)
    let server = try Self.site(count: 12) { _ in
      .init(status: 200, headers: [("Content-Type", "text/html")], body: slow, trickle: 10, trickleDelay: 0.25)
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.path + "/state")
    let config = try ConfigLoader.parse(
      """
      settings: { first_poll: all, max_age: none, full_text_budget: { pages: 8, feed: 2s, pass: 3s } }
      feeds:
        - { url: "\(server.url("/feed.xml"))", name: site, full_text: true }
        - { url: "\(server.url("/other.xml"))", name: other }
      rules:
        - { name: all, match: { title: "" }, hook: 'echo "$WATCHER_TITLE" >> "\(dir.url.path)/hooks.log"' }
      """, path: "r.yaml")
    #expect(config.settings.fullTextBudget == Settings.FullTextBudget(pages: 8, feedSeconds: 2, passSeconds: 3))
    let started = ContinuousClock.now
    let outcomes = Self.poller(config, store: store).poll(config.feeds, force: true, now: PollerTests.now)
    let elapsed = ContinuousClock.now - started
    // 8 pages of 100 s each (4 at a time) held the pass for minutes before; now the feed's 2 s.
    #expect(elapsed < .seconds(30), "the pass took \(elapsed)")
    let warnings = outcomes[0].warnings
    #expect(warnings.filter { $0.contains("its time budget") }.count == 8, "\(warnings)")
    #expect(warnings.filter { $0.contains("more than 8 pages in one poll") }.count == 4, "\(warnings)")
    // Every item is acted on, with its feed text, and the other feed's too.
    let log = try String(contentsOfFile: dir.url.path + "/hooks.log", encoding: .utf8)
    #expect(log.split(separator: "\n").count == 13, "\(log)")
    // The other feed's hook did not wait for the pages: it ran first.
    #expect(log.split(separator: "\n").first == "Other news", "\(log)")
  }

  @Test(
    "the private-address rule for pages: a file feed's, a public feed's or another local service's page is not read")
  func pageScopes() throws {
    let article =
      "<html><body><article><p>" + String(repeating: "Private text, from inside. ", count: 20)
      + "</p></article></body></html>"
    let pages = try LoopbackHTTPServer { _ in .ok(article, headers: [("Content-Type", "text/html")]) }
    let feedServer = try LoopbackHTTPServer { _ in .ok(article, headers: [("Content-Type", "text/html")]) }
    defer {
      pages.stop()
      feedServer.stop()
    }
    let transport = CurlTransport(userAgent: "t")
    func read(_ page: String, from feed: String) -> Result<ArticleExtractor.Article, ArticleLoadError> {
      ArticleLoader.fetch([page], feedURL: feed, limits: .init(), transport: transport)[0]
    }
    let refused = read(pages.url("/a"), from: "/home/me/feeds/saved.xml")
    #expect(refused == .failure(.fetch(.refusedAddress(address: "127.0.0.1"))), "a file feed: \(refused)")
    #expect(read(pages.url("/a"), from: "http://203.0.113.1/feed.xml") == refused)
    #expect(read(pages.url("/a"), from: feedServer.url("/feed.xml")) == refused, "another local service")
    #expect(pages.requests.isEmpty)
    #expect((try? read(feedServer.url("/a"), from: feedServer.url("/feed.xml")).get()) != nil, "the feed's own origin")
    #expect("\(ArticleLoadError.fetch(.refusedAddress(address: "127.0.0.1")))".hasPrefix("not fetched"))
  }

  @Test("full_text reads web pages only (by type and by content), and cleans control characters from their text")
  func pagesOnly() throws {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 0x41, count: 2_000)
    let prose = String(repeating: "A sentence of the article, long enough to count. ", count: 10)
    let server = try LoopbackHTTPServer { request in
      switch request.path {
      case "/png": return .init(status: 200, headers: [("Content-Type", "image/png")], body: png)
      case "/png-as-html": return .init(status: 200, headers: [("Content-Type", "text/html")], body: png)
      case "/binary": return .init(status: 200, body: Data([0x00, 0x01, 0x02]) + Data(repeating: 0x3C, count: 500))
      case "/pdf": return .ok("%PDF-1.7 <html>", headers: [("Content-Type", "application/pdf")])
      case "/untyped": return .ok("<!doctype html><html><body><p>\(prose)</p></body></html>")
      default:
        return .ok(
          "<html><body><article><p>\(prose)\u{7F}\u{9B}31m\u{85}end</p></article></body></html>",
          headers: [("Content-Type", "text/html; charset=utf-8")])
      }
    }
    defer { server.stop() }
    let feed = server.url("/feed.xml")
    let paths = ["/png", "/png-as-html", "/binary", "/pdf", "/untyped", "/controls"]
    let results = ArticleLoader.fetch(
      paths.map { server.url($0) }, feedURL: feed, limits: .init(), transport: CurlTransport(userAgent: "t"))
    #expect(results[0] == .failure(.notHTML("image/png")))
    #expect(results[1] == .failure(.notHTML("text/html")), "a picture sent as text/html is still a picture")
    #expect(results[2] == .failure(.notHTML(nil)))
    #expect(results[3] == .failure(.notHTML("application/pdf")))
    #expect((try? results[4].get().text.hasPrefix("A sentence")) == true, "HTML by its content")
    let text = try results[5].get().text
    #expect(!text.unicodeScalars.contains { $0.value == 0x7F || (0x80...0x9F).contains($0.value) }, "\(text)")
    #expect(text.hasSuffix("31m end"))
  }
}
