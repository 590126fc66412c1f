// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherXML

/// An Atom `link` element.
package struct AtomLink {
  package var href: String
  package var rel: String
  package var type: String?
  package var length: Int?
}

/// An Atom `feed` as read, before normalization.
package struct AtomFeed {
  package var title: TextConstruct?
  /// `dc:title`, used when there is no `title`.
  package var fallbackTitle: TextConstruct?
  package var links: [AtomLink] = []
}

/// An Atom `entry` (1.0 or 0.3) as read, with the media elements YouTube and others add.
package struct AtomEntry {
  package var title: TextConstruct?
  package var links: [AtomLink] = []
  /// The first `id` with visible text, as written (the normalizer collapses it).
  package var id: String?
  package var published: Date?
  package var updated: Date?
  package var authorName: String?
  /// Categories as written (collapsed in `normalize`, blank ones dropped).
  package var categories: [String] = []
  package var summary: TextConstruct?
  package var content: TextConstruct?
  package var mediaDescription: TextConstruct?
  package var thumbnail: String?
  package var mediaImage: String?
}

/// Reads Atom 1.0 (RFC 4287) and 0.3.
///
/// In a document whose root `feed` has no namespace, elements without a namespace are read as Atom too.
package final class AtomParser: FeedElementParser {
  package let format: FeedFormat
  private var feed = AtomFeed()
  private let entries: ItemPipeline<AtomEntry>
  /// The entry being read, meaningful while `hasEntry`.
  ///
  /// Mutated in place.
  private var entry = AtomEntry()
  private var hasEntry = false
  private var stack: [FeedTag] = []
  private var entryDepth = 0
  /// Inside an `author` of the current entry (not of its `source`): depth of that author element.
  private var authorDepth = 0
  private var sourceDepth = 0
  private var pendingHTML = false
  private var pendingGuess = false
  private let acceptsCore: Bool
  /// The stream parser reporting to this one, for the dates it reads (`Unretained`: it runs the parse).
  private let reader: Unretained<XMLStreamParser>

  package init(
    format: FeedFormat, acceptsCore: Bool, reader: XMLStreamParser, sink: ItemSink? = nil,
    known: KnownItems.Filter? = nil
  ) {
    self.format = format
    self.acceptsCore = acceptsCore
    self.reader = Unretained(reader)
    let filter = known.map(KnownItems.init)
    entries = ItemPipeline(
      sink: sink,
      prefilter: filter.map { known in
        {
          known.stub(
            id: $0.id, link: AtomParser.alternate($0.links), published: $0.published ?? $0.updated, title: $0.title)
        }
      },
      normalize: AtomParser.normalize)
  }

  /// The Atom name of `tag`, or `.other` when it is not an Atom element here.
  private func atom(_ tag: FeedTag) -> FeedTag.Name {
    tag.vocabulary == .atom || (acceptsCore && tag.vocabulary == .core) ? tag.name : .other
  }

  package func start(_ tag: FeedTag, attributes: XMLAttributes) -> XMLCapture {
    stack.append(tag)
    let depth = stack.count
    let name = atom(tag)
    if sourceDepth > 0 { return .none }
    if name == .entry, !hasEntry {
      entry = AtomEntry()
      hasEntry = true
      entryDepth = depth
      return .none
    }
    if hasEntry {
      // Atom elements count as the entry's when they are its children; media and Dublin Core elements at
      // any depth (media:group, media:content wrap them), but not inside an author.
      if depth == entryDepth + 1 || (authorDepth == 0 && tag.vocabulary != .atom && tag.vocabulary != .core) {
        return startEntryChild(tag, name: name, attributes: attributes)
      }
      if authorDepth > 0, depth == authorDepth + 1, name == .name { return .text }
      return .none
    }
    // The root `feed` itself is not passed in, so its children are at depth 1.
    if depth == 1 {
      switch name {
      case .title:
        pendingHTML = TextConstruct.isHTML(atomType: attributes.value("type"), mode: attributes.value("mode"))
        return TextConstruct.isXHTML(atomType: attributes.value("type")) ? .xhtml : .text
      case .link:
        if let link = link(attributes) { feed.links.append(link) }
      default:
        if tag == FeedTag(.dc, .title) {
          pendingHTML = false
          return .text
        }
      }
    }
    return .none
  }

  private func startEntryChild(_ tag: FeedTag, name: FeedTag.Name, attributes: XMLAttributes) -> XMLCapture {
    switch name {
    case .title, .summary, .content:
      pendingHTML = TextConstruct.isHTML(atomType: attributes.value("type"), mode: attributes.value("mode"))
      // With no type at all, trust the content rather than the default: publishers forget `type="html"`.
      pendingGuess = attributes.value("type") == nil && attributes.value("mode") == nil
      if name == .content, attributes.value("src") != nil, entry.links.isEmpty,
        let src = attributes.value("src").flatMap(HTMLText.collapsed)
      {
        entry.links.append(AtomLink(href: FeedNormalizer.link(src, base: attributes.xmlBase), rel: "alternate"))
      }
      return TextConstruct.isXHTML(atomType: attributes.value("type")) ? .xhtml : .text
    case .id, .published, .updated, .issued, .modified, .created: return .text
    case .category:
      if let term = (attributes.value("term") ?? attributes.value("label")).flatMap(HTMLText.collapsed) {
        entry.categories.appendCategory(term)
        return .none
      }
      return .text
    case .link:
      if let link = link(attributes) { entry.links.append(link) }
    case .author:
      if entry.authorName == nil { authorDepth = stack.count }
    case .source:
      sourceDepth = stack.count
    default:
      switch (tag.vocabulary, tag.name) {
      case (.media, .description):
        pendingHTML = attributes.value("type", isLowercased: "html")
        return .text
      case (.media, .thumbnail):
        if entry.thumbnail == nil, let url = attributes.value("url").flatMap(HTMLText.collapsed) {
          entry.thumbnail = FeedNormalizer.link(url, base: attributes.xmlBase)
        }
      case (.media, .content):
        if entry.mediaImage == nil,
          attributes.value("medium", is: "image") || attributes.value("type", startsWithLowercased: "image/"),
          let url = attributes.value("url").flatMap(HTMLText.collapsed)
        {
          entry.mediaImage = FeedNormalizer.link(url, base: attributes.xmlBase)
        }
      case (.dc, .subject), (.dc, .creator), (.media, .category): return .text
      case (.media, .keywords): return .text
      default: break
      }
    }
    return .none
  }

  private func link(_ attributes: XMLAttributes) -> AtomLink? {
    guard let href = (attributes.value("href") ?? attributes.value("url")).flatMap(HTMLText.collapsed) else {
      return nil
    }
    return AtomLink(
      href: FeedNormalizer.link(href, base: attributes.xmlBase),
      rel: attributes.value("rel").flatMap(HTMLText.collapsed)?.lowercased() ?? "alternate",
      type: attributes.value("type").flatMap(HTMLText.collapsed)?.lowercased(),
      length: attributes.value("length").flatMap(FeedNormalizer.length))
  }

  package func end(_ tag: FeedTag, text: String?) {
    let depth = stack.count
    defer { stack.removeLast() }
    let name = atom(tag)
    if sourceDepth > 0 {
      if depth == sourceDepth { sourceDepth = 0 }
      return
    }
    if authorDepth > 0, depth == authorDepth {
      authorDepth = 0
      return
    }
    if hasEntry, depth == entryDepth {
      var finished = AtomEntry()
      swap(&finished, &entry)
      entries.add(finished)
      hasEntry = false
      return
    }
    guard let text else { return }
    if !hasEntry {
      if name == .title, feed.title == nil { feed.title = TextConstruct(value: text, isHTML: pendingHTML) }
      if tag == FeedTag(.dc, .title), feed.fallbackTitle == nil { feed.fallbackTitle = TextConstruct(guessing: text) }
      return
    }
    if authorDepth > 0 {
      if entry.authorName == nil { entry.authorName = HTMLText.collapsed(text) }
      return
    }
    let construct = pendingGuess ? TextConstruct(guessing: text) : TextConstruct(value: text, isHTML: pendingHTML)
    switch name {
    case .title: if entry.title == nil { entry.title = construct }
    case .summary: if entry.summary == nil { entry.summary = construct }
    case .content: if entry.content == nil { entry.content = construct }
    case .id: if entry.id == nil, HTMLText.hasVisibleText(text) { entry.id = text }
    case .published, .issued, .created:
      if entry.published == nil { entry.published = reader.with { FeedNormalizer.date(text, reader: $0) } }
    case .updated, .modified:
      if entry.updated == nil { entry.updated = reader.with { FeedNormalizer.date(text, reader: $0) } }
    case .category:
      entry.categories.appendCategory(text)
    default:
      switch (tag.vocabulary, tag.name) {
      case (.media, .description):
        if entry.mediaDescription == nil { entry.mediaDescription = TextConstruct(value: text, isHTML: pendingHTML) }
      case (.dc, .subject), (.media, .category):
        entry.categories.appendCategory(text)
      case (.media, .keywords):
        for keyword in text.split(separator: ",") {
          if let category = HTMLText.collapsed(String(keyword)) { entry.categories.appendCategory(category) }
        }
      case (.dc, .creator):
        if entry.authorName == nil { entry.authorName = FeedNormalizer.author(text) }
      default: break
      }
    }
  }

  package func finish() -> Feed {
    var result = header()
    result.items = entries.finish()
    return result
  }

  package func header() -> Feed {
    Feed(
      title: (feed.title ?? feed.fallbackTitle)?.plainText(singleLine: true), link: Self.alternate(feed.links),
      format: format)
  }

  /// The `alternate` link, preferring an HTML one; a link without `rel` is an alternate.
  package static func alternate(_ links: [AtomLink]) -> String? {
    let alternates = links.filter { $0.rel == "alternate" }
    return (alternates.first { $0.type == nil || $0.type?.contains("html") == true } ?? alternates.first)?.href
  }

  /// The adapter from `AtomEntry` to `FeedItem` (see `FeedItem` for which element fills which field).
  package static func normalize(_ raw: AtomEntry) -> FeedItem {
    let enclosures = raw.links.filter { $0.rel == "enclosure" }.map {
      Enclosure(url: $0.href, type: $0.type, length: $0.length)
    }
    let imageEnclosure = enclosures.first { $0.type?.hasPrefix("image/") ?? false }?.url
    return FeedNormalizer.item(
      id: raw.id, title: raw.title, link: alternate(raw.links), author: raw.authorName,
      categories: FeedNormalizer.categories(raw.categories),
      published: raw.published ?? raw.updated, updated: raw.updated,
      summary: raw.summary ?? raw.mediaDescription, content: raw.content,
      enclosures: enclosures, image: raw.thumbnail ?? raw.mediaImage ?? imageEnclosure)
  }
}
