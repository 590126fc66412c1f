// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherSupport
import WatcherXML

/// The article a page built by script carries only in its scripts' data: the state a framework renders
/// the page from (`<script id="__NEXT_DATA__" type="application/json">`, `window.__INITIAL_STATE__ = {…}`,
/// `JSON.parse("…")`), where a page rendered in the browser keeps what its HTML does not have.
///
/// The article is found beside its headline: inside an object that has the page's title as a value, the
/// list or string with the most prose (a CMS's `content_elements`, `blocks` or `body`), its items read as
/// paragraphs in order. Without the headline nothing is taken: the data of such pages also holds other
/// articles' summaries, menus and settings.
enum ScriptState {
  /// The most scripts read (each as `PageState.values` reads a page's data).
  static let maxScripts = 200
  /// The deepest a value is searched.
  static let maxDepth = 40

  /// The article's text, one paragraph per line and blank lines between them, or nil.
  static func articleText(in root: HTMLElement, title: String) -> String? {
    let headline = ArticleExtractor.words(title)
    guard !headline.isEmpty else { return nil }
    var best: [String] = []
    var bestProse = 0
    for script in root.descendants.lazy.filter({ $0.name == "script" }).prefix(maxScripts) {
      let type = script.attributes["type"]?.lowercased() ?? ""
      guard script.attributes["src"] == nil, !type.contains("ld+json") else { continue }
      let source = script.ownText
      guard (200...PageState.maxScript).contains(source.utf8.count) else { continue }
      for (value, _) in PageState.values(in: source, type: type, id: script.attributes["id"]) {
        var finder = Finder(headline: headline)
        finder.search(value, depth: 0, anchored: false)
        if finder.bestProse > bestProse { (best, bestProse) = (finder.best, finder.bestProse) }
      }
    }
    guard bestProse > 0 else { return nil }
    return HTMLText.collapsedLines(best.joined(separator: "\n"))?.replacing("\n", with: "\n\n")
  }

  /// Whether the text found in the data agrees with what the page's HTML shows of its article (its first
  /// words): a page that shows a teaser keeps it unless the data has the article it begins.
  static func agrees(_ text: String, with shown: String) -> Bool {
    let start = ArticleExtractor.words(shown).prefix(8)
    guard start.count >= 4 else { return true }
    let found = ArticleExtractor.words(text)
    return found.indices.contains { found[$0...].starts(with: start) }
  }

  /// Searches a value for the headline and, inside what has it, the prose.
  struct Finder {
    let headline: [Substring]
    var best: [String] = []
    var bestProse = 0

    init(headline: [Substring]) {
      self.headline = headline
    }

    mutating func search(_ value: JSONValue, depth: Int, anchored: Bool) {
      guard depth < ScriptState.maxDepth else { return }
      switch value {
      case .object(let members):
        // The headline may sit one object down (Arc XP's `headlines.basic`).
        let anchored =
          anchored
          || members.values.contains { member in
            if case .object(let inner) = member { inner.values.contains(where: isHeadline) } else { isHeadline(member) }
          }
        for member in members.values { search(member, depth: depth + 1, anchored: anchored) }
        if anchored {
          for case .string(let text) in members.values { consider([text]) }
        }
      case .array(let items):
        if anchored { consider(items.map { ScriptState.paragraph(of: $0, depth: depth) }) }
        for item in items { search(item, depth: depth + 1, anchored: anchored) }
      default: break
      }
    }

    /// Takes these paragraphs if they hold more prose than the best so far.
    private mutating func consider(_ paragraphs: [String]) {
      let texts = paragraphs.compactMap(ScriptState.readable)
      let prose = texts.reduce(0) { $0 + (ScriptState.isProse($1) ? $1.count : 0) }
      if prose > bestProse { (best, bestProse) = (texts, prose) }
    }

    /// Whether a value is the page's headline: a string of three words or more, all in the page's title
    /// (which may add the site's name).
    private func isHeadline(_ value: JSONValue) -> Bool {
      guard case .string(let text) = value, text.count <= 300 else { return false }
      let own = ArticleExtractor.words(text)
      guard own.count >= 3 || own.count * 2 >= headline.count && text.count >= 8 else { return false }
      return own.allSatisfy(headline.contains)
    }
  }

  /// An item of a list as one paragraph: a string, or the text strings of an object or list, in order.
  static func paragraph(of value: JSONValue, depth: Int) -> String {
    guard depth < maxDepth else { return "" }
    switch value {
    case .string(let text): return text
    case .array(let items): return items.map { paragraph(of: $0, depth: depth + 1) }.joined()
    case .object(let members):
      // The keys' order is lost in the tree: text under the usual keys, first.
      let keys = ["text", "content", "html", "body", "value", "children", "data"]
      for key in keys {
        if let member = members[key] {
          let text = paragraph(of: member, depth: depth + 1)
          if readable(text) != nil { return text }
        }
      }
      return ""
    default: return ""
    }
  }

  /// Whether a paragraph reads as prose: 40 characters or more in sentences, words between spaces (or in a
  /// script written without them), not a list of names joined by `|`.
  static func isProse(_ text: String) -> Bool {
    guard text.count >= 40, text.contains(where: { ".!?。！？".contains($0) }) else { return false }
    var spaces = 0
    var bars = 0
    var wide = false
    for scalar in text.unicodeScalars {
      if scalar == " " {
        spaces += 1
      } else if scalar == "|" {
        bars += 1
      } else if scalar.value >= 0x3000 {
        wide = true
      }
    }
    return bars < 3 && (wide || spaces * 15 >= text.count)
  }

  /// A string as text a reader sees, or nil: HTML read as text; names, addresses and codes left out.
  static func readable(_ text: String) -> String? {
    let plain = HTMLText.looksLikeHTML(text) ? HTMLText.plainText(fromHTML: text) ?? "" : text
    guard plain.contains(where: { !$0.isWhitespace }) else { return nil }
    guard !plain.contains("://"), !plain.hasPrefix("/") else { return nil }
    // Prose has spaces between words, or is in a script that has none (Chinese, Japanese).
    guard plain.contains(" ") || plain.unicodeScalars.contains(where: { $0.value >= 0x3000 }) else { return nil }
    return plain
  }
}
