// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// The repeated list of posts in a page's markup.
///
/// Every link with a title is a candidate row, and so is each of its ancestors a few levels up; rows are
/// grouped by their shape (the element's tag and classes and those of the elements above it, with and
/// without the ancestors' classes, so that teasers spread over several sections are one group). Each group
/// is scored by its distinct links, how much its titles read like titles (words, not "Home" or "2"), the rows'
/// dates, headings, pictures and summaries, and where it is: navigation, headers, footers, sidebars, tag
/// clouds, pagers and comment sections count far less than the main content. Of groups that hold the same
/// rows, the outermost wins, so that a row's date and summary are in it.
enum PageList {
  /// The list found, its score and how sure it is.
  struct Found {
    var listing: PageListing
    /// Whether the list is clear enough to be taken over data the page embeds.
    var strong: Bool
    var members: [HTMLElement]
  }

  /// Elements whose content is never a row.
  static let skipped: Set<String> = ["script", "style", "noscript", "template", "svg", "head", "select", "iframe"]

  /// The most links a row may hold.
  static let maxRowLinks = 60

  /// How many levels above a link a row may start.
  static let maxLevels = 8

  /// A link of the page with its text.
  struct Anchor {
    let element: HTMLElement
    let link: String
    let text: String
    let inHeading: Bool
  }

  /// The best list of the page, or `nil` when no group of two or more rows with titles exists.
  static func best(in root: HTMLElement, base: String, page: String) -> Found? {
    var shapes = Shapes()
    var groups: [Int: Group] = [:]
    let pageKey = comparable(page)
    for anchor in anchors(in: root, base: base) where comparable(anchor.link) != pageKey {
      var element: HTMLElement? = anchor.element
      var level = 0
      while let current = element, level <= maxLevels, current.name != "body", current.name != "html" {
        for key in shapes.keys(current) {
          groups[key, default: Group(key: key, level: level)].add(current, anchor)
        }
        element = current.parent
        level += 1
      }
    }
    var best: (score: Double, level: Int, found: Found)?
    let rows = Rows()
    for group in groups.values.sorted(by: { $0.key < $1.key }) where group.members.count >= 2 {
      guard let (score, found) = evaluate(group, root: root, base: base, rows: rows) else { continue }
      if let current = best {
        // Of equal scores (the same rows at several levels), the outermost.
        let tie = abs(score - current.score) <= current.score * 0.000_001
        guard score > current.score && !tie || tie && group.level > current.level else { continue }
      }
      best = (score, group.level, found)
    }
    guard var found = best?.found else { return nil }
    found.listing.selector = selector(for: found.members, root: root, shapes: &shapes)
    if let selector = found.listing.selector { found.listing.reason = "\(found.listing.reason) in \(selector)" }
    return found
  }

  /// The rows a pinned selector picks, with the pinned title, link and date selectors inside each.
  static func pinned(_ pins: PageItems.Pins, root: HTMLElement, base: String, page: String) -> PageListing {
    var items: [PageItem] = []
    var seen: Set<String> = []
    for row in pins.items.select(in: root) {
      let rowAnchors = anchors(in: row, base: base)
      var link: String?
      if let pin = pins.link {
        let element = row.descendantsAndSelf.first { pin.matches($0) }
        link = element.flatMap { $0.attributes["href"] ?? $0.descendants.first { $0.name == "a" }?.attributes["href"] }
          .flatMap { PageItems.absolute($0, base: base) }
      } else {
        link = mainAnchor(of: rowAnchors, in: row)?.link
      }
      guard let link, seen.insert(link).inserted else { continue }
      var title = pins.title.flatMap { pin in row.descendantsAndSelf.first { pin.matches($0) } }.map(text) ?? ""
      if title.isEmpty { title = mainAnchor(of: rowAnchors, in: row).map { titleText(for: $0, in: row) } ?? "" }
      guard !title.isEmpty else { continue }
      var item = details(of: row, title: title, link: link, base: base)
      if let pin = pins.date, let element = row.descendantsAndSelf.first(where: { pin.matches($0) }) {
        item.date = element.attributes["datetime"] ?? text(element)
      }
      items.append(item)
    }
    guard !items.isEmpty else {
      return .none(.noList, "the selector \(pins.items.text) picks no row with a link and a title")
    }
    return PageListing(status: .list, items: items, reason: "pinned by \(pins.items.text)", selector: pins.items.text)
  }

  // MARK: - Groups

  /// Rows of one shape, each with the links inside it.
  struct Group {
    let key: Int
    let level: Int
    /// Whether the rows are the children of one element, whatever their shapes.
    var siblings: Bool { key < 0 }
    var members: [HTMLElement] = []
    var anchors: [[Anchor]] = []
    var index: [ObjectIdentifier: Int] = [:]

    init(key: Int, level: Int) {
      self.key = key
      self.level = level
    }

    mutating func add(_ element: HTMLElement, _ anchor: Anchor) {
      let id = ObjectIdentifier(element)
      if let at = index[id] {
        anchors[at].append(anchor)
      } else {
        index[id] = members.count
        members.append(element)
        anchors.append([anchor])
      }
    }
  }

  /// What one row is, whatever group it is counted in (its links are the same in all of them).
  struct Row {
    var item: PageItem
    var comparableLink: String
    var headed: Bool
    var place: Double
    /// The tags from the row down to its title link.
    var path: String
    var words: Int
    var letterWords: Int
  }

  /// Rows already read, by element (`nil`: the element is not a row).
  final class Rows {
    var known: [ObjectIdentifier: Row?] = [:]
    var places: [ObjectIdentifier: (factor: Double, inMain: Bool)] = [:]
  }

  /// The row `member` makes with the links in it, or `nil` when it is not one; read once.
  static func row(_ member: HTMLElement, anchors: [Anchor], base: String, rows: Rows) -> Row? {
    let id = ObjectIdentifier(member)
    if let known = rows.known[id] { return known }
    var made: Row?
    // A row has a few links; an element with dozens is a part of the page, not a row.
    if anchors.count <= maxRowLinks, let main = mainAnchor(of: anchors, in: member), !isInline(main) {
      let title = titleText(for: main, in: member)
      if !title.isEmpty {
        let words = title.split(whereSeparator: \.isWhitespace)
        made = Row(
          item: details(of: member, title: title, link: main.link, base: base), comparableLink: comparable(main.link),
          headed: main.inHeading || inTitlePart(main, of: member)
            || member.descendantsAndSelf.contains(where: isHeading),
          place: placeFactor(member, rows: rows), path: path(from: member, to: main.element), words: words.count,
          letterWords: words.count(where: { $0.contains(where: \.isLetter) }))
      }
    }
    rows.known[id] = made
    return made
  }

  /// The group as a list and its score, or `nil` when it is not one: fewer than three rows with a distinct
  /// link and a title, title links in no one place, a menu, siblings of too many kinds.
  static func evaluate(_ group: Group, root: HTMLElement, base: String, rows: Rows) -> (Double, Found)? {
    var items: [PageItem] = []
    var members: [HTMLElement] = []
    var facts: [Row] = []
    var seen: Set<String> = []
    var (duplicates, dated, headed, pictured, summarized) = (0, 0, 0, 0, 0)
    var places: [String: Int] = [:]
    for (member, anchors) in zip(group.members, group.anchors) {
      guard let row = row(member, anchors: anchors, base: base, rows: rows) else { continue }
      guard seen.insert(row.comparableLink).inserted else {
        duplicates += 1
        continue
      }
      if row.item.date != nil { dated += 1 }
      if row.item.image != nil { pictured += 1 }
      if row.item.summary != nil { summarized += 1 }
      if row.headed { headed += 1 }
      items.append(row.item)
      members.append(member)
      facts.append(row)
      places[row.path, default: 0] += 1
    }
    guard items.count >= 3 else { return nil }
    // Rows have their title link in one place; links found anywhere in a row are not a list's.
    let alike = Double(places.values.max() ?? 0) / Double(items.count)
    guard alike >= 0.5 else { return nil }
    // Siblings of any shape are rows only when most of them are of one kind.
    if group.siblings {
      let kinds = Dictionary(grouping: members) { Shapes.kind(of: $0) }.values.map(\.count).max() ?? 0
      guard 2 * kinds >= members.count else { return nil }
    }
    // Two-word titles without dates or headings are a menu ("Sign up", "Log in"), not posts.
    let medianWordsAll = facts.map(\.words).sorted()[items.count / 2]
    guard medianWordsAll >= 3 || 2 * dated >= items.count || 2 * headed >= items.count else { return nil }
    let count = Double(items.count)
    let words = facts.map(\.letterWords).sorted()
    let medianWords = words[words.count / 2]
    let medianLength = items.map(\.title.count).sorted()[items.count / 2]
    // Rows of a list have titles of their own; links whose texts repeat row after row ("pdf", "flag",
    // "hide") are the fields of rows, not rows.
    let distinctTitles = Double(Set(items.map { $0.title.lowercased() }).count) / count
    let place = facts.reduce(0) { $0 + $1.place } / count
    var score = pow(count, 0.7) * titleFactor(words: medianWords, length: medianLength)
    score *= distinctTitles * distinctTitles
    let marks: Double = 0.6 * Double(dated) + 0.2 * Double(headed) + 0.15 * Double(pictured + summarized)
    score *= 1 + marks / count
    score *= Double(items.count) / Double(items.count + duplicates)
    score *= place * alike
    if group.siblings { score *= 0.8 }
    let noun = items.count == 1 ? "post" : "posts"
    let listing = PageListing(
      status: .list, items: items,
      reason: "a list of \(items.count) \(noun) like '\(items[0].title.prefix(60))'", selector: nil)
    let strong = items.count >= 4 && medianWords >= 2 && place >= 1
    return (score, Found(listing: listing, strong: strong, members: members))
  }

  /// How much a group's titles read like the titles of posts: by the median title's words and length.
  static func titleFactor(words: Int, length: Int) -> Double {
    let byWords: Double =
      switch words {
      case 0: 0.05
      case 1: 0.2
      case 2: 0.45
      case 3: 0.8
      default: 1
      }
    return length < 4 ? byWords * 0.3 : byWords
  }

  static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]

  /// A heading element, or one whose class says it is the title (`.title`, `.headline`).
  static func isHeading(_ element: HTMLElement) -> Bool {
    if headings.contains(element.name) { return true }
    guard element.name != "a", let marks = element.attributes["class"] else { return false }
    return classSays(marks, ["title", "headline"])
  }

  /// Words of class names, ids and roles that mark the parts of a page that are not its content.
  static let asideWords: [String] = [
    "nav", "menu", "footer", "sidebar", "breadcrumb", "pagination", "pager", "tagcloud", "tag-cloud",
    "related", "comment", "share", "social", "cookie", "toolbar", "dropdown", "masthead", "topbar", "skip", "aside",
    "label", "tags",
    "archive", "categories", "popular", "trending", "newsletter", "subscribe", "promo", "advert", "sponsor",
  ]

  /// How much a row's place on the page counts: its ancestors' tags, classes, ids and roles.
  static func placeFactor(_ member: HTMLElement, rows: Rows) -> Double {
    guard let parent = member.parent else { return 1 }
    let (factor, inMain) = place(of: parent, rows: rows)
    return inMain ? factor * 1.3 : factor
  }

  /// The place factor of what is inside `element`, and whether that is in the main content; kept per element.
  static func place(of element: HTMLElement, rows: Rows) -> (factor: Double, inMain: Bool) {
    let id = ObjectIdentifier(element)
    if let known = rows.places[id] { return known }
    var (factor, inMain) = element.parent.map { place(of: $0, rows: rows) } ?? (1, false)
    switch element.name {
    case "nav", "footer", "aside": factor = min(factor, 0.15)
    case "header" where element.parent?.name == "body": factor = min(factor, 0.3)
    case "main": inMain = true
    default: break
    }
    var marks: [UInt8] = []
    for name in ["class", "id", "role"] {
      if let value = element.attributes[name] { marks += value.utf8.map { $0 &- 65 < 26 ? $0 | 0x20 : $0 } + [32] }
    }
    if !marks.isEmpty {
      if contains(marks, "main") || contains(marks, "content") { inMain = true }
      if asideWords.contains(where: { contains(marks, $0) }) { factor = min(factor, 0.15) }
    }
    rows.places[id] = (factor, inMain)
    return (factor, inMain)
  }

  /// Whether a class attribute has one of `words` in it, in any case.
  static func classSays(_ marks: String, _ words: [String]) -> Bool {
    let lowered = marks.utf8.map { $0 &- 65 < 26 ? $0 | 0x20 : $0 }
    return words.contains { contains(lowered, $0) }
  }

  /// Whether the bytes `haystack` contain `needle` (ASCII).
  static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
    let needle = Array(needle.utf8)
    guard let first = needle.first, haystack.count >= needle.count else { return false }
    var index = 0
    while index + needle.count <= haystack.count {
      if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
      index += 1
    }
    return false
  }

  // MARK: - Rows

  /// The links under `root` to http(s) addresses, with their text, in document order.
  static func anchors(in root: HTMLElement, base: String) -> [Anchor] {
    var found: [Anchor] = []
    var stack: [(HTMLElement, Bool)] = [(root, false)]
    while let (element, inHeading) = stack.popLast() {
      guard !skipped.contains(element.name) else { continue }
      let heading = inHeading || headings.contains(element.name)
      if element.name == "a", let href = element.attributes["href"], let link = PageItems.absolute(href, base: base) {
        found.append(Anchor(element: element, link: link, text: text(element), inHeading: heading))
      }
      for child in element.elements.reversed() { stack.append((child, heading)) }
    }
    return found
  }

  /// Link texts that say "more" rather than what the post is.
  static let genericTexts: Set<String> = [
    "read more", "more", "continue reading", "read", "weiterlesen", "mehr", "lire la suite", "leer más",
    "details", "»", "...", "…", "read article", "read the post", "view", "open",
  ]

  /// The link that stands for a row: one in (or around) a heading, else the one with the longest text.
  static func mainAnchor(of anchors: [Anchor], in row: HTMLElement) -> Anchor? {
    if let heading = anchors.first(where: { $0.inHeading && !$0.text.isEmpty }) { return heading }
    if let around = anchors.first(where: { anchor in
      anchor.element.descendants.contains { headings.contains($0.name) }
    }) {
      return around
    }
    // A link in the row's header or title part (`.release-header`, `.post-title`).
    if let titled = anchors.first(where: { !$0.text.isEmpty && inTitlePart($0, of: row) }) { return titled }
    return anchors.max { $0.text.count < $1.text.count }
  }

  /// Whether a link is in its row's header or title part (`.release-header`, `.post-title`).
  static func inTitlePart(_ anchor: Anchor, of row: HTMLElement) -> Bool {
    var titled = false
    var element = anchor.element === row ? nil : anchor.element.parent
    while let current = element {
      if current === row { return titled }
      if let marks = current.attributes["class"], classSays(marks, ["title", "headline", "header", "heading"]) {
        titled = true
      }
      element = current.parent
    }
    return false
  }

  /// Whether `first` comes before `second` in `row`, both being inside it.
  static func precedes(_ first: HTMLElement, _ second: HTMLElement, in row: HTMLElement) -> Bool {
    for element in row.descendants {
      if element === first { return true }
      if element === second { return false }
    }
    return false
  }

  /// The tags from `row` down to `element`, which is inside it.
  static func path(from row: HTMLElement, to element: HTMLElement) -> String {
    var tags: [String] = []
    var current: HTMLElement? = element
    while let here = current, here !== row, tags.count < maxLevels + 1 {
      tags.append(here.name)
      current = here.parent
    }
    return tags.reversed().joined(separator: ">")
  }

  /// Whether a link is a word or two inside a paragraph of prose, not a row's title.
  static func isInline(_ anchor: Anchor) -> Bool {
    guard let parent = anchor.element.parent, parent.name == "p" || parent.name == "li" || parent.name == "dd" else {
      return false
    }
    let around = text(parent)
    return around.count > 3 * max(anchor.text.count, 10) && !around.hasPrefix(anchor.text)
  }

  /// A row's title: its main link's text, else (when that is empty or says "more") its heading's or the
  /// link's `title`, `aria-label` or picture's `alt`.
  static func titleText(for anchor: Anchor, in row: HTMLElement) -> String {
    let generic = anchor.text.isEmpty || genericTexts.contains(anchor.text.lowercased())
    if !generic, anchor.inHeading { return anchor.text }
    // A row's heading before its link is its title when the link says what to do ("View report").
    let words = anchor.text.split(whereSeparator: \.isWhitespace).count
    if generic || words <= 2, let heading = row.descendantsAndSelf.first(where: isHeading) {
      let value = text(heading)
      let before = heading.descendants.contains { $0 === anchor.element } || precedes(heading, anchor.element, in: row)
      if !value.isEmpty, generic || before && value.split(whereSeparator: \.isWhitespace).count > words {
        return value
      }
    }
    if !generic { return anchor.text }
    for name in ["title", "aria-label"] {
      if let value = anchor.element.attributes[name].map(collapse), !value.isEmpty { return value }
    }
    if let alt = anchor.element.descendants.first(where: { $0.name == "img" })?.attributes["alt"].map(collapse),
      !alt.isEmpty
    {
      return alt
    }
    return ""
  }

  /// A row as an item: its date, summary and picture beside the title and link.
  static func details(of row: HTMLElement, title: String, link: String, base: String) -> PageItem {
    var item = PageItem(title: title, link: link)
    var longest = ""
    for element in row.descendantsAndSelf {
      switch element.name {
      case _ where item.date == nil && (element.name == "time" || element.attributes["datetime"] != nil):
        let value = element.attributes["datetime"].map(collapse) ?? text(element)
        if !value.isEmpty { item.date = value }
      case "img" where item.image == nil:
        let source = element.attributes["src"] ?? element.attributes["data-src"] ?? ""
        item.image = source.hasPrefix("data:") ? nil : PageItems.absolute(source, base: base)
      case "p":
        let value = text(element)
        if value.count > longest.count, value != title { longest = value }
      default:
        if item.date == nil, let marks = element.attributes["class"], classSays(marks, ["date", "time", "published"]) {
          let value = text(element)
          if !value.isEmpty, value.count <= 40, value.contains(where: \.isNumber) { item.date = value }
        }
      }
    }
    if longest.count >= 20 { item.summary = String(longest.prefix(500)) }
    return item
  }

  // MARK: - Articles

  /// Whether the page is one article whose lists (related posts, navigation) are beside the point: its
  /// paragraphs outside the list's rows hold more text than the rows, or the page says it is an article
  /// (`og:type`, its linked data) and has the paragraphs of one.
  static func isArticle(_ root: HTMLElement, list: Found?) -> Bool {
    let prose = proseLength(root, outside: list?.members ?? [])
    let listed = list?.listing.items.reduce(0) { $0 + $1.title.count + ($1.summary?.count ?? 0) } ?? 0
    if prose >= 1_200 && Double(prose) > 1.5 * Double(listed) { return true }
    return declaresArticle(root) && !(list?.strong == true && listed >= prose)
  }

  /// The characters of the page's paragraphs (of 40 characters or more) outside `rows`.
  static func proseLength(_ root: HTMLElement, outside rows: [HTMLElement]) -> Int {
    let rows = Set(rows.map(ObjectIdentifier.init))
    var length = 0
    var stack = [root]
    while let element = stack.popLast() {
      guard !skipped.contains(element.name), !rows.contains(ObjectIdentifier(element)) else { continue }
      if element.name == "p" {
        let count = text(element).count
        if count >= 40 { length += count }
        continue
      }
      stack += element.elements
    }
    return length
  }

  /// Schema.org types of one article.
  static let articleTypes: Set<String> = [
    "Article", "NewsArticle", "BlogPosting", "ReportageNewsArticle", "AnalysisNewsArticle", "OpinionNewsArticle",
    "TechArticle", "ScholarlyArticle", "SocialMediaPosting", "LiveBlogPosting", "Recipe",
  ]

  /// Whether the page calls itself an article: `og:type` `article`, or linked data whose first type is one.
  static func declaresArticle(_ root: HTMLElement) -> Bool {
    for element in root.descendants {
      if element.name == "meta", element.attributes["property"]?.lowercased() == "og:type" {
        if element.attributes["content"]?.lowercased().hasPrefix("article") == true { return true }
      }
      if element.name == "script", element.attributes["type"]?.lowercased().contains("ld+json") == true {
        let source = element.children.reduce(into: "") { text, child in
          if case .text(let part) = child { text += part }
        }
        if let type = firstType(in: source), articleTypes.contains(type) { return true }
      }
    }
    return false
  }

  /// The first `"@type"` of a JSON-LD text.
  static func firstType(in source: String) -> String? {
    guard let key = source.firstRange(of: "\"@type\"") else { return nil }
    let rest = source[key.upperBound...].drop { $0 == " " || $0 == ":" || $0 == "\n" || $0 == "\t" || $0 == "[" }
    guard rest.first == "\"" else { return nil }
    return String(rest.dropFirst().prefix { $0 != "\"" })
  }

  /// All the page's text outside scripts and styles.
  static func visibleText(_ root: HTMLElement) -> String {
    var text = ""
    var stack = [root]
    while let element = stack.popLast() {
      guard !skipped.contains(element.name) else { continue }
      for child in element.children.reversed() {
        switch child {
        case .text(let value): text += value
        case .element(let inner): stack.append(inner)
        }
      }
    }
    return text.trimming(.spacesAndNewlines)
  }

  // MARK: - Text

  /// An element's text on one line, spaces collapsed.
  static func text(_ element: HTMLElement) -> String {
    var parts: [String] = []
    var stack = [element]
    while let current = stack.popLast() {
      guard !skipped.contains(current.name) else { continue }
      for child in current.children.reversed() {
        switch child {
        case .text(let value): parts.append(value)
        case .element(let inner):
          parts.append(" ")
          stack.append(inner)
        }
      }
    }
    return collapse(parts.reversed().joined())
  }

  /// `text` with runs of white space as one space, and none at either end.
  static func collapse(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    var pending = false
    for scalar in text.unicodeScalars {
      let space =
        scalar.value < 0x80
        ? scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar.value == 0x0C
        : scalar.properties.isWhitespace
      if space {
        pending = !out.isEmpty
      } else {
        if pending { out.append(" ") }
        pending = false
        out.append(scalar)
      }
    }
    return String(out)
  }

  /// An address as rows are told apart: without its fragment and trailing slash.
  static func comparable(_ link: String) -> String {
    var value = Substring(link)
    if let hash = value.firstIndex(of: "#") { value = value[..<hash] }
    while value.hasSuffix("/") { value = value.dropLast() }
    return String(value)
  }

  // MARK: - Selectors

  /// The shortest CSS selector, by the rows' shapes up from them, that picks exactly `members` on the page.
  static func selector(for members: [HTMLElement], root: HTMLElement, shapes: inout Shapes) -> String? {
    guard let first = members.first else { return nil }
    let wanted = Set(members.map(ObjectIdentifier.init))
    func exact(_ text: String) -> Bool {
      guard let selector = try? HTMLSelector(text) else { return false }
      return Set(selector.select(in: root).map(ObjectIdentifier.init)) == wanted
    }
    if let kind = Shapes.classes(of: first, sorted: false).first, exact("\(first.name).\(kind)") {
      return "\(first.name).\(kind)"
    }
    var chain: [String] = []
    var element: HTMLElement? = first
    while let current = element, current.name != "html", chain.count < 6 {
      chain.insert(shapes.selectorPart(current), at: 0)
      if exact(chain.joined(separator: " > ")) { return chain.joined(separator: " > ") }
      element = current.parent
    }
    return chain.joined(separator: " > ")
  }
}

/// The shapes of elements (tag and classes), interned, and the keys of their paths from the page's root.
struct Shapes {
  private var ids: [String: Int] = [:]
  private var strict: [ObjectIdentifier: Int] = [:]
  private var tags: [ObjectIdentifier: Int] = [:]
  private var pairs: [Pair: Int] = [:]

  private struct Pair: Hashable {
    let parent: Int
    let shape: Int
    let loose: Bool
  }

  /// The classes that tell kinds of elements apart: those without digits (per-post ids and sizes vary from
  /// row to row) that a CSS selector can name as they are.
  static func classes(of element: HTMLElement, sorted: Bool = true) -> [Substring] {
    let names = (element.attributes["class"] ?? "").split(whereSeparator: \.isWhitespace).filter { name in
      !name.isEmpty && name.allSatisfy { $0.isLetter && $0.isASCII || $0 == "-" || $0 == "_" }
        && !name.contains("--") && !name.hasPrefix("-") && !name.hasPrefix("is-") && !name.hasPrefix("has-")
        && !name.hasPrefix("js-") && !states.contains(name.lowercased())
    }
    return sorted ? names.sorted() : names
  }

  /// Classes that say a row's state or place (BEM modifiers, `is-`, `has-` and these) rather than its kind.
  static let states: Set<String> = [
    "active", "current", "selected", "first", "last", "odd", "even", "new", "hidden", "visible", "open",
    "featured", "sticky", "clearfix", "group", "hentry",
  ]

  /// An element's kind: its tag and first class.
  static func kind(of element: HTMLElement) -> String {
    element.name + (classes(of: element, sorted: false).first.map { "." + $0 } ?? "")
  }

  private var parts: [ObjectIdentifier: (part: String, kind: String?)] = [:]

  /// The element's tag and classes as a selector (`article.post`), and its kind (tag and first class); kept.
  mutating func shape(_ element: HTMLElement) -> (part: String, kind: String?) {
    let id = ObjectIdentifier(element)
    if let known = parts[id] { return known }
    let classes = Self.classes(of: element, sorted: false)
    let made = (
      ([element.name] + classes.sorted().map { "." + $0 }).joined(), classes.first.map { element.name + "." + $0 }
    )
    parts[id] = made
    return made
  }

  func selectorPart(_ element: HTMLElement) -> String {
    ([element.name] + Self.classes(of: element).map { "." + $0 }).joined()
  }

  private mutating func intern(_ text: String) -> Int {
    if let id = ids[text] { return id }
    ids[text] = ids.count
    return ids.count - 1
  }

  private mutating func pair(_ parent: Int, _ shape: Int, loose: Bool) -> Int {
    let key = Pair(parent: parent, shape: shape, loose: loose)
    if let id = pairs[key] { return id }
    let id = pairs.count + 1
    pairs[key] = id
    return id
  }

  /// The element's path from the root with every element's tag and classes.
  mutating func strictKey(_ element: HTMLElement) -> Int {
    let id = ObjectIdentifier(element)
    if let key = strict[id] { return key }
    let parent = element.parent.map { strictKey($0) } ?? 0
    let key = pair(parent, intern(shape(element).part), loose: false)
    strict[id] = key
    return key
  }

  /// The keys an element is grouped by: its strict and loose paths, and its shape alone when its classes
  /// name a kind (rows of one kind spread over several sections).
  mutating func keys(_ element: HTMLElement) -> [Int] {
    var keys = [strictKey(element), looseKey(element)]
    // Siblings of any shape: rows a page writes with different tags or classes.
    if let parent = element.parent { keys.append(sibling(parent)) }
    if let kind = shape(element).kind {
      keys.append(pair(-1, intern(kind), loose: true))
    } else if element.name == "article" {
      keys.append(pair(-1, intern(element.name), loose: true))
    }
    return keys
  }

  /// The element's tag and classes under its ancestors' tags only.
  mutating func looseKey(_ element: HTMLElement) -> Int {
    let parent = element.parent.map { tagKey($0) } ?? 0
    return pair(parent, intern(shape(element).part), loose: true)
  }

  private var siblings: [ObjectIdentifier: Int] = [:]

  private mutating func sibling(_ parent: HTMLElement) -> Int {
    let id = ObjectIdentifier(parent)
    if let key = siblings[id] { return key }
    let key = -1 - siblings.count
    siblings[id] = key
    return key
  }

  private mutating func tagKey(_ element: HTMLElement) -> Int {
    let id = ObjectIdentifier(element)
    if let key = tags[id] { return key }
    let parent = element.parent.map { tagKey($0) } ?? 0
    let key = pair(parent, intern(element.name), loose: false)
    tags[id] = key
    return key
  }
}

extension HTMLElement {
  /// This element and every element below it, in document order.
  var descendantsAndSelf: [HTMLElement] { [self] + descendants }
}
