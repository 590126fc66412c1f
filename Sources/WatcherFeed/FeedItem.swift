// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc

/// One item (RSS item, Atom entry, JSON Feed item) in the normalized model.
///
/// Strings are `nil` when the feed gives nothing (never empty). Text fields are plain text with entities
/// decoded and whitespace collapsed; `html` keeps the markup.
public struct FeedItem: Sendable, Equatable {
  /// The identity used for novelty: the id, else the link, else a stable hash of title, date and
  /// text; a repeated identity within one feed gets a deterministic `#2`, `#3`, … suffix.
  public var key: String
  /// The id exactly as the feed gives it (whitespace trimmed): RSS `guid`, RDF `rdf:about`, Atom `id`,
  /// JSON Feed `id`.
  public var id: String?
  /// Title as plain text: RSS/Atom `title` (HTML stripped when it is HTML), JSON Feed `title`.
  public var title: String?
  /// The item's web page: RSS `link`, else `atom:link rel=alternate`, else a permalink `guid` that is an http(s) URL.
  ///
  /// Atom `link rel=alternate` (text/html preferred); JSON Feed `url`, else `external_url`. Resolved against
  /// `xml:base` and the document URL when known.
  public var link: String?
  /// The first author's name: RSS `author` ("mail (Name)" gives Name), `dc:creator`, `itunes:author`;
  /// Atom `author/name`; JSON Feed `authors[0].name` or `author.name`.
  public var author: String?
  /// Categories in document order without duplicates: RSS `category`, `dc:subject`; Atom `category`
  /// `term` (else `label`); JSON Feed `tags`.
  public var categories: [String]
  /// When the item was published: RSS `pubDate`, else `dc:date`/`dcterms:issued`/`dcterms:created`.
  ///
  /// Atom `published` (0.3: `issued`); JSON Feed `date_published`. When none is given, `updated` stands in.
  public var published: Date?
  /// When the item was last updated: Atom `updated` (0.3: `modified`), `dc:date`, `dcterms:modified`;
  /// JSON Feed `date_modified`.
  public var updated: Date?
  /// Plain text of the summary (RSS `description`, Atom `summary`, JSON Feed `summary`), falling back to the content (`content:encoded`, Atom `content`, JSON `content_html`/`content_text`) and then to `media:description`.
  ///
  /// Paragraphs are separated by a line break.
  public var text: String?
  /// The richest HTML the item carries: the content if any, else the summary.
  public var html: String?
  /// Attachments: RSS `enclosure`, Atom `link rel=enclosure`, JSON Feed `attachments`.
  public var enclosures: [Enclosure]
  /// An image for the item: `media:thumbnail`, an image `media:content`, `itunes:image`, an image
  /// enclosure; JSON Feed `image`, else `banner_image`.
  public var image: String?
  /// The main text of the article the item links to, when its feed asks for the full text (`full_text`);
  /// never set by parsing.
  public var content: String?

  /// Creates an item from its parts.
  public init(
    key: String, id: String? = nil, title: String? = nil, link: String? = nil, author: String? = nil,
    categories: [String] = [], published: Date? = nil, updated: Date? = nil, text: String? = nil,
    html: String? = nil, enclosures: [Enclosure] = [], image: String? = nil
  ) {
    self.key = key
    self.id = id
    self.title = title
    self.link = link
    self.author = author
    self.categories = categories
    self.published = published
    self.updated = updated
    self.text = text
    self.html = html
    self.enclosures = enclosures
    self.image = image
  }
}

/// A file attached to an item (podcast audio, video, image).
public struct Enclosure: Sendable, Equatable {
  /// Where the file is.
  public var url: String
  /// Its MIME type, when given.
  public var type: String?
  /// Its size in bytes, when given and a valid number.
  public var length: Int?

  /// Creates an enclosure.
  public init(url: String, type: String? = nil, length: Int? = nil) {
    self.url = url
    self.type = type
    self.length = length
  }
}
