// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// `watcher items FEED`: what a feed publishes, acted on or not, and why.
@Suite("items")
struct ItemsCommandTests {
  static func feed(_ titles: [String]) -> String {
    "<rss version=\"2.0\"><channel><title>F</title>"
      + titles.enumerated().map { "<item><title>\($1)</title><guid>g\($0)</guid></item>" }.joined()
      + "</channel></rss>"
  }

  @Test("each item says whether it was acted on, and why not: muted, no rule, new; --json and --since")
  func items() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let state = dir.url.appendingPathComponent("state").path
    try """
    settings: { first_poll: all, max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: quiet, match: { title: beta }, mute: true }
      - { name: hit, match: { title: alpha }, hook: 'true' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    try Self.feed(["alpha one", "beta two", "delta three"]).write(toFile: feed, atomically: true, encoding: .utf8)
    #expect(run(["poll", "--config", config, "--state-dir", state]).0 == 0)
    try Self.feed(["alpha one", "beta two", "delta three", "alpha four"])
      .write(toFile: feed, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["items", "f", "--config", config, "--state-dir", state])
    #expect(code == 0, "\(err)")
    let blocks = out.components(separatedBy: "\n").filter { !$0.hasPrefix("      ") }
    #expect(blocks.contains { $0.hasPrefix("alpha one  [seen ") }, "\(out)")
    #expect(out.contains("    acted on: hook (rules 'hit')"), "\(out)")
    #expect(out.contains("    not acted on: muted by rule 'quiet'"), "\(out)")
    #expect(out.contains("    not acted on: no rule matched it"), "\(out)")
    #expect(out.contains("alpha four  [not seen yet]\n    new: the next poll will run a hook (rules 'hit')"), "\(out)")
    #expect(out.contains("hook (rule 'hit'): exit 0"), "the journal's entry is shown: \(out)")

    let json = run(["items", "f", "--config", config, "--state-dir", state, "--json"]).1
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let rows = try #require(object["items"] as? [[String: Any]])
    #expect(rows.map { $0["status"] as? String } == ["acted on", "not acted on", "not acted on", "new"])
    #expect((rows[0]["actions"] as? [Any])?.count == 1 && rows[3]["first_seen"] is NSNull)

    let later = run(["items", "f", "--config", config, "--state-dir", state, "--since", "2099-01-01"])
    #expect(later.0 == 0 && later.1.contains("f: no items since then (4 in the feed)"), "\(later)")
    let unknown = run(["items", "g", "--config", config, "--state-dir", state])
    #expect(unknown.0 == 64 && unknown.2.contains("no feed named 'g'"), "\(unknown)")
  }

  @Test("an item acted on names the rules that acted, not a rule added since that matches it now")
  func rulesThatActed() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let state = dir.url.appendingPathComponent("state").path
    let rules = """
      settings: { first_poll: all, max_age: none }
      feeds:
        - { url: \(feed), name: f }
      rules:
        - { name: hit, match: { title: alpha }, hook: 'true' }

      """
    try rules.write(toFile: config, atomically: true, encoding: .utf8)
    try Self.feed(["alpha one"]).write(toFile: feed, atomically: true, encoding: .utf8)
    #expect(run(["poll", "--config", config, "--state-dir", state]).0 == 0)
    try (rules + "  - { name: later, match: { title: one }, hook: 'true' }\n")
      .write(toFile: config, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["items", "f", "--config", config, "--state-dir", state])
    #expect(code == 0, "\(err)")
    #expect(out.contains("    acted on: hook (rules 'hit')\n"), "\(out)")
    #expect(!out.contains("'later'"), "\(out)")
  }
}
