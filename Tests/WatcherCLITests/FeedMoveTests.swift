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

/// A new post is never taken for a known one on evidence that does not name exactly one known item.
@Suite("No new post lost to resemblance")
struct NoLostPostTests {
  /// Polls `feeds` (each a list of (guid, title, link)) in turn with a hook on every item; the titles the
  /// hook ran for at each poll after the first.
  ///
  /// With `dated`, each item is published on a day its title names (the number in it).
  static func announced(
    _ polls: [[(String, String, String)]], dated: Bool = false, in given: TemporaryDirectory? = nil
  ) throws -> [[String]] {
    let dir = try given ?? TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let out = dir.url.appendingPathComponent("out").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    settings: { max_age: none }
    feeds:
      - { url: \(feed), name: f }
    rules:
      - { name: all, match: { title: '' }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(out)' }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    var result: [[String]] = []
    for (index, items) in polls.enumerated() {
      try
        ("<rss version=\"2.0\"><channel><title>F</title>"
        + items.map {
          "<item><guid isPermaLink=\"false\">\($0.0)</guid><title>\($0.1)</title><link>\($0.2)</link>"
            + (dated ? "<pubDate>\(Self.day(of: $0.1)) Jan 2026 10:00:00 GMT</pubDate>" : "") + "</item>"
        }
        .joined() + "</channel></rss>").write(toFile: feed, atomically: true, encoding: .utf8)
      unlink(out)
      _ = try ActionTests.watcher(
        ["poll", "--all", "--config", config, "--state-dir", dir.url.appendingPathComponent("state").path],
        environment: ActionTests.noBus)
      if index > 0 {
        // Sorted: hooks run side by side.
        let ran = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        result.append(ran.split(separator: "\n").map(String.init).sorted())
      }
    }
    return result
  }

  /// The day of January an item titled with a number is published on.
  static func day(of title: String) -> Int { (Int(title.filter(\.isNumber)) ?? 0) % 28 + 1 }

  @Test("a changelog whose entries link to one page with anchors: two new releases are both announced")
  func changelogAnchors() throws {
    let page = "https://example.org/changelog"
    let old = (1...5).map { ("rel-1.\($0)", "Version 1.\($0)", "\(page)#v1.\($0)") }
    let new = [("rel-1.6", "Version 1.6", "\(page)#v1.6"), ("rel-1.7", "Version 1.7", "\(page)#v1.7")]
    let ran = try Self.announced([old, new + old, new + old])
    #expect(ran == [["Version 1.6", "Version 1.7"], []], "\(ran)")
  }

  @Test("a status feed whose incidents all link to the home page: each new incident is announced")
  func statusHomePage() throws {
    let home = "https://status.example.org/"
    let old = (1...3).map { ("incident-\($0)", "Incident \($0)", home) }
    let new = [("incident-4", "Incident 4", home), ("incident-5", "Incident 5", home)]
    let ran = try Self.announced([old, new + old, new + old])
    #expect(ran == [["Incident 4", "Incident 5"], []], "\(ran)")
    // Even when the old ones have left the feed: a link many known items share names none of them.
    let later = try Self.announced([old, [("incident-6", "Incident 6", home)]])
    #expect(later == [["Incident 6"]], "\(later)")
  }

  @Test("a guid that changes while the link stays (and names one item) is still recognised, not announced")
  func churnStillRecognised() throws {
    let old = (1...3).map { ("id-a-\($0)", "Post \($0)", "https://example.org/p/\($0)") }
    let churned = (1...3).map { ("id-b-\($0)", "Post \($0)", "https://example.org/p/\($0)") }
    let ran = try Self.announced([old, churned])
    #expect(ran == [[]], "\(ran)")
  }

  @Test("'changed its item ids' is a notification only wholesale; one item re-keyed stays in the journal")
  func healthOnlyWholesale() throws {
    let dir = try TemporaryDirectory()
    let feed = dir.url.appendingPathComponent("feed.xml").path
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "settings: { max_age: none }\nfeeds:\n  - { url: \(feed), name: f }\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    func poll(_ prefix: (Int) -> String) throws -> String {
      try
        ("<rss version=\"2.0\"><channel><title>F</title>"
        + (1...12).map {
          "<item><guid isPermaLink=\"false\">\(prefix($0))\($0)</guid><title>P\($0)</title>"
            + "<link>https://example.org/p/\($0)</link></item>"
        }.joined() + "</channel></rss>").write(
          toFile: feed, atomically: true, encoding: .utf8)
      return try ActionTests.watcher(
        ["poll", "--all", "--config", config, "--state-dir", dir.url.appendingPathComponent("state").path],
        environment: ActionTests.noBus
      ).1
    }
    _ = try poll { _ in "a-" }
    let one = try poll { $0 == 1 ? "b-" : "a-" }
    #expect(one.contains("1 item re-keyed") && !one.contains("notification is kept"), "\(one)")
    let all = try poll { _ in "c-" }
    #expect(all.contains("12 items re-keyed") && all.contains("1 notification is kept"), "\(all)")
  }

  @Test(
    "links (and ids) spelled another way — percent-escapes or UTF-8, host case, an IDNA host, &amp; — are the same posts; the new one is announced",
    arguments: [
      ("https://Example.ORG/caf%C3%A9-", "https://example.org/café-"),
      ("https://xn--caf-dma.example/p/", "https://café.example/p/"),
      ("https://example.org/?lang=de&amp;p=", "https://example.org/?lang=de&p="),
    ])
  func spellings(before: String, after: String) throws {
    let old = (1...4).map { ("\(before)\($0)", "Post \($0)", "\(before)\($0)") }
    let respelled = (1...4).map { ("\(after)\($0)", "Post \($0)", "\(after)\($0)") }
    let ran = try Self.announced([old, [("\(after)5", "Post 5", "\(after)5")] + respelled])
    #expect(ran == [["Post 5"]], "\(ran)")
  }

  @Test("a dropped feed proxy (every link and id changes, titles and dates stay) is a migration: only the new post")
  func droppedProxy() throws {
    let old = (1...6).map {
      ("https://blog.example/?p=\($0)", "Post \($0)", "https://proxy.example/~r/blog/~3/x\($0)/")
    }
    let moved = (1...6).map { ("https://blog.example/post-\($0)/", "Post \($0)", "https://blog.example/post-\($0)/") }
    let new = ("https://blog.example/post-7/", "Post 7", "https://blog.example/post-7/")
    let ran = try Self.announced([old, [new] + moved, [new] + moved], dated: true)
    #expect(ran == [["Post 7"], []], "\(ran)")
  }

  @Test("titles alone never make a migration: a weekly series under one title on new dates is announced")
  func sameTitleNewDates() throws {
    let old = (1...3).map { ("w\($0)", "Weekly notes \($0)", "https://example.org/w/\($0)") }
    // Every id and link new; same title words, other days: new posts, not the old ones.
    let next = (11...14).map { ("v\($0)", "Weekly notes \($0)", "https://example.org/v/\($0)") }
    let ran = try Self.announced([old, next], dated: true)
    #expect(ran == [next.map(\.1).sorted()], "\(ran)")
  }

  @Test(
    "the decision is visible: items and log say which new item resembled a known one and why it was announced, and which was taken for which"
  )
  func decisionsVisible() throws {
    let dir = try TemporaryDirectory()
    let page = "https://example.org/changelog"
    let old = (1...3).map { ("rel-1.\($0)", "Version 1.\($0)", "\(page)#v1.\($0)") }
    let new = [("rel-1.4", "Version 1.4", "\(page)#v1.4")]
    // A churned id for a post whose link names one known item: taken for it.
    let posts = [("p-a", "Post A", "https://example.org/a")]
    let churned = [("p-b", "Post A", "https://example.org/a")]
    _ = try Self.announced([old + posts, new + old + churned], in: dir)
    let arguments = [
      "--config", dir.url.appendingPathComponent("rules.yaml").path, "--state-dir",
      dir.url.appendingPathComponent("state").path,
    ]
    let items = try ActionTests.watcher(["items", "f"] + arguments, environment: ActionTests.noBus).1
    #expect(
      items.contains("identity: new, announced though it resembled a known item: several known items have its link"),
      "\(items)")
    #expect(items.contains("Version 1.4  [seen ") && items.contains("    acted on: hook (rules 'all')"), "\(items)")
    #expect(
      items.contains("Post A  [seen ")
        && items.contains("    not announced: recognised as a known item: taken for the known item p-a (same link)"),
      "\(items)")
    let log = try ActionTests.watcher(["log"] + arguments, environment: ActionTests.noBus).1
    #expect(log.contains("\"Post A\"  identity: recognised, not announced: taken for the known item p-a"), "\(log)")

    // Acted on after all, through a pass: the hook runs for it, once.
    #expect(items.contains("'watcher items f --announce p-b' acts on it after all"), "\(items)")
    let out = dir.url.appendingPathComponent("out").path
    unlink(out)
    let announced = try ActionTests.watcher(
      ["items", "f", "--announce", "p-b"] + arguments, environment: ActionTests.noBus)
    #expect(announced.0 == 0, "\(announced.1)")
    #expect((try? String(contentsOfFile: out, encoding: .utf8)) == "Post A\n", "\(announced.1)")
    let after = try ActionTests.watcher(["items", "f"] + arguments, environment: ActionTests.noBus).1
    #expect(after.contains("Post A  [seen ") && after.contains("    acted on: hook (rules 'all')"), "\(after)")
    unlink(out)
    _ = try ActionTests.watcher(["poll", "--all"] + arguments, environment: ActionTests.noBus)
    #expect((try? String(contentsOfFile: out, encoding: .utf8)) == nil, "acted on once")
    let unknown = try ActionTests.watcher(
      ["items", "f", "--announce", "nope"] + arguments, environment: ActionTests.noBus)
    #expect(unknown.0 == 64 && unknown.1.contains("has no known item 'nope'"), "\(unknown.1)")
  }
}
