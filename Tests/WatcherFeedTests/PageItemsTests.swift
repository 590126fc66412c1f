// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Testing
import WatcherXML

@testable import WatcherFeed

/// Pages without feeds: the list of posts found in their markup or in the data they embed, and the pages
/// that give no items, each saying why.
@Suite("Lists of posts on pages without feeds")
struct PageItemsTests {
  static func read(_ html: String, url: String = "https://site.example/blog/") -> PageListing {
    PageItems.read(Array(html.utf8), url: url)
  }

  /// A blog index as themes write it: a menu, the posts, a tag cloud in the sidebar, a footer.
  static func blog(_ numbers: [Int] = Array(1...6)) -> String {
    var html = """
      <!doctype html><html><head><title>Blog</title></head><body>
      <header class="site-header"><nav><a href="/">Home</a><a href="/about">About</a><a href="/contact">Contact</a>
      <a href="/archive">Archive</a></nav></header><main id="content">
      """
    for n in numbers {
      html += """
        <article class="post post-\(n) category-news"><h2 class="entry-title"><a href="/blog/post-\(n)/">The \
        story of post number \(n)</a></h2><time datetime="2026-11-\(10 + n)T08:00:00Z">Nov \(10 + n)</time>
        <p>What post \(n) is about, in a sentence or two of summary.</p><a href="/blog/post-\(n)/">Read more</a>
        <a class="tag" href="/tag/swift">swift</a></article>
        """
    }
    html += "</main><aside class=\"sidebar\"><ul>"
    for tag in ["swift", "linux", "feeds", "rss", "atom", "notifications", "rules", "hooks", "daemon"] {
      html += "<li><a href=\"/tag/\(tag)\">\(tag)</a></li>"
    }
    return html
      + "</ul></aside><footer><a href=\"/privacy\">Privacy policy</a><a href=\"/imprint\">Imprint</a></footer></body></html>"
  }

  @Test("a blog index gives its posts, not its menu, tags or footer, with dates, summaries and the selector")
  func blogIndex() throws {
    let listing = Self.read(Self.blog())
    #expect(listing.status == .list)
    #expect(listing.items.map(\.link) == (1...6).map { "https://site.example/blog/post-\($0)/" })
    #expect(listing.items.first?.title == "The story of post number 1")
    #expect(listing.items.first?.date == "2026-11-11T08:00:00Z")
    #expect(listing.items.first?.summary == "What post 1 is about, in a sentence or two of summary.")
    let selector = try #require(listing.selector)
    #expect(selector == "article.post", "\(listing.reason)")
    #expect(listing.reason.contains("a list of 6 posts like 'The story of post number 1'"))
    // The selector found pins the same list.
    let pinned = PageItems.read(
      Array(Self.blog().utf8), url: "https://site.example/blog/", pins: .init(items: try HTMLSelector(selector)))
    #expect(pinned.items == listing.items)
  }

  @Test("teasers of one kind spread over sections, with modifier classes, are one list")
  func teasersInSections() {
    var html = "<html><body><main>"
    for (section, range) in [("stage", 1...3), ("more", 4...9), ("video", 10...12)] {
      html += "<section class=\"\(section)\"><h2>\(section)</h2>"
      for n in range {
        let size = n % 2 == 0 ? "teaser--large is-first" : "teaser--small"
        html += """
          <article class="teaser \(size)"><a href="https://news.example/2026/story-\(n).html"><h3>Headline \
          of the story \(n) today</h3></a></article>
          """
      }
      html += "</section>"
    }
    html += "</main><footer><ul><li><a href=\"/a\">About us</a></li><li><a href=\"/j\">Jobs</a></li></ul></footer>"
    let listing = Self.read(html + "</body></html>", url: "https://news.example/")
    #expect(listing.items.count == 12, "\(listing.reason)")
    #expect(listing.items.first?.title == "Headline of the story 1 today")
  }

  @Test("release rows take the link of their header, not the links of their notes")
  func releases() {
    var html = "<html><body><div class=\"releases\">"
    for n in (1...5).reversed() {
      html += """
        <div class="release"><div class="release-header"><a href="/o/r/releases/tag/v1.\(n)">v1.\(n)</a></div>
        <relative-time datetime="2026-10-0\(n)T10:00:00Z">Oct \(n)</relative-time><div class="markdown-body"><ul>
        <li>Fixed a crash in the parser (<a href="/o/r/pull/\(100 + n)">#\(100 + n)</a>)</li>
        <li>Thanks <a href="/user\(n)">@user\(n)</a> and <a href="/other\(n)">@other\(n)</a></li></ul></div>
        <a href="/o/r/archive/v1.\(n).tar.gz">Source code (tar.gz)</a></div>
        """
    }
    let listing = Self.read(html + "</div></body></html>", url: "https://git.example/o/r/releases")
    #expect(listing.items.map(\.title) == ["v1.5", "v1.4", "v1.3", "v1.2", "v1.1"], "\(listing.reason)")
    #expect(listing.items.first?.link == "https://git.example/o/r/releases/tag/v1.5")
    #expect(listing.items.first?.date == "2026-10-05T10:00:00Z")
  }

  @Test("a single article, a bot challenge, an app shell and a page of prose give no items, and say why")
  func noItems() {
    var article = """
      <html><head><meta property="og:type" content="article"><title>A long read</title></head><body>
      <nav><a href="/">Home</a><a href="/world">World news section</a><a href="/tech">Technology and science</a>
      <a href="/culture">Culture and the arts</a></nav><article><h1>A long read</h1>
      """
    for n in 1...8 {
      article +=
        "<p>Paragraph \(n) of the article goes on about its subject for a while, as articles do, and says more.</p>"
    }
    article += "</article><aside class=\"related\"><h2>Related</h2><ul>"
    for n in 1...5 { article += "<li><a href=\"/story/\(n)\">Another story you might like number \(n)</a></li>" }
    let single = Self.read(article + "</ul></aside></body></html>")
    #expect(single.status == .noList && single.items.isEmpty && single.reason.contains("single article"))

    let challenge = Self.read(
      """
      <html><head><title>Just a moment...</title></head><body><div id="cf-chl-widget"></div>
      <script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>
      """)
    #expect(challenge.status == .blocked && challenge.reason.contains("Cloudflare"), "\(challenge.reason)")

    let shell = Self.read("<html><body><app-root></app-root><script src=\"main.js\"></script></body></html>")
    #expect(shell.status == .noList && shell.reason.contains("renders in the browser"), "\(shell.reason)")

    // Links inside paragraphs of prose are not rows.
    var prose = "<html><body><div class=\"text\">"
    for n in 1...6 {
      prose +=
        "<p>Some words before <a href=\"/wiki/T\(n)\">Topic \(n)</a> and a good many words after the link, as prose has.</p>"
    }
    #expect(Self.read(prose + "</div></body></html>").items.isEmpty)
  }

  @Test("a site that protects every page with a bot check's script still gives its list")
  func protectedSiteIsNotAChallenge() {
    let html = Self.blog().replacing("</body>", with: "<script src=\"https://js.datadome.co/tags.js\"></script></body>")
    #expect(Self.read(html).items.count == 6)
  }

  @Test("script-built pages: Next.js data, a window state in JavaScript, JSON-LD ItemList; links made absolute")
  func embeddedData() {
    let next = Self.read(
      """
      <html><head><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"posts":[
      {"title":"First post","url":"/p/1","datePublished":"2026-11-01"},{"title":"Second post","url":"/p/2"}]}}}
      </script></head><body><div id="__next"></div></body></html>
      """)
    #expect(next.items.map(\.link) == ["https://site.example/p/1", "https://site.example/p/2"])
    #expect(next.items.first?.date == "2026-11-01" && next.reason.contains("Next.js"))

    let state = Self.read(
      """
      <html><body><script>
      window.__INITIAL_STATE__ = { feed: { items: [
        { headline: 'Nuxt \\'quoted\\' story', permalink: "/s/1", excerpt: "An excerpt.", },
        { headline: "Other story", permalink: "/s/2", tags: ["a", "b",], },
      ], }, count: 2, flag: undefined };
      </script></body></html>
      """)
    #expect(state.items.map(\.title) == ["Nuxt 'quoted' story", "Other story"], "\(state.reason)")
    #expect(state.items.first?.summary == "An excerpt.")

    let parsed = Self.read(
      """
      <html><body><script>
      var data = JSON.parse("{\\"posts\\":[{\\"title\\":\\"Parsed one\\",\\"url\\":\\"/q/1\\"},\
      {\\"title\\":\\"Parsed two\\",\\"url\\":\\"/q/2\\"}]}");
      </script></body></html>
      """)
    #expect(parsed.items.map(\.title) == ["Parsed one", "Parsed two"], "\(parsed.reason)")

    let itemList = Self.read(
      """
      <html><head><script type="application/ld+json">{"@context":"https://schema.org","@graph":[
      {"@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","name":"Home","item":"/"},
      {"@type":"ListItem","name":"Blog","item":"/blog/"},{"@type":"ListItem","name":"Posts","item":"/blog/p"}]},
      {"@type":"ItemList","itemListElement":[{"@type":"ListItem","position":1,"url":"/a","name":"Post A"},
      {"@type":"ListItem","position":2,"item":{"url":"/b","name":"Post B"}}]}]}</script></head><body></body></html>
      """)
    #expect(itemList.items.map(\.title) == ["Post A", "Post B"], "\(itemList.reason)")
  }

  @Test("the lenient reader of script data stops at what is not data, and never runs away")
  func scriptLiterals() {
    var reader = ScriptLiteral(Array("{a: [1, 2,], 'b': \"x\\u0041\", c: {d: null}} trailing".utf8))
    #expect(reader.value() != nil)
    var call = ScriptLiteral(Array("(function(a){return {x: a}})(1)".utf8))
    #expect(call.value() == nil)
    var deep = ScriptLiteral(Array((String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)).utf8))
    #expect(deep.value() == nil)
    var open = ScriptLiteral(Array("{a: 'never closed".utf8))
    #expect(open.value() == nil)
  }

  @Test("pinned selectors pick rows, titles, links and dates; a selector that picks nothing says so")
  func pins() throws {
    let html = """
      <html><body><ul class="jobs"><li class="job"><span class="name">Welder</span> <a class="apply" href="/j/1">apply</a>
      <span class="when">2 Dec</span></li><li class="job"><span class="name">Baker</span>
      <a class="apply" href="/j/2">apply</a><span class="when">3 Dec</span></li></ul></body></html>
      """
    let pins = PageItems.Pins(
      items: try HTMLSelector("li.job"), title: try HTMLSelector(".name"), link: try HTMLSelector("a.apply"),
      date: try HTMLSelector(".when"))
    let listing = PageItems.read(Array(html.utf8), url: "https://jobs.example/", pins: pins)
    #expect(listing.items.map(\.title) == ["Welder", "Baker"])
    #expect(listing.items.map(\.link) == ["https://jobs.example/j/1", "https://jobs.example/j/2"])
    #expect(listing.items.map(\.date) == ["2 Dec", "3 Dec"])
    let none = PageItems.read(
      Array(html.utf8), url: "https://jobs.example/", pins: .init(items: try HTMLSelector("tr")))
    #expect(none.status == .noList && none.reason.contains("picks no row"))
  }

  @Test("an API's JSON list of posts reads as a page (WordPress's REST route), and a page naming that route says so")
  func wordPressREST() {
    let posts = Self.read(
      """
      [{"id": 7, "date": "2026-12-01T09:00:00", "link": "https://wp.example/2026/12/hello/",
        "title": {"rendered": "Hello &amp; welcome"}, "excerpt": {"rendered": "<p>The first post.</p>"}},
       {"id": 6, "date": "2026-11-30T09:00:00", "link": "https://wp.example/2026/11/older/",
        "title": {"rendered": "An older post"}}]
      """, url: "https://wp.example/wp-json/wp/v2/posts")
    #expect(posts.items.map(\.title) == ["Hello & welcome", "An older post"], "\(posts.reason)")
    #expect(posts.items.first?.summary == "The first post." && posts.items.first?.date == "2026-12-01T09:00:00")
    let shell = Self.read(
      """
      <html><head><link rel="https://api.w.org/" href="https://wp.example/wp-json/"></head>
      <body><div id="root"></div><script src="/app.js"></script></body></html>
      """, url: "https://wp.example/")
    #expect(shell.status == .noList && shell.alternative == "https://wp.example/wp-json/wp/v2/posts")
    #expect(shell.reason.contains("names a WordPress REST API"))
  }
}
