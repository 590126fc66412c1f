// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed
import WatcherTestSupport
import WatcherXML

/// The article extractor: the main text of a page without its furniture, on made-up pages that each show one
/// part of the method, and on the evaluation set of real pages with a known main text.
@Suite("Article extraction")
struct ArticleExtractorTests {
  static let prose = [
    "The council voted on Tuesday to open the new library, which had been closed for repairs since spring, "
      + "and the mayor said the reading rooms would stay open late on weekdays.",
    "Residents had asked for longer hours for years, and the librarians, who ran a survey in the autumn, "
      + "found that most visitors came after work, between six and nine in the evening.",
    "The building, designed in 1931, keeps its oak shelves, its tiled floor and its round reading room, "
      + "but the roof, the heating and the wiring are new, and the lifts reach every floor.",
  ]

  static func page(_ body: String, head: String = "<title>Library reopens - Town News</title>") -> [UInt8] {
    Array("<!DOCTYPE html><html><head>\(head)</head><body>\(body)</body></html>".utf8)
  }

  static var articleHTML: String {
    "<article class=\"post\"><h1>Library reopens</h1>" + prose.map { "<p>\($0)</p>" }.joined() + "</article>"
  }

  @Test("navigation, sidebars, comments, share bars, cookie banners and scripts are left out")
  func furniture() throws {
    let body = """
      <div class="cookie-banner">We use cookies, cookies, cookies, and more cookies, to track you everywhere.</div>
      <nav><ul><li><a href="/">Home</a></li><li><a href="/news">News, sports, weather, and more</a></li></ul></nav>
      <header class="site-header"><a href="/">Town News</a></header>
      <div id="main">\(Self.articleHTML)
        <div class="share-tools"><a href="#">Share on this, that, and the other network</a></div>
        <div id="comments"><p>First comment, very long, with commas, and more commas, and opinions, and so on.</p>
        </div>
      </div>
      <aside class="sidebar"><p>Most read: a story about cats, dogs, parrots, and other pets in town.</p></aside>
      <script>var tracking = "Tuesday library council vote";</script>
      <footer><p>Copyright Town News, all rights reserved, since 1890, and forever.</p></footer>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"))
    #expect(article.title == "Library reopens - Town News")
  }

  @Test(
    "heuristics that leave under 500 characters are retried without them: a page-wide wrapper named like furniture, an article whose only box is named like a widget",
    arguments: [
      "<div class=\"row site_header\"><div class=\"wrap\">\(ArticleExtractorTests.proseHTML)</div></div>",
      "<div id=\"ad-portal\"><div>\(ArticleExtractorTests.proseHTML)</div></div>",
      "<div class=\"elementor-column\"><div class=\"elementor-widget-container\">"
        + "\(ArticleExtractorTests.proseHTML)</div></div><div class=\"elementor-widget\"><p>Share</p></div>",
    ])
  func retried(_ body: String) throws {
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  static var proseHTML: String { prose.map { "<p>\($0)</p>" }.joined() }

  @Test("text beside blocks is scored as the paragraphs it is: an article of bare text runs between headings")
  func bareTextRuns() throws {
    // The article's text sits directly in its div, between subheadings; a sidebar of real paragraphs is
    // beside it. Unwrapped, the runs were never scored and the sidebar won.
    let runs = Self.prose.enumerated().map { "<h3>Part \($0 + 1)</h3>\($1) <b>More</b> words, and commas, here." }
    let body = """
      <div class="story">\(runs.joined())</div>
      <div class="more"><p>Elsewhere in town, the market opens on Sunday, with stalls, music, and food.</p>
      <p>The bakery on the square, closed for a week, sells bread again, and cakes, and pies.</p></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    for part in Self.prose { #expect(article.text.contains(part), "\(article.text)") }
  }

  @Test("a form around the whole page (ASP.NET) is read; a search form's fields are not text")
  func pageWideForm() throws {
    let body = """
      <form method="post" action="./story.aspx" id="aspnetForm"><div class="main">\(Self.articleHTML)</div>
      <div class="search"><label>Search</label><input name="q"><button>Go</button></div></form>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  @Test("og:title is the title; a heading repeating it is not part of the text")
  func title() throws {
    let head = "<title>Town News</title><meta property=\"og:title\" content=\"Library reopens\">"
    let article = try #require(try ArticleExtractor.extract(Self.page(Self.articleHTML, head: head)))
    #expect(article.title == "Library reopens")
    #expect(!article.text.contains("Library reopens"))
    #expect(article.text.hasPrefix(Self.prose[0]))
  }

  @Test("an article split over several boxes of the same kind is read whole")
  func chunks() throws {
    let chunk = { (text: String) in
      "<div class=\"chunk\"><div class=\"grid\"><div class=\"body-inner\"><p>\(text)</p><p>\(text)</p></div></div></div>"
    }
    let body = "<main>" + Self.prose.map(chunk).joined() + "</main><div class=\"related\"><p>Elsewhere</p></div>"
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    for paragraph in Self.prose { #expect(article.text.contains(paragraph)) }
    #expect(!article.text.contains("Elsewhere"))
  }

  @Test("divs used as paragraphs count as paragraphs; a picture gallery and a link list do not")
  func divParagraphsAndGalleries() throws {
    let gallery = "<div class=\"gallery\">" + (1...6).map { "<img src=\"/\($0).jpg\">" }.joined() + "</div>"
    let links =
      "<div class=\"more\">" + (1...8).map { "<div><a href=\"/s\($0)\">Other story number \($0)</a></div>" }.joined()
      + "</div>"
    let body = "<div class=\"entry\">" + Self.prose.map { "<div>\($0)</div>" }.joined() + gallery + links + "</div>"
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"))
  }

  @Test("hidden elements are not text")
  func hidden() throws {
    let body =
      "<article>" + Self.prose.map { "<p>\($0)</p>" }.joined()
      + "<p style=\"display: none\">Hidden, secret, invisible text, never shown.</p>"
      + "<p hidden>Also hidden, with commas, and more.</p><div aria-hidden=\"true\">Screen readers skip this, too.</div>"
      + "</article>"
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(!article.text.contains("idden"))
    #expect(!article.text.contains("skip"))
  }

  @Test("the charset comes from the server, else the page's meta, else UTF-8")
  func charsets() throws {
    let text = "Caf\u{E9} cr\u{E8}me, na\u{EF}ve fa\u{E7}ade, and r\u{E9}sum\u{E9}s were the talk of the town today."
    let latin1 = try #require(text.data(using: .isoLatin1))
    let withMeta =
      Data("<html><head><meta charset=\"iso-8859-1\"></head><body><p>".utf8) + latin1
      + Data("</p></body></html>".utf8)
    #expect(try ArticleExtractor.extract([UInt8](withMeta))?.text == text)
    let httpEquiv =
      Data("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"></head><p>".utf8)
      + latin1
    #expect(try ArticleExtractor.extract([UInt8](httpEquiv))?.text == text)
    let bare = Data("<p>".utf8) + latin1
    #expect(try ArticleExtractor.extract([UInt8](bare), encoding: "ISO-8859-1")?.text == text)
    #expect(try ArticleExtractor.extract(Array("<p>\(text)</p>".utf8))?.text == text)
  }

  @Test("a page of millions of empty elements is read up to its first HTMLTree.maxTags start tags")
  func tagBudget() throws {
    let empty = Array(("<html><body>" + String(repeating: "<p>", count: 2_700_000) + "</body></html>").utf8)
    #expect(empty.count <= ArticleExtractor.maxPageBytes)
    let root = try #require(HTMLTree.parse(empty))
    #expect(root.descendants.count <= HTMLTree.maxTags, "\(root.descendants.count) elements")
    #expect(try ArticleExtractor.extract(empty) == nil)
    // A page under the budget is read whole, its text after many tags included.
    let many = String(repeating: "<span></span>", count: 50_000) + Self.articleHTML
    #expect(try ArticleExtractor.extract(Self.page(many))?.text.hasPrefix(Self.prose[0]) == true)
  }

  @Test("empty, markup-only, hostile and oversized pages give nil or a typed failure, never a crash")
  func hostilePages() throws {
    #expect(try ArticleExtractor.extract([]) == nil)
    #expect(try ArticleExtractor.extract(Array("<html><body><script>x()</script></body></html>".utf8)) == nil)
    // Nested far past the tree's depth limit: read without recursion, the deep part left out.
    let deep = String(repeating: "<div>", count: 50_000) + "deep" + String(repeating: "</div>", count: 50_000)
    _ = try ArticleExtractor.extract(Array(deep.utf8))
    // 100,000 sibling elements to remove, then an article: pruned in one pass, not one removal at a time.
    let scripts = String(repeating: "<script>x()</script><nav>menu</nav>", count: 100_000)
    let crowded = try #require(try ArticleExtractor.extract(Self.page(scripts + Self.articleHTML)))
    #expect(crowded.text.hasPrefix(Self.prose[0]))
    // Binary garbage.
    var generator = SystemRandomNumberGenerator()
    let garbage = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    _ = try? ArticleExtractor.extract(garbage)
    let huge = [UInt8](repeating: 0x61, count: ArticleExtractor.maxPageBytes + 1)
    #expect(throws: ArticleExtractor.Failure.tooLarge(limit: ArticleExtractor.maxPageBytes)) {
      try ArticleExtractor.extract(huge)
    }
    #expect(throws: ArticleExtractor.Failure.unreadable) { try ArticleExtractor.extract([0x1F, 0x8B, 1, 2, 3]) }
  }

  @Test("a saved page compressed with gzip is read decompressed")
  func gzipPage() throws {
    let page = try Data(contentsOf: ExtractionEvaluation.directory.appendingPathComponent("pages/time_001.html.gz"))
    let article = try #require(try ArticleExtractor.extract([UInt8](page)))
    #expect(article.text.hasPrefix("James Hansen first warned Congress"))
  }

  @Test("the word scores count words, and characters of scripts written without spaces")
  func wordScores() {
    #expect(ExtractionEvaluation.words("The cat, the HAT.") == ["the": 2, "cat": 1, "hat": 1])
    #expect(ExtractionEvaluation.words("香港 行政") == ["香": 1, "港": 1, "行": 1, "政": 1])
    let (precision, recall) = ExtractionEvaluation.score(extracted: "a b c d", expected: "a b e")
    #expect(precision == 0.5)
    #expect(abs(recall - 2.0 / 3.0) < 1e-9)
  }

  /// The figures docs/benchmarks.md reports (`swift run -c release watcher-bench extract` prints each page's).
  @Test("on the evaluation set of real pages, word precision averages at least 0.93 and recall at least 0.9")
  func evaluationSet() throws {
    let scores = try ExtractionEvaluation.run()
    #expect(scores.count >= 20)
    let precision = scores.map(\.precision).reduce(0, +) / Double(scores.count)
    let recall = scores.map(\.recall).reduce(0, +) / Double(scores.count)
    #expect(precision >= 0.93, "precision \(precision)")
    #expect(recall >= 0.9, "recall \(recall)")
  }
}
