// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherConfig

/// `score` in a rule's match: the learned score's bounds, checked as the config loads.
@Suite("Rules on the learned score")
struct ScoreConfigTests {
  func errors(_ yaml: String) -> String { FetchConfigTests().errors(yaml) }

  @Test("above, below or both; bounds from 0 to 1; a rule muting on a score is warned about")
  func bounds() throws {
    let config = try ConfigLoader.parse(
      """
      feeds: [{ url: https://a.example/f, name: a }]
      rules:
        - { name: high, match: { score: { above: 0.7 } }, notify: true }
        - { name: middle, match: { score: { above: 0.3, below: 0.7 } }, tag: [maybe] }
      """, path: "c.yaml")
    #expect(config.rules.allSatisfy { $0.condition.testsScore })
    #expect(
      errors("feeds: []\nrules:\n  - { name: r, match: { score: { above: 1.5 } }, notify: true }")
        .contains("'score.above' must be a number from 0 to 1"))
    #expect(
      errors("feeds: []\nrules:\n  - { name: r, match: { score: {} }, notify: true }")
        .contains("'score' needs 'above' or 'below'"))
    let muting = try ConfigLoader.parse(
      "feeds: []\nrules:\n  - { name: r, match: { score: { below: 0.2 } }, mute: true }", path: "c.yaml")
    #expect(muting.notices.contains { $0.message.contains("mutes items by their learned score") })
  }
}
