// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherSupport
import WatcherTestSupport

/// Rules for every item of some feeds, a feed's own hook, and one notification per item.
@Suite("Every item, feed hooks, one notification per item")
struct EveryItemTests {
  static func config(_ text: String) throws -> Config { try ConfigLoader.parse(text, path: "t.yaml") }

  static let feeds = """
    feeds:
      - { url: https://example.com/a, name: a, tags: [news] }
      - { url: https://example.com/b, name: b, hook: 'echo "$WATCHER_TITLE" >> ~/b.log' }

    """

  @Test(
    "a rule scoped by feeds: may leave out match, or give match: {}; it is for every item of those feeds",
    arguments: ["", "    match: {}\n"])
  func everyItem(match: String) throws {
    let config = try Self.config(
      Self.feeds + "rules:\n  - name: all-news\n    feeds: [news]\n\(match)    tag: [seen]\n")
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    let item = FeedItem(key: "k", title: "anything at all")
    #expect(engine.evaluate(item, feed: config.feeds[0]).tags == ["news", "seen"])
    #expect(engine.evaluate(item, feed: config.feeds[1]).tags == [])
  }

  @Test("without a scope, a rule still needs a match, and says how to write every-item rules")
  func unscopedNeedsMatch() {
    #expect(throws: ConfigError.self) { try Self.config(Self.feeds + "rules:\n  - { name: r, tag: [x] }\n") }
    do {
      _ = try Self.config(Self.feeds + "rules:\n  - { name: r, match: true, tag: [x] }\n")
      Issue.record("match: true was accepted")
    } catch {
      #expect(
        (error as? ConfigError)?.rendered.contains(
          "for every item of some feeds, scope the rule with feeds: and leave out match") == true)
    }
  }

  @Test("a feed may carry hook: as it carries notify:, and it runs for every unmuted item")
  func feedHook() throws {
    let config = try Self.config(Self.feeds + "rules:\n  - { name: mute, match: { title: ad }, mute: true }\n")
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    let hooks = engine.evaluate(FeedItem(key: "k", title: "news"), feed: config.feeds[1]).hooks
    #expect(hooks.map(\.command) == ["echo \"$WATCHER_TITLE\" >> ~/b.log"])
    #expect(engine.evaluate(FeedItem(key: "k", title: "an ad"), feed: config.feeds[1]).hooks.isEmpty)
    #expect(engine.evaluate(FeedItem(key: "k", title: "news"), feed: config.feeds[0]).hooks.isEmpty)
  }

  @Test("two rules that notify one item make one notification: the first rule's texts, the highest urgency")
  func oneNotification() throws {
    let config = try Self.config(
      Self.feeds + """
        rules:
          - { name: first, match: { title: release }, notify: { summary: "first {title}", urgency: low } }
          - { name: second, match: { title: swift }, notify: { summary: "second {title}", urgency: critical } }
        """)
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify)
    let decision = engine.evaluate(FeedItem(key: "k", title: "Swift release"), feed: config.feeds[0])
    #expect(decision.notifications.count == 1)
    #expect(decision.notifications.first?.summary == "first Swift release")
    #expect(decision.notifications.first?.urgency == .critical)
    #expect(decision.notifications.first?.rule == "first")
    #expect(decision.notifications.first?.icon == "application-rss+xml")
  }
}
