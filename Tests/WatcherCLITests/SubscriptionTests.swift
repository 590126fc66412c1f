// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherConfig
import WatcherTestSupport

/// `watcher add` and `remove` against a loopback site, and the names and titles of imports.
@Suite("add and remove")
struct SubscriptionTests {
  static let atom = """
    <?xml version="1.0" encoding="utf-8"?>
    <feed xmlns="http://www.w3.org/2005/Atom"><title>The H</title><id>urn:h</id><updated>2026-11-01T00:00:00Z</updated>
    <entry><title>One</title><id>urn:h:1</id><updated>2026-11-01T00:00:00Z</updated></entry></feed>
    """
  static let rss = """
    <?xml version="1.0"?><rss version="2.0"><channel><title>Comments on The H</title><link>https://h.example/</link>
    <item><title>c1</title><guid>c1</guid></item></channel></rss>
    """

  /// A site: `/` is a page that links to two feeds (through `<base>`), `/bare` links to none.
  static func site() throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request in
      switch request.path {
      case "/":
        return .ok(
          """
          <!DOCTYPE html>
          <html><head><TITLE>The H</TITLE><base href="/feeds/">
          <link rel="stylesheet" href="/s.css">
          <LINK TYPE="application/atom+xml" REL="alternate" HREF="atom.xml" title="Posts">
          <link rel='alternate' type='application/rss+xml' href='/comments.rss'>
          </head><body>hello</body></html>
          """, headers: [("Content-Type", "text/html")])
      case "/bare": return .ok("<!doctype html><html><head></head><body>no feeds</body></html>")
      case "/feeds/atom.xml": return .ok(atom, headers: [("Content-Type", "application/atom+xml")])
      case "/comments.rss": return .ok(rss)
      default: return LoopbackHTTPServer.Response(status: 404, headers: [], body: Data("not found".utf8))
      }
    }
  }

  @Test("add of a page URL takes its first feed, lists them all, names it from the feed's title, edits the config")
  func addPage() throws {
    let server = try Self.site()
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("conf/rules.yaml").path
    // No config yet: it is created.
    let (code, out, err) = run(["add", server.url("/"), "--config", config, "--tag", "News", "--tag", "tech"])
    #expect(code == 0, "\(err)")
    #expect(err.contains("links to 2 feeds; taking the first"))
    #expect(err.contains(server.url("/feeds/atom.xml")) && err.contains(server.url("/comments.rss")))
    #expect(out.contains("added 'the-h' (\"The H\"): \(server.url("/feeds/atom.xml")), 1 item now"))
    let loaded = try ConfigLoader.load(path: config)
    #expect(loaded.feeds.map(\.url) == [server.url("/feeds/atom.xml")])
    #expect(
      loaded.feeds[0].name == "the-h" && loaded.feeds[0].title == "The H" && loaded.feeds[0].tags == ["news", "tech"])

    // The same feed again, written differently: refused, nothing written.
    let before = try String(contentsOfFile: config, encoding: .utf8)
    let again = run([
      "add", server.url("/feeds/atom.xml").replacingOccurrences(of: "http://", with: "HTTP://"), "--config", config,
    ])
    #expect(again.0 == 1 && again.2.contains("already in the config as 'the-h'"), "\(again.2)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) == before)

    // A feed URL directly, with a comment in the config kept and a .bak left.
    try ("# my feeds\n" + before).write(toFile: config, atomically: true, encoding: .utf8)
    let direct = run(["add", server.url("/comments.rss"), "--config", config, "--name", "comments"])
    #expect(direct.0 == 0 && direct.1.contains("added 'comments' (\"Comments on The H\")"), "\(direct.2)")
    let edited = try String(contentsOfFile: config, encoding: .utf8)
    #expect(edited.hasPrefix("# my feeds\n") && FileManager.default.fileExists(atPath: config + ".bak"))
    #expect(try ConfigLoader.load(path: config).feeds.map(\.name) == ["the-h", "comments"])

    // --print prints the entry and writes nothing.
    let other = dir.url.appendingPathComponent("other.yaml").path
    let printed = run(["add", server.url("/comments.rss"), "--config", other, "--print"])
    #expect(
      printed.0 == 0 && printed.1.contains("name: \"comments-on-the-h\"")
        && printed.1.contains("title: \"Comments on The H\""))
    #expect(!FileManager.default.fileExists(atPath: other))

    // export-opml keeps the feed's title, not its name.
    let exported = run(["export-opml", "--config", config]).1
    #expect(exported.contains("text=\"The H\" title=\"The H\""), "\(exported)")
  }

  @Test("add takes --notify, --full-text, --interval and --latest N, written as the YAML would be, and acted on")
  func addSettings() throws {
    let feed = """
      <?xml version="1.0"?><rss version="2.0"><channel><title>Three</title>
      <item><title>old</title><guid>1</guid><pubDate>Sun, 01 Nov 2026 10:00:00 GMT</pubDate></item>
      <item><title>newer</title><guid>2</guid><pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate></item>
      <item><title>newest</title><guid>3</guid><pubDate>Tue, 03 Nov 2026 10:00:00 GMT</pubDate></item>
      </channel></rss>
      """
    let server = try LoopbackHTTPServer { _ in .ok(feed) }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "settings: { max_age: none }\nfeeds: []\n".write(toFile: config, atomically: true, encoding: .utf8)
    let added = run([
      "add", server.url("/feed"), "--config", config, "--notify", "--full-text", "--interval", "2h", "--latest", "2",
    ])
    #expect(added.0 == 0 && added.1.contains("its first poll acts on its newest 2 items"), "\(added)")
    let entry = try #require(try ConfigLoader.load(path: config).feeds.first)
    #expect(entry.notify && entry.fullText == true && entry.interval == 7_200 && entry.firstPoll == .latest(2))
    // The first poll notifies the newest two, not the oldest and not none (a silent first poll).
    let dry = run(["poll", "--config", config, "--state-dir", dir.url.appendingPathComponent("s").path, "--dry-run"])
    #expect(dry.0 == 0 && dry.1.contains("2 notified; 1 recorded silently (first poll: latest 2)"), "\(dry)")
    #expect(dry.1.contains("would notify: three: newest") && !dry.1.contains("would notify: three: old"), "\(dry)")
    let auto = run(["add", server.url("/other"), "--config", config, "--interval", "auto", "--print"])
    #expect(auto.0 == 0 && auto.1.contains("interval: auto"), "\(auto)")
    for (option, value, message) in [
      ("--interval", "often", "--interval takes a duration"),
      ("--latest", "0", "--latest takes a whole number of items from 1 to 10000"),
    ] {
      let refused = run(["add", server.url("/x"), "--config", config, option, value])
      #expect(refused.0 == 64 && refused.2.contains(message), "\(refused)")
    }
  }

  @Test("add explains a page without feeds, a 404 and a name that is taken")
  func addFailures() throws {
    let server = try Self.site()
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let bare = run(["add", server.url("/bare"), "--config", config])
    #expect(bare.0 == 1 && bare.2.contains("links to no feed"), "\(bare.2)")
    let missing = run(["add", server.url("/nope"), "--config", config])
    #expect(missing.0 == 1 && missing.2.contains("HTTP 404"), "\(missing.2)")
    #expect(!FileManager.default.fileExists(atPath: config))
    #expect(run(["add", server.url("/comments.rss"), "--config", config, "--name", "x"]).0 == 0)
    let taken = run(["add", server.url("/"), "--config", config, "--name", "x"])
    #expect(taken.0 == 1 && taken.2.contains("a feed named 'x' is already"))
  }

  @Test("remove takes the entry out (comments and other feeds kept); --purge deletes its state")
  func remove() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let state = dir.url.appendingPathComponent("state").path
    let a = dir.url.appendingPathComponent("a.xml").path
    let b = dir.url.appendingPathComponent("b.xml").path
    try Self.rss.write(toFile: a, atomically: true, encoding: .utf8)
    try Self.rss.write(toFile: b, atomically: true, encoding: .utf8)
    let text = """
      # top
      feeds:
        # the first
        - url: \(a)
          name: first   # inline
          tags: [x]

        # the second
        - url: \(b)
          name: second
      rules:
        - match: { title: c }
          tag: [y]

      """
    try text.write(toFile: config, atomically: true, encoding: .utf8)
    #expect(run(["poll", "--config", config, "--state-dir", state]).0 == 0)
    let (code, out, err) = run(["remove", "first", "--config", config])
    #expect(code == 0 && out.contains("removed 'first'"), "\(err)")
    #expect(
      try String(contentsOfFile: config, encoding: .utf8)
        == "# top\nfeeds:\n  # the second\n  - url: \(b)\n    name: second\nrules:\n  - match: { title: c }\n    tag: [y]\n"
    )
    let unknown = run(["remove", "secnd", "--config", config])
    #expect(unknown.0 == 64 && unknown.2.contains("did you mean 'second'?"), "an unknown name is a usage error")
    let states = { try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.hasPrefix("feed-") } }
    #expect(try states().count == 2)
    let purged = run(["remove", "second", "--config", config, "--state-dir", state, "--purge"])
    #expect(purged.0 == 0 && purged.1.contains("deleted its state"), "\(purged.2)")
    #expect(try states().count == 1)
    #expect(try ConfigLoader.load(path: config).feeds.isEmpty)
  }

  @Test("remove refuses when a rule still names the feed, and leaves the config alone")
  func removeReferenced() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let text = "feeds:\n  - url: https://a.example/f\n    name: a\nrules:\n  - feeds: [a]\n    notify: true\n"
    try text.write(toFile: config, atomically: true, encoding: .utf8)
    let result = run(["remove", "a", "--config", config])
    #expect(result.0 == 1 && result.2.contains("would not load"), "\(result.2)")
    #expect(try String(contentsOfFile: config, encoding: .utf8) == text)
  }

  @Test("add takes only http(s) feed links no more private than the page, and prints a page's text without controls")
  func addHostilePage() throws {
    let other = try Self.site()
    defer { other.stop() }
    let server = try LoopbackHTTPServer { request in
      .ok(
        """
        <html><head>
        <link rel="alternate" type="application/rss+xml" href="file:///etc/feed.xml" title="Local">
        <link rel="alternate" type="application/rss+xml" href="\(other.url("/comments.rss"))" title="Another service">
        <link rel="alternate" type="application/atom+xml" href="/feed\u{1B}[2J.atom" title="\u{1B}]0;pwned\u{07}Posts\u{9B}">
        </head><body></body></html>
        """, headers: [("Content-Type", "text/html")])
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let (code, _, err) = run(["add", server.url("/"), "--config", config])
    #expect(code == 1, "\(err)")
    #expect(err.contains("file:///etc/feed.xml: not an http or https URL"), "\(err)")
    #expect(err.contains("\(other.url("/comments.rss")): a more private address than the page's"), "\(err)")
    #expect(!err.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(err)")
    #expect(!FileManager.default.fileExists(atPath: config), "nothing was written")
    #expect(other.requests.isEmpty)
  }

  @Test("the config editor edits a symlinked config's target, keeps CRLF, and quotes what YAML may not hold raw")
  func editorEdges() throws {
    let server = try Self.site()
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let dotfiles = dir.url.appendingPathComponent("dotfiles").path
    try FileManager.default.createDirectory(atPath: dotfiles, withIntermediateDirectories: true)
    let target = dotfiles + "/rules.yaml"
    try "settings:\r\n  interval: 1h\r\nfeeds:\r\n  - url: https://a.example/feed\r\n    name: a\r\n".write(
      toFile: target, atomically: true, encoding: .utf8)
    let link = dir.url.appendingPathComponent("rules.yaml").path
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "dotfiles/rules.yaml")
    let added = run(["add", server.url("/comments.rss"), "--config", link, "--name", "comments"])
    #expect(added.0 == 0, "\(added.2)")
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "dotfiles/rules.yaml", "still a link")
    let edited = try String(contentsOfFile: target, encoding: .utf8)
    #expect(
      edited.contains("comments") && !edited.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "CRLF kept")
    #expect(try ConfigLoader.load(path: link).feeds.map(\.name) == ["a", "comments"])
    #expect(run(["remove", "a", "--config", link]).0 == 0)

    // Titles with DEL, NEL and the Unicode line separators: imported quoted, every line number still right.
    let opml = """
      <opml version="2.0"><body>
        <outline text="Del\u{7F}ete" xmlUrl="https://d.example/feed"/>
        <outline text="Line\u{2028}sep\u{2029}para\u{85}nel" xmlUrl="https://l.example/feed"/>
        <outline text="Last" xmlUrl="https://z.example/feed"/>
      </body></opml>
      """
    let other = dir.url.appendingPathComponent("o.yaml").path
    let imported = run(["import-opml", "-", "--config", other], stdin: Data(opml.utf8))
    #expect(imported.0 == 0 && imported.1.contains("added 3 feeds"), "\(imported.2)")
    let feeds = try ConfigLoader.load(path: other).feeds
    #expect(
      feeds.count == 3 && feeds[0].title == "Del\u{7F}ete" && feeds[1].title == "Line\u{2028}sep\u{2029}para\u{85}nel")
    let text = try String(contentsOfFile: other, encoding: .utf8)
    #expect(!text.unicodeScalars.contains { [0x7F, 0x85, 0x2028, 0x2029].contains($0.value) }, "escaped, not raw")
    let removed = run(["remove", feeds[2].name, "--config", other])
    #expect(removed.0 == 0, "\(removed.2)")
    #expect(try ConfigLoader.load(path: other).feeds.count == 2)
  }

  @Test("import-opml's messages carry no terminal controls from the file")
  func importControls() throws {
    let dir = try TemporaryDirectory()
    let urls =
      "\"query:\u{1B}[2JUnread\u{9B}31m:unread = \\\"yes\\\"\"\nexec:\u{1B}]0;title\u{07}\nhttps://a.example/feed\n"
    let (code, _, err) = run(
      ["import-opml", "-", "--config", dir.url.appendingPathComponent("r.yaml").path], stdin: Data(urls.utf8))
    #expect(code == 0 && err.contains("a newsboat query entry"), "\(err)")
    #expect(!err.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "\(err)")
  }

  @Test("import-opml reads a newsboat urls file and says what it skipped; OPML link outlines are skipped aloud")
  func importSources() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let urls = """
      # newsboat
      https://lwn.net/headlines/rss linux "open source" "~LWN headlines"
      https://www.swift.org/atom.xml lang ! # hidden
      "query:Unread:unread = \\"yes\\""
      exec:~/bin/make-feed

      """
    let (code, out, err) = run(["import-opml", "-", "--config", config], stdin: Data(urls.utf8))
    #expect(code == 0 && out.contains("added 2 feeds"), "\(err)")
    #expect(err.contains("a newsboat query entry, not a feed") && err.contains("a newsboat exec entry"))
    let feeds = try ConfigLoader.load(path: config).feeds
    #expect(feeds.map(\.name) == ["lwn-headlines", "www-swift-org-atom-xml"])
    #expect(
      feeds[0].title == "LWN headlines" && feeds[0].tags == ["linux", "open-source"] && feeds[1].tags == ["lang"])

    let opml = """
      <opml version="2.0"><body>
        <outline text="A blog" type="link" url="https://blog.example/"/>
        <outline text="The H" type="rss" xmlUrl="https://h.example/feed"/>
      </body></opml>
      """
    let other = dir.url.appendingPathComponent("o.yaml").path
    let imported = run(["import-opml", "-", "--config", other], stdin: Data(opml.utf8))
    #expect(imported.0 == 0 && imported.2.contains("outline 'A blog' (https://blog.example/): a link"), "\(imported.2)")
    let loaded = try ConfigLoader.load(path: other).feeds
    #expect(loaded.map(\.name) == ["the-h"] && loaded[0].title == "The H")
    #expect(run(["export-opml", "--config", other]).1.contains("text=\"The H\" title=\"The H\""))
  }
}
