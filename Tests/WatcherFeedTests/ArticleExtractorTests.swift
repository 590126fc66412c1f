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
    "a page-wide wrapper named like furniture is read, and so is an article whose only box is named like a widget",
    arguments: [
      "<div class=\"row site_header\"><div class=\"wrap\">\(ArticleExtractorTests.proseHTML)</div></div>",
      "<div id=\"ad-portal\"><div>\(ArticleExtractorTests.proseHTML)</div></div>",
      "<div class=\"Page-ad-margins\"><div class=\"PageBuilder-pageRow\">\(ArticleExtractorTests.proseHTML)</div></div>",
      "<div class=\"header-style-header-2\"><div class=\"panel-two-col-sidebar-right-mix\">"
        + "\(ArticleExtractorTests.proseHTML)</div></div><div class=\"sidebar\"><p>Most read: cats, dogs, birds, "
        + "and fish.</p></div>",
      "<div class=\"elementor-column\"><div class=\"elementor-widget-container\">"
        + "\(ArticleExtractorTests.proseHTML)</div></div><div class=\"elementor-widget\"><p>Share</p></div>",
    ])
  func retried(_ body: String) throws {
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  static var proseHTML: String { prose.map { "<p>\($0)</p>" }.joined() }

  @Test(
    "an article that libxml2's repair nested in a button, navigation or noscript, or that script shows, is read",
    arguments: [
      // An unclosed <div> in a header's menu button: the repair puts the rest of the page inside the button.
      "<header class=\"site-header\"><button class=\"menu-toggle\"><div class=\"icon\"><span>Menu</span></button>"
        + "</header><main>\(ArticleExtractorTests.articleHTML)</main><footer><p>Town News, 1890.</p></footer>",
      "<nav><ul><li><a href=\"/\">Home</a><li><a href=\"/news\">News</a></ul><div class=\"drawer\">"
        + "<main>\(ArticleExtractorTests.articleHTML)</main>",
      "<noscript><div class=\"warn\">Please turn on JavaScript<div>\(ArticleExtractorTests.articleHTML)</div>",
      // React's streamed server rendering: the article arrives in a hidden part that script swaps in.
      "<div id=\"__next\"><nav><a href=\"/\">Home</a></nav><main><template id=\"B:0\"></template>"
        + "<div class=\"skeleton\">Loading…</div></main></div><div hidden id=\"S:0\">"
        + "\(ArticleExtractorTests.articleHTML)</div><script>$RC(\"B:0\",\"S:0\")</script>",
      // A web component rendered on the server: its content is a declarative shadow root.
      "<site-nav><a href=\"/\">Home</a></site-nav><blog-post><template shadowrootmode=\"open\">"
        + "\(ArticleExtractorTests.articleHTML)</template></blog-post><template id=\"row\"><p>\(ArticleExtractorTests.prose[0])</p></template>",
      // An unclosed template in the header swallows the rest of the page; a template script stamps in.
      "<header><template id=\"icon\"><div class=\"x\"></header><main>\(ArticleExtractorTests.articleHTML)</main>",
      "<div id=\"app\"></div><template id=\"story\">\(ArticleExtractorTests.articleHTML)</template>"
        + "<script>app.append(story.content.cloneNode(true))</script>",
      // An <object>'s fallback content, and HTML an <svg> holds in a <foreignObject>, when that is the page.
      "<object data=\"story.swf\" type=\"application/x-shockwave-flash\"><div class=\"fallback\">"
        + "\(ArticleExtractorTests.articleHTML)</div></object>",
      "<svg viewBox=\"0 0 800 2000\"><foreignObject width=\"800\" height=\"2000\"><div>"
        + "\(ArticleExtractorTests.articleHTML)</div></foreignObject></svg>",
      // A modal's library hides the rest of the page from screen readers while the modal is open.
      "<div id=\"root\" aria-hidden=\"true\"><main>\(ArticleExtractorTests.articleHTML)</main></div>"
        + "<div class=\"ReactModal__Overlay\" role=\"dialog\"><p>We use cookies. Accept?</p></div>",
    ])
  func articleInsidePrunedKind(_ body: String) throws {
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  @Test("a page built by script is read from its linked data's articleBody when its HTML holds no article")
  func linkedDataBody() throws {
    let body = Self.prose.joined(separator: "\\n")
    let graph = """
      {"@context": "https://schema.org", "@graph": [{"@type": "WebSite", "name": "Town News"},
      {"@type": "NewsArticle", "headline": "Library reopens", "articleBody": "\(body)"}]}
      """
    let shell = """
      <script type="application/ld+json">\(graph)</script><div id="app"><nav><a href="/">Home</a></nav>
      <p>Loading the story…</p></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(shell)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
    // A page whose HTML holds its article keeps the article it shows (linked data often holds a summary).
    let summary = "<script type=\"application/ld+json\">{\"articleBody\": \"A summary, longer than nothing.\"}</script>"
    let shown = try #require(try ArticleExtractor.extract(Self.page(summary + Self.articleHTML)))
    #expect(shown.text == Self.prose.joined(separator: "\n\n"))
  }

  @Test(
    "an article wrapped whole in a kind, role or name of page furniture is read",
    arguments: [
      // ASP.NET Web Forms wrap the whole page in one form.
      "<form id=\"aspnetForm\" method=\"post\"><input type=\"hidden\" name=\"__VIEWSTATE\" value=\"x\">"
        + "<div id=\"content\">\(ArticleExtractorTests.articleHTML)</div></form>",
      "<main><details><summary>Read the whole story</summary>\(ArticleExtractorTests.articleHTML)</details></main>",
      "<dialog open><article>\(ArticleExtractorTests.articleHTML)</article></dialog>",
      "<div inert><article>\(ArticleExtractorTests.articleHTML)</article></div>",
      "<div role=\"complementary\"><article>\(ArticleExtractorTests.articleHTML)</article></div>",
      "<aside class=\"layout\"><article>\(ArticleExtractorTests.articleHTML)</article></aside>",
      "<footer class=\"site\"><article>\(ArticleExtractorTests.articleHTML)</article></footer>",
      "<menu><li><article>\(ArticleExtractorTests.articleHTML)</article></li></menu>",
      "<div class=\"modal-content article-modal\">\(ArticleExtractorTests.articleHTML)</div>",
    ])
  func articleWrappedInFurniture(_ body: String) throws {
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  @Test("an object's fallback text and an svg's labels beside the article are left out")
  func objectAndSVGBesideArticle() throws {
    let body =
      "<object data=\"player.swf\"><p>Your browser cannot play this video. Install a plugin to watch it here.</p>"
      + "</object>\(Self.articleHTML)<svg><text x=\"0\" y=\"10\">Share of visitors by year</text>"
      + "<foreignObject><p>Chart notes: figures for the year are provisional and rounded.</p></foreignObject></svg>"
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  @Test("hidden parts that hold little of the page, and parts its style hides, are left out")
  func hiddenLeftOut() throws {
    let body = """
      <div hidden><p>Sign in to keep reading, to comment, to share, and to save articles for later.</p></div>
      <div aria-hidden="true"><p>Menu: news, sport, weather, culture, opinion, and more.</p></div>
      \(Self.articleHTML)
      <div style="display: none"><p>\(Self.prose.joined(separator: " ")) \(Self.prose.joined(separator: " "))</p></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

  @Test("a short post is read without the long comment thread under it")
  func shortPostLongComments() throws {
    // Under 500 characters: a retry without the pruning by name would find the comments instead.
    let post = "Our open thread is a place to raise questions about our work, and we try to answer promptly."
    let comment =
      "I read your report, and I wondered, as others have, whether the slower buses cost more time than "
      + "they save in lives, and whether anyone has measured it, or asked the drivers."
    let comments = (1...8).map {
      "<li class=\"comment\" id=\"comment-\($0)\"><div class=\"comment-body\"><p>\(comment)</p></div></li>"
    }
    let body = """
      <main id="main"><article class="post"><h1>Open thread</h1><div class="entry-content"><p>\(post)</p></div>
      </article><div id="comments" class="comments-area"><ul class="comment-list">\(comments.joined())</ul></div>
      </main>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == post)
  }

  @Test("the box holding most of the article is never cleaned away, whatever its pictures, links or name")
  func chosenBoxKept() throws {
    // The article's box also holds a bar of share icons (a picture gallery to the cleaner), and a caption
    // with many commas beside it outscores the article's plain sentences once the names stop counting.
    let icons = (1...12).map { "<img src=\"/icon\($0).png\" alt=\"\">" }.joined()
    let plain = (1...4).map {
      "Part \($0) of the story tells how the station was planned and built over many years by crews from "
        + "several countries who worked in shifts through the long months in orbit."
    }
    let body = """
      <div class="element article"><div class="image top"><p>In this 2006 photo, made by NASA, astronaut A, left, \
      and B, right, work, walk, wave, and talk, while the station, the arm, the panels, and the dock, are built, \
      in orbit, at night.</p></div>
      <div class="clearfix"><div class="bar">\(icons)</div><div>\(plain.map { "<p>\($0)</p>" }.joined())</div></div></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    for part in plain { #expect(article.text.contains(part), "\(article.text)") }
  }

  @Test("posts a site shows whole under the article, below a heading named for them, are left out though longer")
  func otherPostsShownWhole() throws {
    let others = (1...4).map { n in
      "<article class=\"post box\"><p>Another message, number \(n), "
        + String(repeating: "with words and commas of its own, ", count: 12) + "and an end.</p></article>"
    }
    let body = """
      <article class="post box">\(Self.proseHTML)</article><article class="post box">
      <h3 class="relatedpoststitle">You may like...</h3>\(others.joined())</article>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
    // Under such a heading with nothing of its own beside it, the text is the article's: it stays.
    let alone = try #require(
      try ArticleExtractor.extract(Self.page("<div><h3 class=\"related-title\">Related</h3>\(Self.proseHTML)</div>")))
    #expect(alone.text.contains(Self.prose[0]) && alone.text.contains(Self.prose[2]), "\(alone.text)")
  }

  @Test("formulas are text, whatever their container is named (MathJax's context-menu class)")
  func formulas() throws {
    let formula = """
      <mjx-container class="MathJax CtxtMenu_Attached_0" jax="CHTML"><mjx-math aria-hidden="true"><mjx-mi>
      </mjx-mi></mjx-math><mjx-assistive-mml><math><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn>
      </msup></math></mjx-assistive-mml></mjx-container>
      """
    let body = "<article>\(Self.proseHTML)<p>The best known formula is</p>\(formula)<p>and it is short.</p></article>"
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text.contains("E = m c 2") || article.text.contains("E=mc2"), "\(article.text)")
  }

  @Test("posts quoted from social networks are text, whatever their container is named; a share bar is not")
  func embeddedPosts() throws {
    let tweet = """
      <div class="social-media-embed"><blockquote class="twitter-tweet"><p lang="en">The reading room is open \
      again, and it is lovely <a href="https://t.co/x">https://t.co/x</a></p>— Ann (@ann) \
      <a href="https://twitter.com/ann/status/1">March 4, 2025</a></blockquote></div>
      """
    let share =
      "<div class=\"social-share\"><a href=\"/s/x\">Share on X</a> <a href=\"/s/f\">Share on Facebook</a></div>"
    let body = "<article>\(Self.proseHTML)\(tweet)<p>The mayor agreed.</p>\(share)</article>"
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text.contains("The reading room is open again, and it is lovely"), "\(article.text)")
    #expect(!article.text.contains("Share on"), "\(article.text)")
  }

  @Test("a sibling of the article's class that is mostly links (a row of popular stories) is not joined")
  func linkRowNotJoined() throws {
    let stories = (1...6).map {
      "<div class=\"item\"><a href=\"/story/\($0)\"><h4>Story \($0)</h4><p>A popular story, with a long summary, "
        + "and more words, about the town, number \($0).</p></a></div>"
    }
    let body = """
      <div class="container"><div class="row"><div class="col"><article class="content">\(Self.proseHTML)\(Self.proseHTML)
      </article></div></div><div class="row"><div class="col"><h3>Popular</h3>\(stories.joined())</div></div></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == (Self.prose + Self.prose).joined(separator: "\n\n"), "\(article.text)")
  }

  @Test("an ancestor scoring higher than the top box is the article: an intro and paragraphs beside a read-more box")
  func higherAncestor() throws {
    let more = (1...6).map {
      "<p>Later, in part \($0), the committee, which met in private, heard from the police, the courts, "
        + "and the press, and asked for changes, fixes, and limits.</p>"
    }
    let body = """
      <div id="story"><div class="story-body"><div class="story-intro"><p><strong>\(Self.prose[0])</strong></p></div>
      <p>\(Self.prose[1])</p><p>\(Self.prose[2])</p>
      <div id="read-more"><div id="read-more-link"><a href="">Read more</a></div>
      <div id="read-more-content">\(more.joined())</div></div></div></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    for part in Self.prose { #expect(article.text.contains(part), "\(article.text)") }
    #expect(article.text.contains("Later, in part 6"))
  }

  @Test("a section whose id spells its heading is read, whatever words the id holds")
  func headingAnchors() throws {
    let sections = [
      ("why-the-library", "Why the library"), ("sharing-with-a-single-reader", "Sharing with a single reader"),
      ("the-building", "The building"),
    ]
    let body = sections.enumerated().map { index, section in
      "<div class=\"section\" id=\"\(section.0)\"><h2>\(section.1)</h2><p>\(Self.prose[index])</p></div>"
    }.joined()
    let article = try #require(try ArticleExtractor.extract(Self.page("<div class=\"document\">\(body)</div>")))
    for part in Self.prose { #expect(article.text.contains(part), "\(article.text)") }
    // An id that does not spell the heading still says what the box is.
    let share = "<div id=\"sharing-tools\"><h2>Share this</h2><p>Share on this, that, and the other network.</p></div>"
    let shared = try #require(try ArticleExtractor.extract(Self.page("<div class=\"document\">\(body)\(share)</div>")))
    #expect(!shared.text.contains("other network"))
  }

  @Test("a brief whose names are all links is kept, though its link density is over the cleaner's limit")
  func linkedBrief() throws {
    let brief = """
      <div class="brief"><p><a href="/a">Ann Lee</a>, <a href="/b">Bob Ray</a> and <a href="/c">Cy Tam</a> \
      won the <a href="/d">town prize</a> on Tuesday, and <a href="/e">Dee Fox</a> came second.</p>
      <p>The prize, given since 1931 by the <a href="/f">Library Friends</a>, goes to readers who wrote \
      the best review.</p></div>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page("<div class=\"story\">\(brief)</div>")))
    #expect(article.text.contains("won the town prize") && article.text.contains("goes to readers"), "\(article.text)")
  }

  @Test(
    "runs of link-only paragraphs in the article (You may also like, DON'T MISS) go with their lead-in; a lone link stays"
  )
  func linkRuns() throws {
    let body = """
      <article class="content">\(Self.proseHTML)<p><a href="/report.pdf">The full report of the council</a></p>
      <p>And the reading rooms, which open at nine, close at eight in winter, and at ten in summer.</p>
      <p><strong>DON'T MISS</strong></p><p><a href="/x">Bakery closes after sixty years</a> [VIDEO]</p>
      <p>Then the council, at last, and after a long debate, agreed the budget for the year.</p>
      <p>You may also like...</p><p><a href="/1">Who will run the library in 2026?</a></p>
      <p><a href="/2">The ten best reading rooms in the county</a></p><p><a href="/3">Town fair dates</a></p>
      </article>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    for part in Self.prose { #expect(article.text.contains(part)) }
    #expect(article.text.contains("The full report of the council"), "\(article.text)")
    #expect(article.text.contains("agreed the budget"))
    for gone in ["DON'T MISS", "Bakery closes", "You may also like", "Who will run", "ten best", "Town fair"] {
      #expect(!article.text.contains(gone), "\(gone): \(article.text)")
    }
  }

  @Test("datelines, bylines and captions are left out, even inside a box named content")
  func datelines() throws {
    let body = """
      <article class="content"><div class="content__header"><p class="content__meta content__meta-byline">By Ann Lee,
      Bob Ray</p><p class="content__meta-timestamp"><time>November 20, 2019 / 1:07 AM</time></p>
      <div class="dateline"><span class="dateline__updated">Updated Nov 19, 6:55 AM</span></div></div>
      \(Self.proseHTML)<span class="newsCaption">The library, closed since spring, in a photo from May.</span>
      <div class="publish-info"><div class="dates">PUBLISHED: 10:48, Tue, Nov 19, 2019</div></div></article>
      """
    let article = try #require(try ArticleExtractor.extract(Self.page(body)))
    #expect(article.text == Self.prose.joined(separator: "\n\n"), "\(article.text)")
  }

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
