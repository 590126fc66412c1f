// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// After choosing: what is cleaned out of the chosen box (boxes that look like furniture after all, runs of
/// links, lines pointing to other articles, tag lists, other posts shown whole).
extension ArticleExtractor {
  /// Drops the boxes inside the article that look like furniture after all.
  ///
  /// A box holding most of the article's paragraph text (`total`) stays whatever it looks like: it is the
  /// article (an Elementor page's `elementor-widget-container`, a brief whose names are all links).
  /// Captions (`figcaption`) go unless `keepsCaptions` (a photo story, `isPhotoStory`).
  static func clean(_ article: HTMLElement, scorer: Scorer, total: Int, keepsCaptions: Bool = false) {
    let chunks = chunkKinds(article.elements, scorer: scorer)
    article.children.removeAll {
      guard case .element(let child) = $0 else { return false }
      return scorer.paragraphText(child) * 2 <= total
        && (child.name == "figcaption"
          ? !keepsCaptions : isJunk(child, scorer: scorer, chunk: chunkKind(child).map(chunks.contains) ?? false))
    }
    for element in article.elements { clean(element, scorer: scorer, total: total, keepsCaptions: keepsCaptions) }
  }

  /// Whether the article is a photo story told in its captions ("In pictures: …"): three pictures or more with
  /// a `figcaption` each, whose captions hold at least half of its text.
  static func isPhotoStory(_ article: HTMLElement, scorer: Scorer) -> Bool {
    let captions = article.descendants.filter { $0.name == "figcaption" }
    guard captions.count >= 3 else { return false }
    let captioned = captions.filter { caption in
      caption.parent.map { $0.name == "figure" && $0.descendants.contains { $0.name == "img" } } ?? false
    }
    guard captioned.count >= 3 else { return false }
    return captioned.reduce(0) { $0 + scorer.text($1).length } * 2 >= scorer.text(article).length
  }

  /// Removes a box inside the article that a heading opened as other posts ("You may like…"), when the
  /// article keeps `minimumText` characters without it: a site that shows its related posts whole (quotes,
  /// poems, short notes) has more of their text than of the article's, so neither the pruning nor `clean`,
  /// which spare what holds most of the text, take them away.
  static func dropOtherPosts(
    _ element: HTMLElement, _ boxes: Set<ObjectIdentifier>, scorer: Scorer, total: Int
  ) {
    element.children.removeAll {
      guard case .element(let child) = $0, boxes.contains(ObjectIdentifier(child)) else { return false }
      return total - scorer.text(child).length >= minimumText
    }
    for child in element.elements { dropOtherPosts(child, boxes, scorer: scorer, total: total) }
  }

  /// Removes the runs of paragraphs inside the article that are links and little else (a "You may also
  /// like" list of titles, "DON'T MISS" and its links), with the short line that introduces a run.
  ///
  /// A run is two or more such paragraphs in a row, or one after a short line without links; a lone
  /// linked paragraph may be the article's own (a source, a document), and stays.
  static func dropLinkRuns(_ article: HTMLElement, scorer: Scorer, total: Int) {
    for element in [article] + article.descendants where !element.children.isEmpty {
      var drop: Set<Int> = []
      var run: [Int] = []
      var lead: Int?
      var runLead: Int?
      func close() {
        if run.count >= 2 || !run.isEmpty && runLead != nil { drop.formUnion(run + (runLead.map { [$0] } ?? [])) }
        run = []
      }
      for (index, child) in element.children.enumerated() {
        guard case .element(let inner) = child, Scorer.isParagraph(inner) || linkRunNames.contains(inner.name) else {
          if case .text(let text) = child, !text.contains(where: { !$0.isWhitespace }) { continue }
          close()
          lead = nil
          continue
        }
        let facts = scorer.text(inner)
        if facts.length == 0 { continue }
        if isReadMore(inner, scorer: scorer) {
          close()
          drop.insert(index)
          lead = nil
        } else if scorer.linkDensity(inner) >= 0.75 && scorer.paragraphText(inner) * 2 <= total {
          if run.isEmpty { runLead = lead }
          run.append(index)
          lead = nil
        } else {
          close()
          lead = facts.length <= 40 && facts.linkLength == 0 ? index : nil
        }
      }
      close()
      guard !drop.isEmpty else { continue }
      element.children = element.children.enumerated().filter { !drop.contains($0.offset) }.map(\.element)
    }
  }

  /// Removes a heading at the end of the article that introduces nothing, with the scraps after it ("Like
  /// this:" over a likes widget, "Comments" over a comment box script fills, and its "0 comments").
  ///
  /// Such a heading is followed, to the article's end, by under 25 characters of text that end no sentence.
  static func dropTrailingHeading(_ article: HTMLElement) {
    var text = ""
    // Where each heading ends in `text`, in UTF-8 bytes (an index kept across appends need not stay valid).
    var ends: [(heading: HTMLElement, end: Int)] = []
    func walk(_ element: HTMLElement) {
      for child in element.children {
        switch child {
        case .text(let value): text += value
        case .element(let inner):
          walk(inner)
          if trailingHeadings.contains(inner.name) { ends.append((inner, text.utf8.count)) }
          text += " "
        }
      }
    }
    walk(article)
    // The first heading whose rest is a scrap: it and everything after it go. From the last one back, each
    // rest read only until it is more than a scrap, so a long article with many headings costs no more.
    var cut: HTMLElement?
    for (heading, end) in ends.reversed() {
      guard isScrap(text[text.utf8.index(text.startIndex, offsetBy: end)...]) else { break }
      cut = heading
    }
    guard let heading = cut else { return }
    var node = heading
    var first = true
    while let parent = node.parent, node !== article {
      if let index = parent.index(of: node) { parent.children.removeSubrange((first ? index : index + 1)...) }
      first = false
      node = parent
    }
  }

  /// Whether `text` is under 25 characters (runs of white space counted as one) and ends no sentence.
  private static func isScrap(_ text: Substring) -> Bool {
    var count = 0
    var space = true
    for character in text {
      if character.isWhitespace {
        if !space { count += 1 }
        space = true
        continue
      }
      if character == "." || character == "!" || character == "?" { return false }
      space = false
      count += 1
      if count >= 25 { return false }
    }
    return true
  }

  /// The headings ``dropTrailingHeading(_:)`` looks at (a page's `h1` is its title).
  static let trailingHeadings: Set<String> = ["h2", "h3", "h4", "h5", "h6"]

  /// Whether the element is a formula or a post quoted from a social network: text, whatever holds it.
  static func isQuotedContent(_ element: HTMLElement) -> Bool {
    element.name == "math"
      || element.name == "blockquote"
        && (embeddedPost.matches(classAndID(element))
          // The link is in the quotation or in one of its paragraphs: looked for no deeper, so that asking costs
          // little for any quotation (this is asked of every element more than once).
          || element.elements.contains { linksToPost($0) || $0.elements.contains(where: linksToPost) })
  }

  /// The length of the text of the quoted posts and formulas below the element (`isQuotedContent`).
  private static func quotedText(_ element: HTMLElement, scorer: Scorer) -> Int {
    element.elements.reduce(0) { total, child in
      total + (isQuotedContent(child) ? scorer.text(child).length : quotedText(child, scorer: scorer))
    }
  }

  /// Whether the element is a link to one post on a social network, as the text an embed shows before its
  /// script runs links to it ("— Name (@handle) November 18, 2019" to `twitter.com/handle/status/…`): the
  /// quotation around it is that post, whatever it is named.
  static func linksToPost(_ element: HTMLElement) -> Bool {
    guard element.name == "a", let href = element.attributes["href"]?.lowercased(),
      let scheme = href.firstRange(of: "://")
    else { return false }
    let rest = href[scheme.upperBound...]
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    var host = rest[..<slash]
    for prefix in ["www.", "mobile.", "m."] where host.hasPrefix(prefix) { host = host.dropFirst(prefix.count) }
    let path = rest[slash...]
    switch host {
    case "twitter.com", "x.com": return path.contains("/status/")
    case "instagram.com": return path.hasPrefix("/p/") || path.hasPrefix("/reel/")
    case "tiktok.com": return path.contains("/video/")
    case "bsky.app", "threads.net", "threads.com": return path.contains("/post/")
    default: return false
    }
  }

  /// Class and id words of a box that holds a picture.
  static let pictureBox = NamePattern("image|img|photo|picture|figure|media", words: "pic|thumb")

  /// Removes the pictures with their captions from the article (a `figure`, a table, or a box named for
  /// pictures such as `<div class="image top">`, holding one picture and under 300 characters of text), when there
  /// are one or two: three or more are a photo story, whose text is under its pictures.
  static func dropCaptions(_ article: HTMLElement, scorer: Scorer) {
    let boxes = article.descendants.filter { isPictureBox($0, scorer: scorer) }
    guard boxes.count <= 2 else { return }
    for box in boxes { box.parent?.remove(box) }
  }

  /// Whether the element is a picture with a caption at most: a `figure`, a box named for pictures, or a
  /// table (older templates set a picture and its caption in one beside the text), holding one picture and
  /// under 300 characters of text.
  private static func isPictureBox(_ element: HTMLElement, scorer: Scorer) -> Bool {
    guard
      element.name == "figure" || element.name == "table"
        || element.name == "div" && pictureBox.matches(classAndID(element))
    else {
      return false
    }
    let pictures = element.descendants.reduce(0) { $0 + ($1.name == "img" ? 1 : 0) }
    return pictures == 1 && scorer.text(element).length < 300
  }

  /// Removes the captions that no `figcaption` or name tells: the lines a picture names as what describes it
  /// (`aria-describedby`, as WordPress writes a caption) and the lines that repeat its description.
  ///
  /// A line that repeats it is one of 40 characters or more that begins the `alt` of a picture in the same
  /// box (up to three levels above the picture, while the box is not much more than the caption): a gallery
  /// writes each caption twice, for its "… more" and "less" toggles, which go with it. A heading or a link
  /// that repeats it is a title (a card's), not a caption; a line that describes it is a caption when under
  /// 300 characters.
  static func dropPictureCaptions(_ article: HTMLElement, scorer: Scorer) {
    // Linear on any page: each picture looks at most three levels up and at 60 elements.
    let all = article.descendants
    let pictures = all.filter { $0.name == "img" }
    let described = Set(pictures.flatMap { $0.attributes["aria-describedby"]?.split(separator: " ") ?? [] })
    if !described.isEmpty {
      for line in all where line.attributes["id"].map({ described.contains(Substring($0)) }) ?? false {
        if scorer.text(line).length < 300, !linkRunNames.contains(line.name) { line.parent?.remove(line) }
      }
    }
    for picture in pictures {
      guard let alt = picture.attributes["alt"].flatMap(HTMLText.collapsed), alt.count >= 40 else { continue }
      var box = picture
      for _ in 0..<3 {
        guard let parent = box.parent, parent !== article, scorer.text(parent).length <= alt.count * 3 + 300
        else { break }
        box = parent
      }
      guard box !== picture, let lines = elements(below: box, atMost: 60) else { continue }
      for line in lines where !linkRunNames.contains(line.name) && line.name != "a" {
        guard scorer.linkDensity(line) < 0.5, let text = HTMLText.collapsed(Paragraphs.inline(line)) else { continue }
        let caption = withoutToggle(text)
        if caption.count >= 40, alt.hasPrefix(caption) { line.parent?.remove(line) }
      }
    }
  }

  /// The elements below `element`, depth first, or `nil` when there are more than `limit`.
  private static func elements(below element: HTMLElement, atMost limit: Int) -> [HTMLElement]? {
    var found: [HTMLElement] = []
    var pending = Array(element.elements.reversed())
    while let next = pending.popLast() {
      guard found.count < limit else { return nil }
      found.append(next)
      pending.append(contentsOf: next.elements.reversed())
    }
    return found
  }

  /// A caption's text without the toggle at its end ("… more", "less").
  private static func withoutToggle(_ text: String) -> Substring {
    var caption = Substring(text)
    while let suffix = [" less", " more", "...", "…"].first(where: { caption.hasSuffix($0) }) {
      caption = caption.dropLast(suffix.count)
      while caption.last?.isWhitespace == true { caption.removeLast() }
    }
    return caption
  }

  /// Labels of a line that points to another article ("Read more: …", "[Related: …]", "Leggi anche: …").
  static let readMoreLabels: Set<String> = [
    "read more", "read also", "also read", "related", "see more", "see also", "more", "also", "don't miss",
    "dont miss", "recommended", "related article", "related story", "related stories", "read next", "up next",
    "more on this", "more from", "leggi anche", "lesen sie auch", "mehr zum thema", "lire aussi", "à lire aussi",
    "a lire aussi", "lea también", "lee también", "leia também", "leia mais", "lees ook", "läs också", "czytaj też",
    "te puede interesar", "noticias relacionadas", "relacionado", "relacionada", "potrebbe interessarti",
    "vedi anche", "veja também", "saiba mais", "читайте также", "также читайте", "смотрите также",
    "czytaj także", "zobacz też", "zobacz także", "meer over", "ilgili haber", "关联阅读", "相关阅读",
    "延伸阅读", "関連記事", "あわせて読みたい", "관련기사", "더 읽기", "læs også", "les også", "lue myös",
  ]

  /// Whether the element is a line pointing to another article: a label of ``readMoreLabels`` (ended by a
  /// colon, or set apart in bold: "<strong>À lire aussi</strong> …") and a link that is most of the line.
  private static func isReadMore(_ element: HTMLElement, scorer: Scorer) -> Bool {
    let facts = scorer.text(element)
    guard facts.length <= 300, facts.linkLength * 2 >= facts.length else { return false }
    let line = Paragraphs.inline(element).lowercased().drop { $0.isWhitespace || "[(【".contains($0) }
    if let colon = line.prefix(24).firstIndex(where: { $0 == ":" || $0 == "：" || $0 == "】" }) {
      return isReadMoreLabel(line[..<colon])
    }
    let first = element.children.first { node in
      if case .text(let text) = node { !text.allSatisfy(\.isWhitespace) } else { true }
    }
    guard case .element(let label) = first,
      ["strong", "b", "em", "span"].contains(label.name), scorer.text(label).linkLength == 0
    else { return false }
    var said = Substring(Paragraphs.inline(label).lowercased())
    while let last = said.last, last.isWhitespace || ":.-–—›»：】".contains(last) { said.removeLast() }
    return isReadMoreLabel(said.drop { $0.isWhitespace || $0 == "【" })
  }

  private static func isReadMoreLabel(_ label: Substring) -> Bool {
    let words = label.map { $0 == "\u{2019}" ? "'" : $0 }.split(whereSeparator: \.isWhitespace)
    return readMoreLabels.contains(words.map { String($0) }.joined(separator: " "))
  }

  /// The elements besides paragraphs that a run of links is made of, or introduced by.
  static let linkRunNames: Set<String> = ["li", "h1", "h2", "h3", "h4", "h5", "h6"]

  /// The kinds (name and class) of boxes among `elements` that cut an article into chunks: two or more of
  /// them are prose without links (a page that puts its pictures and advertisements between boxes of its
  /// text, each box of one class).
  private static func chunkKinds(_ elements: [HTMLElement], scorer: Scorer) -> Set<String> {
    var counts: [String: Int] = [:]
    for element in elements where element.name == "div" || element.name == "section" {
      guard let kind = chunkKind(element), scorer.linkDensity(element) < 0.1, scorer.text(element).length >= 200
      else { continue }
      counts[kind, default: 0] += 1
    }
    return Set(counts.filter { $0.value >= 2 }.keys)
  }

  /// A box's name and class, the kind `chunkKinds` counts (none without a class).
  private static func chunkKind(_ element: HTMLElement) -> String? {
    element.attributes["class"].map { element.name + " " + $0 }
  }

  /// Whether the element's text ends with a sentence's last mark (a quotation mark or bracket may close it).
  static func endsSentence(_ element: HTMLElement) -> Bool {
    let text = Paragraphs.inline(element).unicodeScalars.reversed().drop {
      $0.properties.isWhitespace || "\"'”’»)".unicodeScalars.contains($0)
    }
    return text.first.map { ".!?。！？…".unicodeScalars.contains($0) } ?? false
  }

  /// Readability's conditional cleaning: headings that are links or furniture, and boxes (lists, tables,
  /// divs) that are furniture by name, picture galleries, link lists, or nearly empty.
  ///
  /// A `chunk` of an article cut into boxes of one class (`chunkKinds`) is not taken for a link list for
  /// the links it carries under its prose ("DON'T MISS" and three headlines, which `dropLinkRuns` removes),
  /// while it is less than half links.
  private static func isJunk(_ element: HTMLElement, scorer: Scorer, chunk: Bool = false) -> Bool {
    let name = element.name
    // A list of the post's tags (`rel="tag"`, as blog engines write them), whatever holds it.
    let parts = scorer.parts(element)
    if scorer.linkDensity(element) >= 0.5, parts.tagLinks >= 2 { return true }
    if ["h1", "h2", "h3"].contains(name) {
      return scorer.classWeight(element) < 0 || scorer.linkDensity(element) > 0.33
    }
    // A page laid out in a table (as many were until about 2010) has its menu in a cell beside the article's:
    // a cell of three links or more that is mostly links. Cells of a table of data, short as they are, stay.
    if name == "td" || name == "th" {
      return scorer.linkDensity(element) > 0.5 && parts.links >= 3
    }
    guard ["table", "ul", "ol", "div", "section", "fieldset", "figure", "dl", "form"].contains(name) else {
      return false
    }
    let weight = scorer.classWeight(element)
    if weight < 0 { return !parts.quoted }
    let text = scorer.text(element)
    // A box around a quoted post (an embed's wrapper) is the post, whose links are its own.
    if parts.quoted, quotedText(element, scorer: scorer) * 5 >= text.length * 4 { return false }
    // Prose has commas; a box with many is kept whatever else it holds.
    if text.commas >= 10 { return false }
    // Readability turns a div without block children into a p before this count; so does this one.
    let (paragraphs, images, listItems) = (parts.paragraphs, parts.images, parts.listItems)
    let density = scorer.linkDensity(element)
    if images > 1 && Double(paragraphs) / Double(images) < 0.5 { return true }
    if name != "ul" && name != "ol" && listItems > paragraphs + 100 { return true }
    if text.length < 25 && (images == 0 || images > 2) { return true }
    // A list in the article whose items are text with links in them (changes and who made them, sources) is
    // read as Readability.js reads it: it goes only when mostly links. A list of headlines (most items
    // a link and nothing else) goes by the rule below.
    if name == "ul" || name == "ol" {
      let items = element.elements.filter { $0.name == "li" }
      let bare = items.reduce(0) { $0 + (scorer.linkDensity($1) >= 0.8 ? 1 : 0) }
      if bare * 2 < items.count { return density > 0.5 }
    }
    // A div that holds no block and ends a sentence is a paragraph written as a div, as some sites write
    // all of them: a link in it (its source, a person's page) makes it no more a link list than it makes a
    // `p` one. (A dateline with its place names linked ends no sentence.) Its text is read only here.
    if weight < 25, !chunk, !(name == "div" && Scorer.isParagraph(element) && endsSentence(element)) {
      return density > 0.2
    }
    return density > 0.5
  }
}
