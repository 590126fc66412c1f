// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

/// A JSON Feed item as read (https://www.jsonfeed.org/version/1.1/), before normalization.
struct JSONFeedItem {
  var object: [String: Any]

  func string(_ key: String) -> String? {
    switch object[key] {
    case let s as String: return s
    case let n as NSNumber where !(n is Bool) && key == "id": return n.stringValue
    default: return nil
    }
  }
}

/// Reads JSON Feed 1.0 and 1.1 with Foundation's JSON support.
///
/// Wrong types are skipped with a warning, never fatal; a document without a jsonfeed.org `version` is still read if
/// it has an `items` array.
enum JSONFeedParser {
  /// Parses a JSON Feed document.
  static func parse(_ data: Data) throws -> (Feed, [FeedWarning]) {
    let root: Any
    do {
      root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    } catch {
      throw FeedParseError.invalidJSON(Self.message(error))
    }
    guard let object = root as? [String: Any] else {
      throw FeedParseError.notAFeed(found: "JSON that is not an object")
    }
    var warnings: [FeedWarning] = []
    let version = object["version"] as? String ?? ""
    guard let items = object["items"] as? [Any] else {
      throw FeedParseError.notAFeed(
        found: version.contains("jsonfeed.org") ? "a JSON Feed without an items array" : "JSON that is not a JSON Feed")
    }
    let format: FeedFormat = version.hasSuffix("1.1") || version.hasSuffix("1.1/") ? .json11 : .json10
    if !version.contains("jsonfeed.org/version/") {
      warnings.append(FeedWarning(message: "no jsonfeed.org version; read as JSON Feed 1.0"))
    }
    let home = (object["home_page_url"] as? String).flatMap(HTMLText.collapsed)
    var feed = Feed(title: (object["title"] as? String).flatMap(HTMLText.collapsed), link: home, format: format)
    for (index, element) in items.enumerated() {
      guard let dict = element as? [String: Any] else {
        warnings.append(FeedWarning(message: "items[\(index)] is not an object; skipped"))
        continue
      }
      feed.items.append(item(JSONFeedItem(object: dict), index: index, base: home, warnings: &warnings))
    }
    return (feed, warnings)
  }

  /// The adapter from `JSONFeedItem` to `FeedItem` (see `FeedItem` for which key fills which field).
  private static func item(_ raw: JSONFeedItem, index: Int, base: String?, warnings: inout [FeedWarning])
    -> FeedItem
  {
    func date(_ key: String) -> Date? {
      guard let value = raw.string(key).flatMap(HTMLText.collapsed) else { return nil }
      if let date = DateParser.parse(value) { return date }
      warnings.append(
        FeedWarning(message: "items[\(index)].\(key): unparseable date '\(value.prefix(80))'; left empty"))
      return nil
    }
    var author: String?
    if let authors = raw.object["authors"] as? [Any], let first = authors.first as? [String: Any] {
      author = (first["name"] as? String).flatMap(HTMLText.collapsed)
    }
    if author == nil, let single = raw.object["author"] as? [String: Any] {
      author = (single["name"] as? String).flatMap(HTMLText.collapsed)
    }
    let tags = (raw.object["tags"] as? [Any] ?? []).compactMap { ($0 as? String).flatMap(HTMLText.collapsed) }
    let attachments = (raw.object["attachments"] as? [Any] ?? []).compactMap { element -> Enclosure? in
      guard let a = element as? [String: Any], let url = (a["url"] as? String).flatMap(HTMLText.collapsed) else {
        return nil
      }
      let length = (a["size_in_bytes"] as? NSNumber).map { $0.intValue }
      return Enclosure(
        url: URLResolver.resolve(url, against: base), type: a["mime_type"] as? String,
        length: length.flatMap { $0 >= 0 ? $0 : nil })
    }
    let summary = raw.string("summary").map { TextConstruct(value: $0, isHTML: false) }
    let content =
      raw.string("content_html").map { TextConstruct(value: $0, isHTML: true) }
      ?? raw.string("content_text").map { TextConstruct(value: $0, isHTML: false) }
    let link = (raw.string("url") ?? raw.string("external_url")).flatMap(HTMLText.collapsed)
    let image = (raw.string("image") ?? raw.string("banner_image")).flatMap(HTMLText.collapsed)
    return FeedNormalizer.item(
      id: raw.string("id"), title: raw.string("title").map { TextConstruct(value: $0, isHTML: false) },
      link: link.map { URLResolver.resolve($0, against: base) }, author: author, categories: tags,
      published: date("date_published"), updated: date("date_modified"), summary: summary, content: content,
      enclosures: attachments, image: image.map { URLResolver.resolve($0, against: base) })
  }

  private static func message(_ error: any Error) -> String {
    let nsError = error as NSError
    if let debug = nsError.userInfo["NSDebugDescription"] as? String { return debug }
    return nsError.localizedDescription
  }
}
