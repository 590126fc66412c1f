// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherActions
import WatcherSupport
import WatcherTestSupport

/// Stories across feeds through the built binary: feeds on a loopback HTTP server carrying one story, a
/// real notification server, real hooks.
@Suite("Stories across feeds, end to end", .serialized)
struct StoryTests {
  /// Four feeds served from files of `dir` by a loopback server; each starts with an ordinary post of its
  /// own, and `add` puts a new item in one of them.
  struct Feeds {
    let dir: String
    let server: LoopbackHTTPServer
    static let names = ["ars", "verge", "hn", "lwn"]

    init(dir: String) throws {
      self.dir = dir
      server = try LoopbackHTTPServer { request in
        .ok(
          (try? String(contentsOfFile: dir + request.path, encoding: .utf8)) ?? "",
          headers: [
            ("Content-Type", "application/rss+xml")
          ])
      }
      let ordinary = [
        "Weekly recipe: roasted pumpkin soup", "City council approves bike lanes", "Kernel merge window opens",
        "Ten tips for better sleep",
      ]
      for (name, title) in zip(Self.names, ordinary) {
        try write(name, items: "<item><title>\(title)</title><guid>\(name)-0</guid></item>")
      }
    }

    func write(_ name: String, items: String) throws {
      try "<rss version=\"2.0\"><channel><title>\(name)</title>\(items)</channel></rss>"
        .write(toFile: "\(dir)/\(name).xml", atomically: true, encoding: .utf8)
    }

    /// A shell line that adds an item to a feed's file.
    func add(_ name: String, _ title: String) -> String {
      let item =
        "<item><title>\(title)</title><guid>\(name)-\(abs(title.hashValue))</guid>"
        + "<link>https://\(name).example/\(title.count)</link></item>"
      return "sed -i 's|</channel>|\(item)</channel>|' '\(dir)/\(name).xml'"
    }

    var config: String {
      "feeds:\n"
        + Self.names.map { "  - { name: \($0), url: 'http://127.0.0.1:\(server.port)/\($0).xml' }" }
        .joined(separator: "\n")
    }
  }

  @Test(
    "one story in several feeds: one bubble updated in place, hooks per item, the spread trigger fires once",
    .enabled(
      if: NotificationTests.available || NotificationTests.inCI,
      "Xvfb, dbus-run-session and dunst are not installed (CI installs them)"))
  func oneBubble() throws {
    let temporary = try TemporaryDirectory()
    let path = temporary.url.path
    let feeds = try Feeds(dir: path)
    try """
    settings: { first_poll: silent, max_age: none, state_dir: '\(path)/state' }
    \(feeds.config)
    rules:
      - name: firefox
        match: { title: firefox }
        notify: { summary: "{title}", body: "{feed}" }
        hook: 'printf "%s\\n" "$WATCHER_FEED" >> "\(path)/hooks.log"'
      - name: big
        match: { story: { feeds: 3, within: 6h } }
        hook: 'printf "big %s\\n" "$WATCHER_FEED" >> "\(path)/big.log"'
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    func poll(_ step: Int) -> String {
      "WATCHER_CLOCK_OFFSET=\(step * 1_800) '\(binary.path)' poll --all --config '\(path)/rules.yaml'"
    }
    try """
    set -e
    \(poll(0))
    \(feeds.add("ars", "Mozilla releases Firefox 150 with vertical tabs"))
    \(poll(1))
    \(feeds.add("verge", "Firefox 150 arrives with vertical tabs built in"))
    \(poll(2))
    \(feeds.add("hn", "Firefox 150 release notes: vertical tabs and more"))
    \(poll(3))
    test "$(dunstctl count displayed)" = 1
    \(feeds.add("lwn", "Firefox 150 brings vertical tabs"))
    \(poll(4))
    test "$(dunstctl count displayed)" = 1
    """.write(toFile: "\(path)/polls.sh", atomically: true, encoding: .utf8)
    let history = "\(path)/history.json"
    let script = Fixtures.url("notify-e2e.sh", target: "WatcherCLITests").path
    let result = HookRunner.run(
      command: "/bin/bash '\(script)' '\(history)' -- /bin/bash -x '\(path)/polls.sh'",
      environment: ProcessInfo.processInfo.environment, input: Data(), timeout: 60)
    #expect(result.succeeded, "\(result)")
    #expect(try String(contentsOfFile: history + ".status", encoding: .utf8) == "0\n", "\(result.stderrTail)")
    let shown = try NotificationTests.history(history)
    #expect(shown.map(\.0) == ["Mozilla releases Firefox 150 with vertical tabs"], "\(shown)")
    #expect(shown.first?.1 == "ars\n\nAlso in verge, hn, lwn — 4 feeds", "\(shown)")
    // Every item's hook ran (one per item by default); the spread trigger once, on the third feed's item.
    #expect(try String(contentsOfFile: "\(path)/hooks.log", encoding: .utf8) == "ars\nverge\nhn\nlwn\n")
    #expect(try String(contentsOfFile: "\(path)/big.log", encoding: .utf8) == "big hn\n")
    // `watcher stories` lists the story with its feeds; --explain says what they share.
    let listed = try ChildProcess.run(binary, ["stories", "--config", "\(path)/rules.yaml", "--explain"])
    #expect(listed.status == 0)
    #expect(listed.output.contains("4 feeds") && listed.output.contains("(fired: big)"), "\(listed.output)")
    #expect(listed.output.contains("joined story") && listed.output.contains("'firefox'"), "\(listed.output)")
    let log = try ChildProcess.run(binary, ["log", "--config", "\(path)/rules.yaml"])
    #expect(log.output.contains("grouped into a story across feeds"), "\(log.output)")
    // `items` says which story an item joined and why.
    let items = try ChildProcess.run(binary, ["items", "verge", "--config", "\(path)/rules.yaml"])
    #expect(items.output.contains("(4 feeds: ars, verge, hn, lwn): joined story"), "\(items.output)")
  }

  @Test("dedupe: story runs a rule's hook once per story; stories: false keeps a feed out")
  func oncePerStory() throws {
    let temporary = try TemporaryDirectory()
    let path = temporary.url.path
    let feeds = try Feeds(dir: path)
    try """
    settings: { first_poll: silent, max_age: none, state_dir: '\(path)/state' }
    \(feeds.config)
      - { name: own, url: '\(path)/own.xml', stories: false }
    rules:
      - name: firefox
        match: { title: firefox }
        hook: 'printf "%s\\n" "$WATCHER_FEED" >> "\(path)/hooks.log"'
        dedupe: story
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    try feeds.write("own", items: "")
    let binary = try #require(BinaryTests.binary)
    let own = Feeds(dir: path, server: feeds.server)
    try """
    set -e
    '\(binary.path)' poll --all --config '\(path)/rules.yaml'
    \(feeds.add("ars", "Mozilla releases Firefox 150 with vertical tabs"))
    \(feeds.add("verge", "Firefox 150 arrives with vertical tabs built in"))
    \(own.add("own", "Firefox 150 arrives with vertical tabs built in"))
    WATCHER_CLOCK_OFFSET=1800 '\(binary.path)' poll --all --config '\(path)/rules.yaml'
    """.write(toFile: "\(path)/polls.sh", atomically: true, encoding: .utf8)
    let result = HookRunner.run(
      command: "/bin/bash '\(path)/polls.sh'", environment: ProcessInfo.processInfo.environment, input: Data(),
      timeout: 60)
    #expect(result.succeeded, "\(result)")
    // The hooks of a pass's feeds run together: in any order.
    let ran = try String(contentsOfFile: "\(path)/hooks.log", encoding: .utf8).split(separator: "\n").sorted()
    #expect(ran == ["ars", "own"], "verge's item is ars's story (dedupe: story); own is left out of stories")
    let log = try ChildProcess.run(binary, ["log", "--config", "\(path)/rules.yaml"])
    #expect(log.output.contains("dedupe: story"), "\(log.output)")
  }

  @Test("stories --jsonl groups JSON lines read in time order, and says why with --explain")
  func jsonl() throws {
    let lines = [
      #"{"id":"1","feed":"Ars","title":"Mozilla releases Firefox 150 with vertical tabs","published":"2026-01-01T10:00:00Z"}"#,
      #"{"id":"2","feed":"Cook","title":"Weekly recipe: roasted pumpkin soup","published":"2026-01-01T10:05:00Z"}"#,
      #"{"id":"3","feed":"Verge","title":"Firefox 150 arrives with vertical tabs built in","published":"2026-01-01T10:10:00Z"}"#,
      "",
      "not json",
    ]
    let binary = try #require(BinaryTests.binary)
    let result = try ChildProcess.run(
      binary, ["stories", "--jsonl", "--explain"], stdin: Data(lines.joined(separator: "\n").utf8))
    #expect(result.status == 0)
    // Lines are counted as an editor counts them, blank ones too.
    #expect(result.errors.contains("line 5:"), "\(result.errors)")
    let out: [[String: Any]?] = result.output.split(separator: "\n").map {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    #expect(out.count == 3)
    let clusters = out.map { $0?["cluster"] as? Int }
    #expect(clusters[0] == clusters[2] && clusters[0] != clusters[1])
    #expect((out[2]?["why"] as? String)?.contains("joined story") == true)
  }

  @Test(
    "stories --jsonl: a story found to be a big one is printed as that one, with the story its items came to first; sections keep stories apart"
  )
  func jsonlBigStories() throws {
    let titles: [(String, String, String)] = [
      ("Reuters", "b", "Oil prices ease on weak trade data"), ("WSJ", "b", "Copper falls to a four-year low"),
      ("IGN", "t", "Titanfall live-action film teased by Respawn"),
      ("VG247", "t", "Respawn teases a live-action Titanfall film"),
      ("Kotaku", "t", "A live-action Titanfall film is coming, Respawn says"),
      ("PC Gamer", "t", "Titanfall preload opens on PC through Origin"),
      ("Polygon", "t", "PC players can preload Titanfall now"),
      ("Eurogamer", "t", "Titanfall PC preload is live on Origin"),
      ("Bloomberg", "b", "Respawn teases a live-action Titanfall film"),
    ]
    var lines: [String] = []
    for (index, (feed, section, title)) in titles.enumerated() {
      lines.append(
        #"{"id":"\#(index)","feed":"\#(feed)","category":"\#(section)","title":"\#(title)","published":"2026-01-01T10:\#(10 + index):00Z"}"#
      )
    }
    let binary = try #require(BinaryTests.binary)
    let result = try ChildProcess.run(
      binary, ["stories", "--jsonl", "--explain"], stdin: Data(lines.joined(separator: "\n").utf8))
    #expect(result.status == 0, "\(result)")
    var byID: [String: [String: Any]] = [:]
    for line in result.output.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      byID[try #require(object["id"] as? String)] = object
    }
    let cluster = { (id: String) in byID[id]?["cluster"] as? Int }
    let arrival = { (id: String) in byID[id]?["cluster_at_arrival"] as? Int }
    #expect(cluster("2") == cluster("3") && cluster("3") == cluster("4"))
    // The preload story came to three feeds as a big one read like it: all of it is that story now.
    #expect(cluster("5") == cluster("2") && cluster("6") == cluster("2") && cluster("7") == cluster("2"))
    #expect(arrival("5") != nil && arrival("5") == arrival("6") && arrival("5") != cluster("2"))
    #expect(arrival("7") == nil, "the item that made it big joined the big story when it came")
    #expect((byID["7"]?["why"] as? String)?.contains("through story") == true, "\(byID["7"] ?? [:])")
    #expect(arrival("2") == nil && arrival("3") == nil)
    // Filed under another section the feeds share: not the same story, whatever its words.
    #expect(cluster("8") != cluster("2"))
    #expect((byID["8"]?["why"] as? String)?.contains("filed under 'b'") == true, "\(byID["8"] ?? [:])")
  }
}

extension StoryTests.Feeds {
  init(dir: String, server: LoopbackHTTPServer) {
    self.dir = dir
    self.server = server
  }
}
