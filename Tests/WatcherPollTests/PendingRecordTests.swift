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

/// The pending-action record: a common part and a typed payload; a hook keeps its item once, as the JSON
/// document it gets on stdin, and its `WATCHER_*` variables are derived from it when it runs.
@Suite("Pending actions", .serialized)
struct PendingRecordTests {
  typealias Harness = PollerTests.Harness

  @Test("a hook's variables, derived from its document when it runs, are the ones its item gives")
  func derivedVariables() throws {
    let feed = FeedConfig(url: "https://example.org/feed.xml", name: "news")
    var item = FeedItem(
      key: "urn:1", id: "urn:1", title: "Ünïcode \"quoted\" $(title)", link: "https://example.org/1?a=1&b=2",
      author: "Ada", categories: ["a, b", "c"], published: DateParser.parse("2026-11-30T10:20:30Z"),
      text: String(repeating: "long text é ", count: 8_000), html: "<p>x</p>")
    item.content = "the article"
    let tags = ["release", "swift"]
    let json = FeedJSONWriter.itemJSON(
      item,
      extra: [
        ("feed", .string(feed.name)), ("feed_url", .string(feed.url)), ("rule", .string("releases")),
        ("tags", .array(tags.map { .string($0) })),
      ])
    let action = FeedState.PendingAction(
      key: item.key, source: .rule("releases"), payload: .hook(.init(command: "true", item: json)),
      title: item.title, created: Date())
    let expected = Dictionary(
      HookEnvironment.variables(item: item, feed: feed, rule: "releases", tags: tags), uniquingKeysWith: { a, _ in a })
    #expect(HookEnvironment.variables(for: action) == expected)
    #expect(expected["WATCHER_TEXT"]?.utf8.count ?? 0 <= HookEnvironment.maxValueBytes)
    #expect(expected["WATCHER_CONTENT"] == "the article" && expected["WATCHER_CATEGORIES"] == "a, b,c")
    // A digest's hook: its items as an array.
    let digest = FeedState.PendingAction(
      key: "digest:morning", source: .rule("morning"),
      payload: .hook(.init(command: "true", item: "[\(json),\(json)]")),
      created: Date())
    #expect(
      HookEnvironment.variables(for: digest) == [
        "WATCHER_RULE": "morning", "WATCHER_FEED": "digest", "WATCHER_DIGEST_COUNT": "2",
      ])
  }

  /// A feed of one item with categories, an author and a text.
  static let feed = """
    <rss version="2.0"><channel><title>T</title>
    <item><title>Release 1</title><guid>r1</guid><link>https://example.org/r1</link>
    <author>Ada</author><category>a, b</category><category>c</category>
    <pubDate>Sat, 28 Nov 2026 10:00:00 GMT</pubDate><description>Some text</description></item>
    </channel></rss>
    """

  @Test("a run: hook retried is given exactly the arguments of its first try (its item is kept whole)")
  func losslessRetry() throws {
    var h = try Harness(settings: "  first_poll: all\n  hook_retries: 5")
    defer { h.server.stop() }
    h.source.override.withLock { $0 = Self.feed }
    let out = h.dir.url.appendingPathComponent("args").path
    let gate = h.dir.url.appendingPathComponent("gate").path
    h.config.rules = try ConfigLoader.parse(
      """
      feeds: [{ url: x, name: test }]
      rules:
        - name: argv
          match: { title: Release }
          hook:
            run: [/bin/sh, -c, 'printf "%s|" "$@" >> \(out); echo >> \(out); test -e \(gate)', sh, "{title}",
                  "{categories}", "{author}", "{text}", "{published}"]
      """, path: "r.yaml"
    ).rules
    let runner = DeliveringActionRunner(
      notifier: KeptNotificationTests.SwitchableNotifier(), settings: h.config.settings, environment: [:],
      log: { _ in })
    let poller = Poller(config: h.config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    _ = poller.poll(h.config.feeds, force: true, now: PollerTests.now)
    #expect(try h.store.load(url: h.config.feeds[0].url).state.pending.count == 1)
    _ = FileManager.default.createFile(atPath: gate, contents: nil)
    _ = poller.retryPending(h.config.feeds, now: PollerTests.now.addingTimeInterval(60))
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines.first == "Release 1|a, b, c|Ada|Some text|2026-11-28T10:00:00Z|")
    #expect(lines.first == lines.last, "the retry's arguments differ from the first try's")
    #expect(try h.store.load(url: h.config.feeds[0].url).state.pending.isEmpty)
  }

  @Test("a rule named like a feed's own hook is not taken for it: each retry runs its own hook")
  func typedSource() throws {
    var h = try Harness(settings: "  first_poll: all\n  hook_retries: 5")
    defer { h.server.stop() }
    h.source.override.withLock { $0 = Self.feed }
    let dir = h.dir.url.path
    func config(_ feedHook: String, _ ruleHook: String) throws -> Config {
      try ConfigLoader.parse(
        """
        settings: { first_poll: all, hook_retries: 5 }
        feeds:
          - { url: "\(h.config.feeds[0].url)", name: test, hook: '\(feedHook)' }
        rules:
          - name: "feed 'test'"
            match: { title: Release }
            hook: '\(ruleHook)'
        """, path: "r.yaml")
    }
    h.config = try config("exit 1", "exit 2")
    func poller(_ config: Config) -> Poller {
      let runner = DeliveringActionRunner(
        notifier: KeptNotificationTests.SwitchableNotifier(), settings: config.settings, environment: [:],
        log: { _ in })
      return Poller(config: config, store: h.store, transport: CurlTransport(userAgent: "t"), runner: runner)
    }
    _ = poller(h.config).poll(h.config.feeds, force: true, now: PollerTests.now)
    let pending = try h.store.load(url: h.config.feeds[0].url).state.pending
    #expect(Set(pending.map(\.source)) == [.feed, .rule("feed 'test'")])
    let fixed = try config("echo feed >> \(dir)/feed.out", "echo rule >> \(dir)/rule.out")
    _ = poller(fixed).retryPending(fixed.feeds, now: PollerTests.now.addingTimeInterval(60))
    #expect(try String(contentsOfFile: "\(dir)/feed.out", encoding: .utf8) == "feed\n")
    #expect(try String(contentsOfFile: "\(dir)/rule.out", encoding: .utf8) == "rule\n")
  }
}

extension PendingRecordTests {
  /// A state directory holding what the release before wrote (Tests/Fixtures/State/release-0fd87cd).
  static func releaseState() throws -> (TemporaryDirectory, String) {
    let fixtures = Fixtures.url("State/release-0fd87cd")
    let dir = try TemporaryDirectory()
    let state = dir.url.appendingPathComponent("state").path
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.path) {
      try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent(name).path, toPath: state + "/" + name)
    }
    return (dir, state)
  }

  @Test("state files written by the release before load, and their actions run as they were decided")
  func upgradeFromRelease() throws {
    let (dir, state) = try Self.releaseState()
    let out = dir.url.path
    let config = try ConfigLoader.parse(
      """
      feeds:
        - url: /tmp/up/feed.xml
          name: news
          hook: 'env | grep ^WATCHER_ | sort > \(out)/feed.env'
      rules:
        - name: releases
          match: { title: Release }
          tag: release
          hook: 'env | grep ^WATCHER_ | sort > \(out)/releases.env'
        - name: argv
          match: { title: Release }
          hook: { run: [/bin/sh, -c, 'printf "%s|" "$@" > \(out)/argv.out', sh, "{title}", "{categories}"] }
        - name: ping
          match: { title: "" }
          notify: { summary: "{feed}: {title}", urgency: critical }
      """, path: "r.yaml")
    let store = try StateStore(directory: state)
    let kept = try store.keptNotifications()
    #expect(kept.count == 1 && kept[0].feed == "news")
    #expect(kept[0].action.source == .rule("ping") && kept[0].action.notification?.urgency == .critical)
    #expect(
      kept[0].action.notification?.summary == "news: Release 6.3" && kept[0].action.link == "https://example.org/r63")
    let before = try store.load(url: "/tmp/up/feed.xml").state
    #expect(before.pending.map(\.kind) == [.hook, .hook, .hook] && before.pending.allSatisfy { $0.attempts == 1 })
    let notifier = KeptNotificationTests.SwitchableNotifier()
    notifier.up.withLock { $0 = true }
    let runner = DeliveringActionRunner(notifier: notifier, settings: config.settings, environment: [:], log: { _ in })
    _ = Poller(config: config, store: store, transport: CurlTransport(userAgent: "t"), runner: runner)
      .retryPending(config.feeds, now: Date())
    // The rule's hook gets the variables its item was decided with.
    let releases = try String(contentsOfFile: out + "/releases.env", encoding: .utf8)
    for line in [
      "WATCHER_TITLE=Release 6.3", "WATCHER_RULE=releases", "WATCHER_TAGS=release", "WATCHER_ID=urn:r63",
      "WATCHER_CATEGORIES=a, b,c", "WATCHER_PUBLISHED=2026-11-28T10:00:00Z", "WATCHER_FEED=news",
    ] {
      #expect(releases.contains(line + "\n"), "\(line) in \(releases)")
    }
    // The feed's own hook, stored as the rule "feed 'news'", is the feed's: it runs the feed's hook now.
    #expect(try String(contentsOfFile: out + "/feed.env", encoding: .utf8).contains("WATCHER_RULE=feed 'news'\n"))
    // A run: hook is filled in from its item, whole (the release before gave "a,  b, c").
    #expect(try String(contentsOfFile: out + "/argv.out", encoding: .utf8) == "Release 6.3|a, b, c|")
    #expect(try store.load(url: "/tmp/up/feed.xml").state.pending.isEmpty)
    // The digest collected by that release (a separate poll of the same feed).
    let digests = try store.digests()
    #expect(digests.count == 1 && digests[0].rule == "morning" && digests[0].attempts == 0)
    #expect(digests[0].due == DateParser.parse("2026-12-02T08:00:00Z"))
    #expect(digests[0].items.map(\.key) == ["urn:r63"] && digests[0].items[0].title == "Release 6.3")
    #expect(ItemDocument(json: digests[0].items[0].item)?.item.categories == ["a, b", "c"])
    // Written back by this version, read back the same.
    try store.saveDigests(digests)
    #expect(try store.digests() == digests)
    try store.saveKept(kept)
    #expect(try store.keptNotifications() == kept)
  }
}
