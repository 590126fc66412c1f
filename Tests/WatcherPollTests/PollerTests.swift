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

/// Polling against a real loopback server and a real state directory.
@Suite("Poller", .serialized)
struct PollerTests {
  /// A feed whose items the test changes between polls.
  final class FeedSource: Sendable {
    let items = Locked<[(guid: String, title: String, date: String)]>([])
    let status = Locked<Int>(200)
    let retryAfter = Locked<String?>(nil)
    /// Whether the server answers conditional GET; many ignore it and send 200 every time.
    let conditional = Locked<Bool>(true)
    /// A body sent instead of the items (a broken document).
    let override = Locked<String?>(nil)
    /// Added to the ETag: a server whose ETag for the same body changes (a new deployment, another node).
    let etagSalt = Locked<String>("")

    func xml() -> String {
      let body = items.withLock { list in
        list.map {
          "<item><title>\($0.title)</title><guid>\($0.guid)</guid><pubDate>\($0.date)</pubDate></item>"
        }.joined()
      }
      return "<rss version=\"2.0\"><channel><title>Test</title>\(body)</channel></rss>"
    }
  }

  static let now = DateParser.parse("2026-11-29T12:00:00Z") ?? Date()

  struct Harness {
    let source = FeedSource()
    let server: LoopbackHTTPServer
    let dir: TemporaryDirectory
    let store: StateStore
    let runner = RecordingActionRunner()
    var config: Config

    init(settings: String = "", budget: StateStore.Budget = StateStore.Budget()) throws {
      let source = self.source
      server = try LoopbackHTTPServer { request in
        let status = source.status.withLock { $0 }
        if status != 200 {
          return .init(status: status, headers: source.retryAfter.withLock { $0 }.map { [("Retry-After", $0)] } ?? [])
        }
        let body = source.override.withLock { $0 } ?? source.xml()
        guard source.conditional.withLock({ $0 }) else { return .ok(body) }
        let etag = "\"\(StableHash.hex(of: body))\(source.etagSalt.withLock { $0 })\""
        if request.headers["if-none-match"] == etag { return .init(status: 304) }
        return .ok(body, headers: [("ETag", etag)])
      }
      dir = try TemporaryDirectory()
      store = try StateStore(directory: dir.url.appendingPathComponent("state").path, budget: budget)
      config = try ConfigLoader.parse(
        """
        settings:
          max_age: 30d
        \(settings)
        feeds:
          - url: \(server.url("/feed"))
            name: test
        rules:
          - { name: everything, match: { title: "" }, notify: { summary: "{title}" } }
        """, path: "t.yaml")
    }

    func poll(at time: Date = PollerTests.now, force: Bool = true, mode: Poller.Mode = .normal) -> Poller.Outcome {
      Poller(config: config, store: store, transport: CurlTransport(userAgent: "test"), runner: runner)
        .poll(config.feeds, force: force, mode: mode, now: time)[0]
    }
  }

  @Test("first poll is silent; later new items are acted on exactly once")
  func silentFirstPoll() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.items.withLock {
      $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")]
    }
    let first = h.poll()
    #expect(first.newItems == 2 && first.actions == 0 && first.failures.isEmpty)
    #expect(h.runner.actions.isEmpty)
    h.source.items.withLock { $0.append(("c", "C", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    let second = h.poll(at: Self.now.addingTimeInterval(60))
    #expect(second.newItems == 1 && second.actions == 1)
    #expect(h.runner.actions.map(\.action.notification?.summary) == ["C"])
    let third = h.poll(at: Self.now.addingTimeInterval(120))
    #expect(third.notModified)
    #expect(h.runner.actions.count == 1)
    let sent = h.server.requests
    #expect(sent.count == 3)
    #expect(sent[0].headers["if-none-match"] == nil)
    #expect(sent[2].headers["if-none-match"] != nil)
  }

  /// `count` feed files of two items each (`T<feed>-<n>`, guid `g<feed>-<n>`) and a config with a rule
  /// that notifies of every item.
  struct ManyFeeds {
    let dir: TemporaryDirectory
    let store: StateStore
    let config: Config

    init(_ count: Int, settings: String = "max_age: none") throws {
      let dir = try TemporaryDirectory()
      self.dir = dir
      store = try StateStore(directory: dir.url.appendingPathComponent("state").path)
      config = try ConfigLoader.parse(
        "settings: { \(settings) }\nfeeds:\n"
          + (0..<count).map { "  - { name: f\($0), url: \(dir.url.path)/f\($0).xml }\n" }.joined()
          + "rules:\n  - { name: all, match: { title: T }, notify: { summary: '{title}' } }\n", path: "t.yaml")
      for feed in 0..<count { try write(feed, items: 2) }
    }

    func write(_ feed: Int, items: Int) throws {
      let body = (0..<items).map { "<item><title>T\(feed)-\($0)</title><guid>g\(feed)-\($0)</guid></item>" }
      try Data("<rss version=\"2.0\"><channel><title>F</title>\(body.joined())</channel></rss>".utf8)
        .write(to: dir.url.appendingPathComponent("f\(feed).xml"))
    }
  }

  @Test("a pass over more feeds than it reads at once acts on exactly the new items, each once")
  func manyFeeds() throws {
    let count = 700  // more than the 512 states a pass reads at once (PassStages.stateChunk)
    let fixture = try ManyFeeds(count)
    let (store, config) = (fixture.store, fixture.config)
    let runner = RecordingActionRunner()
    let poller = Poller(config: config, store: store, transport: CurlTransport(userAgent: "test"), runner: runner)
    let first = poller.poll(config.feeds, force: true, now: Self.now)
    #expect(first.count == count && first.allSatisfy { $0.newItems == 2 && $0.failures.isEmpty })
    #expect(runner.actions.isEmpty)
    // A new item in every third feed, among them feeds of the first and the last chunk.
    let changed = Set(stride(from: 0, to: count, by: 3))
    for feed in changed { try fixture.write(feed, items: 3) }
    let second = poller.poll(config.feeds, force: true, now: Self.now.addingTimeInterval(60))
    #expect(
      second.allSatisfy {
        $0.failures.isEmpty && $0.newItems == (changed.contains(Int($0.feed.name.dropFirst())!) ? 1 : 0)
      })
    #expect(runner.actions.compactMap(\.action.notification?.summary).sorted() == changed.map { "T\($0)-2" }.sorted())
    let third = poller.poll(config.feeds, force: true, now: Self.now.addingTimeInterval(120))
    #expect(third.allSatisfy { $0.newItems == 0 && $0.failures.isEmpty })
    #expect(runner.actions.count == changed.count)
  }

  @Test("a large pass schedules from states read without their items, and reads one whole before its actions run")
  func manyFeedsPendingKeepsItems() throws {
    // More than the 512 states a pass reads at once (PassStages.stateChunk).
    let fixture = try ManyFeeds(600, settings: "max_age: none, interval: 1h")
    let (store, config) = (fixture.store, fixture.config)
    let runner = RecordingActionRunner()
    let poller = Poller(config: config, store: store, transport: CurlTransport(userAgent: "test"), runner: runner)
    #expect(poller.poll(config.feeds, force: true, now: Self.now).allSatisfy { $0.newItems == 2 })
    // Actions left pending in a feed of each chunk (one whose rule is gone is dropped: a save as well).
    for (feed, rule) in [(3, "all"), (580, "all"), (590, "gone")] {
      var state = try store.load(url: config.feeds[feed].url).state
      #expect(state.items.count == 2 && !state.itemsSkipped)
      state.pending.append(
        FeedState.PendingAction(kind: .notify, key: "g\(feed)-0", rule: rule, summary: "P\(feed)", created: Self.now))
      try store.save(state)
    }
    // A minute later nothing is due but those actions.
    let later = poller.poll(config.feeds, force: false, now: Self.now.addingTimeInterval(60))
    #expect(later.allSatisfy { !$0.polled && $0.failures.isEmpty }, "\(later.filter { !$0.failures.isEmpty })")
    #expect(runner.actions.compactMap(\.action.notification?.summary).sorted() == ["P3", "P580"])
    for feed in [3, 580, 590, 0, 599] {
      let state = try store.load(url: config.feeds[feed].url).state
      #expect(state.items.keys.sorted() == ["g\(feed)-0", "g\(feed)-1"] && state.pending.isEmpty, "feed \(feed)")
    }
    // A state read without its items cannot be saved.
    let partial = try StateStore.load(url: config.feeds[0].url, directory: store.directory, items: false).state
    #expect(partial.itemsSkipped && partial.items.isEmpty && partial.lastSuccess != nil)
    #expect(throws: StateError.self) { try StateStore.save(partial, directory: store.directory) }
  }

  @Test("a large pass of 304s keeps states read without their items, and reads whole those that change more")
  func manyFeedsNotModified() throws {
    let count = 600  // more than the 512 states a pass reads at once (PassStages.stateChunk)
    let versions = Locked([Int](repeating: 1, count: count))
    let server = try LoopbackHTTPServer { request in
      let feed = Int(request.path.dropFirst(2)) ?? 0
      let version = versions.withLock { $0[feed] }
      if request.headers["if-none-match"] == "\"v\(version)\"" { return .init(status: 304) }
      let items = (0...version).map { "<item><title>T\(feed)-\($0)</title><guid>g\(feed)-\($0)</guid></item>" }
      return .ok(
        "<rss version=\"2.0\"><channel><title>F</title>\(items.joined())</channel></rss>",
        headers: [("ETag", "\"v\(version)\"")])
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let store = try StateStore(directory: dir.url.appendingPathComponent("state").path)
    let config = try ConfigLoader.parse(
      "settings: { max_age: none }\nfeeds:\n"
        + (0..<count).map { "  - { name: f\($0), url: '\(server.url("/f\($0)"))' }\n" }.joined()
        + "rules:\n  - { name: all, match: { title: T }, notify: { summary: '{title}' } }\n", path: "t.yaml")
    let runner = RecordingActionRunner()
    let poller = Poller(config: config, store: store, transport: CurlTransport(userAgent: "test"), runner: runner)
    #expect(poller.poll(config.feeds, force: true, now: Self.now).allSatisfy { $0.newItems == 2 })
    // Feed 7 was failing (a 304 clears that: more than its times), feed 9 has an action pending, feeds 5
    // and 590 change.
    var failing = try store.load(url: config.feeds[7].url).state
    (failing.consecutiveFailures, failing.lastError) = (2, "it was down")
    try store.save(failing)
    var pending = try store.load(url: config.feeds[9].url).state
    pending.pending.append(
      FeedState.PendingAction(kind: .notify, key: "g9-0", rule: "all", summary: "P9", created: Self.now))
    try store.save(pending)
    versions.withLock {
      $0[5] = 2; $0[590] = 2
    }
    let untouched = try Data(contentsOf: URL(fileURLWithPath: store.path(for: config.feeds[100].url)))
    let second = Self.now.addingTimeInterval(60)
    let outcomes = poller.poll(config.feeds, force: true, now: second)
    #expect(outcomes.allSatisfy { $0.failures.isEmpty }, "\(outcomes.filter { !$0.failures.isEmpty })")
    #expect(outcomes.filter(\.notModified).count == count - 2)
    #expect(runner.actions.compactMap(\.action.notification?.summary).sorted() == ["P9", "T5-2", "T590-2"])
    for feed in [5, 7, 9, 100, 590] {
      let state = try store.load(url: config.feeds[feed].url).state
      #expect(state.items.count == ([5, 590].contains(feed) ? 3 : 2), "feed \(feed)")
      #expect(state.pending.isEmpty && state.consecutiveFailures == 0 && state.lastError == nil, "feed \(feed)")
      #expect(state.lastSuccess == second && state.items["g\(feed)-0"]?.lastSeen == second, "feed \(feed)")
    }
    // An unchanged feed's own file is as it was: its times are in polls.json.
    #expect(try Data(contentsOf: URL(fileURLWithPath: store.path(for: config.feeds[100].url))) == untouched)
  }

  @Test("an unchanged poll writes only its times, to polls.json: the feed's file stays, a load sees them")
  func unchangedPollWritesTimes() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.items.withLock {
      $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")]
    }
    #expect(h.poll().newItems == 2)
    let url = h.config.feeds[0].url
    let file = h.store.path(for: url)
    let polls = h.store.directory + "/" + PollTimes.fileName
    let written = try Data(contentsOf: URL(fileURLWithPath: file))
    for minutes in 1...3 {
      let time = Self.now.addingTimeInterval(Double(minutes) * 60)
      #expect(h.poll(at: time).notModified)
      // The feed's file is as the first poll left it; its times are in polls.json.
      #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == written)
      let state = try h.store.load(url: url).state
      #expect(state.lastAttempt == time && state.lastSuccess == time)
      #expect(state.lastSuccessBefore == time.addingTimeInterval(-60))
      #expect(state.items.values.allSatisfy { $0.lastSeen == time })
    }
    #expect(FileManager.default.fileExists(atPath: polls))
    // Validators that did not change are the file's: polls.json holds none.
    #expect(try !String(contentsOfFile: polls, encoding: .utf8).contains("validators"))
    // A poll that changes more than the times writes the feed's file, with everything.
    h.source.items.withLock { $0.append(("c", "C", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    let later = Self.now.addingTimeInterval(600)
    #expect(h.poll(at: later).newItems == 1)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != written)
    var state = try StateStore.decode(Data(contentsOf: URL(fileURLWithPath: file)))
    #expect(state.lastSuccess == later && state.items.count == 3)
    // A corrupt polls.json holds nothing: the feed's own times stand, and the next unchanged poll rewrites it.
    try Data("{ not json".utf8).write(to: URL(fileURLWithPath: polls))
    state = try h.store.load(url: url).state
    #expect(state.lastSuccess == later)
    let last = later.addingTimeInterval(60)
    let again = h.poll(at: last)
    #expect(again.notModified && again.failures.isEmpty && again.warnings.isEmpty)
    #expect(try h.store.load(url: url).state.lastSuccess == last)
    #expect(try String(contentsOfFile: polls, encoding: .utf8).contains("\"feeds\""))
  }

  @Test("the same body with a new ETag, or with none, writes only polls.json; the next request sends what it gave")
  func newValidatorsWithoutStateWrite() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    #expect(h.poll().newItems == 1)
    let url = h.config.feeds[0].url
    let file = h.store.path(for: url)
    let written = try Data(contentsOf: URL(fileURLWithPath: file))
    let first = try #require(try h.store.load(url: url).state.etag)
    func poll(_ minute: Double) -> Poller.Outcome { h.poll(at: Self.now.addingTimeInterval(60 * minute)) }
    // Another ETag for the same body: asked with the old one, answered 200 with the same bytes.
    h.source.etagSalt.withLock { $0 = "-v2" }
    #expect(poll(1).notModified)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == written)
    let second = try #require(try h.store.load(url: url).state.etag)
    #expect(second != first && second.hasSuffix("-v2\""))
    // The next request sends the new one, and is answered 304.
    #expect(poll(2).notModified)
    #expect(h.server.requests.map { $0.headers["if-none-match"] } == [nil, first, second])
    // A server that stops answering conditional GET drops its ETag: none is sent after that.
    h.source.conditional.withLock { $0 = false }
    #expect(poll(3).notModified && poll(4).notModified)
    #expect(h.server.requests.suffix(2).map { $0.headers["if-none-match"] } == [second, nil])
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == written)
    #expect(try h.store.load(url: url).state.etag == nil)
    // Once recorded there, they stay recorded, unchanged or not: the file's are older.
    #expect(poll(4.5).notModified)
    #expect(try h.store.load(url: url).state.etag == nil)
    // An ETag too long for the shared file goes to the feed's own.
    h.source.conditional.withLock { $0 = true }
    h.source.etagSalt.withLock { $0 = String(repeating: "x", count: 2_000) }
    #expect(poll(4.7).notModified)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) != written)
    #expect(try StateStore.decode(Data(contentsOf: URL(fileURLWithPath: file))).etag?.hasSuffix("xx\"") == true)
    #expect(try String(contentsOfFile: h.store.directory + "/" + PollTimes.fileName, encoding: .utf8).count < 2_000)
    h.source.etagSalt.withLock { $0 = "" }
    h.source.conditional.withLock { $0 = false }
    // Without polls.json the feed's own validators stand: a request that costs at most the same body again.
    try FileManager.default.removeItem(atPath: h.store.directory + "/" + PollTimes.fileName)
    #expect(try h.store.load(url: url).state.etag?.hasSuffix("xx\"") == true)
    #expect(poll(5).notModified)
  }

  @Test("a server that ignores conditional GET: the same body again is handled like a 304, a changed one is read")
  func sameBodyWithoutValidators() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.conditional.withLock { $0 = false }
    h.source.items.withLock {
      $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")]
    }
    #expect(h.poll().newItems == 2)
    let url = h.config.feeds[0].url
    let second = Self.now.addingTimeInterval(60)
    let same = h.poll(at: second)
    #expect(same.notModified && same.newItems == 0 && same.failures.isEmpty)
    // Its items are still in the feed: they stay as recently seen as after a full read.
    var state = try h.store.load(url: url).state
    #expect(state.items.values.allSatisfy { $0.lastSeen == second })
    #expect(state.lastSuccess == second)

    h.source.items.withLock { $0.append(("c", "C", "Sun, 29 Nov 2026 10:00:00 GMT")) }
    let changed = h.poll(at: Self.now.addingTimeInterval(120))
    #expect(!changed.notModified && changed.newItems == 1 && changed.actions == 1)
    let fourth = Self.now.addingTimeInterval(180)
    let again = h.poll(at: fourth)
    #expect(again.notModified && again.newItems == 0)
    state = try h.store.load(url: url).state
    #expect(state.items.count == 3 && state.items.values.allSatisfy { $0.lastSeen == fourth })
    #expect(h.runner.actions.map(\.action.notification?.summary) == ["C"])
    #expect(h.server.requests.count == 4 && h.server.requests.allSatisfy { $0.headers["if-none-match"] == nil })

    // A body that could not be read is never taken as read: the same broken body fails again.
    h.source.override.withLock { $0 = "<html><body>not a feed</body></html>" }
    for minute in [4.0, 5.0] {
      let broken = h.poll(at: Self.now.addingTimeInterval(60 * minute))
      #expect(!broken.notModified && broken.failures.count == 1, "\(minute)")
    }
  }

  @Test("a pass over more feeds than one batch polls each once, in order, with its own items")
  func batches() throws {
    var h = try Harness(settings: "  concurrency: 2\n  first_poll: all")
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    // 70 feeds (three batches of 32), each URL its own feed; the server answers the same document.
    h.config.feeds = (0..<70).map { FeedConfig(url: h.server.url("/feed?n=\($0)"), name: "f\($0)") }
    let outcomes = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: h.runner)
      .poll(h.config.feeds, force: true, mode: .normal, now: Self.now)
    #expect(outcomes.map(\.feed.name) == (0..<70).map { "f\($0)" })
    #expect(outcomes.allSatisfy { $0.polled && $0.newItems == 1 && $0.failures.isEmpty })
    #expect(h.server.requests.count == 70)
    #expect(h.runner.actions.count == 70)
    #expect(h.store.allStates().count == 70)
  }

  @Test("first_poll: latest N acts on the newest N; all acts on everything")
  func firstPollPolicies() throws {
    for (setting, expected) in [("  first_poll: latest 1", ["B"]), ("  first_poll: all", ["A", "B"])] {
      let h = try Harness(settings: setting)
      defer { h.server.stop() }
      h.source.items.withLock {
        $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")]
      }
      _ = h.poll()
      #expect(h.runner.actions.map(\.action.notification?.summary) == expected, "\(setting)")
    }
  }

  @Test("an item that leaves and comes back within retention does not alert again; max_age items are not acted on")
  func retentionAndMaxAge() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    _ = h.poll()
    h.source.items.withLock { $0 = [] }
    _ = h.poll(at: Self.now.addingTimeInterval(3_600))
    h.source.items.withLock {
      $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT"), ("old", "Old", "Mon, 01 Jun 2026 10:00:00 GMT")]
    }
    let back = h.poll(at: Self.now.addingTimeInterval(7_200))
    #expect(back.newItems == 1)
    #expect(back.actedOn == 0, "an item older than max_age was acted on")
    #expect(h.runner.actions.isEmpty)
  }

  @Test("an item recorded with the key an earlier version read from a CDATA '&' is not announced again")
  func keyRecordedBeforeTheCDATAFix() throws {
    let h = try Harness()
    defer { h.server.stop() }
    func body(_ guids: [String]) -> String {
      let items = guids.map { "<item><title>T</title><guid isPermaLink=\"false\"><![CDATA[\($0)]]></guid></item>" }
      return "<rss version=\"2.0\"><channel><title>Test</title>\(items.joined())</channel></rss>"
    }
    h.source.override.withLock { $0 = body(["https://example.com/?a=1&b=2"]) }
    #expect(h.poll().newItems == 1)
    // What the state held when a bare `&` in CDATA was read as `&amp;`.
    let url = h.config.feeds[0].url
    var state = try h.store.load(url: url).state
    #expect(Array(state.items.keys) == ["https://example.com/?a=1&b=2"])
    state.items = ["https://example.com/?a=1&amp;b=2": try #require(state.items.first?.value)]
    try h.store.save(state)
    h.source.override.withLock { $0 = body(["https://example.com/?a=1&b=2", "https://example.com/?a=2&b=3"]) }
    let next = h.poll(at: Self.now.addingTimeInterval(60))
    #expect(next.newItems == 1)
    #expect(h.runner.actions.count == 1)
    #expect(
      Set(try h.store.load(url: url).state.items.keys) == [
        "https://example.com/?a=1&b=2", "https://example.com/?a=2&b=3",
      ])
  }

  @Test("a corrupt state file is moved aside and the feed starts again silently")
  func corruptState() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let path = h.store.path(for: h.config.feeds[0].url)
    try "{ not json".write(toFile: path, atomically: true, encoding: .utf8)
    let outcome = h.poll()
    #expect(outcome.warnings.contains { $0.contains("unreadable") && $0.contains(".corrupt-") })
    #expect(outcome.actions == 0)
    let names = try FileManager.default.contentsOfDirectory(atPath: h.store.directory)
    #expect(names.contains { $0.contains(".corrupt-") })
    #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) is [String: Any])
  }

  @Test("429 with Retry-After: nothing is requested before the time is up")
  func retryAfter() throws {
    let h = try Harness()
    defer { h.server.stop() }
    h.source.status.withLock { $0 = 429 }
    h.source.retryAfter.withLock { $0 = "3600" }
    let limited = h.poll(force: false)
    #expect(limited.failures == [.load(.status(429, retryAfter: 3_600))], "\(limited.failures)")
    let early = h.poll(at: Self.now.addingTimeInterval(1_800), force: false)
    #expect(!early.polled)
    #expect(h.server.requests.count == 1)
    h.source.status.withLock { $0 = 200 }
    let later = h.poll(at: Self.now.addingTimeInterval(3_700), force: false)
    #expect(later.polled && later.failures.isEmpty)
    #expect(h.server.requests.count == 2)
  }

  @Test("actions the runner could not do stay pending in the state")
  func pendingSurvives() throws {
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let failing = RecordingActionRunner(succeed: false)
    _ = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: failing)
      .poll(h.config.feeds, force: true, now: Self.now)
    let state = try h.store.load(url: h.config.feeds[0].url).state
    #expect(state.pending.map(\.notification?.summary) == ["A"])
    #expect(state.items.keys.contains("a"))
    h.config.settings.firstPoll = .all
  }

  @Test("catch-up records everything without acting; the next new item is acted on")
  func catchUp() throws {
    let h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    h.source.items.withLock { $0 = [("a", "A", "Sat, 28 Nov 2026 10:00:00 GMT")] }
    let caught = h.poll(mode: .catchUp)
    #expect(caught.newItems == 1 && caught.actions == 0)
    h.source.items.withLock { $0.append(("b", "B", "Sat, 28 Nov 2026 11:00:00 GMT")) }
    _ = h.poll(at: Self.now.addingTimeInterval(60))
    #expect(h.runner.actions.map(\.action.notification?.summary) == ["B"])
  }

  @Test("Cache-Control max-age is a minimum interval")
  func maxAge() throws {
    let h = try Harness()
    defer { h.server.stop() }
    let source = h.source
    let server = try LoopbackHTTPServer { _ in .ok(source.xml(), headers: [("Cache-Control", "max-age=7200")]) }
    defer { server.stop() }
    var config = h.config
    config.feeds[0].url = server.url("/cached")
    let poller = Poller(config: config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: h.runner)
    _ = poller.poll(config.feeds, force: false, now: Self.now)
    let early = poller.poll(config.feeds, force: false, now: Self.now.addingTimeInterval(3_600))
    #expect(early.first?.polled == false)
    let later = poller.poll(config.feeds, force: false, now: Self.now.addingTimeInterval(7_300))
    #expect(later.first?.polled == true)
    #expect(server.requests.count == 2)
  }

  @Test("only one process holds the state directory")
  func lock() throws {
    let dir = try TemporaryDirectory()
    let first = try StateStore(directory: dir.url.path)
    try first.lock()
    let second = try StateStore(directory: dir.url.path)
    #expect(throws: StateError.locked(path: dir.url.path)) { try second.lock() }
    first.unlock()
    try second.lock()
  }
}
