// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherFeed
import WatcherRules
import WatcherSupport
import WatcherTestSupport

/// Every `Fixtures/Config/errors/<name>.yaml` is refused, and its full rendering (every diagnostic with position, source line, caret and notes) equals `<name>.stderr`.
///
/// A new pair is a new test.
@Suite("Config diagnostics")
struct ConfigDiagnosticTests {
  static let directory = Fixtures.url("Config/errors")

  static var cases: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
      .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted()
  }

  @Test("a broken config is refused with exactly this diagnostic", arguments: cases)
  func diagnostic(_ name: String) throws {
    let url = Self.directory.appendingPathComponent("\(name).yaml")
    let text = try String(contentsOf: url, encoding: .utf8)
    do {
      let config = try ConfigLoader.parse(text, path: "\(name).yaml")
      Issue.record("\(name).yaml was accepted: \(config.feeds.count) feeds, \(config.rules.count) rules")
    } catch {
      if let failure = Golden.check(error.rendered, against: Self.directory.appendingPathComponent("\(name).stderr")) {
        Issue.record(Comment(rawValue: failure))
      }
    }
  }

  @Test("a missing config names the paths tried and how to start")
  func notFound() throws {
    let dir = try TemporaryDirectory()
    let environment = ["HOME": "/home/u", "XDG_CONFIG_HOME": dir.url.path]
    let path = ConfigLocator.candidates(explicit: nil, environment: environment)[0]
    #expect(path == dir.url.path + "/watcher/rules.yaml")
    #expect(
      ConfigLocator.candidates(explicit: nil, environment: ["HOME": "/home/u"]) == [
        "/home/u/.config/watcher/rules.yaml"
      ])
    #expect(ConfigLocator.candidates(explicit: nil, environment: ["WATCHER_CONFIG": "/etc/w.yaml"]) == ["/etc/w.yaml"])
    #expect(ConfigLocator.candidates(explicit: "x.yaml", environment: ["WATCHER_CONFIG": "/etc/w.yaml"]) == ["x.yaml"])
    #expect(throws: ConfigError.notFound(tried: [path])) { try ConfigLoader.load(path: path) }
    #expect(ConfigError.notFound(tried: [path]).rendered.contains("watcher init"))
  }

  @Test("a 10 MB config loads in bounded time and memory")
  func largeConfig() throws {
    var text = "feeds:\n"
    var index = 0
    while text.utf8.count < 10_000_000 {
      text += "  - url: https://example.com/feeds/\(index)\n    name: feed-\(index)\n    tags: [a, b, c]\n"
      index += 1
    }
    let config = try ConfigLoader.parse(text, path: "big.yaml")
    #expect(config.feeds.count == index)
  }
}

@Suite("Config loading")
struct ConfigLoadingTests {
  @Test("anchors and aliases work, defaults apply, durations and sizes are read")
  func anchorsAndValues() throws {
    let yaml = """
      settings:
        interval: 1h30m
        max_size: 5MiB
        first_poll: latest 3
        max_age: none
        notify: { urgency: low, expire: 2m, max_per_poll: 9 }
      feeds:
        - &base { url: https://a.example/feed, tags: [shared] }
        - { url: https://b.example/feed, name: b, identity: link, notify: true }
      rules:
        - name: first
          match: &releases { any: [{ category: release }, { title: { regex: 'v[0-9]+' } }] }
          tag: [release]
        - name: second
          match: *releases
          hook: { command: 'echo "$WATCHER_TITLE"', timeout: 5s }
      """
    let config = try ConfigLoader.parse(yaml, path: "ok.yaml")
    #expect(config.settings.interval == 5_400)
    #expect(config.settings.maxBytes == 5 * 1_048_576)
    #expect(config.settings.firstPoll == .latest(3))
    #expect(config.settings.maxAge == nil)
    #expect(config.settings.notify.urgency == .low && config.settings.notify.expire == 120)
    #expect(config.feeds.map(\.name) == ["a-example-feed", "b"])
    #expect(config.feeds[1].identity == .link && config.feeds[1].notify)
    #expect(config.rules.count == 2)
    #expect(config.rules[1].actions.hook == HookAction(command: "echo \"$WATCHER_TITLE\"", timeout: 5))
    let engine = RuleEngine(rules: config.rules)
    let decision = engine.evaluate(FeedItem(key: "k", title: "v12 is out"), feed: config.feeds[0])
    #expect(decision.tags == ["shared", "release"])
    #expect(decision.hooks.map(\.rule) == ["second"])
  }

  @Test("a relative feed path is relative to the config file")
  func relativePaths() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - url: feeds/news.xml\n  - url: /abs/path.xml\n  - url: https://x.example/f\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    let config = try ConfigLoader.load(path: path)
    #expect(config.feeds[0].url == dir.url.appendingPathComponent("feeds/news.xml").path)
    #expect(config.feeds[1].url == "/abs/path.xml")
    #expect(config.feeds[2].url == "https://x.example/f")
  }
}
