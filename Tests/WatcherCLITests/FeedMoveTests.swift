// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// A feed's history follows it when its URL changes, and nothing published during the move is lost.
@Suite("Feed moves")
struct FeedMoveTests {
  /// An Atom feed of (id, title, published).
  static func atom(_ entries: [(String, String, Date)]) -> String {
    "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>F</title>"
      + entries.map {
        "<entry><id>\($0.0)</id><title>\($0.1)</title><link href=\"https://example.org/\($0.0)\"/>"
          + "<published>\(ISODate.format($0.2))</published></entry>"
      }.joined() + "</feed>"
  }

  @Test(
    "after a 301, editing the feed's url as watcher advises keeps its history: the post published meanwhile is announced, old ones are not",
    arguments: [false, true])
  func urlEdited(newIDs: Bool) throws {
    let now = WallClock.now()
    let old = [("a", "Post A", now - 86_400 * 30), ("b", "Post B", now - 86_400 * 20)]
    let moved = Locked(false)
    let server = try LoopbackHTTPServer { request in
      if request.path == "/old", moved.withLock({ $0 }) {
        return .init(status: 301, headers: [("Location", "/new")], body: Data())
      }
      // At the new address the same posts, under new ids when the site changed platform, and one new post.
      let prefix = request.path == "/new" && newIDs ? "new-" : ""
      let entries = old.map { ("\(prefix)\($0.0)", $0.1, $0.2) } + [("c", "Post C", now + 86_400)]
      return .ok(Self.atom(request.path == "/new" ? entries : old))
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let out = dir.url.appendingPathComponent("out").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    func write(_ path: String) throws {
      try """
      feeds:
        - { url: "\(server.url(path))", name: blog }
      rules:
        - { name: all, match: { title: '' }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(out)' }
      """.write(toFile: config, atomically: true, encoding: .utf8)
    }
    try write("/old")
    let state = dir.url.appendingPathComponent("state").path
    func poll(at offset: Int) throws -> String {
      var environment = ActionTests.noBus
      environment["WATCHER_CLOCK_OFFSET"] = "\(offset)"
      return try ActionTests.watcher(
        ["poll", "--all", "--config", config, "--state-dir", state], environment: environment
      ).1
    }
    let first = try poll(at: 0)
    #expect(first.contains("recorded silently"), "\(first)")
    moved.withLock { $0 = true }
    let redirected = try poll(at: 3_600)
    #expect(redirected.contains("moved permanently"), "\(redirected)")
    // The user follows the advice: the new URL in the config.
    try write("/new")
    let after = try poll(at: 2 * 86_400)
    #expect(after.contains("history came along"), "\(after)")
    let ran = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
    #expect(ran == "Post C\n", "\(ran)\n\(after)")
    // One state file: the old one moved, not orphaned.
    let files = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix("feed-") }
    #expect(files.count == 1, "\(files)")
  }
}
