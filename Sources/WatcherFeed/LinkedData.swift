// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherXML

/// What a page says of itself in JSON-LD (`<script type="application/ld+json">`), as schema.org describes it.
enum LinkedData {
  /// The longest `articleBody` of the page's linked data (an `Article`, `NewsArticle`, `BlogPosting`…, alone,
  /// in a list or in an `@graph`), as plain text with one paragraph per line and blank lines between them.
  static func articleBody(in root: HTMLElement) -> String? {
    var longest: String?
    for script in root.descendants where script.name == "script" {
      guard script.attributes["type"]?.lowercased().contains("ld+json") == true else { continue }
      let source = script.ownText
      guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(source.utf8)) else { continue }
      for body in bodies(in: value, depth: 0) {
        guard let text = paragraphs(body), text.count > longest?.count ?? 0 else { continue }
        longest = text
      }
    }
    return longest
  }

  /// Linked data nests objects a few levels deep at most; deeper values are not searched.
  static let maxDepth = 8

  private static func bodies(in value: JSONValue, depth: Int) -> [String] {
    guard depth < maxDepth else { return [] }
    switch value {
    case .array(let values): return values.flatMap { bodies(in: $0, depth: depth + 1) }
    case .object(let members):
      let own = members["articleBody"]?.string.map { [$0] } ?? []
      return own + members.filter { $0.key != "articleBody" }.values.flatMap { bodies(in: $0, depth: depth + 1) }
    default: return []
    }
  }

  /// The body as paragraphs: HTML converted, each line collapsed, blank lines between them.
  private static func paragraphs(_ body: String) -> String? {
    let text = HTMLText.looksLikeHTML(body) ? HTMLText.plainText(fromHTML: body) : body
    return text.flatMap(HTMLText.collapsedLines)?.replacing("\n", with: "\n\n")
  }
}
