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
import WatcherSupport
import WatcherTestSupport

/// What one hostile feed sends is kept within documented sizes: the files every feed shares stay readable.
@Suite("Stored bounds", .serialized)
struct StoredBoundsTests {
  typealias Harness = PollerTests.Harness

  /// An RSS document of `count` new items (keys `prefix-N`) whose titles and descriptions are `size`
  /// characters each.
  static func hugeItems(_ count: Int, prefix: String, size: Int, descriptions: Bool = true) -> String {
    let filler = String(repeating: "x", count: size)
    let items = (0..<count).map { index in
      "<item><guid>\(prefix)-\(index)</guid><title>Item \(prefix)-\(index) \(filler)</title>"
        + (descriptions ? "<description>D \(filler)</description>" : "")
        + "<pubDate>Sat, 28 Nov 2026 10:00:00 GMT</pubDate></item>"
    }
    return "<rss version=\"2.0\"><channel><title>t</title>\(items.joined())</channel></rss>"
  }

  static func size(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
  }

  @Test("digest entries of items with 1 MB titles and descriptions keep documented sizes: digests.json stays small")
  func digestEntriesBounded() throws {
    var h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    let (_, pass) = try DigestTests.morningDigest(&h, hook: "true")
    for poll in 0..<3 {
      h.source.override.withLock { $0 = Self.hugeItems(9, prefix: "p\(poll)", size: 1_000_000) }
      let outcome = pass(DigestTests.local(10, poll)).outcomes[0]
      #expect(outcome.failures.isEmpty, "\(outcome.failures)")
    }
    let digests = try h.store.digests()
    #expect(digests.flatMap(\.items).count == 27)
    // 2 MB of text per item, kept as its title (2 KB), text (64 KB) and HTML (128 KB): about 6 MB for 27, not
    // the 378 MB (and then an unreadable file) it was.
    #expect(Self.size(h.store.digestsPath) < 8 << 20, "digests.json is \(Self.size(h.store.digestsPath)) bytes")
    let entry = try #require(digests.first?.items.first)
    #expect((entry.title?.utf8.count ?? 0) <= FeedItem.StoredBytes.title)
    #expect(entry.title?.hasSuffix("…") == true)
    // The journal's lines are bounded too.
    let journal = (try? String(contentsOfFile: h.store.journalPath, encoding: .utf8)) ?? ""
    #expect(journal.split(separator: "\n").allSatisfy { $0.utf8.count < 32_768 })
  }

  @Test("notifications of items with 1 MB titles, kept while no desktop is reachable: notifications.json stays small")
  func keptNotificationsBounded() throws {
    let h = try Harness(settings: "  first_poll: all")
    defer { h.server.stop() }
    let notifier = KeptNotificationTests.SwitchableNotifier()
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: h.config.settings, environment: [:], log: { _ in })
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    for poll in 0..<4 {
      h.source.override.withLock {
        $0 = Self.hugeItems(19, prefix: "p\(poll)", size: 1_000_000, descriptions: false)
      }
      let outcome = poller.pass(h.config.feeds, force: true, now: PollerTests.now + Double(poll) * 60).outcomes[0]
      #expect(outcome.failures.isEmpty, "\(outcome.failures)")
      #expect(!outcome.warnings.contains { $0.contains("cannot keep") }, "\(outcome.warnings)")
    }
    let kept = try h.store.keptNotifications()
    #expect(kept.count == 76)
    #expect(Self.size(h.store.keptPath) < 2 << 20, "notifications.json is \(Self.size(h.store.keptPath)) bytes")
  }

  @Test("a field over its stored size is cut at a character, marked, within the size")
  func storedFields() {
    var item = FeedItem(
      key: "k", title: String(repeating: "é", count: 5_000), link: "https://x.org/",
      text: String(repeating: "a", count: 100_000))
    item.content = String(repeating: "🙂", count: 100_000)
    let stored = item.stored
    #expect(stored.title!.utf8.count <= FeedItem.StoredBytes.title && stored.title!.hasSuffix("…"))
    #expect(stored.text!.utf8.count <= FeedItem.StoredBytes.text)
    #expect(stored.content!.utf8.count <= FeedItem.StoredBytes.content)
    #expect(stored.content!.dropLast().allSatisfy { $0 == "🙂" })
    #expect(stored.link == item.link)
    #expect(FeedItem(key: "k", title: "short").stored == FeedItem(key: "k", title: "short"))
  }

  /// The journal's entries of `outcome`.
  static func journal(_ h: Harness, _ outcome: JournalEntry.Outcome) throws -> [JournalEntry] {
    h.store.journal(limits: JournalLimits(), now: PollerTests.now + 86_400).entries.filter { $0.outcome == outcome }
  }

  @Test("digests.json keeps to its byte budget: the oldest entries are dropped, journaled and reported")
  func digestBudget() throws {
    var h = try Harness(settings: "  first_poll: all", budget: StateStore.Budget(sharedFile: 1_000_000))
    defer { h.server.stop() }
    let (_, pass) = try DigestTests.morningDigest(&h, hook: "true")
    var warnings: [String] = []
    for poll in 0..<3 {
      h.source.override.withLock { $0 = Self.hugeItems(9, prefix: "p\(poll)", size: 100_000) }
      let outcome = pass(DigestTests.local(10, poll)).outcomes[0]
      #expect(outcome.failures.isEmpty, "\(outcome.failures)")
      warnings += outcome.warnings
    }
    #expect(Self.size(h.store.digestsPath) <= 1_000_000, "digests.json is \(Self.size(h.store.digestsPath)) bytes")
    let kept = try h.store.digests().flatMap(\.items)
    let dropped = try Self.journal(h, .dropped)
    #expect(!dropped.isEmpty && kept.count + dropped.count == 27, "\(kept.count) kept, \(dropped.count) dropped")
    #expect(dropped.allSatisfy { $0.detail?.contains("budget of 1 MB") == true })
    // The oldest went: what is kept is the newest entries.
    let order = (0..<3).flatMap { poll in (0..<9).map { "p\(poll)-\($0)" } }
    #expect(kept.map(\.key) == Array(order.suffix(kept.count)))
    #expect(warnings.contains { $0.contains("digests.json would pass its budget") }, "\(warnings)")
  }

  @Test("notifications.json keeps to its byte budget: the oldest are given up, journaled and reported")
  func keptBudget() throws {
    var h = try Harness(settings: "  first_poll: all", budget: StateStore.Budget(sharedFile: 64_000))
    defer { h.server.stop() }
    h.config.settings.notify.maxPerPoll = 1_000
    let runner = DeliveringActionRunner(
      notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings, environment: [:],
      log: { _ in })
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    var outcomes: [Poller.Outcome] = []
    for poll in 0..<4 {
      h.source.override.withLock { $0 = Self.hugeItems(19, prefix: "p\(poll)", size: 10_000, descriptions: false) }
      outcomes += poller.pass(h.config.feeds, force: true, now: PollerTests.now + Double(poll) * 60).outcomes
    }
    #expect(Self.size(h.store.keptPath) <= 64_000, "notifications.json is \(Self.size(h.store.keptPath)) bytes")
    let kept = try h.store.keptNotifications()
    let dropped = try Self.journal(h, .dropped)
    #expect(!dropped.isEmpty && kept.count + dropped.count == 76, "\(kept.count) kept, \(dropped.count) dropped")
    #expect(dropped.allSatisfy { $0.detail?.contains("notifications.json would pass its budget") == true })
    #expect(kept.last?.action.key == "p3-18", "the newest stay")
    #expect(outcomes.allSatisfy { $0.failures.isEmpty })
    let said = outcomes.flatMap(\.warnings).filter { $0.contains("notifications.json would pass its budget") }
    #expect(!said.isEmpty, "\(outcomes.flatMap(\.warnings))")
  }

  @Test("a feed's state file keeps to its byte budget: the oldest waiting actions are given up, and said so")
  func feedStateBudget() throws {
    signal(SIGPIPE, SIG_IGN)  // as watcher does: 'exit 1' never reads its stdin
    var h = try Harness(settings: "  first_poll: all", budget: StateStore.Budget(feedFile: 1_000_000))
    defer { h.server.stop() }
    h.config.rules = try ConfigLoader.parse(
      "feeds: [{ url: x, name: test }]\nrules:\n  - { name: fail, match: { title: item }, hook: 'exit 1' }\n",
      path: "r.yaml"
    ).rules
    let runner = DeliveringActionRunner(
      notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings, environment: [:],
      log: { _ in })
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    h.source.override.withLock { $0 = Self.hugeItems(12, prefix: "p", size: 200_000) }
    let outcome = poller.pass(h.config.feeds, force: true, now: PollerTests.now).outcomes[0]
    #expect(outcome.failures.isEmpty, "\(outcome.failures)")
    let path = h.store.path(for: h.config.feeds[0].url)
    #expect(Self.size(path) <= 1_000_000, "the state file is \(Self.size(path)) bytes")
    let state = try h.store.load(url: h.config.feeds[0].url).state
    let dropped = try Self.journal(h, .dropped)
    #expect(!dropped.isEmpty && state.pending.count + dropped.count == 12)
    #expect(state.dropped.count == dropped.count, "pending --json and status show them as dropped")
    #expect(outcome.warnings.contains { $0.contains("waiting action") && $0.contains("budget of 1 MB") })
  }
}
