// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// A search in lower-case class and id names for any of several parts of names or whole words.
///
/// A whole word is delimited by anything but an ASCII letter or digit (bytes of other scripts count as
/// letters): `nav` matches `site-nav` but not `canvas`. The search is over bytes: it runs for every class
/// and id of the page, several times.
struct NamePattern: Sendable {
  let parts: [String]
  let words: Set<Substring>
  init(_ parts: String, words: String = "") {
    self.parts = parts.split(separator: "|").map(String.init)
    self.words = Set(words.split(separator: "|"))
  }
  func matches(_ names: String) -> Bool {
    let bytes = names.utf8
    if parts.contains(where: { bytes.contains(bytes: $0) }) { return true }
    guard !words.isEmpty else { return false }
    return bytes.split { byte in
      byte < 0x80 && !(byte >= 0x61 && byte <= 0x7A || byte >= 0x30 && byte <= 0x39 || byte >= 0x41 && byte <= 0x5A)
    }.contains { words.contains(Substring($0)) }
  }
}

/// The scores: each element's text and link lengths, class weight and content score.
final class Scorer {
  struct TextFacts {
    var length = 0
    var linkLength = 0
    var commas = 0
  }

  private var facts: [ObjectIdentifier: TextFacts] = [:]
  private var scores: [ObjectIdentifier: Double] = [:]
  /// Whether class and id names count (`classWeight`), as Readability's FLAG_WEIGHT_CLASSES.
  private let weighClasses: Bool

  init(weighClasses: Bool = true) {
    self.weighClasses = weighClasses
  }

  static let positive = NamePattern(
    "article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story")
  static let negative = NamePattern(
    "-ad-|hidden|banner|combx|comment|com-|contact|foot|footer|footnote|gdpr|masthead|media|meta|outbrain|promo"
      + "|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|tool|widget|caption|credit|byline")

  /// The weight of an element's class and id names: 25 for each side that looks like content, −25 for each
  /// that looks like furniture.
  func classWeight(_ element: HTMLElement) -> Double {
    guard weighClasses else { return 0 }
    var weight = 0.0
    for name in [element.attributes["class"], element.attributes["id"]] {
      guard let name = name?.lowercased(), !name.isEmpty else { continue }
      if Self.negative.matches(name) { weight -= 25 }
      if Self.positive.matches(name) { weight += 25 }
    }
    return weight
  }

  /// The visible text's length (whitespace collapsed), the length inside links, and the commas.
  func text(_ element: HTMLElement) -> TextFacts {
    if let known = facts[ObjectIdentifier(element)] { return known }
    var found = TextFacts()
    var previousSpace = true
    for child in element.children {
      switch child {
      case .text(let text):
        for scalar in text.unicodeScalars {
          let space =
            scalar.isASCII
            ? scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar == "\u{0C}"
            : scalar.properties.isWhitespace
          if !(space && previousSpace) { found.length += 1 }
          previousSpace = space
          if Self.isComma(scalar) { found.commas += 1 }
        }
      case .element(let inner):
        let innerFacts = text(inner)
        found.length += innerFacts.length
        found.commas += innerFacts.commas
        found.linkLength += inner.name == "a" ? innerFacts.length : innerFacts.linkLength
        previousSpace = false
      }
    }
    facts[ObjectIdentifier(element)] = found
    return found
  }

  /// What an element holds below it, counted once for each element (a box's parts were searched again for
  /// each box above them: a page of nested boxes cost the square of its depth).
  struct Parts {
    // 32 bits each: a page holds at most `HTMLTree.maxTags` elements, and a page of them keeps one of these
    // for each element that holds another.
    var paragraphs: Int32 = 0
    var images: Int32 = 0
    var listItems: Int32 = 0
    var links: Int32 = 0
    /// Links marked `rel="tag"`.
    var tagLinks: Int32 = 0
    /// A formula or a post quoted from a social network (`ArticleExtractor.isQuotedContent`).
    var quoted = false
  }

  private var partCounts: [ObjectIdentifier: Parts] = [:]

  /// The parts below the element (not itself), as they were when first asked.
  func parts(_ element: HTMLElement) -> Parts {
    if let known = partCounts[ObjectIdentifier(element)] { return known }
    var found = Parts()
    // Most elements hold no other: nothing to count, nothing kept.
    let children = element.elements
    guard !children.isEmpty else { return found }
    for child in children {
      let below = parts(child)
      found.paragraphs += below.paragraphs + (Self.isParagraph(child) ? 1 : 0)
      found.images += below.images + (child.name == "img" ? 1 : 0)
      found.listItems += below.listItems + (child.name == "li" ? 1 : 0)
      let link = child.name == "a"
      found.links += below.links + (link ? 1 : 0)
      let tag = link && (child.attributes["rel"] ?? "").lowercased().contains("tag")
      found.tagLinks += below.tagLinks + (tag ? 1 : 0)
      found.quoted = found.quoted || below.quoted || ArticleExtractor.isQuotedContent(child)
    }
    partCounts[ObjectIdentifier(element)] = found
    return found
  }

  private var paragraphTexts: [ObjectIdentifier: Int] = [:]

  /// The length of the text in the element's paragraphs (`p`, `pre` and divs that read as one).
  func paragraphText(_ element: HTMLElement) -> Int {
    if let known = paragraphTexts[ObjectIdentifier(element)] { return known }
    let length =
      Self.isParagraph(element) || element.name == "pre"
      ? text(element).length : element.elements.reduce(0) { $0 + paragraphText($1) }
    paragraphTexts[ObjectIdentifier(element)] = length
    return length
  }

  /// The element's content score so far (0 for one no paragraph scored).
  func score(_ element: HTMLElement) -> Double { scores[ObjectIdentifier(element)] ?? 0 }

  /// The share of the element's text that is inside links.
  func linkDensity(_ element: HTMLElement) -> Double {
    let facts = text(element)
    return facts.length == 0 ? 0 : Double(facts.linkLength) / Double(facts.length)
  }

  static let blockNames: Set<String> = [
    "address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset", "figure", "footer", "form",
    "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
  ]
  static let scored: Set<String> = ["p", "pre", "td", "section", "h2", "h3", "h4", "h5", "h6"]

  /// Whether the scalar is a comma of any script (Latin, full-width, Arabic, ideographic).
  static func isComma(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "," || scalar == "\u{FF0C}" || scalar == "\u{060C}" || scalar == "\u{3001}"
  }

  /// What paragraphs of these lengths and commas add to the boxes around them, as Readability.js counts:
  /// one each, one for each comma, and one for each 100 characters up to three.
  static func paragraphScore(_ parts: [TextFacts]) -> Double {
    parts.reduce(0) { $0 + ($1.length >= 25 ? paragraphScore($1) : 0) }
  }

  static func paragraphScore(_ facts: TextFacts) -> Double {
    1 + Double(facts.commas) + min(Double(facts.length / 100), 3)
  }

  /// The parts of the element's inline text that two line breaks in a row divide (`text<br><br>text`), each
  /// with its length and commas; nil when there are fewer than two.
  ///
  /// Readability.js turns such runs into paragraphs before it scores: a story written as text and line
  /// breaks in one `<td>` or `<font>` (2000s templates, forums) counted as a single paragraph, three points
  /// at most, and a column of five short sponsored paragraphs beside it outscored it. Blocks inside are
  /// not entered (they are scored themselves), so each run of text is read by the few boxes right around it.
  static func breakParts(_ element: HTMLElement) -> [TextFacts]? {
    var parts: [TextFacts] = []
    var current = TextFacts()
    var breaks = 0
    var space = false
    func walk(_ element: HTMLElement) {
      for child in element.children {
        switch child {
        case .text(let text):
          for scalar in text.unicodeScalars {
            // Lengths as `text` counts them: a run of spaces is one.
            if scalar.isASCII ? scalar.value <= 0x20 : scalar.properties.isWhitespace {
              space = true
              continue
            }
            if breaks >= 2, current.length > 0 {
              parts.append(current)
              current = TextFacts()
            } else if space, current.length > 0 {
              current.length += 1
            }
            (breaks, space) = (0, false)
            current.length += 1
            if isComma(scalar) { current.commas += 1 }
          }
        case .element(let inner):
          if inner.name == "br" {
            breaks += 1
          } else if !blockNames.contains(inner.name) {
            walk(inner)
          }
        }
      }
    }
    walk(element)
    if current.length > 0 { parts.append(current) }
    return parts.count >= 2 ? parts : nil
  }

  /// Whether the element is a `p`, or a `div` with no block inside that reads as one.
  static func isParagraph(_ element: HTMLElement) -> Bool {
    element.name == "p" || (element.name == "div" && !element.elements.contains { blockNames.contains($0.name) })
  }

  /// Whether the element is a list item or a definition holding no block: a paragraph when it holds prose
  /// (an article written as a list of long items, a story in a `<dd>`).
  static func isProseItem(_ element: HTMLElement) -> Bool {
    (element.name == "li" || element.name == "dd") && !element.elements.contains { blockNames.contains($0.name) }
  }

  /// The element most likely to be the article, with the siblings that belong to it.
  ///
  /// `title` is the page's title: when the page holds several articles each under its own `h1` (the next
  /// story a site loads under the first), the one whose headline the title names is the article, and the
  /// others are neither its parts nor its siblings.
  func article(in body: HTMLElement, title: String? = nil) -> HTMLElement {
    var candidates: [HTMLElement] = []
    for element in body.descendants {
      let item = Self.isProseItem(element)
      guard Self.scored.contains(element.name) || Self.isParagraph(element) || item else { continue }
      // A cell that holds blocks (a table, the page's boxes) is a layout's, not a paragraph: its text is
      // scored where it is.
      if element.name == "td", element.elements.contains(where: { Self.blockNames.contains($0.name) }) { continue }
      let facts = text(element)
      guard facts.length >= (item ? 150 : 25), !item || facts.linkLength * 2 < facts.length else { continue }
      // Without an array for the one paragraph most are (1.2 million `<p>a, b` took 15 % longer).
      let parts = facts.length >= 50 ? Self.breakParts(element) : nil
      var score = parts.map(Self.paragraphScore) ?? Self.paragraphScore(facts)
      // A picture's caption counts as a line, not by its commas ("Dec. 3, 2024, file photo, … left, and …").
      if parts == nil, Self.isCaption(element, facts) { score = Self.paragraphScore(TextFacts(length: facts.length)) }
      var ancestor = element.parent
      var level = 0
      while let current = ancestor, level < 5 {
        if scores[ObjectIdentifier(current)] == nil {
          scores[ObjectIdentifier(current)] = initialScore(current)
          candidates.append(current)
        }
        let share = level == 0 ? 1 : level == 1 ? 0.5 : 1 / Double(level * 3)
        scores[ObjectIdentifier(current), default: 0] += score * share
        if current === body { break }
        ancestor = current.parent
        level += 1
      }
    }
    for candidate in candidates {
      scores[ObjectIdentifier(candidate), default: 0] *= 1 - linkDensity(candidate)
    }
    let ranked = candidates.sorted { score($0) > score($1) }
    guard var top = ranked.first else { return body }
    // Of the stories near the top, each under its own headline, the one the page's title names.
    if let title = title.map(ArticleExtractor.wordLine), let own = Self.headline(of: top), !Self.names(title, own),
      let named = ranked.dropFirst().prefix(5).first(where: { candidate in
        score(candidate) >= score(top) * 0.3 && Self.isOtherStory(candidate, than: top, headed: own)
          && Self.headline(of: candidate).map { Self.names(title, $0) } == true
      })
    {
      top = named
    }
    // Another story under its own headline is neither a part of this one nor a sibling that belongs to it.
    let headline = Self.headline(of: top)
    let otherStory = { [top] (box: HTMLElement) in Self.isOtherStory(box, than: top, headed: headline) }
    var topScore = score(top)
    // An article in several parts (a page's chunks, each its own box) leaves several good candidates:
    // boxes of the top one's kind and class, or (as readability has it) three near-equal ones. The
    // nearest ancestor holding them is the article.
    let parts = ranked.dropFirst().filter {
      $0.name == top.name && $0.attributes["class"] == top.attributes["class"] && top.attributes["class"] != nil
        && score($0) >= topScore * 0.3 && $0 !== top && !otherStory($0)
    }
    let alternatives = ranked.dropFirst().prefix(5).filter {
      score($0) >= topScore * 0.75 && $0 !== top && !otherStory($0)
    }
    let (group, needed) = parts.isEmpty ? (alternatives, 3) : (parts, parts.count)
    if group.count >= needed {
      var ancestor = top.parent
      while let current = ancestor, current !== body {
        if group.filter({ $0.isInside(current) }).count >= needed {
          top = current
          break
        }
        ancestor = current.parent
      }
    }
    // As Readability.js does: an ancestor that scores higher than the box below it (and no ancestor
    // between them below a third of the top's score) holds more of the article (a story's intro beside the
    // `read-more` box of the rest).
    var lastScore = score(top)
    let floor = lastScore / 3
    var ancestor = top.parent
    while let current = ancestor, current !== body {
      ancestor = current.parent
      guard scores[ObjectIdentifier(current)] != nil else { continue }
      if score(current) < floor { break }
      if score(current) > lastScore {
        top = current
        break
      }
      lastScore = score(current)
    }
    // A lone child stands for its parent: the parent may carry the title and the other parts.
    while let parent = top.parent, parent !== body, parent.elements.count == 1 {
      top = parent
    }
    topScore = max(topScore, scores[ObjectIdentifier(top)] ?? 0)
    guard let parent = top.parent else { return top }
    let threshold = max(10, topScore * 0.2)
    let topClass = top.attributes["class"]
    let article = HTMLElement(name: "div")
    for sibling in parent.elements {
      // The cheap test first: whether a sibling is another story walks its boxes for a headline.
      if sibling === top
        || belongs(sibling, threshold: threshold, topClass: topClass, topScore: topScore) && !otherStory(sibling)
      {
        article.children.append(.element(sibling))
      }
    }
    return article
  }

  /// Whether the paragraph is a picture's caption: the one paragraph beside the one picture of a small box,
  /// whatever the box is named (a `div` of an image and its `p`).
  static func isCaption(_ paragraph: HTMLElement, _ facts: TextFacts) -> Bool {
    // The children counted first: a box of thousands of paragraphs is not made a list of them for each.
    // A `div` here holds no block (`isParagraph`): a caption written as a div, beside its picture.
    guard paragraph.name == "p" || paragraph.name == "div", facts.length < 300, let box = paragraph.parent,
      box.name == "div" || box.name == "td",
      box.children.count <= 7, case let elements = box.elements, elements.count <= 3
    else { return false }
    var pictures = 0
    for element in elements where element !== paragraph {
      switch element.name {
      case "img", "picture": pictures += 1
      case "a" where element.elements.count == 1 && ["img", "picture"].contains(element.elements[0].name):
        pictures += 1
      default: return false
      }
    }
    return pictures == 1
  }

  /// The first `h1` inside the box, or the box itself when it is one.
  static func headline(of box: HTMLElement) -> HTMLElement? {
    var stack = [box]
    while let next = stack.popLast() {
      if next.name == "h1" { return next }
      stack += next.elements.reversed()
    }
    return nil
  }

  /// Whether the box is another story than `top`'s (headed by `own`, its `headline`): each has its own
  /// headline, and neither holds the other.
  static func isOtherStory(_ box: HTMLElement, than top: HTMLElement, headed own: HTMLElement?) -> Bool {
    guard let own, !top.isInside(box), !box.isInside(top), let headline = headline(of: box) else { return false }
    return headline !== own
  }

  /// Whether the page's title (its words) names this headline: the one holds the other.
  static func names(_ title: String, _ headline: HTMLElement) -> Bool {
    let words = ArticleExtractor.wordLine(Paragraphs.inline(headline))
    return !words.isEmpty && (title.contains(words) || words.contains(title))
  }

  private func belongs(_ sibling: HTMLElement, threshold: Double, topClass: String?, topScore: Double) -> Bool {
    var score = scores[ObjectIdentifier(sibling)] ?? 0
    // A sibling of the top one's class is likely another part of it, unless it is mostly links (a `row`
    // of "Popular" stories beside the `row` of the article).
    if let topClass, !topClass.isEmpty, sibling.attributes["class"] == topClass, linkDensity(sibling) < 0.5 {
      score += topScore * 0.2
    }
    if score >= threshold && score > 0 { return true }
    guard Self.isParagraph(sibling) else { return false }
    let facts = text(sibling)
    let density = linkDensity(sibling)
    if facts.length > 80 { return density < 0.25 }
    let inline = Paragraphs.inline(sibling).trimmingASCIIWhitespace
    return facts.length > 0 && density == 0 && (inline.hasSuffix(".") || inline.hasSuffix("?") || inline.hasSuffix("!"))
  }

  private func initialScore(_ element: HTMLElement) -> Double {
    let base: Double =
      switch element.name {
      case "div", "article", "main": 5
      case "pre", "td", "blockquote": 3
      case "address", "ol", "ul", "dl", "dd", "dt", "li", "form": -3
      case "h1", "h2", "h3", "h4", "h5", "h6", "th": -5
      default: 0
      }
    return base + classWeight(element)
  }
}

extension HTMLElement {
  /// Whether this element is `ancestor` or inside it.
  func isInside(_ ancestor: HTMLElement) -> Bool {
    var current: HTMLElement? = self
    while let element = current {
      if element === ancestor { return true }
      current = element.parent
    }
    return false
  }
}

/// An element's text as paragraphs: block elements break lines, inline ones flow.
enum Paragraphs {
  static func text(of element: HTMLElement) -> String {
    var paragraphs: [String] = []
    var current = ""
    walk(element, into: &current, paragraphs: &paragraphs)
    flush(&current, into: &paragraphs)
    return paragraphs.joined(separator: "\n\n")
  }

  /// The element's text on one line.
  static func inline(_ element: HTMLElement) -> String {
    var text = ""
    for child in element.children {
      switch child {
      case .text(let value): text += value
      case .element(let inner): text += " " + inline(inner) + " "
      }
    }
    return text
  }

  private static func walk(_ element: HTMLElement, into current: inout String, paragraphs: inout [String]) {
    for child in element.children {
      switch child {
      case .text(let value): current += value
      case .element(let inner):
        if inner.name == "br" {
          flush(&current, into: &paragraphs)
        } else if Scorer.blockNames.contains(inner.name) {
          flush(&current, into: &paragraphs)
          walk(inner, into: &current, paragraphs: &paragraphs)
          flush(&current, into: &paragraphs)
        } else {
          walk(inner, into: &current, paragraphs: &paragraphs)
        }
      }
    }
  }

  private static func flush(_ current: inout String, into paragraphs: inout [String]) {
    if let line = HTMLText.collapsed(current), !line.unicodeScalars.allSatisfy(isBlank) { paragraphs.append(line) }
    current = ""
  }

  /// Whether a character shows nothing: a space, or a mark of format that editors leave for spacing (a
  /// paragraph of one zero-width space, `<p>&#8203;</p>`, is an empty line to a reader).
  private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x200B...0x200D, 0x2060, 0xFEFF, 0x00AD, 0x180E: true
    default: scalar.properties.isWhitespace
    }
  }
}
