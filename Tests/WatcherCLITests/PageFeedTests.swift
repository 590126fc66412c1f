// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherSupport
import WatcherTestSupport

/// Pages without feeds, watched as feeds through the built binary.
///
/// Each kind of page is served from a real HTTP server on 127.0.0.1 over four polls, with a real `/bin/sh`
/// hook on every item. Poll 1 records rows 1–8 silently; polls 2 and 3 each add one row on top; poll 4 is
/// poll 3 again: only the new rows are acted on.
@Suite("Pages watched as feeds, replayed", .serialized)
struct PageFeedTests {
  /// A page of each kind, with the rows `numbers` (newest first).
  static let kinds: [String: @Sendable ([Int]) -> String] = [
    "blog index with a menu, a tag cloud and a footer": { numbers in
      var html = """
        <html><head><title>A blog</title></head><body><header><nav><a href="/">Home</a> <a href="/about">About me</a>
        <a href="/now">What I do now</a></nav></header><main>
        """
      for n in numbers {
        html += """
          <article class="post"><h2><a href="/posts/\(n)/">Notes on topic number \(n)</a></h2>
          <time datetime="2026-11-\(n + 1)">Nov \(n + 1)</time><p>A summary of the notes on topic \(n), briefly.</p>
          </article>
          """
      }
      html += "</main><aside class=\"tags\">"
      for tag in ["a", "b", "c", "d", "e", "f"] { html += "<a href=\"/tag/\(tag)\">\(tag)</a> " }
      return html + "</aside><footer><a href=\"/privacy\">Privacy policy of the site</a></footer></body></html>"
    },
    "news front page, teasers of several sizes in sections": { numbers in
      var html = "<html><body><main>"
      for (index, n) in numbers.enumerated() {
        if index % 3 == 0 { html += index == 0 ? "<section class=\"lead\">" : "</section><section class=\"more\">" }
        let size = index == 0 ? "teaser--hero" : "teaser--small"
        html += """
          <article class="teaser \(size)"><a href="https://news.example/politics/article\(1000 + n).html">
          <span class="kicker">Politics</span><h3>Headline of the report number \(n)</h3></a></article>
          """
      }
      return html + "</section></main><footer><ul><li><a href=\"/imprint\">Imprint</a></li></ul></footer></body></html>"
    },
    "releases page": { numbers in
      var html = "<html><body><div class=\"releases\">"
      for n in numbers {
        html += """
          <div class="release"><div class="release-header"><a href="/o/r/releases/tag/v2.\(n)">v2.\(n)</a></div>
          <relative-time datetime="2026-10-\(n + 1)T08:00:00Z">Oct</relative-time><div class="notes"><ul>
          <li>Fix (<a href="/o/r/pull/\(n * 7)">#\(n * 7)</a>)</li></ul></div></div>
          """
      }
      return html + "</div></body></html>"
    },
    "forum front page as a table": { numbers in
      var html = "<html><body><table class=\"topics\">"
      for n in numbers {
        html += """
          <tr class="topic"><td class="title"><a href="/t/\(n)">How do I configure thing \(n) on my machine?</a></td>
          <td><a href="/u/someone">someone</a></td><td>3 replies</td></tr>
          """
      }
      return html + "</table></body></html>"
    },
    "job board": { numbers in
      var html = "<html><body><h1>Open positions</h1><ul class=\"jobs\">"
      for n in numbers {
        html += """
          <li class="job"><a class="job-link" href="/jobs/\(4000 + n)">Senior welder for the night shift, site \(n)</a>
          <span class="location">Springfield</span><span class="date">Dec \(n)</span></li>
          """
      }
      return html
        + "</ul><div class=\"pagination\"><a href=\"?page=2\">2</a><a href=\"?page=3\">3</a></div></body></html>"
    },
    "shop's new arrivals as product cards": { numbers in
      var html = "<html><body><div class=\"grid\">"
      for n in numbers {
        html += """
          <div class="product-card"><a href="/p/sku-\(n)"><img src="/img/\(n).jpg" alt=""></a>
          <h3 class="product-title"><a href="/p/sku-\(n)">Handmade ceramic mug model \(n)</a></h3>
          <span class="price">€\(10 + n)</span><button>Add to cart</button></div>
          """
      }
      return html + "</div></body></html>"
    },
    "script-built page with a JavaScript state object": { numbers in
      let posts = numbers.map { "{ headline: 'Dispatch \($0) from the field', permalink: '/d/\($0)', }" }
      return """
        <html><body><div id="app"></div><script>window.__INITIAL_STATE__ = { list: [\(posts.joined(separator: ","))], \
        total: \(numbers.count) };</script></body></html>
        """
    },
    "script-built page with Next.js data": { numbers in
      let posts = numbers.map { "{\"title\":\"Launch note \($0)\",\"url\":\"/notes/\($0)\"}" }
      return """
        <html><head><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"notes":[\
        \(posts.joined(separator: ","))]}}}</script></head><body><div id="__next"></div></body></html>
        """
    },
  ]

  /// A page feed named `site` served with `body`, a hook on every item writing its title to `acted`.
  struct Watched {
    let server: LoopbackHTTPServer
    let dir: TemporaryDirectory
    let config: String
    let state: String
    let out: String

    init(_ body: Locked<String>, settings: String = "") throws {
      server = try LoopbackHTTPServer { _ in .ok(body.withLock { $0 }) }
      dir = try TemporaryDirectory()
      out = dir.url.appendingPathComponent("acted").path
      config = dir.url.appendingPathComponent("rules.yaml").path
      state = dir.url.appendingPathComponent("state").path
      try """
      settings: { first_poll: silent, max_age: none\(settings) }
      feeds:
        - { page: "\(server.url("/list"))", name: site }
      rules:
        - { name: every, match: { title: "" }, hook: 'printf "%s\\n" "$WATCHER_TITLE" >> \(out)' }
      """.write(toFile: config, atomically: true, encoding: .utf8)
    }

    func poll() throws -> ChildResult {
      try ChildProcess.run(
        try #require(BinaryTests.binary), ["poll", "--all", "--config", config, "--state-dir", state])
    }

    /// The titles acted on so far.
    var acted: [String] {
      ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
  }

  @Test("only new rows are acted on, over four polls", arguments: kinds.keys.sorted())
  func replay(_ kind: String) throws {
    let page = try #require(Self.kinds[kind])
    let steps: [([Int], String?)] = [
      (Array((1...8).reversed()), nil), (Array((1...9).reversed()), "9"), (Array((1...10).reversed()), "10"),
      (Array((1...10).reversed()), nil),
    ]
    let body = Locked("")
    let watched = try Watched(body)
    defer { watched.server.stop() }
    var seen = 0
    for (round, (rows, new)) in steps.enumerated() {
      body.withLock { $0 = page(rows) }
      let poll = try watched.poll()
      #expect(poll.status == 0, "\(kind), poll \(round + 1): \(poll.errors)")
      let acted = watched.acted
      let now = Array(acted.dropFirst(seen))
      seen = acted.count
      #expect(now.count == (new == nil ? 0 : 1), "\(kind), poll \(round + 1): acted on \(now)\n\(poll.errors)")
      if let new { #expect(now.first?.hasSuffix(new) == true || now.first?.contains(" \(new)") == true, "\(now)") }
    }
  }

  @Test("a watched page that turns into a challenge or loses its list is a health problem, and recovers")
  func health() throws {
    let body = Locked(Self.kinds["forum front page as a table"]?((1...8).reversed()) ?? "")
    let server = try LoopbackHTTPServer { _ in .ok(body.withLock { $0 }) }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try "feeds:\n  - { page: \"\(server.url("/"))\", name: forum }\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    let binary = try #require(BinaryTests.binary)
    func poll() throws -> String {
      try ChildProcess.run(binary, ["poll", "--all", "--config", config, "--state-dir", state]).errors
    }
    func status() throws -> String {
      try ChildProcess.run(binary, ["status", "--config", config, "--state-dir", state]).errors
    }
    _ = try poll()
    #expect(try !status().contains("feed 'forum'"))
    body.withLock {
      $0 =
        "<html><head><title>Just a moment...</title></head><body><div class=\"cf-browser-verification\"></div></body></html>"
    }
    #expect(try poll().contains("answered by a bot check (Cloudflare)"))
    #expect(try status().contains("feed 'forum': answered by a bot check (Cloudflare)"))
    body.withLock { $0 = "<html><body><h1>Maintenance</h1><p>Back soon.</p></body></html>" }
    #expect(try poll().contains("no list of posts on the page"))
    let gone = try status()
    #expect(gone.contains("feed 'forum': no list of posts on the page any more"), "\(gone)")
    body.withLock { $0 = Self.kinds["forum front page as a table"]?([9]) ?? "" }
    _ = try poll()
    let shrunk = try status()
    #expect(shrunk.contains("the list shrank from 8 to 1 rows") || shrunk.contains("no list of posts"), "\(shrunk)")
    body.withLock { $0 = Self.kinds["forum front page as a table"]?((1...9).reversed()) ?? "" }
    _ = try poll()
    let healthy = try status()
    #expect(!healthy.contains("feed 'forum'"), "\(healthy)")
  }

  @Test("parse PAGE --jsonl prints the rows or one status line; add offers the page and writes its selector")
  func parseAndAdd() throws {
    let dir = try TemporaryDirectory()
    let page = dir.url.appendingPathComponent("page.html").path
    try (Self.kinds["blog index with a menu, a tag cloud and a footer"]?([3, 2, 1]) ?? "").write(
      toFile: page, atomically: true, encoding: .utf8)
    let binary = try #require(BinaryTests.binary)
    let lines = try ChildProcess.run(binary, ["parse", page, "--base", "https://blog.example/", "--jsonl"]).output
      .split(separator: "\n")
    #expect(lines.count == 3)
    #expect(
      lines.first
        == #"{"title":"Notes on topic number 3","link":"https://blog.example/posts/3/","date":"2026-11-4","summary":"A summary of the notes on topic 3, briefly.","id":"https://blog.example/posts/3/"}"#
    )
    let text = try ChildProcess.run(binary, ["parse", page, "--base", "https://blog.example/"]).output
    #expect(text.contains("found a list of 3 posts like 'Notes on topic number 3' in article.post"), "\(text)")
    let challenge = dir.url.appendingPathComponent("challenge.html").path
    try "<html><head><title>Just a moment...</title></head><body></body></html>".write(
      toFile: challenge, atomically: true, encoding: .utf8)
    let blocked = try ChildProcess.run(binary, ["parse", challenge, "--base", "https://x.example/", "--jsonl"])
    #expect(blocked.output.hasPrefix(#"{"status":"blocked","reason":"the page is a bot challenge (Cloudflare)"#))

    let server = try LoopbackHTTPServer { _ in
      .ok(Self.kinds["blog index with a menu, a tag cloud and a footer"]?([3, 2, 1]) ?? "")
    }
    defer { server.stop() }
    let fetched = try ChildProcess.run(binary, ["parse", server.url("/blog")])
    #expect(fetched.output.contains("found a list of 3 posts") && fetched.output.contains("\(server.url("/posts/3/"))"))
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let offer = try ChildProcess.run(binary, ["add", server.url("/blog"), "--config", config])
    #expect(offer.status != 0)
    #expect(offer.errors.contains("note: no feed; found a list of 3 posts like 'Notes on topic number 3'"))
    #expect(offer.errors.contains("--page"))
    let added = try ChildProcess.run(binary, ["add", server.url("/blog"), "--select", "--config", config])
    #expect(added.status == 0, "\(added.errors)")
    let written = try String(contentsOfFile: config, encoding: .utf8)
    #expect(written.contains("- page: \"\(server.url("/blog"))\"") && written.contains("items: \"article.post\""))
    let check = try ChildProcess.run(binary, ["check", "--config", config])
    #expect(check.status == 0, "\(check.errors)")
  }

  @Test("add --page on a page built from WordPress's REST API watches the route it names, and polls it")
  func wordPressRoute() throws {
    let posts = Locked([1, 2, 3])
    let server = try LoopbackHTTPServer { request in
      if request.path.hasPrefix("/wp-json/wp/v2/posts") {
        let list = posts.withLock { $0 }.reversed().map {
          "{\"link\": \"https://wp.example/p/\($0)/\", \"title\": {\"rendered\": \"Post number \($0) here\"}}"
        }
        return .ok("[" + list.joined(separator: ",") + "]", headers: [("Content-Type", "application/json")])
      }
      return .ok(
        "<html><head><link rel=\"https://api.w.org/\" href=\"/wp-json/\"></head><body><div id=app></div></body></html>")
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    let binary = try #require(BinaryTests.binary)
    let added = try ChildProcess.run(binary, ["add", server.url("/"), "--page", "--name", "wp", "--config", config])
    #expect(added.status == 0, "\(added.errors)")
    #expect(
      try String(contentsOfFile: config, encoding: .utf8).contains("page: \"\(server.url("/wp-json/wp/v2/posts"))\""))
    let out = dir.url.appendingPathComponent("acted").path
    try
      (String(contentsOfFile: config, encoding: .utf8)
      + "rules:\n  - { name: every, match: { title: \"\" }, hook: 'printf \"%s\\n\" \"$WATCHER_TITLE\" >> \(out)' }\n")
      .write(toFile: config, atomically: true, encoding: .utf8)
    let state = dir.url.appendingPathComponent("state").path
    _ = try ChildProcess.run(binary, ["poll", "--all", "--config", config, "--state-dir", state])
    posts.withLock { $0.append(4) }
    let poll = try ChildProcess.run(binary, ["poll", "--all", "--config", config, "--state-dir", state])
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "Post number 4 here\n", "\(poll.errors)")
  }

  @Test("a list found once stays the list while it holds rows, though another group would now score higher")
  func rememberedList() throws {
    func page(marked: Bool, more: Int) -> String {
      var html = "<html><body><main>"
      for n in 1...5 {
        html += "<article class=\"post\"><h2><a href=\"/posts/\(n)\">The post number \(n) of this blog</a></h2>"
        if marked { html += "<time datetime=\"2026-11-0\(n)\">Nov \(n)</time><p>What post \(n) says, in short.</p>" }
        html += "</article>"
      }
      html += "</main><div class=\"more-stories\"><ul>"
      for n in 1...more {
        html += "<li><a href=\"https://elsewhere.example/s/\(n)\">A story elsewhere, number \(n)</a></li>"
      }
      return html + "</ul></div></body></html>"
    }
    let body = Locked(page(marked: true, more: 8))
    let watched = try Watched(body)
    defer { watched.server.stop() }
    let binary = try #require(BinaryTests.binary)
    _ = try watched.poll()
    body.withLock { $0 = page(marked: false, more: 12) }
    // Read afresh, the page's other group now wins...
    let file = watched.dir.url.appendingPathComponent("page.html").path
    try page(marked: false, more: 12).write(toFile: file, atomically: true, encoding: .utf8)
    let fresh = try ChildProcess.run(binary, ["parse", file, "--base", watched.server.url("/"), "--jsonl"]).output
    #expect(fresh.contains("elsewhere.example"), "\(fresh)")
    // ...but the feed keeps the list it found, so nothing is new.
    let poll = try watched.poll()
    #expect(watched.acted.isEmpty, "\(poll.errors)")
  }

  @Test("at a terminal, add asks whether to watch a feedless page's list, and a yes adds it as a page")
  func addAsks() throws {
    let script = "/usr/bin/script"  // util-linux, essential on Debian: a pseudo-terminal for the child
    try #require(FileManager.default.isExecutableFile(atPath: script))
    let server = try LoopbackHTTPServer { _ in
      .ok(Self.kinds["blog index with a menu, a tag cloud and a footer"]?([3, 2, 1]) ?? "")
    }
    defer { server.stop() }
    let dir = try TemporaryDirectory()
    let binary = try #require(BinaryTests.binary)
    for (answer, added) in [("n", false), ("y", true)] {
      let config = dir.url.appendingPathComponent("\(answer).yaml").path
      let command = "'\(binary.path)' add '\(server.url("/blog"))' --config '\(config)'"
      let run = try ChildProcess.run(
        URL(fileURLWithPath: script), ["-qec", command, "/dev/null"], stdin: Data("\(answer)\n".utf8))
      #expect(run.output.contains("found a list of 3 posts like 'Notes on topic number 3'"), "\(run.output)")
      #expect(run.output.contains("Watch it as a feed? [y/N]"), "\(run.output)")
      #expect(FileManager.default.fileExists(atPath: config) == added, "\(answer): \(run.output)")
    }
  }

  @Test("export-opml leaves page feeds out, and says so")
  func opmlLeavesPagesOut() throws {
    let dir = try TemporaryDirectory()
    let config = dir.url.appendingPathComponent("rules.yaml").path
    try """
    feeds:
      - { url: https://a.example/feed.xml, name: a }
      - { page: https://b.example/news, name: b }
    """.write(toFile: config, atomically: true, encoding: .utf8)
    let (code, out, err) = run(["export-opml", "--config", config])
    #expect(code == 0 && out.contains("https://a.example/feed.xml") && !out.contains("b.example"))
    #expect(err.contains("note: left out 1 page feed") && err.contains(": b"), "\(err)")
  }
}
