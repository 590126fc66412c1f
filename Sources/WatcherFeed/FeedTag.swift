// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherXML

/// An element name as the feed parsers see it: a vocabulary (namespace) and a known local name.
///
/// Names are classified once per document and name (`XMLStreamParser` caches them), so the parsers switch
/// over these small values instead of comparing strings on every element.
package struct FeedTag: Equatable {
  /// The namespace an element is in.
  package enum Vocabulary: Int {
    case core, atom, rdf, dc, dcterms, content, media, itunes, xhtml, sy, other
  }

  /// The local names any parser cares about; everything else is `other`.
  package enum Name: Int, CaseIterable {
    case other
    case rss, RDF, channel, item, title, link, description, guid, pubDate, author, category, enclosure, source
    case image, textinput, feed, entry, id, updated, published, issued, modified, created, summary
    case content, name, creator, date, subject, encoded, group, thumbnail, keywords, body, div, url
    case ttl, skipHours, skipDays, hour, day, updatePeriod, updateFrequency
  }

  package var vocabulary: Vocabulary
  package var name: Name

  /// The names' spellings, lowercased, in the order of the cases.
  ///
  /// Spelled out: `"\(name)"` reflects on the enum, a fifth of a command's start-up instructions
  /// (`FeedTagTests` checks the two agree).
  package static let spellings = [
    "other", "rss", "rdf", "channel", "item", "title", "link", "description", "guid", "pubdate", "author",
    "category", "enclosure", "source", "image", "textinput", "feed", "entry", "id", "updated", "published",
    "issued", "modified", "created", "summary", "content", "name", "creator", "date", "subject", "encoded",
    "group", "thumbnail", "keywords", "body", "div", "url", "ttl", "skiphours", "skipdays", "hour", "day",
    "updateperiod", "updatefrequency",
  ]

  private static let names = Dictionary(uniqueKeysWithValues: zip(spellings, Name.allCases))

  /// Classifies an element.
  package init(localName: String, namespace: XMLNamespace) {
    switch namespace {
    case .none, .rss, .rss090: vocabulary = .core
    case .atom: vocabulary = .atom
    case .rdf: vocabulary = .rdf
    case .dc: vocabulary = .dc
    case .dcterms: vocabulary = .dcterms
    case .content: vocabulary = .content
    case .media: vocabulary = .media
    case .itunes: vocabulary = .itunes
    case .xhtml: vocabulary = .xhtml
    case .sy: vocabulary = .sy
    case .xml, .other: vocabulary = .other
    }
    // Feeds are not always careful with case (`<pubdate>`, `<PubDate>`); feedparser ignores it too.
    name = Self.names[localName.lowercased()] ?? .other
  }

  /// Packs the tag into the integer `XMLFeedHandler` passes around.
  package var rawValue: Int { vocabulary.rawValue << 8 | name.rawValue }

  /// Unpacks a tag made by `rawValue`.
  package init(rawValue: Int) {
    vocabulary = Vocabulary(rawValue: rawValue >> 8) ?? .other
    name = Name(rawValue: rawValue & 0xFF) ?? .other
  }

  package init(_ vocabulary: Vocabulary, _ name: Name) {
    self.vocabulary = vocabulary
    self.name = name
  }
}
