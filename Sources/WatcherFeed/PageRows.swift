// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherXML

/// The rows of a list: their links, title, date, summary and picture.
extension PageList {

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
}
