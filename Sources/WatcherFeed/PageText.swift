// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherSupport
import WatcherXML

/// Whether a page is one article, and its text as rows see it.
extension PageList {

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
        let source = element.ownText
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
}
