// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport

/// An item's JSON document, as `FeedJSONWriter.itemJSON` writes it (the item, then members added to it),
/// read back: what a pending hook keeps of its item, and all it needs to run again.
package struct ItemDocument: Sendable, Equatable {
  /// The item, every field the document holds.
  package var item: FeedItem
  /// The added string members (`feed`, `feed_url`, `rule`).
  package var extra: [String: String] = [:]
  /// The added `tags`.
  package var tags: [String] = []

  /// A document of `item` with `tags`.
  package init(item: FeedItem, tags: [String] = []) {
    self.item = item
    self.tags = tags
  }

  /// Reads `json`; `nil` when it is not an item's document (a digest's array, or not JSON).
  package init?(json: String) {
    var item = FeedItem(key: "")
    var extra: [String: String] = [:]
    var tags: [String] = []
    func strings(_ json: inout JSONReader) throws -> [String] {
      var list: [String] = []
      guard try !json.null() else { return list }
      try json.array { list.append(try $0.string()) }
      return list
    }
    func date(_ json: inout JSONReader) throws -> Date? {
      try json.optional { try $0.string() }.flatMap(DateParser.parse)
    }
    do {
      try JSONReader.read(Array(json.utf8)) { json in
        try json.object { json, key in
          switch key {
          case "key": item.key = try json.string()
          case "id": item.id = try json.optional { try $0.string() }
          case "title": item.title = try json.optional { try $0.string() }
          case "link": item.link = try json.optional { try $0.string() }
          case "author": item.author = try json.optional { try $0.string() }
          case "categories": item.categories = try strings(&json)
          case "published": item.published = try date(&json)
          case "updated": item.updated = try date(&json)
          case "text": item.text = try json.optional { try $0.string() }
          case "html": item.html = try json.optional { try $0.string() }
          case "image": item.image = try json.optional { try $0.string() }
          case "content": item.content = try json.optional { try $0.string() }
          case "enclosures":
            guard try !json.null() else { break }
            try json.array { json in
              var enclosure = Enclosure(url: "")
              try json.object { json, key in
                switch key {
                case "url": enclosure.url = try json.string()
                case "type": enclosure.type = try json.optional { try $0.string() }
                case "length": enclosure.length = try json.optional { try $0.int() }
                default: try json.skipValue()
                }
              }
              item.enclosures.append(enclosure)
            }
          case "tags": tags = try strings(&json)
          case "feed", "feed_url", "rule":
            if let value = try json.optional({ try $0.string() }) { extra[key] = value }
          default: try json.skipValue()
          }
        }
      }
    } catch {
      return nil
    }
    (self.item, self.extra, self.tags) = (item, extra, tags)
  }
}
