// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherRules

/// The limits the rule engine keeps on hostile item text (the others are in `LimitsTests`).
@Suite("Limits of the rules")
struct RuleLimitsTests {
  static let huge = String(repeating: "é", count: 600_000)  // 1.2 MB of two-byte characters

  @Test("notification titles and bodies are cut, whatever the feed or the template holds")
  func notificationText() throws {
    let item = FeedItem(key: "k", title: Self.huge, text: Self.huge)
    let plain = try RuleEngineTests.decide("  - { match: { title: é }, notify: true }", item)
    #expect(plain.notifications[0].summary.count == RuleEngine.maxSummaryCharacters)
    #expect(plain.notifications[0].body.count == 200)
    let templated = try RuleEngineTests.decide(
      "  - { match: { title: é }, notify: { summary: '{title}', body: '{text} {text}' } }", item)
    #expect(templated.notifications[0].summary.count == RuleEngine.maxSummaryCharacters)
    #expect(templated.notifications[0].body.count == RuleEngine.maxBodyCharacters)
    #expect(templated.notifications[0].body.hasSuffix("…"))
  }

  @Test("a user's regex over a hostile 1 MB item text decides without a match (linear-time engine)")
  func regexOverHugeText() throws {
    let item = FeedItem(key: "k", title: "t", text: String(repeating: "a", count: 1 << 20))
    let rules =
      "  - { match: { text: { regex: '(a+)+b' } }, tag: [hit] }\n  - { match: { text: { regex: 'a+$' } }, tag: [end] }"
    #expect(try RuleEngineTests.decide(rules, item).tags == ["end"])
  }
}
