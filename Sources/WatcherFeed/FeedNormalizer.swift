// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// The normalization every format's adapter shares: text, links, authors, dates, sizes.
package enum FeedNormalizer {
  /// Builds a `FeedItem` (without its key, which `FeedIdentity` assigns) from the parts a format found.
  package static func item(
    id: String?, title: TextConstruct?, link: String?, author: String?, categories: [String],
    published: Date?, updated: Date?, summary: TextConstruct?, content: TextConstruct?,
    enclosures: [Enclosure], image: String?
  ) -> FeedItem {
    FeedItem(
      key: "", id: id.flatMap(HTMLText.collapsed), title: title?.plainText(singleLine: true), link: link,
      author: author, categories: unique(categories), published: published ?? updated, updated: updated,
      text: summary?.plainText(singleLine: false) ?? content?.plainText(singleLine: false),
      html: content?.html ?? summary?.html, enclosures: enclosures, image: image)
  }

  /// Each category collapsed, the blank ones dropped: into one array of the right size (`compactMap` grew
  /// its result twice for an item's three categories).
  static func categories(_ values: [String]) -> [String] {
    var kept: [String] = []
    kept.reserveCapacity(values.count)
    for value in values {
      if let category = HTMLText.collapsed(value) { kept.append(category) }
    }
    return kept
  }

  /// `values` without repeats, first occurrence kept; a few are compared directly (no set per item).
  static func unique(_ values: [String]) -> [String] {
    guard values.count > 1 else { return values }
    if values.count <= 16 {
      var kept: [String] = []
      kept.reserveCapacity(values.count)
      for value in values where !kept.contains(value) { kept.append(value) }
      return kept
    }
    var seen = Set<String>()
    return values.filter { seen.insert($0).inserted }
  }

  /// A link with whitespace trimmed, resolved against `base`.
  package static func link(_ value: String, base: String?) -> String {
    URLResolver.resolve(value.trimmingASCIIWhitespace, against: base)
  }

  /// Whether `value` is an http(s) URL (a permalink guid).
  package static func isWebURL(_ value: String) -> Bool { FeedLocation.isHTTP(value) }

  /// A name from an RSS author field: `mail@example.com (Name)` and `Name <mail@example.com>` give `Name`;
  /// anything else is kept as written.
  package static func author(_ raw: String) -> String? {
    guard let value = HTMLText.collapsed(raw) else { return nil }
    if value.hasSuffix(")"), let open = value.firstIndex(of: "("), value[..<open].contains("@") {
      let name = value[value.index(after: open)..<value.index(before: value.endIndex)]
      if let clean = HTMLText.collapsed(String(name)) { return clean }
    }
    if value.hasSuffix(">"), let open = value.lastIndex(of: "<"), value[open...].contains("@") {
      if let clean = HTMLText.collapsed(String(value[..<open])) { return clean }
    }
    return value
  }

  /// A byte count from an enclosure's `length`, or `nil` if it is not a non-negative number.
  package static func length(_ raw: String) -> Int? {
    guard let value = Int(raw.trimmingASCIIWhitespace), value >= 0 else { return nil }
    return value
  }

  /// A date read by `DateParser`, or `nil` with a warning at the reader's position.
  package static func date(_ raw: String, reader: XMLStreamParser) -> Date? {
    if let date = DateParser.parse(raw) { return date }
    guard let value = HTMLText.collapsed(raw) else { return nil }
    reader.warn("unparseable date '\(value.prefix(80))'; left empty")
    return nil
  }
}

/// Decides, in document order, which items are already known (`FeedParser.Options.knownKeys`).
///
/// Such an item needs only its identity: the first item with a known id or link. A repeated id or link gets a `#N` key, which may
/// be new, so such an item is always read in full, as is one without id and link.
package final class KnownItems {
  /// Which items need only their identity: those with a known key, or all of them.
  package enum Filter: Sendable {
    case known(Set<String>)
    case all
  }

  private let filter: Filter
  private var bases: Set<String> = []

  package init(_ filter: Filter) {
    self.filter = filter
  }

  /// The filter `options` ask for, if any.
  package static func filter(_ options: FeedParser.Options) -> Filter? {
    if options.identityOnly { return .all }
    return options.knownKeys.map { .known($0) }
  }

  /// The item with only its id and link (as `FeedNormalizer.item` gives them, so its key comes out the
  /// same), or nil when it must be read in full.
  ///
  /// `published` is kept: the schedule learns how often the feed posts from its items' dates. When every
  /// item is read for its identity (a silent first poll, catch-up), so is its title: the item's title and
  /// date are kept to recognise a migration by (`FeedState.KnownItem.titleAndDate`).
  package func stub(id: String?, link: String?, published: Date? = nil, title: TextConstruct? = nil) -> FeedItem? {
    var stub = FeedItem(key: "", id: id.flatMap(HTMLText.collapsed), link: link)
    guard stub.id != nil || stub.link != nil else { return nil }
    if case .all = filter { stub.title = title?.plainText(singleLine: true) }
    ControlCharacters.clean(&stub)
    let base = FeedIdentity.baseKey(stub)
    guard bases.insert(base).inserted else { return nil }
    stub.published = published
    switch filter {
    case .all: return stub
    case .known(let known): return known.contains(base) ? stub : nil
    }
  }
}

extension Array where Element == String {
  /// Appends a category as a parser meets it; the first makes room for four, so an item's few categories
  /// take one allocation, not three.
  mutating func appendCategory(_ category: String) {
    if isEmpty { reserveCapacity(4) }
    append(category)
  }
}
