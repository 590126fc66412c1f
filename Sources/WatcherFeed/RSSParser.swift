// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// An RSS `channel` as read, before normalization.
package struct RSSChannel {
  package var title: TextConstruct?
  /// `dc:title`, used when there is no `title`.
  package var fallbackTitle: TextConstruct?
  package var link: String?
  package var atomAlternate: String?
  package var refresh = FeedRefresh()
  /// `sy:updatePeriod` and `sy:updateFrequency` as read (combined in `header`).
  package var syPeriod: Int?
  package var syFrequency: Int?
}

/// An RSS `item` (0.9x, 1.0/RDF, 2.0) as read, with the namespaced elements feeds add to it.
package struct RSSItem {
  package var title: TextConstruct?
  /// `dc:title` or `media:title`, used when there is no `title`.
  package var fallbackTitle: TextConstruct?
  /// The first `link` with visible text, as written, and the base it is resolved against (in `normalize`,
  /// on a worker, as the other fields left raw here are cleaned).
  package var link: String?
  package var linkBase: String?
  package var atomAlternate: String?
  /// The first `guid` with visible text, as written.
  package var guid: String?
  package var guidIsPermaLink = true
  /// RSS 1.0 `rdf:about`.
  package var about: String?
  /// The first of `description`, `dc:description`, `itunes:summary`, `media:description`, as feedparser does.
  package var summary: TextConstruct?
  /// `content:encoded` or `xhtml:body`.
  package var content: TextConstruct?
  package var pubDate: Date?
  package var dcDate: Date?
  package var issued: Date?
  package var updated: Date?
  /// The first of `author`, `dc:creator`, `itunes:author` with visible text in document order (feedparser
  /// keeps the first), as written.
  package var author: String?
  /// Categories as written (collapsed in `normalize`, blank ones dropped).
  package var categories: [String] = []
  package var enclosures: [Enclosure] = []
  package var thumbnail: String?
  package var mediaImage: String?
  package var itunesImage: String?
}

/// Reads RSS 0.90–0.94, 1.0 (RDF) and 2.0, with the dc, dcterms, content, media, itunes and atom elements found inside them.
///
/// Elements are matched by local name whatever their case; unknown ones are skipped.
package final class RSSParser: FeedElementParser {
  package private(set) var format: FeedFormat
  private var channel = RSSChannel()
  private let items: ItemPipeline<RSSItem>
  /// The item being read, meaningful while `hasItem`.
  ///
  /// Mutated in place (no copy per element).
  private var item = RSSItem()
  private var hasItem = false
  private var stack: [FeedTag] = []
  private var itemDepth = 0
  private var pending: (link: String?, base: String?, permaLink: Bool) = (nil, nil, true)
  /// The stream parser reporting to this one, for the dates it reads (`Unretained`: it runs the parse).
  private let reader: Unretained<XMLStreamParser>

  package init(format: FeedFormat, reader: XMLStreamParser, sink: ItemSink? = nil, known: KnownItems.Filter? = nil) {
    self.format = format
    self.reader = Unretained(reader)
    let filter = known.map(KnownItems.init)
    items = ItemPipeline(
      sink: sink,
      prefilter: filter.map { known in
        {
          known.stub(
            id: $0.guid ?? $0.about, link: RSSParser.link($0), published: $0.pubDate ?? $0.dcDate ?? $0.issued,
            title: $0.title ?? $0.fallbackTitle)
        }
      },
      normalize: RSSParser.normalize)
  }

  /// Whether an element whose parent is at `parentIndex` is inside the current item.
  ///
  /// Any depth counts, as in feedparser: feeds wrap categories in `<categories>` and media elements in
  /// `media:group`/`media:content`.
  private func inItem(parentIndex: Int) -> Bool {
    hasItem && parentIndex + 1 >= itemDepth
  }

  package func start(_ tag: FeedTag, attributes: XMLAttributes) -> XMLCapture {
    stack.append(tag)
    let parent = stack.count - 2
    if tag.name == .item, tag.vocabulary == .core, !hasItem {
      item = RSSItem()
      hasItem = true
      itemDepth = stack.count
      item.about = attributes.value("about", namespace: .rdf).flatMap(HTMLText.collapsed)
      return .none
    }
    if tag.name == .channel, tag.vocabulary == .core, format == .rss10 || format == .rss090 {
      return .none
    }
    if inItem(parentIndex: parent) {
      return startItemChild(tag, attributes: attributes)
    }
    if !hasItem, parent >= 0, stack[parent] == FeedTag(.core, .skipHours) || stack[parent] == FeedTag(.core, .skipDays)
    {
      return tag.name == .hour || tag.name == .day ? .text : .none
    }
    if !hasItem, parent >= 0, stack[parent] == FeedTag(.core, .channel) {
      switch (tag.vocabulary, tag.name) {
      case (.core, .ttl), (.sy, .updatePeriod), (.sy, .updateFrequency):
        return .text
      case (.core, .title), (.core, .link), (.dc, .title):
        pending.base = attributes.xmlBase
        return .text
      case (.atom, .link):
        let rel = attributes.value("rel") ?? "alternate"
        if rel == "alternate", channel.atomAlternate == nil, let href = attributes.value("href") {
          channel.atomAlternate = FeedNormalizer.link(href, base: attributes.xmlBase)
        }
      default: break
      }
    }
    return .none
  }

  private func startItemChild(_ tag: FeedTag, attributes: XMLAttributes) -> XMLCapture {
    pending.base = attributes.xmlBase
    switch (tag.vocabulary, tag.name) {
    case (.core, .title), (.core, .link), (.core, .description), (.core, .pubDate), (.core, .author),
      (.core, .category), (.dc, .creator), (.dc, .date), (.dc, .subject), (.dc, .title), (.dc, .description),
      (.dcterms, .issued), (.dcterms, .created), (.dcterms, .modified), (.content, .encoded),
      (.atom, .updated), (.atom, .published), (.media, .description), (.media, .title), (.itunes, .author),
      (.itunes, .summary), (.itunes, .keywords), (.media, .keywords):
      return .text
    case (.media, .category):
      return .text
    case (.core, .guid):
      pending.permaLink = attributes.value("isPermaLink")?.lowercased() != "false"
      return .text
    case (.xhtml, .body):
      return .xhtml
    case (.core, .enclosure):
      if let url = attributes.value("url").flatMap(HTMLText.collapsed) {
        item.enclosures.append(
          Enclosure(
            url: FeedNormalizer.link(url, base: attributes.xmlBase),
            type: attributes.value("type").flatMap(HTMLText.collapsed),
            length: attributes.value("length").flatMap(FeedNormalizer.length)))
      }
    case (.atom, .link):
      let rel = attributes.value("rel") ?? "alternate"
      guard let href = attributes.value("href").flatMap(HTMLText.collapsed) else { break }
      if rel == "alternate", item.atomAlternate == nil {
        item.atomAlternate = FeedNormalizer.link(href, base: attributes.xmlBase)
      } else if rel == "enclosure" {
        item.enclosures.append(
          Enclosure(
            url: FeedNormalizer.link(href, base: attributes.xmlBase), type: attributes.value("type"),
            length: attributes.value("length").flatMap(FeedNormalizer.length)))
      }
    case (.media, .thumbnail):
      if item.thumbnail == nil, let url = attributes.value("url").flatMap(HTMLText.collapsed) {
        item.thumbnail = FeedNormalizer.link(url, base: attributes.xmlBase)
      }
    case (.media, .content):
      if item.mediaImage == nil,
        attributes.value("medium", is: "image") || attributes.value("type", startsWithLowercased: "image/"),
        let url = attributes.value("url").flatMap(HTMLText.collapsed)
      {
        item.mediaImage = FeedNormalizer.link(url, base: attributes.xmlBase)
      }
    case (.itunes, .image):
      if item.itunesImage == nil,
        let url = (attributes.value("href") ?? attributes.value("url")).flatMap(HTMLText.collapsed)
      {
        item.itunesImage = FeedNormalizer.link(url, base: attributes.xmlBase)
      }
    default: break
    }
    return .none
  }

  package func end(_ tag: FeedTag, text: String?) {
    defer { stack.removeLast() }
    let parent = stack.count - 2
    if stack.count == itemDepth, hasItem, tag.name == .item {
      // Swap the finished item out rather than copy it (a copy retains every field).
      var finished = RSSItem()
      swap(&finished, &item)
      items.add(finished)
      hasItem = false
      itemDepth = 0
      return
    }
    guard let text else { return }
    if inItem(parentIndex: parent) {
      endItemChild(tag, text: text)
    } else if !hasItem {
      switch (tag.vocabulary, tag.name) {
      case (.core, .title): channel.title = channel.title ?? TextConstruct(guessing: text)
      case (.dc, .title): channel.fallbackTitle = channel.fallbackTitle ?? TextConstruct(guessing: text)
      case (.core, .link) where channel.link == nil:
        channel.link = HTMLText.collapsed(text).map { FeedNormalizer.link($0, base: pending.base) }
      case (.core, .ttl):
        if let minutes = Int(text.trimming()), minutes > 0 {
          channel.refresh.ttl = min(minutes, 1_000_000) * 60
        }
      case (.sy, .updatePeriod):
        channel.syPeriod = FeedRefresh.seconds(ofPeriod: text.trimming())
      case (.sy, .updateFrequency):
        channel.syFrequency = Int(text.trimming()).map { min(max($0, 1), 10_000) }
      case (.core, .hour):
        if let hour = Int(text.trimming()), (0...24).contains(hour),
          channel.refresh.skipHours.count < 24
        {
          channel.refresh.skipHours.append(hour % 24)
        }
      case (.core, .day):
        if let day = FeedRefresh.weekdays.firstIndex(
          of: text.trimming().lowercased()),
          channel.refresh.skipDays.count < 7
        {
          channel.refresh.skipDays.append(day + 1)
        }
      default: break
      }
    }
  }

  private func endItemChild(_ tag: FeedTag, text: String) {
    switch (tag.vocabulary, tag.name) {
    case (.core, .title): if item.title == nil { item.title = TextConstruct(guessing: text) }
    case (.dc, .title), (.media, .title):
      if item.fallbackTitle == nil { item.fallbackTitle = TextConstruct(guessing: text) }
    case (.core, .link):
      if item.link == nil, HTMLText.hasVisibleText(text) {
        item.link = text
        item.linkBase = pending.base
      }
    case (.core, .guid):
      if item.guid == nil, HTMLText.hasVisibleText(text) {
        item.guid = text
        item.guidIsPermaLink = pending.permaLink
      }
    case (.core, .description), (.dc, .description):
      if item.summary == nil { item.summary = TextConstruct(value: text, isHTML: true) }
    case (.itunes, .summary), (.media, .description):
      if item.summary == nil { item.summary = TextConstruct(guessing: text) }
    case (.content, .encoded):
      if item.content == nil { item.content = TextConstruct(value: text, isHTML: true) }
    case (.xhtml, .body):
      if item.content == nil { item.content = TextConstruct(value: text, isHTML: true) }
    case (.core, .pubDate): item.pubDate = date(text)
    case (.dc, .date): item.dcDate = date(text)
    case (.dcterms, .issued), (.dcterms, .created), (.atom, .published):
      if item.issued == nil { item.issued = date(text) }
    case (.dcterms, .modified), (.atom, .updated):
      if item.updated == nil { item.updated = date(text) }
    case (.core, .author), (.dc, .creator), (.itunes, .author):
      if item.author == nil, HTMLText.hasVisibleText(text) { item.author = text }
    case (.core, .category), (.dc, .subject), (.media, .category):
      item.categories.appendCategory(text)
    case (.itunes, .keywords), (.media, .keywords):
      for keyword in text.split(separator: ",") {
        if let category = HTMLText.collapsed(String(keyword)) { item.categories.appendCategory(category) }
      }
    default: break
    }
  }

  private func date(_ text: String) -> Date? {
    reader.with { FeedNormalizer.date(text, reader: $0) }
  }

  package func finish() -> Feed {
    var feed = header()
    feed.items = items.finish()
    return feed
  }

  package func header() -> Feed {
    var feed = Feed(
      title: (channel.title ?? channel.fallbackTitle)?.plainText(singleLine: true),
      link: channel.link ?? channel.atomAlternate,
      format: format)
    feed.refresh = channel.refresh
    // sy:updatePeriod defaults to daily and sy:updateFrequency to 1 when only one of them is given.
    if channel.syPeriod != nil || channel.syFrequency != nil {
      feed.refresh.updatePeriod = max(60, (channel.syPeriod ?? 86_400) / (channel.syFrequency ?? 1))
    }
    return feed
  }

  /// The item's link: `link`, else an atom alternate, else a permalink guid.
  static func link(_ raw: RSSItem) -> String? {
    var link =
      raw.link.flatMap(HTMLText.collapsed).map { FeedNormalizer.link($0, base: raw.linkBase) } ?? raw.atomAlternate
    if link == nil, raw.guidIsPermaLink, let guid = raw.guid.flatMap(HTMLText.collapsed), FeedNormalizer.isWebURL(guid)
    {
      link = guid
    }
    return link
  }

  /// The adapter from `RSSItem` to `FeedItem` (see `FeedItem` for which element fills which field).
  package static func normalize(_ raw: RSSItem) -> FeedItem {
    let link = Self.link(raw)
    // The first image: a thumbnail, media or iTunes image, or else an image enclosure (no array is made
    // for the few candidates: this runs for every item).
    let image =
      raw.thumbnail ?? raw.mediaImage ?? raw.itunesImage
      ?? raw.enclosures.first { $0.type?.lowercased().hasPrefix("image/") ?? false }?.url
    return FeedNormalizer.item(
      id: raw.guid ?? raw.about, title: raw.title ?? raw.fallbackTitle, link: link,
      author: raw.author.flatMap(FeedNormalizer.author), categories: FeedNormalizer.categories(raw.categories),
      published: raw.pubDate ?? raw.dcDate ?? raw.issued, updated: raw.updated ?? raw.dcDate,
      summary: raw.summary, content: raw.content, enclosures: raw.enclosures,
      image: image)
  }
}
