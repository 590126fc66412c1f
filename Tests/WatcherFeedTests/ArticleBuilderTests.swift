// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherTestSupport

/// The article extractor on the pages site builders make (Tests/Fixtures/Pages/Builders): each holds the
/// same article among its builder's furniture, and what comes out is the article, whole and in order,
/// without the furniture.
@Suite("Article extraction on site builders' pages")
struct ArticleBuilderTests {
  /// The article of every builder page.
  static let builderProse =
    ArticleExtractorTests.prose + [
      "A children's corner with picture books in four languages opens on the ground floor, and a room of "
        + "computers, printers and scanners is free for anyone with a library card."
    ]

  /// Words of the furniture around the article on these pages: menus, bylines and dates, subscribe boxes and
  /// paywalls, other posts, comments, footers.
  static let furniture = [
    "Market day moves to Fridays", "Great news", "Powered by", "Subscribe", "Sign in", "Copyright", "©",
    "Page number", "Recent", "Ann Example", "Share this", "Leave a Reply", "Newer Post", "Blog Archive",
    "Recommended", "More from", "Previous", "Edit this page", "Skip to main content", "min read", "Mar 4",
    "March 4", "Made with", "Tip:", "Tags", "Keep reading",
  ]

  @Test(
    "the article of a builder's page is read whole, in order, without its furniture",
    arguments: [
      "blogger", "docusaurus", "drupal", "ghost", "hugo", "medium", "nextjs", "notion", "nuxt", "squarespace",
      "substack", "wix", "wordpress",
    ])
  func builderPage(_ name: String) throws {
    let url = Fixtures.url("Pages/Builders/\(name).html")
    let bytes = try [UInt8](Data(contentsOf: url))
    let page = String(decoding: bytes, as: UTF8.self)
    let text = try #require(try ArticleExtractor.extract(bytes)).text
    var end = text.startIndex
    for paragraph in Self.builderProse {
      let found = try #require(text.range(of: paragraph, range: end..<text.endIndex), "\(name): \(text)")
      end = found.upperBound
    }
    let around = Self.furniture.filter(page.contains)
    #expect(around.count >= 4, "the page has furniture to leave out")
    #expect(around.filter(text.contains).isEmpty, "\(name): \(text)")
  }

  @Test("a page its style hides until script reveals it is read; a part its style hides beside the article is not")
  func revealedByScript() throws {
    let article = "<h1>Library reopens</h1>" + Self.builderProse.map { "<p>\($0)</p>" }.joined()
    let revealed = """
      <!DOCTYPE html><html><head><title>Library reopens</title></head><body>
      <div id="page" style="display: none">\(article)</div><footer><p>Town News, 1890.</p></footer>
      <script>document.getElementById("page").style.display = "block"</script></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(revealed.utf8))).text
    #expect(text == Self.builderProse.joined(separator: "\n\n"), "\(text)")
    // A short post (under the 500 characters an attempt must find) on such a page is read too.
    let post = "<h1>Library reopens</h1><p>\(Self.builderProse[0])</p>"
    let shortRevealed = revealed.replacingOccurrences(of: article, with: post)
    let shortText = try #require(try ArticleExtractor.extract(Array(shortRevealed.utf8))).text
    #expect(shortText == Self.builderProse[0], "\(shortText)")
    // A short visible article beside a longer hidden part: the hidden part stays out.
    let beside = """
      <!DOCTYPE html><html><head><title>Library reopens</title></head><body><article>
      <div style="visibility: hidden">\(Self.builderProse[1...].map { "<p>\($0)</p>" }.joined())</div>
      <p>\(Self.builderProse[0])</p></article></body></html>
      """
    let short = try #require(try ArticleExtractor.extract(Array(beside.utf8))).text
    #expect(short == Self.builderProse[0], "\(short)")
  }

  @Test("a heading closed by the wrong end tag (<h2>…</h3>) ends there, as in a browser, not around the page")
  func headingClosedByWrongTag() throws {
    // libxml2 ignores `</h3>` and nests the rest of the page in the `h2`; a browser closes the `h2` there.
    let body = Self.builderProse.map { "<div><div><div><p>\($0)</p></div></div></div>" }.joined()
    for heading in ["<h2>Town News</h3>", "<h2 class=\"site\">Town News</h3>"] {
      let page = """
        <!DOCTYPE html><html><head><title>Library reopens</title></head><body>\(heading)
        <div><div><main><div><div><article>\(body)</article></div></div></main></div></div></body></html>
        """
      let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
      #expect(text == Self.builderProse.joined(separator: "\n\n"), "\(heading): \(text)")
    }
  }

  @Test("a page laid out in a table: the menu's cell beside the article's is left out, a table of figures in it stays")
  func tableLayout() throws {
    let prose = Self.builderProse
    let figures = """
      <table><tr><th>Year</th><th>Visitors</th></tr><tr><td>2023</td><td>41,200</td></tr>\
      <tr><td><a href="/report">2024</a></td><td>12,900</td></tr></table>
      """
    let page = """
      <html><head><title>Town News - Library reopens</title></head><body><table width="780"><tr><td colspan="2">
      <a href="/">Home</a> | <a href="/news">News</a> | <a href="/sports">Sports</a></td></tr><tr>
      <td width="160" class="leftnav"><a href="/a">Local news</a><br><a href="/b">National news</a><br>
      <a href="/c">Opinion and letters to the editor</a><br><a href="/d">Classifieds and jobs</a></td>
      <td width="620"><font face="Verdana" size="2">\(prose[0])<br><br>\(prose[1])<br><br>\(figures)\(prose[2])<br><br>
      \(prose[3])</font></td></tr></table></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    for paragraph in prose { #expect(text.contains(paragraph), "\(text)") }
    #expect(!text.contains("Local news") && !text.contains("Classifieds"), "\(text)")
    #expect(text.contains("41,200") && text.contains("2024") && text.contains("12,900"), "\(text)")
  }

  @Test("a page inside one cell of a layout table reads as the page without the table: the cell is no paragraph")
  func pageInOneCell() throws {
    let teasers = (1...8).map { number in
      "<div class=\"teaser\"><h3><a href=\"/news/\(number)\">Council story number \(number)</a></h3><p>TOWN: The "
        + "council met again on Monday, and said that item \(number), about the roads, would wait until the spring."
        + "</p></div>"
    }
    let story =
      "<div class=\"story\"><h1>Library reopens</h1>" + Self.builderProse.map { "<p>\($0)</p>" }.joined() + "</div>"
    func text(_ start: String, _ end: String) throws -> String {
      let page = """
        <html><head><title>Library reopens</title></head><body>\(start)Town News
        <div class="latest">\(teasers.joined())</div>\(story)\(end)</body></html>
        """
      return try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    }
    let plain = try text("", "")
    #expect(plain.hasSuffix(Self.builderProse.joined(separator: "\n\n")), "\(plain)")
    let cell = "<table class=\"layout\"><tr><td class=\"logo\">"
    for end in ["", "</td></tr></table>"] {
      #expect(try text(cell, end) == plain, "\(end.isEmpty ? "unclosed" : "closed")")
    }
  }

  @Test("paragraphs written as divs keep a sentence whose source is a link; a dateline of linked places goes")
  func divParagraphs() throws {
    let prose = Self.builderProse
    let sourced =
      "The reading rooms will stay open until nine, <a href=\"https://news.example/library-hours\">according "
      + "to the library's own announcement</a>."
    let page = """
      <html><head><title>Library reopens</title></head><body><article><header><h1>Library reopens</h1><div>\
      <span class="day">June 18, 2024 10:01 <span class="place">Filed from Springfield [ <a href="/place/ohio">Ohio\
      </a> <a href="/place/usa">United States</a> ]</span></span></div></header>\
      \(prose.map { "<div>\($0)</div>" }.joined())<div>\(sourced)</div></article></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(text.hasSuffix("according to the library's own announcement."), "\(text)")
    #expect(!text.contains("Filed from"), "\(text)")
  }

  @Test("a post written in lines two <br>s apart loses its closing \"You may also like...\" and headlines")
  func doubleBreakLines() throws {
    let prose = Self.builderProse
    let headlines = ["Council votes on the new pool", "Five walks along the river", "Market moves to the square"]
    let page = """
      <html><head><title>Library reopens</title></head><body><div class="post"><h1>Library reopens</h1>\
      <div class="entry">\(prose[0])<br><br>\(prose[1])<br><br><div class="ad"></div>\
      \(prose.dropFirst(2).joined(separator: "<br><br>"))<br><br>You may also like...<br><br>\
      \(headlines.map { "<a href=\"/news/\($0.count)\">\($0)</a>" }.joined(separator: "<br><br>"))<br><br>\
      </div></div></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(text == prose.joined(separator: "\n\n"), "\(text)")
  }

  @Test("the list of tags a blog engine writes under a post (rel=\"tag\") goes; tags linked in a paragraph stay")
  func tagList() throws {
    let prose = Self.builderProse
    let linked =
      "The <a href=\"/tag/library\" rel=\"tag\">library</a> and the <a href=\"/tag/council\" rel=\"tag\">"
      + "council</a> both said the reading rooms would be busy, as they were before the repairs began last spring."
    let tags = ["library hours", "town council", "reading rooms", "repairs"].map {
      "<a href=\"/tag/\($0)\" rel=\"tag\">\($0)</a>"
    }
    let page = """
      <html><head><title>Library reopens</title></head><body><div class="entry">\(prose.map { "<p>\($0)</p>" }.joined())
      <p>\(linked)</p><strong>Tags<br>\(tags.joined(separator: ", "))</strong></div></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(text.contains("council both said the reading rooms would be busy"), "\(text)")
    #expect(!text.contains("library hours") && !text.contains("Tags"), "\(text)")
  }

  @Test("lines that point to another article (Read more: …, [Related: …], Lire aussi : …) go; a sourced line stays")
  func readMoreLines() throws {
    let prose = Self.builderProse
    let pointers = [
      "<p><strong>READ MORE:</strong> <a href=\"/a\">Market day moves to Fridays after traders ask</a></p>",
      "<p>[Related: <a href=\"/b\">The old bridge gets new lights after a century</a>]</p>",
      "<p>Lire aussi : <a href=\"/c\">Le marché du vendredi, un succès</a></p>",
    ]
    let sourced = "<p>Source: <a href=\"/report\">the council's report on the library</a></p>"
    // Each alone between paragraphs, where a run of links would not take it.
    let body = zip(prose, pointers + [sourced]).map { "<p>\($0)</p>\($1)" }
    let page = """
      <html><head><title>Library reopens</title></head><body><article>\(body.joined())</article></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(text == (prose + ["Source: the council's report on the library"]).joined(separator: "\n\n"), "\(text)")
  }

  @Test("a list of changes with links in each item is part of the post; a list of headlines is not")
  func changeLists() throws {
    // About half of each item is its link.
    let changes = [
      ("Ann Example", "fixed the opening hours", "on the calendar page"),
      ("Bob Example", "made the catalogue search", "find books by their old call numbers"),
      ("Eve Example", "removed the broken link", "to the closed branch from every page"),
    ].map { "<li>🌟 \($0) <a href=\"/bug/\($1)\">\($1)</a> \($2)</li>" }
    let headlines = ["Market day moves to Fridays", "The old bridge gets new lights", "A new bus to the station"]
      .map { "<li><a href=\"/\($0)\">\($0)</a></li>" }
    let page = """
      <html><head><title>This week in the library</title></head><body><article>
      <p>\(Self.builderProse[0])</p><h3>Fixed this week</h3><ul>\(changes.joined())</ul>
      \(Self.builderProse[1...].map { "<p>\($0)</p>" }.joined())<h3>Elsewhere</h3><ul>\(headlines.joined())</ul></article></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(text.contains("made the catalogue search find books by their old call numbers"), "\(text)")
    #expect(text.contains("removed the broken link to the closed branch"), "\(text)")
    #expect(!text.contains("Market day moves to Fridays"), "\(text)")
  }

  @Test("a heading at the end that introduces nothing (Like this:, Comments over a box script fills) goes")
  func trailingHeadings() throws {
    let prose = Self.builderProse.map { "<p>\($0)</p>" }
    let widgets = """
      <div class="sharedaddy"><h3 class="sd-title">Like this:</h3><div class="likes-widget-placeholder"></div></div>
      <h3>Comments</h3><p><comments-count href="/x"></comments-count> comments</p><div class="fb-comments"></div>
      """
    let ended = "<h2>Hours</h2>" + prose.joined() + "<h2>Update</h2><p>Open on Mondays.</p>"
    let pages = [prose.joined() + widgets, ended + widgets]
    let texts = try pages.map { body in
      try #require(try ArticleExtractor.extract(Array("<html><body><article>\(body)</article></body></html>".utf8)))
        .text
    }
    #expect(texts[0] == Self.builderProse.joined(separator: "\n\n"), "\(texts[0])")
    #expect(texts[1].hasPrefix("Hours\n\n") && texts[1].hasSuffix("Update\n\nOpen on Mondays."), "\(texts[1])")
  }

  @Test("a picture with its caption goes, in a figure or a box named for pictures; a figure of code stays")
  func pictureCaptions() throws {
    let prose = Self.builderProse.map { "<p>\($0)</p>" }
    let boxed = "<div class=\"image top\"><img src=\"a.jpg\"><p>In this 2006 file photo, the reading room.</p></div>"
    let figure = "<figure><img src=\"b.jpg\"><p>The new lifts (Town News)</p></figure>"
    let code = "<figure><pre><code>library open --late-hours</code></pre><figcaption>The command</figcaption></figure>"
    let body = prose[0] + boxed + prose[1] + figure + prose[2] + code + prose[3]
    let page = "<html><body><article>\(body)</article></body></html>"
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(!text.contains("file photo") && !text.contains("The new lifts"), "\(text)")
    #expect(text.contains("library open --late-hours"), "\(text)")
    // A photo story: its text is under its pictures, one box each, and stays.
    let story = Self.builderProse.enumerated().map { "<div class=\"photo\"><img src=\"\($0).jpg\"><p>\($1)</p></div>" }
    let long = "<p>\(Self.builderProse.joined(separator: " "))</p>"
    let essay = "<html><body><article>\(long)\(story.joined())</article></body></html>"
    let told = try #require(try ArticleExtractor.extract(Array(essay.utf8))).text
    #expect(told.hasSuffix(Self.builderProse.joined(separator: "\n\n")), "\(told)")
  }

  @Test("a React page whose article's rest was streamed in a hidden part reads whole, in order")
  func streamedRest() throws {
    let prose = Self.builderProse.map { "<p>\($0)</p>" }
    let page = """
      <html><body><div id="__next"><nav><a href="/">Home</a></nav><main><article><h1>Library reopens</h1>
      \(prose[0])<template id="B:1"></template><div class="skeleton">Loading…</div></article></main></div>
      <div hidden id="S:1">\(prose[1...].joined())</div><script>$RC("B:1","S:1")</script></body></html>
      """
    let text = try #require(try ArticleExtractor.extract(Array(page.utf8))).text
    #expect(text.hasSuffix(Self.builderProse.joined(separator: "\n\n")), "\(text)")
  }
}
