// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import Testing
import WatcherXML

@testable import WatcherFeed

/// The article extractor on pages whose class and id names say nothing.
///
/// Sites built with CSS modules, styled-components or utility classes name their boxes `sc-1x2y3z` or
/// `mt-4 flex`: what a name told (`caption`, `comments`, `related`) is found in the page's shape and words.
/// `Scripts/bench/extract-quality.py --hash-names` measures the public sets read so.
@Suite("Article extraction without telling names")
struct ArticleNamelessTests {
  static func text(_ page: String) throws -> String {
    try #require(try ArticleExtractor.extract(Array(page.utf8))).text
  }

  static let story = [
    "A comet discovered last year passed closer to Earth on Monday than any other comet in a century.",
    "Astronomers said the comet could be seen without a telescope for about two more weeks before it fades.",
    "The best time to look is just before sunrise, low in the eastern sky and away from city lights.",
    "The comet will not come back for another six thousand years according to the orbit the team calculated.",
  ]

  /// The story with two paragraphs full of commas: over the 500 characters an article must have for its
  /// boxes to be cleaned.
  static let longStory =
    story + [
      "The team, which watched from a mountain in Arizona, said the tail, made of dust and gas, was brighter than "
        + "expected, and that the comet, unlike most, had kept its shape, its colour and its speed.",
      "Observers in Europe, Asia and Africa reported, in turn, the same bright tail, and several, using ordinary "
        + "cameras, took pictures that the team, grateful, has asked to see.",
    ]

  @Test("a picture's caption full of commas does not outscore a short story's paragraphs, written as p or div")
  func captionCommas() throws {
    let caption =
      "In this Nov. 3, 2024, file photo, made available by the observatory, the comet, left, and its tail, right, "
      + "are seen over the hills near Tucson, Ariz., at dawn. (Observatory via AP, File)"
    // Paragraphs written as `p`, or as `div`s holding no block, as some sites write all of them.
    for picture in ["<img src=\"comet.jpg\">", "<a href=\"/photo\"><img src=\"comet.jpg\"></a>"] {
      for tag in ["p", "div"] {
        let page =
          "<html><head><title>Comet passes closer than any in a century</title></head><body><div><div>"
          + "<h1>Comet passes closer than any in a century</h1><div>\(picture)<\(tag)>\(caption)</\(tag)></div><div><div>"
          + Self.story.map { "<\(tag)>\($0)</\(tag)>" }.joined()
          + "</div><div><ul><li><a href=\"/a\">Rocket launch delayed by the weather again</a></li>"
          + "<li><a href=\"/b\">The moon's far side gets a new lander next year</a></li></ul></div></div></div></div>"
          + "</body></html>"
        let text = try Self.text(page)
        #expect(text.hasPrefix(Self.story.joined(separator: "\n\n")), "\(tag): \(text)")
      }
    }
    // A story told in paragraphs each beside its own picture is still read whole.
    let photoEssay =
      "<html><body><div>"
      + Self.story.enumerated().map { "<div><img src=\"\($0.offset).jpg\"><p>\($0.element)</p></div>" }.joined()
      + "</div></body></html>"
    #expect(try Self.text(photoEssay) == Self.story.joined(separator: "\n\n"))
  }

  @Test("a caption that repeats its picture's description goes, toggles and all; a card's title stays")
  func echoedCaptions() throws {
    let described =
      "The comet, left, over the hills near Tucson, Ariz., at dawn on Monday, Nov. 3, seen by hundreds, without a telescope"
    // A gallery writes each caption twice: whole with a "less" toggle, cut with a "... more" one. Their commas
    // would keep the gallery as prose.
    let gallery =
      "<ul><li><div><img src=\"comet.jpg\" alt=\"\(described). Photo: J. Doe, AP\"></div><div>"
      + "<div>\(described).<a> less</a></div><div>\(described.prefix(70))<a> ... more</a></div>"
      + "<span>Photo: J. Doe, AP</span></div></li></ul>"
    let story = Self.longStory
    let page =
      "<html><head><title>Comet passes closer than any in a century</title></head><body><div>"
      + "<h1>Comet passes closer than any in a century</h1><div>\(gallery)"
      + story.map { "<p>\($0)</p>" }.joined() + "</div></div></body></html>"
    let text = try Self.text(page)
    #expect(!text.contains("hills near Tucson"), "\(text)")
    #expect(text.contains(story.joined(separator: "\n\n")), "\(text)")
    // A line that says more than the description, or a heading that repeats it, is not a caption.
    let more = "\(described), and then it faded"
    let card =
      "<div><img src=\"comet.jpg\" alt=\"\(described)\"><h3>\(described)</h3><p>\(more).</p></div>"
    let kept = try Self.text(
      "<html><body><div><div>" + Self.story.map { "<p>\($0)</p>" }.joined() + "</div>\(card)</div></body></html>")
    #expect(kept.contains(more) && kept.contains("\(described)\n"), "\(kept)")
  }

  @Test("a line a picture names as its description (aria-describedby, as WordPress writes captions) goes")
  func describedCaptions() throws {
    let caption = "The comet low over the hills at dawn on Monday."
    let picture =
      "<div id=\"x1\" class=\"x2\"><img aria-describedby=\"x3\" src=\"comet.jpg\" alt=\"\">"
      + "<p id=\"x3\" class=\"x4\">\(caption)</p></div>"
    let page =
      "<html><body><div><div>" + Self.longStory.prefix(2).map { "<p>\($0)</p>" }.joined() + picture
      + Self.longStory.dropFirst(2).map { "<p>\($0)</p>" }.joined() + "</div></div></body></html>"
    let text = try Self.text(page)
    #expect(text == Self.longStory.joined(separator: "\n\n"), "\(text)")
  }

  @Test("a post quoted from a social network stays, known by its link to the post, whatever its box is named")
  func quotedPosts() throws {
    let said = "Yes this is real and yes the state spent nearly half a million dollars on it"
    let tweet =
      "<div class=\"x1\"><blockquote class=\"x2\"><p>\(said): <a href=\"https://t.co/abc\">https://t.co/abc</a></p>"
      + "— Dianna (@dianna) <a href=\"https://twitter.com/dianna/status/1196501054197649413\">November 18, 2019</a>"
      + "</blockquote></div>"
    let page =
      "<html><body><div><div>" + Self.longStory.prefix(2).map { "<p>\($0)</p>" }.joined() + tweet
      + Self.longStory.dropFirst(2).map { "<p>\($0)</p>" }.joined() + "</div></div></body></html>"
    let text = try Self.text(page)
    #expect(text.contains(said) && text.contains("(@dianna) November 18, 2019"), "\(text)")
    #expect(text.hasSuffix(Self.longStory.last!), "\(text)")
    // A quotation whose link goes anywhere else is no post.
    #expect(!ArticleExtractor.linksToPost(HTMLElement(name: "a", attributes: ["href": "https://fox.com/a/status/1"])))
    #expect(ArticleExtractor.linksToPost(HTMLElement(name: "a", attributes: ["href": "https://x.com/a/status/1"])))
  }

  @Test("a writer's page is known by a directory of its address, in any case")
  func authorPages() {
    for href in [
      "https://a.example/author/ann-lee", "/Authors/ann", "https://a.example/by/ann/", "//a.example/redazione/x",
      "/news?u=/staff/x", "https://a.example/PROFILE/ann",
    ] {
      #expect(ArticleExtractor.isAuthorPage(href), "\(href)")
    }
    for href in [
      "https://a.example/co-author/x", "https://a.example/author", "/authorship/x", "https://by.example/x",
      "/news/2024/people-moving", "", "/a/very-long-directory-name-about-authors/x",
    ] {
      #expect(!ArticleExtractor.isAuthorPage(href), "\(href)")
    }
  }

  @Test("readers' comments under a heading with a word before 'comments' go; a section on comments stays")
  func qualifiedCommentHeadings() throws {
    let article = [
      "The company plans to bring its new keyboard to the smaller laptop in the first half of next year, according "
        + "to a report from its suppliers, who are said to be making the parts already.",
      "The keyboard, which uses a sturdier switch, was first used in the larger model this autumn, and reviewers "
        + "found it quieter, more reliable and easier to type on than the old one.",
    ]
    let said = [
      "Good to see them finally fixing the keyboard, it took long enough, and I will wait for the new one first.",
      "I think the smaller model will get the thinner borders, a bigger screen, the speakers and the new cooling.",
      "Even if it makes the laptop slightly heavier, this is a machine for work, and I like the direction, ports and all.",
    ]
    for heading in ["Top Rated Comments", "Latest comments", "Reader comments (3)", "Show all comments"] {
      let comments = said.enumerated().map {
        "<div><div><a href=\"/u/\($0.offset)\">reader\($0.offset)</a></div><div>2 days ago</div>"
          + "<div>\($0.element)</div></div>"
      }
      let page =
        "<html><body><div><div><h1>New keyboard expected</h1><div>"
        + article.map { "<p>\($0)</p>" }.joined() + "</div><div><h2>\(heading)</h2>"
        + "<a href=\"/forum\">(View all)</a>" + comments.joined() + "</div></div></div></body></html>"
      let text = try Self.text(page)
      #expect(text == article.joined(separator: "\n\n"), "\(heading): \(text)")
    }
    // An article's own section headed with other words before "comments" stays.
    let section =
      "<html><body><article><h1>Review</h1>" + article.map { "<p>\($0)</p>" }.joined()
      + "<section><h2>Closing comments</h2><p>\(said[2])</p></section></article></body></html>"
    #expect(try Self.text(section).hasSuffix(said[2]))
  }

  @Test("a box of other posts beside the post, of the post's own kind, goes when its heading says so")
  func otherPostsOfTheSameKind() throws {
    let post =
      "Viver uma verdadeira experiência amorosa é um dos maiores prazeres da vida. Gostar é sentir com a alma, mas "
      + "expressar os sentimentos depende das ideias de cada um, e condicionamos o amor às nossas necessidades. "
      + "Vivemos uma vida tentando fazer com que os outros se responsabilizem pelas nossas necessidades, enquanto "
      + "nos abandonamos. Queremos ser amados e não nos amamos, queremos ser compreendidos e não nos compreendemos, "
      + "e queremos o apoio dos outros. Quando nos abandonamos, queremos achar alguém que venha a preencher o "
      + "buraco que nós cavamos, e só quem se ama pode encontrar um amor de verdade."
    let teasers = [
      "A vida requer da gente otimismo e coragem para esperar o melhor, e fazer o melhor acontecer. O pessimismo "
        + "só faz engessar o sorriso, travar as articulações, e não deixa ninguém sair do lugar.",
      "Agradecer é reconhecer, com humildade, que nada se conquista sozinho, e que cada passo, cada conquista e "
        + "cada vitória tem a mão de alguém que esteve ao nosso lado.",
      "Recomeçar é dar uma nova chance a si mesmo, renovar as esperanças, acreditar que é possível, e seguir em "
        + "frente sem olhar para trás, com fé e com coragem.",
    ]
    for heading in ["Você pode gostar...", "Vous aimerez aussi", "Ti potrebbe interessare"] {
      let page =
        "<html><body><div class=\"c0\"><article class=\"c1\"><h1>Só quem se ama</h1><p>\(post)</p></article>"
        + "<article class=\"c1\"><h3>\(heading)</h3>"
        + teasers.map { "<article class=\"c2\"><p>\($0)</p></article>" }.joined() + "</article></div></body></html>"
      #expect(try Self.text(page) == post, "\(heading)")
    }
  }

  @Test("a box headed by the verb to comment (Comentar, Commenter, Kommentieren) goes with its rules and form")
  func commentVerbHeadings() throws {
    let rules =
      "<div><span>Normas de uso</span><ul><li>El contenido de los comentarios es la opinión de los usuarios y no "
      + "de este diario.</li><li>No está permitido verter comentarios contrarios a las leyes, injuriantes o "
      + "ilícitos.</li><li>El diario se reserva el derecho de eliminar cualquier comentario inapropiado.</li></ul>"
      + "</div><div><form><div><label>Nombre:</label><input name=\"n\"></div><div><label>Comentario:</label>"
      + "<textarea></textarea></div><div><strong>* </strong>Campos obligatorios<div><h6>Advertencia</h6><p>Recuerde "
      + "que usted es responsable de todo lo que escribe, y que se revelarán a las autoridades los datos que sean "
      + "requeridos legalmente (nombre, e-mail, IP de su ordenador, así como la información de los sistemas).</p>"
      + "</div></div><input type=\"submit\" value=\"Comenta\"></form></div>"
    for heading in ["Comentar", "Commenter", "Kommentieren", "Deixe um comentário"] {
      let page =
        "<html><body><div><div><h1>Comet</h1><div>" + Self.story.map { "<p>\($0)</p>" }.joined()
        + "<div><h2>\(heading)</h2>\(rules)</div></div></div></div></body></html>"
      #expect(try Self.text(page) == Self.story.joined(separator: "\n\n"), "\(heading)")
    }
  }

  @Test("a sign-up box a script sends without a form (an address field and a button that asks) goes")
  func formlessSignUp() throws {
    for button in ["Sign up", "Subscribe", "Jetzt anmelden"] {
      let promo =
        "<div><p>Get The Morning Ledger newsletter: the day's business news in your inbox.</p><div>"
        + "<input type=\"email\" placeholder=\"Email address\"><button>\(button)</button></div></div>"
      let body =
        Self.story.prefix(2).map { "<p>\($0)</p>" }.joined() + promo
        + Self.story.dropFirst(2).map { "<p>\($0)</p>" }.joined()
      let page = "<html><body><div><div><h1>Comet</h1><div>\(body)</div></div></div></body></html>"
      #expect(try Self.text(page) == Self.story.joined(separator: "\n\n"), "\(button)")
    }
    // A button in a sentence's box that asks nothing stays with it.
    let page =
      "<html><body><div>" + Self.story.map { "<p>\($0)</p>" }.joined()
      + "<div><p>Try the sky map yourself: it shows where to look tonight.</p><button>Open the map</button></div>"
      + "</div></body></html>"
    #expect(try Self.text(page).hasSuffix("Try the sky map yourself: it shows where to look tonight."))
  }

  @Test("an article cut into boxes of one class keeps the box that ends in a row of links; the links go")
  func chunkWithLinks() throws {
    let links =
      "<p><strong>DON'T MISS</strong></p><p><a href=\"/1\">Rocket launch delayed by the weather again</a> "
      + "[VIDEO]<br><a href=\"/2\">The moon's far side gets a new lander next year</a> [INSIGHT]<br>"
      + "<a href=\"/3\">Why meteor showers peak in August</a> [REACTION]</p>"
    let chunks = [
      Array(Self.longStory[0...1]) + [Self.longStory[4]], Array(Self.longStory[2...3]),
      [Self.longStory[5]] + [
        "The next comet this bright is expected in about twenty years, the team said, if its orbit holds."
      ],
    ]
    let boxes = chunks.enumerated().map { index, paragraphs in
      "<div class=\"x8af5a5\">" + paragraphs.map { "<p>\($0)</p>" }.joined() + (index == 1 ? links : "") + "</div>"
        + "<div class=\"x6d8a8d\"><img src=\"\(index).jpg\"><span>The comet over the hills</span></div>"
    }
    let page = "<html><body><div><h1>Comet</h1><div>\(boxes.joined())</div></div></body></html>"
    let text = try Self.text(page)
    #expect(text.contains(chunks[1].joined(separator: "\n\n")), "\(text)")
    #expect(text.hasPrefix(chunks[0].joined(separator: "\n\n")), "\(text)")
    #expect(!text.contains("Rocket launch") && !text.contains("DON'T MISS"), "\(text)")
  }
}
