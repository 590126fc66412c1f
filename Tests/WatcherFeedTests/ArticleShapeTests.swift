// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherFeed

/// The article extractor on the shapes of 2024–2025 news and blog templates: what each puts in or around the
/// article (a paywall's prompt, readers' comments, gallery captions, hover cards, cards of other articles,
/// lines that only say when), and what of it is the article.
@Suite("Article extraction on 2025 page shapes")
struct ArticleShapeTests {
  static let prose = ArticleBuilderTests.builderProse
  static let paragraphs = prose.map { "<p>\($0)</p>" }
  /// The article as the extractor gives it: its paragraphs, a blank line between them.
  static let whole = prose.joined(separator: "\n\n")

  static func text(_ page: String) throws -> String {
    try #require(try ArticleExtractor.extract(Array(page.utf8))).text
  }

  /// The text read from a page whose body is `body` in an `<article>`.
  static func article(_ body: String) throws -> String {
    try text("<html><body><article>\(body)</article></body></html>")
  }

  @Test("a paywall's prompt to subscribe or sign in goes; an article's part filed under the paywall's name stays")
  func paywalls() throws {
    let prose = Self.paragraphs
    let prompts = [
      "<div class=\"paywall\" id=\"piano-inline\"><h2>This article is for subscribers</h2><p>Subscribe today for "
        + "unlimited access on any device, for one dollar a week.</p><a href=\"/subscribe\">Subscribe now</a>"
        + "<p>Already a subscriber? <a href=\"/account\">Log in</a></p></div>",
      "<section class=\"regwall-prompt\"><p>Create a free account to keep reading this story and two more each "
        + "month.</p><button>Continue with email</button></section>",
    ]
    for prompt in prompts {
      let page = "<html><body><article>\(prose[0] + prose[1])\(prompt)</article></body></html>"
      let text = try Self.text(page)
      #expect(text == Self.prose.prefix(2).joined(separator: "\n\n"), "\(text)")
    }
    // Sites that send the whole article mark the part behind the wall with the same name: it stays, links and all.
    let behind =
      "<div class=\"article-paywall\"><p>\(Self.prose[2])</p><p>\(Self.prose[3]) "
      + "<a href=\"/library\">The library's hours</a>.</p></div>"
    let whole = "<html><body><article>\(prose[0] + prose[1])\(behind)</article></body></html>"
    let text = try Self.text(whole)
    #expect(text.hasPrefix(Self.whole), "\(text)")
  }

  @Test(
    "readers' comments go whatever their box is named, found by the reply link under each; an article naming Reply stays"
  )
  func replyThreads() throws {
    let prose = Self.paragraphs
    let said = [
      "I have used this library since I was a child and I am glad the council listened to its readers at last.",
      "Late opening is good news for those of us who work shifts, but I hope they keep Saturday mornings too.",
    ]
    let threads = [
      "<section id=\"responses\"><h2>2 responses</h2>"
        + said.map { "<div class=\"entry\"><a href=\"/u\">Reader</a><p>\($0)</p><a href=\"#r\">Reply</a></div>" }
        .joined() + "</section>",
      "<section id=\"kommentare\"><h2>2 Kommentare</h2>"
        + said.map { "<div class=\"entry\"><span>Leserin</span><p>\($0)</p><button>Antworten</button></div>" }
        .joined() + "</section>",
    ]
    for thread in threads {
      let page = "<html><body><main><article>\(prose.joined())</article>\(thread)</main></body></html>"
      let text = try Self.text(page)
      #expect(text == Self.whole, "\(text)")
    }
    // An article that tells how to answer mail names the Reply button in its sentences, in a box of two steps
    // that holds less than half the page: it is not a thread.
    let howTo =
      "<div class=\"steps\"><p>Press <a href=\"#\">Reply</a> to answer the sender alone.</p>"
      + "<p>Press <a href=\"#\">Reply all</a> to answer everyone.</p></div>"
    let page = "<html><body><article>\(prose[0] + howTo + prose[1] + prose[2] + prose[3])</article></body></html>"
    let text = try Self.text(page)
    #expect(text.contains("Press Reply to answer") && text.contains("Press Reply all"), "\(text)")
    #expect(text.hasSuffix(Self.prose[3]), "\(text)")
  }

  @Test("a gallery told in its figcaptions keeps them, without their credits; an article's own photo captions go")
  func galleryCaptions() throws {
    func figure(_ index: Int, _ caption: String) -> String {
      "<figure class=\"gallery-item\"><img src=\"\(index).jpg\"><figcaption><span class=\"caption-text\">\(caption)"
        + "</span> <span class=\"credit\">Photo: Town News</span></figcaption></figure>"
    }
    let intro = "<p>The library opened again on Tuesday. Here is a walk through its rooms.</p>"
    let gallery = Self.prose.enumerated().map { figure($0, $1) }.joined()
    let page = "<html><body><article><h1>In pictures</h1>\(intro)\(gallery)</article></body></html>"
    let text = try Self.text(page)
    #expect(text.hasSuffix(Self.whole), "\(text)")
    #expect(!text.contains("Photo: Town News"), "\(text)")
    // An article with three photos: its captions are short beside its text, and go as before.
    let photos = ["The reading room", "The new lifts", "The children's corner"].enumerated().map { figure($0, $1) }
    let prose = Self.paragraphs
    let body = prose[0] + photos[0] + prose[1] + photos[1] + prose[2] + photos[2] + prose[3]
    let read = try Self.article(body)
    #expect(read == Self.whole, "\(read)")
  }

  @Test("a site's copyright lines go with their box when the page keeps them beside the article")
  func copyrightBox() throws {
    let copyright =
      "<div class=\"copyright-wrp\"><p>Town News, 1 Main Street, Springfield | 555-0100 tel | 555-0101 fax</p>"
      + "<p>The contents of this site are © 2025 Town News Publishing Corp., a subsidiary of Example Media.</p></div>"
    let prose = Self.paragraphs.joined()
    let page = "<html><body><div id=\"page\"><h1>Library reopens</h1>\(prose)\(copyright)</div></body></html>"
    let text = try Self.text(page)
    #expect(text == Self.whole, "\(text)")
  }

  @Test("a card written inside a sentence (a name's picture and links to other articles) goes; links in it stay")
  func inlineCards() throws {
    let card =
      "<span class=\"rollover-people\"><a href=\"/people/ann\">Ann Example</a><span class=\"rollover-block\">"
      + "<img src=\"ann.jpg\"><a href=\"/people/ann\">Ann Example</a><a href=\"/a\">Market day moves to Fridays</a> "
      + "<a href=\"/b\">The old bridge gets new lights</a></span></span>"
    let emoji =
      "<span><a href=\"/c\">the council</a> <img class=\"emoji\" src=\"e.png\"> <a href=\"/v\">voted</a></span>"
    let body =
      "<p>Librarian \(card) said the survey settled it.</p><p>Then \(emoji) for it.</p>"
      + Self.prose.map { "<p>\($0)</p>" }.joined()
    let text = try Self.article(body)
    #expect(
      text.hasPrefix("Librarian Ann Example said the survey settled it.\n\nThen the council voted for it."), "\(text)")
    #expect(!text.contains("Market day"), "\(text)")
  }

  @Test("cards of other articles between the paragraphs go; a list whose linked headings are the article stays")
  func storyCards() throws {
    func card(_ title: String, _ summary: String) -> String {
      "<div class=\"story-card\"><a href=\"/x\"><img src=\"x.jpg\"><h3>\(title)</h3></a><p>\(summary)</p></div>"
    }
    let prose = Self.paragraphs
    let first = card("Market day moves to Fridays", "The weekly market moves to Fridays from next month, traders say.")
    let second = card("The old bridge gets new lights", "Lamps from 1902 were restored on the river bridge.")
    let body = prose[0] + first + prose[1] + prose[2] + second + prose[3]
    let page = "<html><body><main><article><h1>Library reopens</h1>\(body)</article></main></body></html>"
    let text = try Self.text(page)
    #expect(text == Self.whole, "\(text)")
    // The four best rooms, each a linked heading over its picture and text: the article itself.
    let rooms = ["Reading room", "Children's corner", "Map room", "Roof garden"]
    let list = zip(rooms, Self.prose).map { card($0, $1) }.joined()
    let listicle = "<html><body><article><h1>The four best rooms</h1>\(list)</article></body></html>"
    let read = try Self.text(listicle)
    #expect(Self.prose.allSatisfy(read.contains) && read.contains("Map room"), "\(read)")
    // A long read whose sections open with a heading linking to itself (`#s0`) over a picture: its text.
    let sections = zip(rooms, Self.prose).enumerated().map { index, pair in
      "<section><h4><a href=\"#s\(index)\">\(pair.0)</a></h4><img src=\"\(index).jpg\"><p>\(pair.1)</p></section>"
    }
    let long = String(repeating: Self.paragraphs.joined(), count: 4) + sections.joined()
    let essay = try Self.article(long)
    #expect(essay.components(separatedBy: Self.prose[3]).count == 6, "the sections' text stays: \(essay)")
  }

  @Test("a line that only says when (Published <time>…</time>) goes; a date in a sentence stays")
  func timeLines() throws {
    let prose = Self.paragraphs
    let published =
      "<p>Published <time datetime=\"2025-03-04\">4 March 2025</time> · Updated <time>5 March 2025</time></p>"
    let updated = "<div><span>Updated</span> <time datetime=\"2025-03-05\">5 March 2025</time></div>"
    let sentence =
      "<p>The doors open on <span><time datetime=\"2025-03-08\">Saturday 8 March</time></span>, at nine in the "
      + "morning.</p><p>The first reading group meets on <time>Monday</time> in the round room.</p>"
    let body = published + prose[0] + prose[1] + sentence + prose[2] + prose[3] + updated
    let page = "<html><body><article><h1>Library reopens</h1>\(body)</article></body></html>"
    let text = try Self.text(page)
    #expect(!text.contains("Published") && !text.contains("Updated") && !text.contains("2025"), "\(text)")
    #expect(text.contains("The doors open on Saturday 8 March, at nine in the morning."), "\(text)")
    #expect(text.contains("The first reading group meets on Monday in the round room."), "\(text)")
  }

  @Test("lines that only mark an advertisement's place go, in a dozen languages; a sentence about advertising stays")
  func adLabels() throws {
    let labels = ["ADVERTISEMENT", "Anzeige", "Publicité", "Story continues below advertisement", "Reklama:"]
    let said = "<p>The council said advertising on the new library's walls would pay for the late hours.</p>"
    let body = zip(Self.paragraphs, labels).map { "\($0)<p>\($1)</p>" }.joined() + said
    let text = try Self.article(body)
    #expect(
      text == Self.whole + "\n\nThe council said advertising on the new library's walls would pay for the late hours.")
  }

  @Test("lines of share buttons written as links go, in any language; a sentence naming the networks stays")
  func shareLines() throws {
    let share = [
      "<p>Share this: <a href=\"https://www.facebook.com/sharer.php?u=x\">Facebook</a> "
        + "<a href=\"https://twitter.com/intent/tweet?url=x\">Twitter</a> <a href=\"mailto:?body=x\">Email</a></p>",
      "<p>Teilen: <a href=\"https://x.com/intent/post?url=x\">X</a> | <a href=\"https://wa.me/?text=x\">WhatsApp</a></p>",
    ]
    let said =
      "<p>The library will post its new hours on <a href=\"https://facebook.com/townlibrary\">Facebook</a> and "
      + "<a href=\"https://x.com/townlibrary\">X</a> every Monday, the librarians said.</p>"
    let mail =
      "<p>Write to <a href=\"mailto:ann@example.com\">Ann</a> or <a href=\"mailto:tips@example.com\">tips</a>.</p>"
    let body = Self.paragraphs.joined() + said + mail + share.joined()
    let text = try Self.article(body)
    #expect(
      text == Self.whole
        + "\n\nThe library will post its new hours on Facebook and X every Monday, the librarians said."
        + "\n\nWrite to Ann or tips.", "\(text)")
  }

  @Test("a post written as text and <br>s inside a span or font beside a heading is read")
  func inlineTextRuns() throws {
    let lines = Self.prose.joined(separator: "<br><br>")
    let menu = "<ul class=\"nav\"><li><a href=\"/\">Forum index</a></li><li><a href=\"/faq\">FAQ</a></li></ul>"
    let pages = [
      // phpBB's subSilver: the post is a span of text and <br>s beside its subject line.
      "<div class=\"post\"><h3>Library reopens</h3><span class=\"postbody\">\(lines)</span></div>",
      // A 2008 CMS: the story in font tags beside its heading.
      "<div class=\"cell\"><h2>Library reopens</h2><font face=\"Verdana\" size=\"2\">\(lines)</font></div>",
    ]
    for post in pages {
      let text = try Self.text("<html><body>\(menu)\(post)<footer><p>Powered by a forum.</p></footer></body></html>")
      #expect(text == "Library reopens\n\n" + Self.whole, "\(text)")
    }
  }

  @Test(
    "an article written as a list of long items, or as text in a <dd>, is read; the lists of links beside it are not")
  func proseItems() throws {
    let links = (1...8).map { "<li><a href=\"/r\($0)\">Another story from the town, number \($0), this week</a></li>" }
    let rail = "<div class=\"more\"><h3>More from the town</h3><ul>\(links.joined())</ul></div>"
    let pages = [
      "<article><h1>Library reopens</h1><ul class=\"points\">\(Self.prose.map { "<li>\($0)</li>" }.joined())</ul></article>",
      "<dl><dt>Library reopens</dt><dd>\(Self.prose.joined(separator: "<br><br>"))</dd></dl>",
    ]
    for article in pages {
      let text = try Self.text("<html><body>\(article)\(rail)<footer><p>Town News, 1890.</p></footer></body></html>")
      // The list's heading may come with it or not; the links and the footer never.
      #expect([Self.whole, "Library reopens\n\n" + Self.whole].contains(text), "\(text)")
    }
  }

  @Test(
    "calls to go elsewhere go whatever their names: a sign-up box, a follow or subscribe link line, an audio player's label"
  )
  func callsElsewhere() throws {
    let p = Self.paragraphs
    let signUp =
      "<div class=\"my-8 rounded bg-gray-100 p-6\"><h3>Get the Town News daily</h3><p>The stories that matter, in "
      + "your inbox every morning.</p><form action=\"/nl\"><input type=\"email\"><button>Sign up</button></form></div>"
    let listen =
      "<div class=\"flex items-center\"><button aria-label=\"Play\"></button><span>Listen to this article</span>"
      + "<span> · 5 min</span></div>"
    let follow = "<p><a href=\"https://news.google.com/publications/CAAq\">Follow us on Google News</a></p>"
    let more =
      "<p class=\"text-center\"><a href=\"/subscribe?ref=article\">Continue reading with a subscription</a></p>"
    // What stays: sentences with such links or words in them, and a short line with an ordinary link.
    let sentence =
      "<p>The library posted its plans on <a href=\"https://facebook.com/townlibrary\">its Facebook page</a>.</p>"
    let radio = "<p>Listen to this article's author on the radio at nine.</p>"
    let report = "<p><a href=\"/report.pdf\">The full report</a></p>"
    let body = p[0] + listen + p[1] + signUp + p[2] + follow + p[3] + more + sentence + radio + report
    let text = try Self.text("<html><body><main><article>\(body)</article></main></body></html>")
    #expect(
      text == Self.prose.prefix(4).joined(separator: "\n\n")
        + "\n\nThe library posted its plans on its Facebook page.\n\nListen to this article's author on the radio at "
        + "nine.\n\nThe full report", "\(text)")
  }

  @Test("a box about the writer goes whatever its name: a photo and bio, a byline; a sentence naming someone stays")
  func authorBoxes() throws {
    let p = Self.paragraphs
    let byline = "<div class=\"text-sm\">By <a href=\"/authors/ann-lee\">Ann Lee</a>, 2 March 2025</div>"
    let bio =
      "<div class=\"mt-8 flex gap-3\"><img src=\"/ann.jpg\"><div><a href=\"/authors/ann-lee\">Ann Lee</a>"
      + "<p class=\"text-sm\">Ann Lee covers the town's libraries and schools.</p></div></div>"
    let named = "<p><a href=\"/people/bob-reed\">Bob Reed</a> declined to comment.</p>"
    let body = byline + p[0] + p[1] + named + p[2] + p[3] + bio
    let text = try Self.article(body)
    let expected = Self.prose.prefix(2) + ["Bob Reed declined to comment."] + Self.prose[2...3]
    #expect(text == expected.joined(separator: "\n\n"), "\(text)")
  }

  @Test("a media player's length alone goes; a time in a sentence or in highlighted code stays")
  func durations() throws {
    let p = Self.paragraphs
    let video =
      "<div class=\"my-4\"><video src=\"/v.mp4\"></video><p>Watch the reading room reopen</p>"
      + "<span class=\"text-xs\">2:31</span></div>"
    let code = "<pre><code><span>opens:</span><span>10:00</span></code></pre>"
    let sentence = "<p>The doors open at <span>10:30</span> every day.</p>"
    let body = p[0] + video + p[1...].joined() + code + sentence
    let text = try Self.article(body)
    #expect(!text.contains("2:31"), "\(text)")
    #expect(text.contains("opens:10:00") && text.contains("The doors open at 10:30 every day."), "\(text)")
  }

  @Test(
    "a read-more line whose label is set apart in bold, and a call to subscribe told by its words, go in any language")
  func boldReadMoreAndSubscribeWords() throws {
    let p = Self.paragraphs
    let readMore = [
      "<p><strong>À lire aussi</strong> <a href=\"/b1\">Une nouvelle ligne de bus dès mars</a></p>",
      "<p><b>DON'T MISS</b><br><a href=\"/c1\">Bus station to close for repairs</a> [NEWS]<br>"
        + "<a href=\"/c2\">Cyclists call for a safer route</a> [INSIGHT]</p>",
    ]
    let subscribe = "<p><a href=\"/abo\">Jetzt abonnieren und weiterlesen</a></p>"
    // A sentence that begins in bold stays.
    let bold = "<p><strong>More</strong> than two hundred people came to the opening, the librarians said.</p>"
    let body = p[0] + readMore[0] + p[1] + readMore[1] + p[2] + subscribe + bold + p[3]
    let text = try Self.article(body)
    let expected =
      Self.prose.prefix(3) + ["More than two hundred people came to the opening, the librarians said.", Self.prose[3]]
    #expect(text == expected.joined(separator: "\n\n"), "\(text)")
  }

  @Test("read-more lines and ad labels in Russian, Japanese, Chinese and Spanish go")
  func readMoreInMoreLanguages() throws {
    let p = Self.paragraphs
    let lines = [
      "<p><strong>Читайте также</strong> <a href=\"/z\">Новый автобусный маршрут</a></p>",
      "<p>【関連記事】<a href=\"/x\">バス路線、3月から新設</a></p>",
      "<p>相关阅读：<a href=\"/y\">自行车道建设加快</a></p>",
      "<p>Te puede interesar: <a href=\"/w\">Nueva línea de autobús</a></p>",
      "<p>広告</p>", "<p>Реклама</p>",
    ]
    let body = p[0] + lines[0] + lines[1] + p[1] + lines[2] + lines[3] + p[2] + lines[4] + lines[5] + p[3]
    let text = try Self.article(body)
    #expect(text == Self.whole, "\(text)")
  }

  @Test("readers' comments under a heading that says so go, even under a short post; sections headed Reactions stay")
  func commentsByHeading() throws {
    let post =
      "<p>The reading room will close on Saturday for repairs to its roof, the librarians said.</p>"
      + "<p>It will open again on Monday morning, weather permitting.</p>"
    let said =
      "I read there every week and the roof has leaked for months: about time it was mended, and the lights too."
    let headings = [
      "3 responses", "Comments (3)", "12 Kommentare", "Leave a reply",
      "3 thoughts on \u{201C}The reading room closes\u{201D}",
      "One thought on \u{201C}The reading room closes for its roof, and for good reasons\u{201D}",
      "3 r\u{E9}ponses \u{E0} \u{AB} La salle de lecture \u{BB}",
    ]
    for heading in headings {
      let thread =
        "<div class=\"mt-10\"><h3>\(heading)</h3>"
        + (0..<3).map { "<div class=\"border-t py-4\"><span>Reader \($0)</span><p>\(said)</p></div>" }.joined()
        + "</div>"
      let text = try Self.text("<html><body><main class=\"container\">\(post)\(thread)</main></body></html>")
      #expect(!text.contains("Reader") && !text.contains("leaked") && text.contains("weather permitting"), "\(text)")
    }
    // An article's own sections, headed without a count, stay.
    let sections = ["Reactions", "Discussion"].map { "<section><h2>\($0)</h2><p>\(said)</p></section>" }.joined()
    let article = try Self.article(Self.paragraphs.joined() + sections)
    #expect(article.contains("Reactions") && article.contains("Discussion") && article.contains("leaked"), "\(article)")
  }

  @Test(
    "a story written as text and double line breaks in a table cell outscores a column of short sponsored paragraphs")
  func doubleBreaks() throws {
    let menu = (0..<25).map { "<a href=\"/section/\($0)\">Section \($0)</a><br>" }.joined()
    let sponsored = (0..<5).map {
      "<p><a href=\"/ad/\($0)\">Sponsored \($0)</a> Low rates on loans and cards this week only, apply today.</p>"
    }.joined()
    let story = Self.prose.map { "\($0)<br><br>" }.joined()
    let page =
      "<html><body><table width=\"100%\"><tr><td width=\"150\">\(menu)</td><td><table>"
      + "<tr><td><font size=\"4\"><b>The reading room closes</b></font></td></tr>"
      + "<tr><td><font face=\"Arial\" size=\"2\">\(story)</font></td></tr></table></td>"
      + "<td width=\"160\">\(sponsored)</td></tr></table></body></html>"
    let text = try Self.text(page)
    #expect(!text.contains("Sponsored") && !text.contains("Section 3"), "\(text)")
    #expect(Self.prose.allSatisfy { text.contains($0) }, "\(text)")
  }

  @Test("teasers of other stories with their summaries go under a box or heading that says so, even when longer")
  func otherStoriesWithSummaries() throws {
    let teasers = (0..<12).map {
      "<p><a href=\"/story/\($0)\">Other headline number \($0)</a><br>A summary of that other story, with a comma, "
        + "long enough to read as a paragraph of its own and to outweigh the article beside it.</p>"
    }.joined()
    let story = "<div class=\"story\">" + Self.paragraphs.joined() + "</div>"
    for box in [
      "<div class=\"related\"><h3>More</h3>", "<div><h3>Related stories</h3>", "<div><h2>You may also like</h2>",
    ] {
      let text = try Self.text("<html><body><div id=\"content\">\(story)\(box)\(teasers)</div></div></body></html>")
      #expect(!text.contains("Other headline") && text.contains(Self.prose[0]), "\(box): \(text)")
    }
    // An article's own section so headed stays.
    let own = "<div><h3>Related work</h3>" + Self.paragraphs.joined() + "</div>"
    let text = try Self.text("<html><body><article>\(story)\(own)</article></body></html>")
    #expect(text.contains("Related work"), "\(text)")
  }

  @Test("a picture and its caption set in a table beside the text go, as a figure's do")
  func pictureTables() throws {
    let picture =
      "<table align=\"right\" width=\"200\"><tr><td><img src=\"/river.jpg\" width=\"200\"><br>"
      + "<small>The river at dawn, photographed by a resident.</small></td></tr></table>"
    let body = Self.paragraphs[0] + picture + Self.paragraphs.dropFirst().joined()
    let text = try Self.article(body)
    #expect(!text.contains("photographed") && Self.prose.allSatisfy { text.contains($0) }, "\(text)")
  }

  @Test("lines that only file the article under sections or tags go; sentences that start alike stay")
  func filingLines() throws {
    let lines = [
      "Filed under: <a href=\"/c/news\">News</a>",
      "Tags: <a href=\"/t/river\">river</a>, <a href=\"/t/council\">council</a> | <a href=\"/t/flood\">flooding</a>",
      "Posted in <a href=\"/c/news\">News</a> and <a href=\"/c/politics\">Politics</a>",
      "Kategorien: <a href=\"/k/lokales\">Lokales</a>",
    ].map { "<p>\($0)</p>" }.joined()
    let kept = [
      "Posted in the town hall on Monday, the notice said the library would open at nine.",
      "Topics: <a href=\"/t/roof\">the roof</a> and the heating were on the council's agenda.",
    ].map { "<p>\($0)</p>" }.joined()
    let text = try Self.article(Self.paragraphs.joined() + kept + lines)
    for gone in ["Filed under", "Tags:", "Politics", "Lokales"] {
      #expect(!text.contains(gone), "\(gone): \(text)")
    }
    #expect(text.contains("Posted in the town hall") && text.contains("on the council's agenda"), "\(text)")
  }

  @Test("lines that only credit a picture go; a sentence about a photograph stays")
  func creditLines() throws {
    let credits = ["<em>Photo: Jane Doe / Reuters</em>", "Foto: dpa", "Image by Getty Images"].map { "<p>\($0)</p>" }
    let kept = "<p>Photo: the council kept one picture of the old roof. It hangs in the hall.</p>"
    let text = try Self.article(credits[0] + Self.paragraphs.joined() + credits[1] + kept + credits[2])
    for gone in ["Jane Doe", "dpa", "Getty"] {
      #expect(!text.contains(gone), "\(gone): \(text)")
    }
    #expect(text.contains("It hangs in the hall") && Self.prose.allSatisfy { text.contains($0) }, "\(text)")
  }

  @Test("the rest of an article that a Continue reading button shows is read, however it is hidden; a copy is not")
  func hiddenRest() throws {
    let shown = Self.paragraphs.joined()
    let more = [
      "The work on the roof took eleven months, twice as long as planned, because the old timbers had rotted under the lead.",
      "The librarians will mark the opening with a week of readings, and the first guest is a poet who grew up on the street.",
    ]
    let rest = more.map { "<p>\($0)</p>" }.joined()
    for hiding in ["hidden", "style=\"display: none\"", "aria-hidden=\"true\"", "class=\"collapsed\" hidden"] {
      let text = try Self.article(
        shown + "<button>Continue reading</button><div class=\"article-rest\" \(hiding)>\(rest)</div>")
      #expect((Self.prose + more).allSatisfy { text.contains($0) }, "\(hiding): \(text)")
    }
    // A hidden copy of what is shown (for print), and a hidden dialog's line, stay out.
    let copy = "<div class=\"print-copy\" hidden>" + Self.paragraphs.prefix(2).joined() + "</div>"
    let dialog = "<div hidden><p>Your session is about to expire.</p></div>"
    let text = try Self.article(shown + rest + copy + dialog)
    #expect(text.components(separatedBy: Self.prose[0]).count == 2 && !text.contains("expire"), "\(text)")
  }

  @Test("the next story a site puts under the article, under its own headline, is not read with it")
  func nextStory() throws {
    let next = [
      "A new stadium opened in the north of the city on Sunday, with seats for forty thousand fans and a roof.",
      "The club that plays there said tickets for the first match sold out in an hour, and more will go on sale.",
    ]
    let story = "<h1>The reading room closes</h1>" + Self.paragraphs.joined()
    let nextStory =
      "<h1>A stadium opens</h1>" + (next + next.map { $0 + " More next week." }).map { "<p>\($0)</p>" }.joined()
    let layouts = [
      "<article class=\"post\">\(story)</article><article class=\"post\">\(nextStory)</article>",
      "<div class=\"article-body\">\(story)</div><div class=\"next-article\"><h2>Next article</h2>"
        + "<div class=\"article-body\">\(nextStory)</div></div>",
    ]
    for layout in layouts {
      let page =
        "<html><head><title>The reading room closes | The Daily</title></head><body><main>\(layout)</main></body></html>"
      let text = try Self.text(page)
      #expect(!text.contains("stadium") && Self.prose.allSatisfy { text.contains($0) }, "\(text)")
    }
  }

  @Test("a paragraph of zero-width spaces or other marks that show nothing is not read as an empty paragraph")
  func invisibleParagraphs() throws {
    let blanks = ["<p>\u{200B}</p>", "<p>&#8203;</p>", "<p>\u{FEFF} \u{200D}</p>", "<div>\u{2060}&shy;</div>"]
    let page = Self.paragraphs.enumerated().map { $0.element + blanks[$0.offset % blanks.count] }.joined()
    #expect(try Self.article(page) == Self.whole)
    // Within a paragraph they stay: a word joiner between words is the writer's.
    let joined = "<p>\(Self.prose[0]) Word\u{2060}joined.</p>"
    #expect(try Self.article(joined + Self.paragraphs[1]).contains("Word\u{2060}joined."))
  }
}
