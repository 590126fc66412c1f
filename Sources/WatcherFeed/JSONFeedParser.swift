// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// A JSON Feed item as read (https://www.jsonfeed.org/version/1.1/), before normalization.
package struct JSONFeedItem: Sendable {
  /// The members watcher reads, each in its slot: the first of duplicate keys counts, and the other members
  /// are passed over unread (an item's fifteen lookups by name took a twentieth of a large feed's parse).
  private var values = Slots()
  /// Its dates, read where it was read (a date that cannot be read is a warning, in document order).
  var published: Date?
  var updated: Date?

  /// The members read, each the index of its slot.
  package enum Key: Int, CaseIterable {
    case id, url, externalURL, title, contentHTML, contentText, summary, image, bannerImage
    case datePublished, dateModified, author, authors, tags, attachments

    /// The member's name in a document.
    var name: String {
      switch self {
      case .id: "id"
      case .url: "url"
      case .externalURL: "external_url"
      case .title: "title"
      case .contentHTML: "content_html"
      case .contentText: "content_text"
      case .summary: "summary"
      case .image: "image"
      case .bannerImage: "banner_image"
      case .datePublished: "date_published"
      case .dateModified: "date_modified"
      case .author: "author"
      case .authors: "authors"
      case .tags: "tags"
      case .attachments: "attachments"
      }
    }

    /// The key a member's name is, if it is one watcher reads: by length first, so a name is compared with
    /// one or two others (a switch over all fifteen compared each in turn, for every member of every item).
    static func named(_ name: String) -> Key? {
      let key: Key? =
        switch name.utf8.count {
        case 2: .id
        case 3: .url
        case 4: .tags
        case 5: name.utf8.first == UInt8(ascii: "t") ? .title : .image
        case 6: .author
        case 7: name.utf8.first == UInt8(ascii: "s") ? .summary : .authors
        case 11: .attachments
        case 12:
          switch name.utf8.first {
          case UInt8(ascii: "e"): .externalURL
          case UInt8(ascii: "b"): .bannerImage
          default: name.utf8.last == UInt8(ascii: "l") ? .contentHTML : .contentText
          }
        case 13: .dateModified
        case 14: .datePublished
        default: nil
        }
      return key.flatMap { $0.name == name ? $0 : nil }
    }
  }

  /// Fifteen optional values held inline, so an item costs no allocation of its own.
  private struct Slots {
    var v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14: JSONValue?

    subscript(slot: Int) -> JSONValue? {
      get {
        switch slot {
        case 0: v0
        case 1: v1
        case 2: v2
        case 3: v3
        case 4: v4
        case 5: v5
        case 6: v6
        case 7: v7
        case 8: v8
        case 9: v9
        case 10: v10
        case 11: v11
        case 12: v12
        case 13: v13
        default: v14
        }
      }
      set {
        switch slot {
        case 0: v0 = newValue
        case 1: v1 = newValue
        case 2: v2 = newValue
        case 3: v3 = newValue
        case 4: v4 = newValue
        case 5: v5 = newValue
        case 6: v6 = newValue
        case 7: v7 = newValue
        case 8: v8 = newValue
        case 9: v9 = newValue
        case 10: v10 = newValue
        case 11: v11 = newValue
        case 12: v12 = newValue
        case 13: v13 = newValue
        default: v14 = newValue
        }
      }
    }
  }

  package init(object: [String: JSONValue]) {
    for key in Key.allCases { values[key.rawValue] = object[key.name] }
  }

  /// Reads an item: nil (the value passed over) when it is not an object.
  init?(reading json: inout JSONReader) throws {
    guard json.peek() == UInt8(ascii: "{") else {
      try json.skipValue()
      return nil
    }
    var values = Slots()
    try json.object { json, key in
      guard let slot = Key.named(key)?.rawValue, values[slot] == nil else { return try json.skipValue() }
      values[slot] = try JSONValue.read(&json)
    }
    self.values = values
  }

  package subscript(key: Key) -> JSONValue? { values[key.rawValue] }

  package func string(_ key: Key) -> String? { self[key]?.string }
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
    _ json: inout JSONWindow, header: (Feed) -> Void, item: (JSONFeedItem) -> Void
  ) throws(JSONWindow.TooLarge) -> [FeedWarning]? {
    // The first of duplicate keys counts, as in `JSONValue`.
    var members: [String: JSONValue] = [:]
    var items: Bool?
    do {
      guard try json.peek() == UInt8(ascii: "{") else { return nil }
      try json.object { json, key in
        if key == "items", items == nil {
          items = try json.peek() == UInt8(ascii: "[")
          // Element by element: only one is ever in the window.
          if items == true { try json.array { json in try json.skipValue() } } else { try json.skipValue() }
        } else if ["version", "title", "home_page_url"].contains(key), members[key] == nil {
          members[key] = try json.value { try JSONValue.read(&$0) }
        } else {
          try json.skipValue()
        }
      }
      try json.finish()
    } catch let error as JSONWindow.TooLarge {
      throw error
    } catch {
      return nil
    }
    guard items == true else { return nil }
    var warnings: [FeedWarning] = []
    header(Self.feed(members, warnings: &warnings))
    var index = 0
    var read = false
    do {
      try json.rewind()
      // Checked whole above: this pass fails only when a file changed between the two.
      try json.object { json, key in
        guard key == "items", !read else { return try json.value { try $0.skipUnchecked() } }
        read = true
        try json.array { json in
          defer { index += 1 }
          guard var element = try json.value({ try JSONFeedItem(reading: &$0) }) else {
            warnings.append(FeedWarning(message: "items[\(index)] is not an object; skipped"))
            return
          }
          Self.readDates(&element, index: index, warnings: &warnings)
          item(element)
        }
      }
    } catch {
      warnings.append(
        FeedWarning(message: "the file changed while it was read: items[\(index)] and those after it are left out"))
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
    func date(_ key: JSONFeedItem.Key) -> Date? {
      guard let value = raw.string(key).flatMap(HTMLText.collapsed) else { return nil }
      if let date = DateParser.parse(value) { return date }
      warnings.append(
        FeedWarning(message: "items[\(index)].\(key.name): unparseable date '\(value.prefix(80))'; left empty"))
      return nil
    }
    raw.published = date(.datePublished)
    raw.updated = date(.dateModified)
  }

  /// The adapter from `JSONFeedItem` to `FeedItem` (see `FeedItem` for which key fills which field).
  ///
  /// Its dates read already (`readDates`), its links resolved against `base`: the part of reading an item
  /// that needs no other, so the pipeline's workers do it.
  static func item(_ raw: JSONFeedItem, base: String?) -> FeedItem {
    let author =
      (raw[.authors]?.elements.first?["name"]?.string ?? raw[.author]?["name"]?.string)
      .flatMap(HTMLText.collapsed)
    let tags = (raw[.tags]?.elements ?? []).compactMap { $0.string.flatMap(HTMLText.collapsed) }
    let attachments = (raw[.attachments]?.elements ?? []).compactMap { a -> Enclosure? in
      guard let url = a["url"]?.string.flatMap(HTMLText.collapsed) else { return nil }
      var length: Int?
      if case .number(let size) = a["size_in_bytes"], size >= 0, size < 1e15 { length = Int(size) }
      return Enclosure(url: URLResolver.resolve(url, against: base), type: a["mime_type"]?.string, length: length)
    }
    let summary = raw.string(.summary).map { TextConstruct(value: $0, isHTML: false) }
    let content =
      raw.string(.contentHTML).map { TextConstruct(value: $0, isHTML: true) }
      ?? raw.string(.contentText).map { TextConstruct(value: $0, isHTML: false) }
    let link = (raw.string(.url) ?? raw.string(.externalURL)).flatMap(HTMLText.collapsed)
    let image = (raw.string(.image) ?? raw.string(.bannerImage)).flatMap(HTMLText.collapsed)
    return FeedNormalizer.item(
      id: raw[.id]?.stringOrNumber, title: raw.string(.title).map { TextConstruct(value: $0, isHTML: false) },
      link: link.map { URLResolver.resolve($0, against: base) }, author: author, categories: tags,
      published: raw.published, updated: raw.updated, summary: summary, content: content,
      enclosures: attachments, image: image.map { URLResolver.resolve($0, against: base) })
  }

  private static func message(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
    return error.message
  }
}
