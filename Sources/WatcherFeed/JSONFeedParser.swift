// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// A JSON Feed item as read (https://www.jsonfeed.org/version/1.1/), before normalization.
package struct JSONFeedItem {
  package var object: JSONValue

  package func string(_ key: String) -> String? { object[key]?.string }
}

/// Reads JSON Feed 1.0 and 1.1.
///
/// Wrong types are skipped with a warning, never fatal; a document without a jsonfeed.org `version` is still
/// read if it has an `items` array.
package enum JSONFeedParser {
  /// Parses a JSON Feed document.
  package static func parse(_ data: Data) throws -> (Feed, [FeedWarning]) {
    let root: JSONValue
    do {
      // JSONReader is strict (RFC 8259, valid UTF-8, 256 levels); what it refuses, JSONDecoder may take.
      if let read = try? JSONValue.read(data) {
        root = read
      } else {
        root = try JSONDecoder().decode(JSONValue.self, from: data)
      }
    } catch {
      // JSONDecoder says only "not valid JSON"; JSONReader says where and what.
      do {
        try JSONReader.read(data) { try $0.skipValue() }
      } catch let detailed {
        throw FeedParseError.invalidJSON(detailed.message)
      }
      throw FeedParseError.invalidJSON(Self.message(error))
    }
    guard case .object = root else {
      throw FeedParseError.notAFeed(found: "JSON that is not an object")
    }
    var warnings: [FeedWarning] = []
    let version = root["version"]?.string ?? ""
    guard case .array(let items) = root["items"] else {
      throw FeedParseError.notAFeed(
        found: version.contains("jsonfeed.org") ? "a JSON Feed without an items array" : "JSON that is not a JSON Feed")
    }
    let format: FeedFormat = version.hasSuffix("1.1") || version.hasSuffix("1.1/") ? .json11 : .json10
    if !version.contains("jsonfeed.org/version/") {
      warnings.append(FeedWarning(message: "no jsonfeed.org version; read as JSON Feed 1.0"))
    }
    let home = root["home_page_url"]?.string.flatMap(HTMLText.collapsed)
    var feed = Feed(title: root["title"]?.string.flatMap(HTMLText.collapsed), link: home, format: format)
    for (index, element) in items.enumerated() {
      guard case .object = element else {
        warnings.append(FeedWarning(message: "items[\(index)] is not an object; skipped"))
        continue
      }
      feed.items.append(item(JSONFeedItem(object: element), index: index, base: home, warnings: &warnings))
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
    let author =
      (raw.object["authors"]?.elements.first?["name"]?.string ?? raw.object["author"]?["name"]?.string)
      .flatMap(HTMLText.collapsed)
    let tags = (raw.object["tags"]?.elements ?? []).compactMap { $0.string.flatMap(HTMLText.collapsed) }
    let attachments = (raw.object["attachments"]?.elements ?? []).compactMap { a -> Enclosure? in
      guard let url = a["url"]?.string.flatMap(HTMLText.collapsed) else { return nil }
      var length: Int?
      if case .number(let size) = a["size_in_bytes"], size >= 0, size < 1e15 { length = Int(size) }
      return Enclosure(url: URLResolver.resolve(url, against: base), type: a["mime_type"]?.string, length: length)
    }
    let summary = raw.string("summary").map { TextConstruct(value: $0, isHTML: false) }
    let content =
      raw.string("content_html").map { TextConstruct(value: $0, isHTML: true) }
      ?? raw.string("content_text").map { TextConstruct(value: $0, isHTML: false) }
    let link = (raw.string("url") ?? raw.string("external_url")).flatMap(HTMLText.collapsed)
    let image = (raw.string("image") ?? raw.string("banner_image")).flatMap(HTMLText.collapsed)
    return FeedNormalizer.item(
      id: raw.object["id"]?.stringOrNumber, title: raw.string("title").map { TextConstruct(value: $0, isHTML: false) },
      link: link.map { URLResolver.resolve($0, against: base) }, author: author, categories: tags,
      published: date("date_published"), updated: date("date_modified"), summary: summary, content: content,
      enclosures: attachments, image: image.map { URLResolver.resolve($0, against: base) })
  }

  private static func message(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
    return error.message
  }
}
