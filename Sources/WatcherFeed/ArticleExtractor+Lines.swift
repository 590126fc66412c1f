// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// After choosing: the cards and short lines inside the chosen box that are not the article's text (hover
/// cards, cards of other articles, lines that only say when, mark an advertisement or share the page).
extension ArticleExtractor {
  /// How many boxes up from a heading or a time a card or a line is looked for (it is within a few: a page
  /// nesting hundreds costs no more).
  static let maxLineDepth = 8

  /// Removes them all, in the order each expects (cards before the lines they could be taken for).
  static func dropCardsAndLines(_ article: HTMLElement, scorer: Scorer) {
    dropInlineCards(article, scorer: scorer)
    dropStoryCards(article, scorer: scorer)
    dropTimeLines(article, scorer: scorer)
    dropAdLabels(article, scorer: scorer)
    dropFilingLines(article, scorer: scorer)
    dropCreditLines(article, scorer: scorer)
    dropShareLines(article, scorer: scorer)
    dropCallLines(article, scorer: scorer)
    dropAuthorBoxes(article, scorer: scorer)
  }

  /// Removes the cards a page writes inside its sentences, shown when the reader points at a name (The Hill's
  /// `rollover-people`: a picture, the name again and links to other articles, hidden by its style sheet): a
  /// box inside a paragraph with a picture and two links or more, nearly all links, 50 characters or more (a
  /// link with an emoji's picture in a sentence stays).
  static func dropInlineCards(_ article: HTMLElement, scorer: Scorer) {
    for paragraph in article.descendants where paragraph.name == "p" && scorer.text(paragraph).linkLength >= 40 {
      // The pictures and links in each box of the paragraph, counted once from each upwards.
      var pictures = Set<ObjectIdentifier>()
      var links: [ObjectIdentifier: Int] = [:]
      for part in paragraph.descendants where part.name == "img" || part.name == "a" {
        var box = part.parent
        while let current = box, current !== paragraph {
          if part.name == "img" {
            guard pictures.insert(ObjectIdentifier(current)).inserted else { break }
          } else {
            // Two are enough: a box that has them, and every box above it, has its count.
            let count = links[ObjectIdentifier(current), default: 0]
            guard count < 2 else { break }
            links[ObjectIdentifier(current)] = count + 1
          }
          box = current.parent
        }
      }
      // The innermost first: the card goes, the name it is shown for stays (the boxes around a card gone
      // keep its counts, and are not taken for one).
      var spent = Set<ObjectIdentifier>()
      for box in paragraph.descendants.reversed() where box.name == "span" || box.name == "div" {
        let id = ObjectIdentifier(box)
        guard pictures.contains(id), links[id, default: 0] >= 2, !spent.contains(id), scorer.text(box).length >= 50,
          scorer.linkDensity(box) >= 0.8
        else { continue }
        var above = box.parent
        while let current = above, current !== paragraph, spent.insert(ObjectIdentifier(current)).inserted {
          above = current.parent
        }
        box.parent?.remove(box)
      }
    }
  }

  /// Removes the cards of other articles set between an article's paragraphs.
  ///
  /// A card is a picture, a headline that is a link and a line of summary: each box around a linked heading
  /// under 400 characters goes, when such boxes hold under a quarter of the article's text. A list whose
  /// headings link (the ten best apps, each with its text) is most of its article, and stays.
  static func dropStoryCards(_ article: HTMLElement, scorer: Scorer) {
    var cards: [HTMLElement] = []
    for heading in article.descendants where ["h2", "h3", "h4"].contains(heading.name) {
      guard scorer.text(heading).length > 0, let link = headingLink(heading, article, scorer: scorer),
        !(link.attributes["href"] ?? "").hasPrefix("#")
      else { continue }
      var card: HTMLElement?
      var box = heading.parent
      var levels = 0
      while let current = box, current !== article, scorer.text(current).length < 400, levels < maxLineDepth {
        card = current
        box = current.parent
        levels += 1
      }
      if let card, card.descendants.contains(where: { $0.name == "img" }), !cards.contains(where: { $0 === card }) {
        cards.append(card)
      }
    }
    guard !cards.isEmpty, cards.reduce(0, { $0 + scorer.text($1).length }) * 4 < scorer.text(article).length
    else { return }
    for card in cards { card.parent?.remove(card) }
  }

  /// The link a heading is (nearly all its text in one), or is inside; nil for a heading that is not a link.
  private static func headingLink(_ heading: HTMLElement, _ article: HTMLElement, scorer: Scorer) -> HTMLElement? {
    let length = scorer.text(heading).length
    if let own = heading.descendants.first(where: { $0.name == "a" && scorer.text($0).length * 10 >= length * 9 }) {
      return own
    }
    var box = heading.parent
    for _ in 0..<maxLineDepth {
      guard let current = box, current !== article else { break }
      if current.name == "a" { return current }
      box = current.parent
    }
    return nil
  }

  /// Removes the lines that only say when (times half the line or more: "Published <time>4 March</time>"),
  /// wherever the article has them; a date in a sentence stays.
  static func dropTimeLines(_ article: HTMLElement, scorer: Scorer) {
    let times = article.descendants.filter { $0.name == "time" && scorer.text($0).length > 0 }
    guard !times.isEmpty else { return }
    // The text of the times in each short box above one, counted once for all (each box holds under 100
    // characters, so under 100 times).
    var timeText: [ObjectIdentifier: Int] = [:]
    for time in times {
      var box = time.parent
      for _ in 0..<maxLineDepth {
        guard let current = box, current !== article, scorer.text(current).length < 100 else { break }
        timeText[ObjectIdentifier(current), default: 0] += scorer.text(time).length
        box = current.parent
      }
    }
    for time in times where time.parent != nil {
      var line = time
      // Its times ("Published <time>…</time> · Updated <time>…</time>") are half its text or more.
      for _ in 0..<maxLineDepth {
        guard let parent = line.parent, parent !== article, scorer.text(parent).length < 100,
          timeText[ObjectIdentifier(parent), default: 0] * 2 >= scorer.text(parent).length
        else { break }
        line = parent
      }
      // A date in a sentence ("open on <time>Saturday</time>, at nine") stays.
      guard !isInSentence(line) else { continue }
      line.parent?.remove(line)
    }
  }

  /// The words that mark an advertisement's place in an article, in a dozen languages.
  static let adLabels: Set<String> = [
    "advertisement", "advertisements", "advertising", "ad", "ads", "sponsored", "sponsored content", "anzeige",
    "werbung", "publicité", "publicite", "publicidad", "pubblicità", "publicidade", "reklama", "advertentie",
    "реклама", "広告", "广告", "廣告", "광고", "reklame", "διαφήμιση",
    "annonce", "reklam", "mainos", "story continues below advertisement", "article continues below advertisement",
    "continue reading below", "scroll to continue with content", "advertisement - scroll to continue",
  ]

  /// Removes the lines inside the article that only mark an advertisement's place ("ADVERTISEMENT", "Anzeige",
  /// "Story continues below advertisement").
  static func dropAdLabels(_ article: HTMLElement, scorer: Scorer) {
    // Labels have no commas: the text of a line with one is not made.
    for line in article.descendants
    where Scorer.isParagraph(line) && (1...40).contains(scorer.text(line).length) && scorer.text(line).commas == 0 {
      var label = Substring(Paragraphs.inline(line).lowercased().trimmingASCIIWhitespace)
      while let last = label.last, ":.-– ".contains(last) { label.removeLast() }
      if adLabels.contains(String(label)) { line.parent?.remove(line) }
    }
  }

  /// The labels of a line that files the article under sections or tags ("Filed under: News").
  static let filingLabels: Set<String> = [
    "filed under", "posted in", "posted under", "categories", "category", "tags", "tag", "tagged", "tagged with",
    "topics", "topic", "kategorien", "kategorie", "schlagwörter", "schlagworte", "themen", "catégories",
    "catégorie", "mots-clés", "mots clés", "étiquettes", "categorías", "categoría", "etiquetas", "temas",
    "categorie", "argomenti", "categorias", "categoria", "rubriken", "рубрики", "теги", "метки", "タグ", "カテゴリー",
  ]

  /// Removes the lines inside the article that file it under sections or tags ("Filed under: News", "Tags:
  /// river, council"): a label of ``filingLabels`` (then a colon, or "Posted in" and "Filed under" alone)
  /// and links, nothing else but separators; under 300 characters.
  static func dropFilingLines(_ article: HTMLElement, scorer: Scorer) {
    for line in article.descendants where Scorer.isParagraph(line) || line.name == "li" {
      let facts = scorer.text(line)
      guard line.parent != nil, facts.length < 300, facts.linkLength > 0 else { continue }
      var rest = Substring(textOutsideLinks(line).lowercased()).drop(while: \.isWhitespace)
      if let colon = Self.colon(in: rest, within: 30),
        filingLabels.contains(String(rest[..<colon]).trimmingASCIIWhitespace)
      {
        rest = rest[rest.index(after: colon)...]
      } else if let label = ["filed under", "posted in"].first(where: { rest.hasPrefix($0) }) {
        rest = rest.dropFirst(label.count)
      } else {
        continue
      }
      let separators = rest.split { $0.isWhitespace || ",|/·•;&".contains($0) }
      if separators.allSatisfy({ $0 == "and" || $0 == "und" || $0 == "et" || $0 == "y" }) {
        line.parent?.remove(line)
      }
    }
  }

  /// The labels of a line that credits a picture ("Photo: Jane Doe / Reuters", "Foto: dpa").
  static let creditLabels: Set<String> = [
    "photo", "photos", "photograph", "photography", "image", "images", "picture", "pictures", "credit", "credits",
    "photo credit", "image credit", "foto", "fotos", "bild", "bilder", "fotografía", "crédit photo", "crédit",
    "crédits", "crédito", "créditos", "фото", "写真",
  ]

  /// Removes the lines that only credit a picture: under 100 characters, a label of ``creditLabels`` then a
  /// colon or "by", and a name or agency (no second sentence).
  static func dropCreditLines(_ article: HTMLElement, scorer: Scorer) {
    for line in article.descendants where Scorer.isParagraph(line) {
      let facts = scorer.text(line)
      guard line.parent != nil, (8..<100).contains(facts.length), facts.commas <= 1 else { continue }
      let said = Paragraphs.inline(line).lowercased().trimmingASCIIWhitespace
      let label: Substring
      if let colon = Self.colon(in: said, within: 20) {
        label = said[..<colon]
      } else if let by = said.prefix(24).firstRange(of: " by ") {
        label = said[..<by.lowerBound]
      } else {
        continue
      }
      let credited = said[label.endIndex...].dropFirst(label.endIndex == said.endIndex ? 0 : 1)
      guard creditLabels.contains(String(label).trimmingASCIIWhitespace), !credited.contains(". ") else { continue }
      line.parent?.remove(line)
    }
  }

  /// Where the colon (or full-width colon) that ends a line's label is, within its first `count` characters.
  static func colon<Line: StringProtocol>(in line: Line, within count: Int) -> Line.Index? {
    line.prefix(count).firstIndex { $0 == ":" || $0 == "：" }
  }

  /// The element's text outside its links.
  static func textOutsideLinks(_ element: HTMLElement) -> String {
    var text = ""
    for child in element.children {
      switch child {
      case .text(let value): text += value
      case .element(let inner) where inner.name != "a": text += " " + textOutsideLinks(inner) + " "
      case .element: text += " "
      }
    }
    return text
  }

  /// The sites a share button sends to, as parts of a link's address (and `mailto:`).
  static let shareTargets = [
    "facebook.com", "twitter.com", "//x.com", ".x.com", "linkedin.com", "whatsapp", "wa.me", "reddit.com/submit",
    "pinterest.", "telegram.", "t.me/", "bsky.app/intent", "threads.net", "vk.com/share", "xing.com", "mailto:",
  ]

  /// Removes the lines of share buttons written as links ("Share this: Facebook Twitter Email", "Teilen: …"):
  /// under 150 characters, two links or more to where a share goes, those links half the line or more or all
  /// of it but a label.
  static func dropShareLines(_ article: HTMLElement, scorer: Scorer) {
    for line in article.descendants where Scorer.isParagraph(line) || line.name == "li" {
      guard line.parent != nil, scorer.text(line).length < 150, scorer.text(line).linkLength > 0 else { continue }
      let shares = line.descendants.filter { link in
        guard link.name == "a", let href = link.attributes["href"]?.lowercased() else { return false }
        return shareTargets.contains(where: href.contains)
      }
      let shared = shares.reduce(0) { $0 + scorer.text($1).length }
      let length = scorer.text(line).length
      // The links are most of the line, or all of it but a label ("Teilen:") and separators.
      // Mail links alone are a way to write to someone ("at ann@… or tips@…"), not share buttons.
      guard shares.count >= 2,
        shares.contains(where: { $0.attributes["href"]?.lowercased().hasPrefix("mailto:") == false }),
        shared * 2 >= length || length - shared <= 25
      else { continue }
      line.parent?.remove(line)
    }
  }

  /// Where a "Follow us" link goes: a social network's or a news app's page of the site.
  static let followTargets = [
    "news.google.", "google.com/preferences/source", "flipboard.com", "apple.news", "facebook.com", "instagram.com",
    "twitter.com", "//x.com", ".x.com", "t.me/", "whatsapp.com/channel", "youtube.com", "tiktok.com",
    "linkedin.com", "threads.net", "bsky.app", "mastodon.", "telegram.",
  ]

  /// Labels of an article's audio player ("Listen to this article · 5 min"), in a dozen languages.
  static let listenLabels = [
    "listen to this article", "listen to this story", "listen to article", "listen to the article", "audio version",
    "artikel anhören", "diesen artikel anhören", "écouter cet article", "ecouter cet article", "écouter l'article",
    "escuchar este artículo", "escuchar artículo", "ascolta l'articolo", "ascolta questo articolo",
    "ouvir este artigo", "ouvir artigo", "luister naar dit artikel", "lyssna på artikeln", "posłuchaj artykułu",
  ]

  /// Removes the short lines that call the reader elsewhere rather than say anything.
  ///
  /// A line that is one link, under 60 characters, to a page to subscribe or sign in ("Continue reading with
  /// a subscription") or to the site on a social network or news app ("Follow us on Google News"); and an
  /// audio player's label ("Listen to this article 5 min"), or a video's length alone ("2:31"). A sentence
  /// with such a link in it stays.
  static func dropCallLines(_ article: HTMLElement, scorer: Scorer) {
    // A player's label or length is often a span beside its buttons rather than a line of its own.
    for line in article.descendants where Scorer.isParagraph(line) || line.name == "span" {
      let facts = scorer.text(line)
      guard line.parent != nil, (1..<60).contains(facts.length) else { continue }
      let span = line.name == "span"
      // Labels and lengths have no commas: the text of a line with one is not made.
      if facts.commas == 0 && facts.length <= 40 {
        let said = Paragraphs.inline(line).lowercased().trimmingASCIIWhitespace
        if listenLabels.contains(where: said.hasPrefix) || isDuration(said) {
          // A span of highlighted code (`::`, `10:00`) or in a sentence stays.
          if !span || !isInSentence(line) && !isInside(["pre", "code"], line) { line.parent?.remove(line) }
          continue
        }
      }
      guard !span, facts.linkLength * 10 >= facts.length * 9 else { continue }
      let links = line.descendants.filter { $0.name == "a" }
      guard links.count == 1, let href = links[0].attributes["href"]?.lowercased() else { continue }
      if followTargets.contains(where: href.contains) || subscribeCalls.matches(href)
        || subscribeCalls.matches(Paragraphs.inline(line).lowercased())
      {
        line.parent?.remove(line)
      }
    }
  }

  /// Whether one of the few boxes above the element (``maxLineDepth``) is named in `names`: code inside a
  /// `<pre>` or `<code>` (highlighted code nests little), a button inside its form.
  static func isInside(_ names: Set<String>, _ element: HTMLElement) -> Bool {
    var box = element.parent
    for _ in 0..<maxLineDepth {
      guard let current = box else { return false }
      if names.contains(current.name) { return true }
      box = current.parent
    }
    return false
  }

  /// Whether a line is only a media player's time or length ("2:31", "1:02:45", "0:00 / 5:32").
  static func isDuration(_ line: String) -> Bool {
    guard line.count <= 20, line.contains(":"), line.contains(where: \.isNumber) else { return false }
    return line.allSatisfy { $0.isASCII && ($0.isNumber || ":/ ".contains($0)) }
  }

  /// Path parts of the page a site keeps for each of its writers.
  static let authorPages: Set<String> = [
    "author", "authors", "people", "staff", "profile", "profiles", "journalist", "journalists", "contributor",
    "contributors", "writer", "writers", "columnist", "columnists", "autor", "autoren", "auteur", "auteurs",
    "redaccion", "redazione", "by",
  ]

  /// Whether an address has a directory named in ``authorPages`` (`/authors/ann-lee`), in any case.
  ///
  /// Read by bytes, a directory at a time: a page of 90,000 links spent a third of its extraction searching
  /// each address for each name as strings.
  static func isAuthorPage(_ href: String) -> Bool {
    var segment: [UInt8] = []
    var afterSlash = false
    for c in href.utf8 {
      if c == UInt8(ascii: "/") {
        if afterSlash, (2...12).contains(segment.count), authorPages.contains(String(decoding: segment, as: UTF8.self))
        {
          return true
        }
        segment.removeAll(keepingCapacity: true)
        afterSlash = true
      } else if afterSlash, segment.count <= 12 {
        segment.append(c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c | 0x20 : c)
      }
    }
    return false
  }

  /// Removes the boxes about the writer, whatever they are named.
  ///
  /// A box under 300 characters around a link to the writer's page (`/authors/ann-lee`, `rel="author"`), not
  /// inside a sentence, that begins with the name and holds a picture (the writer's photo and a short bio),
  /// or is a byline ("By Ann Lee, 2 March"). A paragraph that names someone with a link to their page has no
  /// picture and is no byline.
  static func dropAuthorBoxes(_ article: HTMLElement, scorer: Scorer) {
    let links = article.descendants.filter { link in
      guard link.name == "a" else { return false }
      if link.attributes["rel"]?.lowercased().split(separator: " ").contains("author") == true { return true }
      guard let href = link.attributes["href"] else { return false }
      return isAuthorPage(href)
    }
    for link in links where link.parent != nil && !isInSentence(link) {
      let name = scorer.text(link).length
      guard (2...60).contains(name) else { continue }
      var box = link
      for _ in 0..<maxLineDepth {
        guard let parent = box.parent, parent !== article, scorer.text(parent).length < 300 else { break }
        box = parent
      }
      guard box !== link else { continue }
      let said = Paragraphs.inline(box).trimmingASCIIWhitespace
      let named = Paragraphs.inline(link).trimmingASCIIWhitespace
      guard !named.isEmpty, said.hasPrefix(named) || said.lowercased().hasPrefix("by " + named.lowercased()) else {
        continue
      }
      // Without a picture, only a byline ("By Ann Lee, 2 March"): "Ann Lee declined to comment" is a sentence.
      if box.descendants.contains(where: { $0.name == "img" })
        || said.lowercased().hasPrefix("by ") && scorer.text(box).length <= name + 40
      {
        box.parent?.remove(box)
      }
    }
  }
}
