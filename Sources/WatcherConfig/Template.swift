// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherSupport

/// A notification text with `{field}` placeholders, parsed when the config loads.
///
/// Templates are never used to build a shell command.
public struct Template: Sendable, Equatable {
  /// The fields a template can name.
  public enum Field: String, Sendable, CaseIterable {
    case title, feed, link, author, tags, categories, published, text, content
    /// The learned score ("0.82"; empty without one).
    case score
  }

  /// A piece of a template.
  public enum Part: Sendable, Equatable {
    /// Literal text.
    case literal(String)
    /// A field's value.
    case field(Field)
  }

  /// The pieces in order.
  public var parts: [Part]
  /// The template as written.
  public var source: String

  /// Parses `source`.
  ///
  /// `{{` and `}}` are literal braces. Throws the unknown or unclosed field name and its 0-based offset in the text.
  public init(_ source: String) throws(TemplateError) {
    self.source = source
    parts = []
    var literal = ""
    let scalars = Array(source.unicodeScalars)
    var i = 0
    while i < scalars.count {
      let c = scalars[i]
      if c == "{", i + 1 < scalars.count, scalars[i + 1] == "{" {
        literal += "{"
        i += 2
      } else if c == "}", i + 1 < scalars.count, scalars[i + 1] == "}" {
        literal += "}"
        i += 2
      } else if c == "{" {
        guard let close = scalars[(i + 1)...].firstIndex(of: "}") else {
          throw TemplateError(name: String(String.UnicodeScalarView(scalars[(i + 1)...])), offset: i, unclosed: true)
        }
        let name = String(String.UnicodeScalarView(scalars[(i + 1)..<close]))
        guard let field = Field(rawValue: name) else { throw TemplateError(name: name, offset: i, unclosed: false) }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        literal = ""
        parts.append(.field(field))
        i = close + 1
      } else {
        literal.unicodeScalars.append(c)
        i += 1
      }
    }
    if !literal.isEmpty { parts.append(.literal(literal)) }
  }

  /// A `run:` program's arguments filled for an item (the first is the program, never a template).
  ///
  /// An argument whose leading `-` comes from the item (not from the template's own text) is given a leading
  /// space, so that item text can never become an option of the program (`{title}` of "-rf" or
  /// "--exec=…"); after a literal `--` argument, where options have ended, arguments are left as they are.
  public static func arguments(_ templates: [Template], item: FeedItem, feed: String, tags: [String]) -> [String] {
    var optionsEnded = false
    return templates.enumerated().map { index, template in
      let value = template.render(item, feed: feed, tags: tags)
      defer { if template.source == "--" { optionsEnded = true } }
      guard index > 0, !optionsEnded, value.hasPrefix("-"), !template.source.hasPrefix("-") else { return value }
      return " " + value
    }
  }

  /// Whether the template shows the learned score.
  public var showsScore: Bool { parts.contains(.field(.score)) }

  /// Fills the template for an item.
  public func render(_ item: FeedItem, feed: String, tags: [String], score: String? = nil) -> String {
    var out = ""
    for part in parts {
      switch part {
      case .literal(let text): out += text
      case .field(.score): out += score ?? ""
      case .field(let field): out += Self.value(field, item: item, feed: feed, tags: tags)
      }
    }
    return out
  }

  package static func value(_ field: Field, item: FeedItem, feed: String, tags: [String]) -> String {
    switch field {
    case .title: return item.title ?? "(untitled)"
    case .feed: return feed
    case .link: return item.link ?? ""
    case .author: return item.author ?? ""
    case .tags: return tags.joined(separator: ", ")
    case .categories: return item.categories.joined(separator: ", ")
    case .published: return item.published.map(ISODate.format) ?? ""
    case .text: return item.text ?? ""
    case .content: return item.content ?? ""
    case .score: return ""
    }
  }

  /// An unknown `{field}`.
  public struct TemplateError: Error, Sendable, Equatable {
    /// The name between the braces.
    public var name: String
    /// Where the `{` is, 0-based.
    public var offset: Int
    /// Whether the `}` is missing.
    public var unclosed: Bool
  }
}
