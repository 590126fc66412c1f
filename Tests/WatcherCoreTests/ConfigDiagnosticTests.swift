// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherCore
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
    #expect(ConfigError.notFound(tried: [path]).rendered.contains("cp rules.example.yaml"))
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
