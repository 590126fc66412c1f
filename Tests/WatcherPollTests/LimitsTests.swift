// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

@testable import WatcherActions
@testable import WatcherConfig
@testable import WatcherFeed
@testable import WatcherFetch
@testable import WatcherXML

/// The limits that bound memory and time for hostile feed content (issue #7).
///
/// SECURITY.md lists them all.
/// Body size: `HostileInputTests` and `CurlTransportTests`; hook output: `HookRunnerTests`; regex time:
/// `LinearRegexTests`.
@Suite("Limits")
struct LimitsTests {
  static func rss(items: Int, categories: Int = 1, id: (Int) -> String = { "id-\($0)" }) -> Data {
    var xml = "<rss version=\"2.0\"><channel><title>t</title>"
    for i in 0..<items {
      let cats = (0..<categories).map { "<category>c\($0)</category>" }.joined()
      xml += "<item><title>item \(i)</title><guid>\(id(i))</guid>\(cats)</item>"
    }
    return Data((xml + "</channel></rss>").utf8)
  }

  @Test("items past max_items are ignored, with a warning; the setting is read from the config")
  func itemCount() throws {
    let parsed = try FeedParser.parse(Self.rss(items: 25), options: .init(maxItems: 10))
    #expect(parsed.feed.items.map(\.key) == (0..<10).map { "id-\($0)" })
    #expect(parsed.warnings.contains { $0.message.contains("has 25 items; only the first 10 were read") })
    #expect(try FeedParser.parse(Self.rss(items: 25)).feed.items.count == 25)
    let config = try ConfigLoader.parse(
      "settings:\n  max_items: 10\nfeeds:\n  - url: https://e.com/f\n", path: "c.yaml")
    #expect(config.settings.maxItems == 10 && FeedParser.options(config.settings).maxItems == 10)
    #expect(FeedParser.options(Settings()).maxItems == 10_000)
  }

  @Test("categories past 100 per item are ignored, with a warning")
  func categoryCount() throws {
    let parsed = try FeedParser.parse(Self.rss(items: 2, categories: 5_000))
    #expect(parsed.feed.items.allSatisfy { $0.categories.count == 100 })
    #expect(parsed.warnings.contains { $0.message.contains("2 item(s) had more than 100 categories") })
  }

  @Test("an id longer than 1 KiB is stored as its hash, so state files stay small; distinct ids stay distinct")
  func longIdentifiers() throws {
    let long = String(repeating: "x", count: 100_000)
    let parsed = try FeedParser.parse(Self.rss(items: 3) { $0 == 0 ? "short" : long + "\($0)" })
    let keys = parsed.feed.items.map(\.key)
    #expect(keys[0] == "short")
    #expect(keys[1].hasPrefix("hash:") && keys[1].utf8.count < 64 && keys[1] != keys[2])
    #expect(
      try FeedParser.parse(Self.rss(items: 3) { $0 == 0 ? "short" : long + "\($0)" }).feed.items.map(\.key) == keys)
  }

  static let huge = String(repeating: "é", count: 600_000)  // 1.2 MB of two-byte characters

  @Test("a hook still runs for an item with megabytes of text: variables are cut at 64 KiB, stdin is whole")
  func hookOfHugeItem() throws {
    let dir = try TemporaryDirectory()
    let feed = FeedConfig(url: "https://e.com/f", name: "f")
    let item = FeedItem(key: "k", title: Self.huge, text: Self.huge)
    var environment = Dictionary(
      uniqueKeysWithValues: HookEnvironment.variables(item: item, feed: feed, rule: "r", tags: []))
    #expect(environment.values.allSatisfy { $0.utf8.count <= HookEnvironment.maxValueBytes })
    #expect(environment["WATCHER_TITLE"]?.utf8.count == HookEnvironment.maxValueBytes)  // whole 2-byte characters
    #expect(environment["WATCHER_TITLE"]?.unicodeScalars.allSatisfy { $0 == "é" } == true)
    environment["PATH"] = "/usr/bin:/bin"
    let out = dir.url.appendingPathComponent("out").path
    let input = Data(Self.huge.utf8)
    let result = HookRunner.run(
      command: "printf '%s' \"$WATCHER_TEXT\" | wc -c > '\(out)'; wc -c >> '\(out)'", environment: environment,
      input: input, timeout: 20)
    #expect(result.succeeded, "\(result)")
    let counts = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    #expect(counts == ["\(HookEnvironment.maxValueBytes)", "\(input.count)"])
  }

  @Test("gzip bombs stop at the size cap: compressed over HTTP and as a saved .gz document")
  func gzipBombs() throws {
    // 10 MB of zeros, about 10 KB compressed, by the real gzip.
    let dir = try TemporaryDirectory()
    let path = dir.url.appendingPathComponent("bomb.gz").path
    _ = try ChildProcess.run("/bin/sh", ["-c", "head -c 10000000 /dev/zero | gzip -c > '\(path)'"])
    let bomb = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bomb.count < 100_000)
    #expect(throws: FeedParseError.tooLarge(limit: 1_000_000)) {
      try FeedParser.parse(bomb, options: .init(maxBytes: 1_000_000))
    }
    let server = try LoopbackHTTPServer { _ in .init(status: 200, headers: [("Content-Encoding", "gzip")], body: bomb) }
    let result = CurlTransport(userAgent: "t").fetch(
      [FetchRequest(url: server.url("/"), maxBytes: 1_000_000)], concurrency: 1)[0]
    #expect(result == .failure(.tooLarge(limit: 1_000_000)))
  }

  @Test("terminal control characters in any field become spaces (JSON escapes, C1 controls in XML)")
  func controlCharacters() throws {
    let json = #"""
      {"version": "https://jsonfeed.org/version/1.1", "title": "T\u001b]0;pwned\u0007",
       "items": [{"id": "1\u001b[2J", "title": "a\u001b[2Jb\u009b31mc", "content_text": "x\u001b[31my\nz\tw",
                  "authors": [{"name": "\u0000eve"}], "tags": ["\u007fdel"], "url": "https://e.com/\u001b"}]}
      """#
    let parsed = try FeedParser.parse(Data(json.utf8))
    let item = try #require(parsed.feed.items.first)
    let fields =
      [parsed.feed.title, item.key, item.title, item.text, item.author, item.link] + item.categories.map { $0 }
    for field in fields {
      let value = try #require(field)
      #expect(
        !value.unicodeScalars.contains {
          $0.value < 0x20 && $0 != "\n" && $0 != "\t" || (0x7F...0x9F).contains($0.value)
        }, "\(value.debugDescription)")
    }
    #expect(item.title == "a [2Jb 31mc" && item.text?.hasPrefix("x [31my") == true)
    let xml =
      "<rss version=\"2.0\"><channel><item><title>a\u{9B}31mb&#155;c</title><guid>g</guid></item></channel></rss>"
    #expect(try FeedParser.parse(Data(xml.utf8)).feed.items.first?.title == "a 31mb c")
  }

  @Test("the fast control-character scan agrees with a plain one at every position")
  func controlScan() {
    let fillers = ["a", "\n", "\t", "\r", "\u{A0}", "é", "日"]
    let controls = ["\u{1B}", "\u{0}", "\u{7F}", "\u{80}", "\u{9B}", "\u{9F}"]
    for length in 0..<20 {
      let base = (0..<length).map { fillers[$0 % fillers.count] }
      #expect(!ControlCharacters.contains(base.joined()), "\(base)")
      for position in 0...length {
        for control in controls {
          var text = base
          text.insert(control, at: position)
          #expect(ControlCharacters.contains(text.joined()), "\(text)")
        }
      }
    }
  }
}
