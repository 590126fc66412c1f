// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherTestSupport

/// `full_text`: rules on the article each new item links to, with the built binary against a loopback site.
@Suite("Rules on the full article", .serialized)
struct FullTextTests {
  static let article = """
    <html><head><title>Cluster news</title></head><body>
    <nav><a href="/">Home</a> <a href="/about">About kubernetes-free zone</a></nav>
    <article><h1>Cluster news</h1>
    <p>The operators moved every service to Kubernetes last week, and the rollout, which took months, went well.</p>
    <p>Latency fell by a third, and the on-call team, who had feared the change, slept through the night.</p>
    </article>
    <aside class="sidebar"><p>Also read: our archive, our podcast, and our newsletter.</p></aside>
    </body></html>
    """
  static let plainArticle = """
    <html><body><article>
    <p>The bakery on the corner now opens at six, and its rye bread, baked before dawn, sells out by nine.</p>
    <p>Its owners, who took over in spring, kept the old oven, the old recipes and the old prices as well.</p>
    </article></body></html>
    """

  /// A site with a feed of three items: one whose article mentions Kubernetes (its feed text does not), one
  /// whose page is missing, and one about bread.
  static func site() throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request in
      switch request.path {
      case "/feed.xml":
        let items = [("Cluster news", "/a.html"), ("Missing page", "/b.html"), ("Bakery", "/c.html")]
          .enumerated().map { index, item in
            "<item><title>\(item.0)</title><link>\(item.1)</link><guid>g\(index)</guid>"
              + "<description>A short summary.</description></item>"
          }
        return .ok(
          "<rss version=\"2.0\"><channel><title>Site</title>\(items.joined())</channel></rss>",
          headers: [("Content-Type", "application/rss+xml")])
      case "/a.html": return .ok(article, headers: [("Content-Type", "text/html; charset=utf-8")])
      case "/c.html": return .ok(plainArticle, headers: [("Content-Type", "text/html")])
      case "/print/a.html":
        return .ok(
          "<html><body><p>Printer-friendly: the whole Kubernetes story on one page, without the site around it.</p></body></html>",
          headers: [("Content-Type", "text/html")])
      default: return .init(status: 404)
      }
    }
  }

  /// The site, a scratch directory with rules.yaml for the site's feed, and the built binary.
  static func setUp(fullText: Bool = true) throws -> (LoopbackHTTPServer, TemporaryDirectory, URL) {
    let server = try site()
    let dir = try TemporaryDirectory()
    try config(dir.url.path, feedURL: server.url("/feed.xml"), fullText: fullText)
    return (server, dir, try #require(BinaryTests.binary))
  }

  static func config(_ path: String, feedURL: String, fullText: Bool = true) throws {
    try """
    settings: { first_poll: all, max_age: none, hook_concurrency: 1 }
    feeds:
      - { url: '\(feedURL)', name: site, full_text: \(fullText) }
    rules:
      - name: k8s
        match: { content: kubernetes }
        hook: 'printf "%s|%s\\n" "$WATCHER_TITLE" "$WATCHER_CONTENT" >> "\(path)/content.log"; cat >> "\(path)/stdin.log"; echo >> "\(path)/stdin.log"'
      - name: anywhere
        match: { any: { words: [rye] } }
        hook: { run: [sh, -c, 'printf "%s\\n" "$1" >> "\(path)/any.log"', sh, "{title}"] }
    """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
  }

  @Test("rules match the article's text; hooks get it; a page that fails is reported; pages are fetched once")
  func poll() throws {
    let (server, dir, binary) = try Self.setUp()
    defer { server.stop() }
    let path = dir.url.path
    let check = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(check.status == 0, "\(check.errors)")

    let poll = try ChildProcess.run(binary, ["poll", "--config", "\(path)/rules.yaml", "--state-dir", "\(path)/s"])
    #expect(poll.status == 0, "\(poll.errors)")
    let said = poll.output + poll.errors
    #expect(said.contains("full text of 'Missing page': HTTP 404"), "\(said)")

    let content = try String(contentsOfFile: "\(path)/content.log", encoding: .utf8)
    #expect(content.hasPrefix("Cluster news|The operators moved every service to Kubernetes"), "\(content)")
    #expect(content.contains("\n\nLatency fell by a third"), "paragraphs keep their blank line: \(content)")
    #expect(!content.contains("Bakery|") && !content.contains("Missing page|"), "\(content)")
    #expect(!content.contains("Home"), "the navigation is not the article: \(content)")
    #expect(!content.contains("newsletter"), "the sidebar is not the article: \(content)")
    let stdin = try String(contentsOfFile: "\(path)/stdin.log", encoding: .utf8)
    #expect(stdin.contains("\"content\":\"The operators moved every service to Kubernetes"), "\(stdin)")
    // `any` includes the article's text: only the bakery's page says rye.
    #expect(try String(contentsOfFile: "\(path)/any.log", encoding: .utf8) == "Bakery\n")

    let pages = { server.requests.filter { $0.path.hasSuffix(".html") }.map(\.path).sorted() }
    #expect(pages() == ["/a.html", "/b.html", "/c.html"])
    // Items already seen are never fetched again.
    let again = try ChildProcess.run(
      binary, ["poll", "--force", "--config", "\(path)/rules.yaml", "--state-dir", "\(path)/s"])
    #expect(again.status == 0, "\(again.errors)")
    #expect(pages() == ["/a.html", "/b.html", "/c.html"])
  }

  @Test(
    "content_selector: a feed's pages are read by its selector, in a poll and in extract --feed; one that matches nothing is reported; check refuses one it cannot read"
  )
  func contentSelector() throws {
    let (server, dir, binary) = try Self.setUp()
    defer { server.stop() }
    let path = dir.url.path
    // The selector takes the sidebar, which the heuristics leave out: the hook sees it, and only it.
    let rules = try String(contentsOfFile: "\(path)/rules.yaml", encoding: .utf8)
    try rules.replacingOccurrences(
      of: "full_text: true }", with: "full_text: true, content_selector: 'aside.sidebar, .nothing' }"
    )
    .replacingOccurrences(of: "match: { content: kubernetes }", with: "match: { content: newsletter }")
    .write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let check = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(check.status == 0, "\(check.errors)")
    let poll = try ChildProcess.run(binary, ["poll", "--config", "\(path)/rules.yaml", "--state-dir", "\(path)/s"])
    #expect(poll.status == 0, "\(poll.errors)")
    let content = try String(contentsOfFile: "\(path)/content.log", encoding: .utf8)
    #expect(content == "Cluster news|Also read: our archive, our podcast, and our newsletter.\n", "\(content)")
    // The bakery's page has no sidebar: said, and its rules see the feed's text.
    #expect(
      (poll.output + poll.errors).contains(
        "full text of 'Bakery': its content_selector 'aside.sidebar, .nothing' matches nothing in the page"),
      "\(poll.output)\(poll.errors)")
    // extract --feed reads a page as the feed does; without it, the heuristics.
    let byFeed = try ChildProcess.run(
      binary, ["extract", server.url("/a.html"), "--feed", "site", "--config", "\(path)/rules.yaml"])
    #expect(
      byFeed.status == 0 && byFeed.output.hasSuffix("\nAlso read: our archive, our podcast, and our newsletter.\n"),
      "\(byFeed.output)")
    #expect(byFeed.errors.contains("note: feed 'site' reads its pages with content_selector 'aside.sidebar, .nothing'"))
    let plain = try ChildProcess.run(binary, ["extract", server.url("/a.html")])
    #expect(plain.output.contains("The operators moved") && !plain.output.contains("newsletter"), "\(plain.output)")
    let bad = try ChildProcess.run(binary, ["extract", server.url("/a.html"), "--selector", "p:first-child"])
    #expect(bad.status == 64 && bad.errors.contains("pseudo-classes such as ':first-child' are not supported"))
    // Without full_text it does nothing: check says so.
    try rules.replacingOccurrences(of: "full_text: true }", with: "full_text: false, content_selector: aside }")
      .write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let idle = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(
      idle.errors.contains("warning: feed 'site' has content_selector, but does not fetch its articles"),
      "\(idle.errors)")
    // A selector it cannot read is a config error, with where it is.
    try rules.replacingOccurrences(of: "full_text: true }", with: "full_text: true, content_selector: 'div >' }")
      .write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let refused = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(refused.status == 78, "\(refused.errors)")
    #expect(
      refused.errors.contains("rules.yaml:3:")
        && refused.errors.contains("'content_selector' is not a selector this reads"),
      "\(refused.errors)")
    // XPath as well: refused with libxml2's reason and nothing of libxml2's own on stderr; read when valid.
    try rules.replacingOccurrences(of: "full_text: true }", with: "full_text: true, content_selector: \"//aside[\" }")
      .write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let badXPath = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(badXPath.status == 78, "\(badXPath.errors)")
    #expect(
      badXPath.errors.contains("rules.yaml:3:") && badXPath.errors.contains("XPath: ")
        && !badXPath.errors.contains("XPath error"), "\(badXPath.errors)")
    let byXPath = try ChildProcess.run(
      binary, ["extract", server.url("/a.html"), "--selector", "//p[contains(., 'operators')]"])
    #expect(byXPath.status == 0 && byXPath.output.contains("The operators moved"), "\(byXPath.errors)")
    #expect(!byXPath.output.contains("newsletter") && byXPath.errors.isEmpty, "\(byXPath.output)")
  }

  @Test(
    "link_rewrite: full_text fetches the rewritten address (the item keeps its link), extract --feed too; check refuses a bad regex"
  )
  func linkRewrite() throws {
    let (server, dir, binary) = try Self.setUp()
    defer { server.stop() }
    let path = dir.url.path
    let rules = try String(contentsOfFile: "\(path)/rules.yaml", encoding: .utf8)
    try rules.replacingOccurrences(
      of: "full_text: true }",
      with: "full_text: true, link_rewrite: { match: '/a\\.html$', replace: '/print/a.html' } }"
    ).replacingOccurrences(
      of: "\"$WATCHER_TITLE\" \"$WATCHER_CONTENT\"", with: "\"$WATCHER_LINK\" \"$WATCHER_CONTENT\""
    )
    .write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let poll = try ChildProcess.run(binary, ["poll", "--config", "\(path)/rules.yaml", "--state-dir", "\(path)/s"])
    #expect(poll.status == 0, "\(poll.errors)")
    let content = try String(contentsOfFile: "\(path)/content.log", encoding: .utf8)
    #expect(
      content == server.url("/a.html")
        + "|Printer-friendly: the whole Kubernetes story on one page, without the site around it.\n",
      "\(content)")
    let pages = server.requests.filter { $0.path.hasSuffix(".html") }.map(\.path).sorted()
    #expect(pages == ["/b.html", "/c.html", "/print/a.html"], "only links that match are rewritten: \(pages)")
    let extract = try ChildProcess.run(
      binary, ["extract", server.url("/a.html"), "--feed", "site", "--config", "\(path)/rules.yaml"])
    #expect(extract.output.contains("Printer-friendly"), "\(extract.output)")
    #expect(extract.errors.contains("note: feed 'site' fetches its pages at \(server.url("/print/a.html"))"))
    try rules.replacingOccurrences(
      of: "full_text: true }", with: "full_text: true, link_rewrite: { match: '(', replace: x } }"
    )
    .write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
    let refused = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
    #expect(
      refused.status == 78 && refused.errors.contains("'link_rewrite.match' is not a regex this reads"),
      "\(refused.errors)")
  }

  @Test("without full_text no page is fetched and content is empty")
  func off() throws {
    let (server, dir, binary) = try Self.setUp(fullText: false)
    defer { server.stop() }
    let path = dir.url.path
    let poll = try ChildProcess.run(binary, ["poll", "--config", "\(path)/rules.yaml", "--state-dir", "\(path)/s"])
    #expect(poll.status == 0, "\(poll.errors)")
    #expect(server.requests.allSatisfy { !$0.path.hasSuffix(".html") })
    #expect(!FileManager.default.fileExists(atPath: "\(path)/content.log"))
  }

  @Test("test-rules shows the article's text and the match on it; a test item can carry --content")
  func testRules() throws {
    let (server, dir, binary) = try Self.setUp()
    defer { server.stop() }
    let path = dir.url.path
    let dry = try ChildProcess.run(binary, ["test-rules", "--config", "\(path)/rules.yaml"])
    #expect(dry.output.contains("content: 35 words from the article: The operators moved"), "\(dry.output)")
    #expect(dry.output.contains("why: rule 'k8s' matched content \"Kubernetes\""), "\(dry.output)")
    #expect(dry.errors.contains("full text of 'Missing page': HTTP 404"), "\(dry.errors)")
    let json = try ChildProcess.run(binary, ["test-rules", "--json", "--config", "\(path)/rules.yaml"])
    #expect(json.output.contains("\"content\":\"The operators moved"), "\(json.output)")

    let synthetic = try ChildProcess.run(
      binary,
      [
        "test-rules", "--config", "\(path)/rules.yaml", "--title", "T", "--content", "Rye, flour and water",
        "--explain",
      ])
    #expect(synthetic.output.contains("why: rule 'anywhere' matched content \"Rye\""), "\(synthetic.output)")
    #expect(synthetic.output.contains("content has no 'kubernetes'"), "\(synthetic.output)")
  }

  @Test("watcher extract prints a page's title and main text, from a URL or a saved file")
  func extract() throws {
    let server = try Self.site()
    defer { server.stop() }
    let binary = try #require(BinaryTests.binary)
    let fromURL = try ChildProcess.run(binary, ["extract", server.url("/a.html")])
    #expect(fromURL.status == 0, "\(fromURL.errors)")
    #expect(
      fromURL.output == """
        Cluster news

        The operators moved every service to Kubernetes last week, and the rollout, which took months, went well.

        Latency fell by a third, and the on-call team, who had feared the change, slept through the night.

        """)
    let dir = try TemporaryDirectory()
    try Self.plainArticle.write(toFile: dir.url.path + "/saved.html", atomically: true, encoding: .utf8)
    let json = try ChildProcess.run(
      binary, ["extract", "--json", "--base", "https://bakery.example/news", dir.url.path + "/saved.html"])
    #expect(json.status == 0, "\(json.errors)")
    #expect(json.output.contains("\"url\": \"https://bakery.example/news\""), "\(json.output)")
    #expect(json.output.contains("\"title\": null"))
    #expect(json.output.contains("\"content\": \"The bakery on the corner now opens at six"))

    let missing = try ChildProcess.run(binary, ["extract", server.url("/b.html")])
    #expect(missing.status == 1)
    #expect(missing.errors == "error: \(server.url("/b.html")): HTTP 404\n")
    let badBase = try ChildProcess.run(binary, ["extract", "--base", "example.com", dir.url.path + "/saved.html"])
    #expect(badBase.status == 64)
    #expect(badBase.errors.contains("--base needs an http(s) URL"))
  }

  @Test("check warns about a rule on content over feeds that do not fetch their articles, naming them")
  func checkWarns() throws {
    let dir = try TemporaryDirectory()
    let path = dir.url.path
    let binary = try #require(BinaryTests.binary)
    for fullText in [false, true] {
      try """
      feeds:
        - { url: https://example.com/a.xml, name: a, full_text: \(fullText) }
        - { url: https://example.com/b.xml, name: b, tags: [plain] }
      rules:
        - { name: deep, match: { not: { content: kubernetes } }, tag: [x] }
        - { name: scoped, feeds: [plain], match: { content: rust }, tag: [y] }
      """.write(toFile: "\(path)/rules.yaml", atomically: true, encoding: .utf8)
      let check = try ChildProcess.run(binary, ["check", "--config", "\(path)/rules.yaml"])
      #expect(check.status == 0, "\(check.errors)")
      let deep = "warning: rule 'deep' matches on content, but none of its feeds fetches its articles"
      #expect(check.errors.contains(deep) == !fullText, "\(check.errors)")
      // With one of its two feeds fetching, the other is named.
      let some = "warning: rule 'deep' matches on content, but 1 of its feeds does not fetch its articles: 'b'"
      #expect(check.errors.contains(some) == fullText, "\(check.errors)")
      #expect(check.errors.contains("warning: rule 'scoped' matches on content"), "\(check.errors)")
      #expect(check.errors.contains("full_text: true"), "\(check.errors)")
    }
  }
}
