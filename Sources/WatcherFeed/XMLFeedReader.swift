// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// A format's reader of XML elements (`RSSParser`, `AtomParser`).
package protocol FeedElementParser: AnyObject {
  /// An element inside the feed starts.
  func start(_ tag: FeedTag, attributes: XMLAttributes) -> XMLCapture
  /// An element inside the feed ends, with its captured text.
  func end(_ tag: FeedTag, text: String?)
  /// The normalized feed, once the document is read.
  func finish() -> Feed
  /// The feed's title, link and format as read so far (no items).
  func header() -> Feed
}

/// Finds the feed's root element, picks the format's parser, and hands it the elements inside.
///
/// The root may be nested (an Atom feed wrapped in an XHTML page); elements before it are skipped. When the
/// document has no feed root at all, `found` says what it had instead.
package final class XMLFeedReader: XMLFeedHandler {
  /// The format's parser, once the root is found.
  private var parser: (any FeedElementParser)?
  /// The same, called for every element without reference counting (a strong reference read for each call
  /// was a retain and a release of it, for each start and end of an element); `parser` keeps it alive
  /// (`Unretained`).
  private var current: Current = .none
  private enum Current {
    case none
    case rss(Unretained<RSSParser>)
    case atom(Unretained<AtomParser>)
  }
  private var rootDepth = 0
  private var depth = 0
  private var done = false
  private var rootIsEntry = false
  /// Whether an element in the Netscape RSS 0.90 namespace was seen (RDF roots are 0.90 or 1.0).
  private var sawRSS090 = false
  /// The first element's name, for the "not a feed" message.
  package private(set) var firstElement: String?
  private var documentURL: String?
  private let maxFieldBytes: Int
  private var stream: XMLStreamParser?

  private let sink: ItemSink?
  private let known: KnownItems.Filter?
  private let foldsReferences: Bool
  private let minimumRun: Int

  /// Creates a reader; tests compare its options (see `XMLStreamParser`).
  ///
  /// `foldsReferences: false` reads the document exactly as written, and `minimumRun` sets the shortest run
  /// of text decoded before libxml2 reads the document (0: none).
  package init(
    documentURL: String?, maxFieldBytes: Int, sink: ItemSink? = nil, known: KnownItems.Filter? = nil,
    foldsReferences: Bool = true, minimumRun: Int = XMLStreamParser.defaultMinimumRun
  ) {
    self.foldsReferences = foldsReferences
    self.minimumRun = minimumRun
    self.documentURL = documentURL
    self.maxFieldBytes = maxFieldBytes
    self.sink = sink
    self.known = known
  }

  /// The feed's title, link and format as read so far.
  package func header() -> Feed? {
    var feed = parser?.header()
    if feed?.format == .rss10, sawRSS090 { feed?.format = .rss090 }
    return feed
  }

  /// Parses the UTF-8 document `fill` delivers piece by piece (see `XMLStreamParser.parse`); `nil` feed
  /// when it has no feed root.
  package func read<Failure: Error>(_ fill: (inout [UInt8]) throws(Failure) -> Bool) throws(Failure) -> (
    Feed?, [FeedWarning]
  ) {
    // The format parsers keep an unowned reference to the stream; the reader keeps it alive.
    let stream = XMLStreamParser(
      handler: self, documentURL: documentURL, maxFieldBytes: maxFieldBytes, foldsReferences: foldsReferences,
      minimumRun: minimumRun)
    self.stream = stream
    // The stream holds this reader (its handler) strongly while it parses; let go of it after, so the two
    // do not keep each other.
    defer { self.stream = nil }
    try stream.parse(fill)
    var feed = parser?.finish()
    if feed?.format == .rss10, sawRSS090 { feed?.format = .rss090 }
    return (feed, stream.warnings)
  }

  package func tag(for localName: String, namespace: XMLNamespace) -> Int {
    if namespace == .rss090 { sawRSS090 = true }
    if firstElement == nil {
      firstElement = namespace == .none ? localName : "\(localName) (\(namespace))"
    }
    return FeedTag(localName: localName, namespace: namespace).rawValue
  }

  package func start(_ raw: Int, attributes: XMLAttributes) -> XMLCapture {
    depth += 1
    let tag = FeedTag(rawValue: raw)
    if parser != nil { return done ? .none : startInParser(tag, attributes: attributes) }
    guard let stream, let (format, kind) = Self.root(tag, attributes: attributes) else { return .none }
    rootDepth = depth
    switch kind {
    case .rss:
      let rss = RSSParser(format: format, reader: stream, sink: sink, known: known)
      parser = rss
      current = .rss(Unretained(rss))
    case .atom(let acceptsCore, let entry):
      let atom = AtomParser(format: format, acceptsCore: acceptsCore, reader: stream, sink: sink, known: known)
      parser = atom
      current = .atom(Unretained(atom))
      // A lone Atom entry is its own root: it is passed in like any entry.
      rootIsEntry = entry
      if entry { return atom.start(tag, attributes: attributes) }
    }
    return .none
  }

  package func end(_ raw: Int, text: String?) {
    defer { depth -= 1 }
    guard !done else { return }
    let tag = FeedTag(rawValue: raw)
    if depth == rootDepth {
      guard parser != nil else { return }
      if rootIsEntry { endInParser(tag, text: text) }
      done = true
      stream?.stop()
      return
    }
    endInParser(tag, text: text)
  }

  /// `start` of the format's parser, if there is one yet.
  @inline(__always)
  private func startInParser(_ tag: FeedTag, attributes: XMLAttributes) -> XMLCapture {
    switch current {
    case .rss(let rss): rss.with { $0.start(tag, attributes: attributes) }
    case .atom(let atom): atom.with { $0.start(tag, attributes: attributes) }
    case .none: .none
    }
  }

  /// `end` of the format's parser, if there is one yet.
  @inline(__always)
  private func endInParser(_ tag: FeedTag, text: String?) {
    switch current {
    case .rss(let rss): rss.with { $0.end(tag, text: text) }
    case .atom(let atom): atom.with { $0.end(tag, text: text) }
    case .none: break
    }
  }

  private enum Kind {
    case rss
    case atom(acceptsCore: Bool, entry: Bool)
  }

  /// The format a root element starts, or `nil` when it is not a feed root.
  private static func root(_ tag: FeedTag, attributes: XMLAttributes) -> (FeedFormat, Kind)? {
    switch (tag.vocabulary, tag.name) {
    case (.core, .rss):
      let version = attributes.value("version")?.trimming(.spaces) ?? ""
      let format: FeedFormat =
        switch version {
        case "0.91": .rss091
        case "0.92": .rss092
        case "0.93": .rss093
        case "0.94": .rss094
        case "0.90", "0.9": .rss090
        default: .rss20
        }
      return (format, .rss)
    case (.rdf, .RDF), (.core, .RDF), (.other, .RDF):
      return (.rss10, .rss)
    case (.core, .channel):
      return (.rss20, .rss)
    case (.atom, .feed):
      let version = attributes.value("version")
      return (version == "0.3" ? .atom03 : .atom10, .atom(acceptsCore: false, entry: false))
    case (.core, .feed), (.other, .feed):
      return (attributes.value("version") == "0.3" ? .atom03 : .atom10, .atom(acceptsCore: true, entry: false))
    case (.atom, .entry):
      return (.atom10, .atom(acceptsCore: false, entry: true))
    default:
      return nil
    }
  }
}
