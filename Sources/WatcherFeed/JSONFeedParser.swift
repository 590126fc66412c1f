// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// A JSON Feed item as read (https://www.jsonfeed.org/version/1.1/), before normalization.
package struct JSONFeedItem: Sendable {
  /// Its members in document order, the first of duplicate keys only: an item has a dozen, looked up by
  /// name, so a list is cheaper to build than a table.
  package var members: [(key: String, value: JSONValue)]
  /// Its dates, read where it was read (a date that cannot be read is a warning, in document order).
  var published: Date?
  var updated: Date?

  package init(object: [String: JSONValue]) {
    members = object.map { ($0.key, $0.value) }
  }

  /// Reads an item: nil (the value passed over) when it is not an object.
  init?(reading json: inout JSONReader) throws {
    guard json.peek() == UInt8(ascii: "{") else {
      try json.skipValue()
      return nil
    }
    var members: [(key: String, value: JSONValue)] = []
    try json.object { json, key in
      let value = try JSONValue.read(&json)
      if !members.contains(where: { $0.key == key }) { members.append((key, value)) }
    }
    self.members = members
  }

  package subscript(key: String) -> JSONValue? { members.first { $0.key == key }?.value }

  package func string(_ key: String) -> String? { self[key]?.string }
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
    guard case .array(let items) = root["items"] else {
      let version = root["version"]?.string ?? ""
      throw FeedParseError.notAFeed(
        found: version.contains("jsonfeed.org") ? "a JSON Feed without an items array" : "JSON that is not a JSON Feed")
    }
    guard case .object(let members) = root else { throw FeedParseError.notAFeed(found: "JSON that is not an object") }
    var feed = Self.feed(members, warnings: &warnings)
    for (index, element) in items.enumerated() {
      guard case .object(let members) = element else {
        warnings.append(FeedWarning(message: "items[\(index)] is not an object; skipped"))
        continue
      }
      var raw = JSONFeedItem(object: members)
      readDates(&raw, index: index, warnings: &warnings)
      feed.items.append(item(raw, base: feed.link))
    }
    return (feed, warnings)
  }

  /// Reads a JSON Feed document an item at a time.
  ///
  /// `header` gets the feed (without items) first, then `item` each item as it is read, so the items never
  /// sit in memory together. Nil when the strict reader refuses
  /// the document, or it is not an object with an `items` array: `parse` then says what is wrong (or reads
  /// what `JSONDecoder` takes), before anything was handed over.
  ///
  /// A first pass checks the whole document (as `JSONReader.read` does) and reads the feed's own members,
  /// wherever they are; the second reads the items.
  package static func stream(
    _ bytes: some Collection<UInt8>, header: (Feed) -> Void, item: (JSONFeedItem) -> Void
  ) -> [FeedWarning]? {
    // The first of duplicate keys counts, as in `JSONValue`.
    var members: [String: JSONValue] = [:]
    var items: Bool?
    do {
      try JSONReader.read(bytes) { json in
        guard json.peek() == UInt8(ascii: "{") else { throw FeedParseError.empty }
        try json.object { json, key in
          if key == "items", items == nil {
            items = json.peek() == UInt8(ascii: "[")
            try json.skipValue()
          } else if ["version", "title", "home_page_url"].contains(key), members[key] == nil {
            members[key] = try JSONValue.read(&json)
          } else {
            try json.skipValue()
          }
        }
      }
    } catch {
      return nil
    }
    guard items == true else { return nil }
    var warnings: [FeedWarning] = []
    header(Self.feed(members, warnings: &warnings))
    var index = 0
    var read = false
    // Checked whole above: this pass cannot fail.
    try? JSONReader.read(bytes) { json in
      try json.object { json, key in
        guard key == "items", !read else { return try json.skipUnchecked() }
        read = true
        try json.array { json in
          defer { index += 1 }
          guard var element = try JSONFeedItem(reading: &json) else {
            warnings.append(FeedWarning(message: "items[\(index)] is not an object; skipped"))
            return
          }
          Self.readDates(&element, index: index, warnings: &warnings)
          item(element)
        }
      }
    }
    return warnings
  }

  /// The feed of a JSON Feed document's members (`version`, `title`, `home_page_url`), its format told by
  /// its version; its link, the home page, is the base of the items' links.
  private static func feed(_ root: [String: JSONValue], warnings: inout [FeedWarning]) -> Feed {
    let version = root["version"]?.string ?? ""
    let format: FeedFormat = version.hasSuffix("1.1") || version.hasSuffix("1.1/") ? .json11 : .json10
    if !version.contains("jsonfeed.org/version/") {
      warnings.append(FeedWarning(message: "no jsonfeed.org version; read as JSON Feed 1.0"))
    }
    let home = root["home_page_url"]?.string.flatMap(HTMLText.collapsed)
    return Feed(title: root["title"]?.string.flatMap(HTMLText.collapsed), link: home, format: format)
  }

  /// Reads `raw`'s dates; one that cannot be read is a warning.
  static func readDates(_ raw: inout JSONFeedItem, index: Int, warnings: inout [FeedWarning]) {
    func date(_ key: String) -> Date? {
      guard let value = raw.string(key).flatMap(HTMLText.collapsed) else { return nil }
      if let date = DateParser.parse(value) { return date }
      warnings.append(
        FeedWarning(message: "items[\(index)].\(key): unparseable date '\(value.prefix(80))'; left empty"))
      return nil
    }
    raw.published = date("date_published")
    raw.updated = date("date_modified")
  }

  /// The adapter from `JSONFeedItem` to `FeedItem` (see `FeedItem` for which key fills which field).
  ///
  /// Its dates read already (`readDates`), its links resolved against `base`: the part of reading an item
  /// that needs no other, so the pipeline's workers do it.
  static func item(_ raw: JSONFeedItem, base: String?) -> FeedItem {
    let author =
      (raw["authors"]?.elements.first?["name"]?.string ?? raw["author"]?["name"]?.string)
      .flatMap(HTMLText.collapsed)
    let tags = (raw["tags"]?.elements ?? []).compactMap { $0.string.flatMap(HTMLText.collapsed) }
    let attachments = (raw["attachments"]?.elements ?? []).compactMap { a -> Enclosure? in
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
      id: raw["id"]?.stringOrNumber, title: raw.string("title").map { TextConstruct(value: $0, isHTML: false) },
      link: link.map { URLResolver.resolve($0, against: base) }, author: author, categories: tags,
      published: raw.published, updated: raw.updated, summary: summary, content: content,
      enclosures: attachments, image: image.map { URLResolver.resolve($0, against: base) })
  }

  private static func message(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
    return error.message
  }
}
