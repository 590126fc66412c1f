// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// One subscription read from an OPML file.
public struct OPMLSubscription: Sendable, Equatable {
  /// The feed's URL (`xmlUrl`).
  public var url: String
  /// Its title (`title`, else `text`), if any.
  public var title: String?
  /// The folders it sits in and its `category` attribute, as tags.
  public var tags: [String]
  /// watcher's own name for it (`name`, as `export-opml` writes it), so that rules naming it still do.
  public var name: String?
  /// The site's home page (`htmlUrl`).
  public var site: String?
  /// Why it is not a feed to import, when it is not (an OPML link outline).
  package var skipReason: String?

  /// Creates a subscription.
  public init(url: String, title: String?, tags: [String]) {
    self.url = url
    self.title = title
    self.tags = tags
  }
}

/// An OPML file that could not be read, with where.
public struct OPMLError: Error, Sendable, CustomStringConvertible {
  /// 1-based line and column, or 0 when unknown.
  public var line: Int
  public var column: Int
  public var message: String

  public var description: String { line > 0 ? "\(line):\(column): \(message)" : message }
}

/// Reads OPML subscription lists (any version) and writes OPML 2.0.
///
/// Reading goes through the same hardened libxml2 stream as feeds (no entity expansion, no network), and is
/// strict: a document that is not well-formed is refused, since a recovered one could silently drop
/// subscriptions.
public enum OPML {
  /// The subscriptions in `data`, in document order; folders (outlines without `xmlUrl`) become tags.
  public static func parse(_ data: Data) throws(OPMLError) -> [OPMLSubscription] {
    try parseOPML(data).filter { $0.skipReason == nil }
  }

  /// What a subscription list holds: an OPML document, or a newsboat `urls` file.
  ///
  /// A urls file has one feed URL per line, then its tags; `#` comments. `skipped` names the entries that are not feeds (OPML `type="link"`
  /// outlines, newsboat `query:` and `exec:` lines).
  public static func read(_ data: Data) throws(OPMLError) -> (subscriptions: [OPMLSubscription], skipped: [String]) {
    if let first = data.first(where: { !($0 == 32 || (9...13).contains($0)) }), first != UInt8(ascii: "<"),
      first != 0xEF
    {
      return try NewsboatURLs.parse(String(decoding: data, as: UTF8.self))
    }
    let subscriptions = try parseOPML(data)
    return (subscriptions.filter { $0.skipReason == nil }, subscriptions.compactMap(\.skipReason))
  }

  private static func parseOPML(_ data: Data) throws(OPMLError) -> [OPMLSubscription] {
    guard data.contains(where: { !($0 == 32 || (9...13).contains($0)) }) else {
      throw OPMLError(line: 0, column: 0, message: "the file is empty")
    }
    let reader = OPMLReader()
    let warnings = data.withUnsafeBytes { raw -> [FeedWarning] in
      let all = raw.bindMemory(to: UInt8.self)
      let (encoding, bom) = InputDecoder.sniff(all.span, charsetHint: nil)
      let body = UnsafeBufferPointer(rebasing: all[bom...])
      let utf8 = encoding == "utf-8" ? Array(body) : InputDecoder.convert(body.span, from: encoding).bytes
      let stream = XMLStreamParser(handler: reader, documentURL: nil, maxFieldBytes: 64 * 1_024)
      var repairer = UTF8ChunkRepairer()
      stream.parse { out in
        repairer.process(utf8.span, isLast: true) { out.append(bytes: $0) }
        return false
      }
      return stream.warnings
    }
    if let first = warnings.first(where: { $0.line > 0 }) {
      throw OPMLError(line: first.line, column: first.column, message: "not well-formed XML: \(first.message)")
    }
    guard reader.sawRoot else {
      let found = reader.firstElement.map { "<\($0)>" } ?? "no XML element"
      throw OPMLError(line: 0, column: 0, message: "not an OPML document: found \(found), expected <opml>")
    }
    return reader.subscriptions
  }

  /// An OPML 2.0 document listing `feeds`; each feed's tags go in the `category` attribute.
  public static func export(_ feeds: [FeedConfig], title: String = "watcher subscriptions", date: Date = Date())
    -> String
  {
    var lines = [
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
      "<opml version=\"2.0\">",
      "  <head>",
      "    <title>\(escaped(title))</title>",
      "    <dateCreated>\(rfc822(date))</dateCreated>",
      "  </head>",
      "  <body>",
    ]
    for feed in feeds {
      // The feed's own title when it is known (an import or an add kept it), else its name.
      let title = escaped(feed.title ?? feed.name)
      var line = "    <outline type=\"rss\" text=\"\(title)\" title=\"\(title)\""
      line += " xmlUrl=\"\(escaped(feed.url))\""
      if let site = feed.site { line += " htmlUrl=\"\(escaped(site))\"" }
      // watcher's name: an import gives it back, so the rules that name the feed still do.
      line += " name=\"\(escaped(feed.name))\""
      if !feed.tags.isEmpty { line += " category=\"\(escaped(feed.tags.joined(separator: ",")))\"" }
      lines.append(line + "/>")
    }
    lines += ["  </body>", "</opml>"]
    return lines.joined(separator: "\n") + "\n"
  }

  private static func escaped(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "\n": out += "&#10;"
      case "\t": out += "&#9;"
      case "\r": out += "&#13;"
      default:
        // XML 1.0 cannot carry other control characters at all.
        if scalar.value >= 0x20 { out.unicodeScalars.append(scalar) }
      }
    }
    return out
  }

  private static func rfc822(_ date: Date) -> String {
    ISODate.http(date)
  }
}

/// Collects `<outline>` elements under an `<opml>` root.
private final class OPMLReader: XMLFeedHandler {
  private static let opml = 1
  private static let outline = 2
  package var subscriptions: [OPMLSubscription] = []
  package var sawRoot = false
  package var firstElement: String?
  /// Per open outline: the folder name it contributes (nil for a feed or a nameless folder).
  private var folders: [String?] = []
  private var seen: Set<String> = []

  package func tag(for localName: String, namespace: XMLNamespace) -> Int {
    if firstElement == nil { firstElement = localName }
    switch localName.lowercased() {
    case "opml": return Self.opml
    case "outline": return Self.outline
    default: return 0
    }
  }

  package func start(_ tag: Int, attributes: XMLAttributes) -> XMLCapture {
    if tag == Self.opml { sawRoot = true }
    guard tag == Self.outline, sawRoot else { return .none }
    let label = [attributes.value("title"), attributes.value("text")].compactMap { $0 }
      .map { $0.trimming() }.first { !$0.isEmpty }
    let url = (attributes.value("xmlUrl") ?? attributes.value("xmlurl") ?? attributes.value("url"))?
      .trimming()
    guard let url, !url.isEmpty else {
      folders.append(label.map(Self.tag))
      return .none
    }
    if attributes.value("type")?.lowercased() == "link" {
      // A link to a page, not a feed: reported, not imported.
      folders.append(nil)
      var skipped = OPMLSubscription(url: url, title: label, tags: [])
      skipped.skipReason = "outline '\(label ?? url)' (\(url)): a link (type=\"link\"), not a feed"
      subscriptions.append(skipped)
      return .none
    }
    folders.append(nil)
    var tags = folders.compactMap { $0 }
    for category in (attributes.value("category") ?? "").split(separator: ",") {
      // OPML 2.0 categories are slash-delimited paths ("/Tech/Swift"); each part is a tag.
      for part in category.split(separator: "/") where !Self.tag(String(part)).isEmpty {
        tags.append(Self.tag(String(part)))
      }
    }
    var unique: [String] = []
    for tag in tags where !unique.contains(tag) { unique.append(tag) }
    // A feed filed in two folders is one subscription.
    if seen.insert(url).inserted {
      var subscription = OPMLSubscription(url: url, title: label, tags: unique)
      subscription.name = attributes.value("name")?.trimming().nilIfBlank
      subscription.site =
        (attributes.value("htmlUrl") ?? attributes.value("htmlurl"))?
        .trimming().nilIfBlank
      subscriptions.append(subscription)
    }
    return .none
  }

  package func end(_ tag: Int, text: String?) {
    if tag == Self.outline, sawRoot, !folders.isEmpty { folders.removeLast() }
  }

  /// A folder or category name as a tag ("Open Source" → "open-source").
  package static func tag(_ name: String) -> String { FeedConfig.slugify(name) }
}

extension String {
  /// nil when empty.
  fileprivate var nilIfBlank: String? { isEmpty ? nil : self }
}
