// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Glibc
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

}
