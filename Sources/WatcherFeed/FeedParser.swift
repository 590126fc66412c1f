// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// Parses any supported feed into the normalized model: the entry point of the Feed layer.
///
/// The format is sniffed from the content: JSON Feed when the document starts with `{`, else XML (RSS,
/// RDF, Atom) read by `XMLStreamParser`. The input is decoded to UTF-8 first (`InputDecoder`).
public enum FeedParser {
  /// Limits and context for one parse.
  public struct Options: Sendable {
    /// The largest document accepted, in bytes (default 20 MB).
    public var maxBytes: Int
    /// The most bytes kept of one text field (title, summary, content); longer ones are cut with a warning.
    public var maxFieldBytes: Int
    /// The most items read from one document; later ones are ignored with a warning (default 10,000).
    public var maxItems: Int
    /// The most categories kept per item (default 100).
    public var maxCategories: Int
    /// The document's URL, when it came from one: relative links are resolved against it.
    public var documentURL: String?
    /// The charset the transport reported (HTTP `Content-Type`), used when the document declares none.
    public var charset: String?
    /// Item keys already known (a poll's state): an item whose id or link gives one of them is read for its
    /// identity only (id and link; no HTML to text, no other field), since nothing else of it is used.
    public var knownKeys: Set<String>?
    /// Every item is read for its identity only (id and link) when it has one: for a pass that acts on
    /// none of them (catch-up, a silent first poll).
    public var identityOnly = false

    /// Creates options; the defaults suit feeds from the web.
    public init(
      maxBytes: Int = 20_000_000, maxFieldBytes: Int = 1_048_576, maxItems: Int = 10_000, maxCategories: Int = 100,
      documentURL: String? = nil, charset: String? = nil, knownKeys: Set<String>? = nil
    ) {
      self.knownKeys = knownKeys
      self.maxBytes = maxBytes
      self.maxFieldBytes = maxFieldBytes
      self.maxItems = maxItems
      self.maxCategories = maxCategories
      self.documentURL = documentURL
      self.charset = charset
    }
  }

  /// Parses a document held in memory.
  public static func parse(_ data: Data, options: Options = Options()) throws(FeedParseError) -> ParsedFeed {
    guard data.count <= options.maxBytes else { throw .tooLarge(limit: options.maxBytes) }
    let result: Result<ParsedFeed, FeedParseError> = data.withUnsafeBytes { raw in
      do {
        let bytes = raw.bindMemory(to: UInt8.self)
        if let parsed = try parseWhole(bytes, data: data, options: options) { return .success(parsed) }
        let (encoding, bom) = InputDecoder.sniff(bytes.span, charsetHint: options.charset)
        return .success(
          try parseXML(UnsafeBufferPointer(rebasing: bytes[bom...]), encoding: encoding, options: options))
      } catch let error as FeedParseError {
        return .failure(error)
      } catch {
        return .failure(.notAFeed(found: "\(error)"))
      }
    }
    return try result.get()
  }

  /// Reads and parses a file.
  ///
  /// UTF-8 XML is parsed as it is read, in 64 KiB chunks, so a large feed never sits in memory whole; at most
  /// `maxBytes` are read.
  public static func parse(contentsOf path: String, options: Options = Options()) throws -> ParsedFeed {
    // The streaming parse, its items kept.
    var items: [FeedItem] = []
    let streamed = try stream(contentsOf: path, options: options, header: { _ in }, item: { items.append($0) })
    var feed = streamed.feed
    feed.items = items
    return ParsedFeed(feed: feed, warnings: streamed.warnings)
  }

  /// What a streaming parse found besides its items.
  public struct Streamed: Sendable {
    /// The feed's title, link and format (its items went to the callback).
    public var feed: Feed
    /// Everything worth reporting, as `ParsedFeed.warnings`.
    public var warnings: [FeedWarning]
    /// How many items were handed over.
    public var items: Int
  }

  /// Parses a file like `parse(contentsOf:)`, but hands each item to `item` as soon as it is normalized,
  /// in document order, instead of keeping them: memory stays flat whatever the file's size.
  ///
  /// `header` is called once before the first item (or at the end, for a feed without items) with the
  /// feed's title, link and format as read by then (feeds give them before their items).
  public static func stream(
    contentsOf path: String, options: Options = Options(), header: @escaping (Feed) -> Void,
    item: @escaping (FeedItem) -> Void
  ) throws -> Streamed {
    try stream(contentsOf: path, options: options, header: header, encode: nil) { each, _ in item(each) }
  }

  /// `stream(contentsOf:)` that also encodes items with `encode` on the parser's worker threads (off the
  /// thread that reads the XML), and hands the result over with the item.
  ///
  /// Items that wait for earlier ones are encoded ahead; an item handed over as soon as it is ready (on a
  /// worker thread already) comes without bytes, and `item` encodes it itself, in place, with no
  /// allocation of its own. An item that changed after it was encoded (its categories cut to the limit, or
  /// its key told apart from an earlier item's) is encoded again before it is handed over.
  public static func stream(
    contentsOf path: String, options: Options = Options(), header: @escaping (Feed) -> Void,
    encode: (@Sendable (FeedItem) -> [UInt8])?, item: @escaping (FeedItem, [UInt8]?) -> Void
  ) throws -> Streamed {
    var file = try ChunkedFile(path: path)
    if file.size > options.maxBytes { throw FeedParseError.tooLarge(limit: options.maxBytes) }
    return try stream(&file, options: options, header: header, encode: encode, item: item)
  }

  /// Parses a body received in pieces (`FetchResponse.pieces`) like `parse(_:)`, releasing each piece once
  /// it has been read: a 20 MB body and the items it holds are never in memory whole at the same time.
  public static func parse(pieces: consuming [Data], options: Options = Options()) throws(FeedParseError)
    -> ParsedFeed
  {
    var items: [FeedItem] = []
    var source = DataPieces(consume pieces)
    do {
      let streamed = try stream(&source, options: options, header: { _ in }, encode: nil) { each, _ in
        items.append(each)
      }
      var feed = streamed.feed
      feed.items = items
      return ParsedFeed(feed: feed, warnings: streamed.warnings)
    } catch let error as FeedParseError {
      throw error
    } catch {
      throw .notAFeed(found: "\(error)")
    }
  }

  /// The streaming parse behind `stream(contentsOf:)` and `parse(pieces:)`, from any source of bytes; at
  /// most `options.maxBytes` of it are read.
  package static func stream(
    _ file: inout some ByteSource, options: Options, header: @escaping (Feed) -> Void,
    encode: (@Sendable (FeedItem) -> [UInt8])?, item: @escaping (FeedItem, [UInt8]?) -> Void
  ) throws -> Streamed {
    var head = try file.read(upTo: 64 * 1_024)
    let htmlHead = FeedDiscovery.looksLikeHTML(Data(head.prefix(2_048)))
    let (encoding, bom) = InputDecoder.sniff(head.span, charsetHint: options.charset)
    guard isStreamable(head, encoding: encoding, bom: bom) else {
      if opensJSON(head, at: textStart(head)), let chunked = file as? ChunkedFile {
        // A JSON Feed file is read a value at a time from the file itself, never whole in memory.
        try chunked.rewind()
        do {
          var json = try JSONWindow(file: chunked, limit: options.maxBytes)
          if let streamed = try streamJSON(&json, options: options, header: header, encode: encode, item: item) {
            return streamed
          }
        } catch let error as JSONWindow.TooLarge {
          throw FeedParseError.tooLarge(limit: error.limit)
        }
        // One the strict reader refuses: whole, for `parse` to say what is wrong.
        try chunked.rewind()
        head = try chunked.readRest(after: [], limit: options.maxBytes)
      } else {
        // JSON, gzip, other encodings from other sources: parsed whole, then handed over (a JSON Feed's
        // items one by one). In pieces, into room for the whole: never the document twice in memory.
        head = try file.readRest(after: head, limit: options.maxBytes)
        var json = JSONWindow(bytes: head)
        if head.count <= options.maxBytes, opensJSON(head, at: textStart(head)),
          let streamed = try? streamJSON(&json, options: options, header: header, encode: encode, item: item)
        {
          return streamed
        }
      }
      let parsed = try parse(Data(head), options: options)
      var feed = parsed.feed
      feed.items = []
      header(feed)
      for each in parsed.feed.items { item(each, encode?(each)) }
      return Streamed(feed: feed, warnings: parsed.warnings, items: parsed.feed.items.count)
    }
    var finisher = ItemFinisher(options: options)
    var handed = 0
    var reader: XMLFeedReader?
    // The sink's `header` reads the reader, which holds the sink: let go of the reader on every way out,
    // or the two keep each other (a parse that found no feed root, an HTML page, leaked 4 KB each time).
    defer { reader = nil }
    var sentHeader = false
    func sendHeader(_ feed: Feed?) {
      guard !sentHeader, var feed else { return }
      sentHeader = true
      feed.items = []
      feed.title = feed.title.map(ControlCharacters.replaced)
      feed.link = feed.link.map(ControlCharacters.replaced)
      header(feed)
    }
    let sink = ItemSink(encode: encode) { finished, encoded in
      guard let changed = finisher.finish(prepared: &finished) else { return }
      handed += 1
      item(finished, changed ? encode?(finished) : encoded)
    }
    sink.header = { reader?.header() }
    sink.beforeFirst = { sendHeader($0) }
    let xml = XMLFeedReader(
      documentURL: options.documentURL, maxFieldBytes: options.maxFieldBytes, sink: sink,
      known: KnownItems.filter(options))
    reader = xml
    var total = head.count
    var repairer = UTF8ChunkRepairer()
    var headDone = false
    let (feed, xmlWarnings) = try xml.read { (out: inout [UInt8]) throws -> Bool in
      if !headDone {
        headDone = true
        // The first piece counts too: a reader that needs no more than it must still refuse it.
        if total > options.maxBytes { throw FeedParseError.tooLarge(limit: options.maxBytes) }
        repairer.process(head.span.extracting(bom...), isLast: false) { out.append(bytes: $0) }
        head = []
        return true
      }
      let chunk = try file.read(upTo: 64 * 1_024)
      total += chunk.count
      if total > options.maxBytes { throw FeedParseError.tooLarge(limit: options.maxBytes) }
      let more = !chunk.isEmpty
      Self.repair(chunk, with: &repairer, into: &out)
      return more
    }
    let parsed = try finishedXML(
      feed, warnings: xmlWarnings, repairer: repairer, reader: xml, options: options, html: htmlHead)
    sendHeader(parsed.feed)
    return Streamed(feed: parsed.feed, warnings: parsed.warnings + finisher.warnings, items: handed)
  }

  /// A JSON Feed document's items finished and handed over one at a time as they are read
  /// (`JSONFeedParser.stream`); nil when it is not one the strict reader takes, for `parse` to read.
  private static func streamJSON(
    _ json: inout JSONWindow, options: Options, header: (Feed) -> Void, encode: (@Sendable (FeedItem) -> [UInt8])?,
    item: @escaping (FeedItem, [UInt8]?) -> Void
  ) throws(JSONWindow.TooLarge) -> Streamed? {
    var finisher = ItemFinisher(options: options)
    var handed = 0
    // As the XML parse: items normalized, prepared and encoded on the workers, finished here in order.
    let sink = ItemSink(encode: encode) { finished, encoded in
      guard let changed = finisher.finish(prepared: &finished) else { return }
      handed += 1
      item(finished, changed ? encode?(finished) : encoded)
    }
    var pipeline: ItemPipeline<JSONFeedItem>?
    var sent: Feed?
    let warnings = try JSONFeedParser.stream(
      &json,
      header: { feed in
        let base = feed.link
        pipeline = ItemPipeline(sink: sink) { JSONFeedParser.item($0, base: base) }
        var feed = feed
        feed.title = feed.title.map(ControlCharacters.replaced)
        feed.link = feed.link.map(ControlCharacters.replaced)
        sent = feed
        header(feed)
      },
      item: { pipeline?.add($0) })
    _ = pipeline?.finish()
    guard let warnings, let feed = sent else { return nil }
    return Streamed(feed: feed, warnings: warnings + finisher.warnings, items: handed)
  }

  /// Appends `chunk`, cleaned, to `out` (empty); an empty chunk is the last.
  ///
  /// Most chunks need no repair and the repairer passes them through whole but for a tail it carries over:
  /// `out` then takes the chunk's storage instead of a copy of it.
  private static func repair(
    _ chunk: consuming [UInt8], with repairer: inout UTF8ChunkRepairer, into out: inout [UInt8]
  ) {
    var pieces = 0
    var prefix = -1
    chunk.withUnsafeBufferPointer { all in
      repairer.process(all.span, isLast: all.isEmpty) { piece in
        pieces += 1
        if pieces == 1, out.isEmpty, piece.withUnsafeBufferPointer({ $0.baseAddress }) == all.baseAddress {
          prefix = piece.count
        } else {
          if prefix >= 0 {
            // Not a prefix alone after all: copied as usual.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: all[..<prefix]))
            prefix = -1
          }
          out.append(bytes: piece)
        }
      }
    }
    guard prefix >= 0 else { return }
    // Consumed, so the array is unique and the tail goes without a copy.
    out = consume chunk
    out.removeSubrange(prefix...)
  }

  /// Whether a file's first chunk starts UTF-8 XML, which is parsed as it is read.
  private static func isStreamable(_ head: [UInt8], encoding: String, bom: Int) -> Bool {
    encoding == "utf-8"
      && head.withUnsafeBufferPointer { first in
        let rest = UnsafeBufferPointer(rebasing: first[bom...])
        guard let lead = rest.first(where: { $0 != 32 && !(9...13).contains($0) }) else { return false }
        return lead == UInt8(ascii: "<")
      }
  }

  /// Where a document's text starts: past a UTF-8 byte-order mark and whitespace.
  private static func textStart<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Int
  where Bytes.Index == Int {
    var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while i < bytes.count, bytes[i] == 32 || (9...13).contains(bytes[i]) { i += 1 }
    return i
  }

  /// Whether the text at `i` opens a JSON object or array (in UTF-16 a zero byte would follow).
  private static func opensJSON<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at i: Int) -> Bool
  where Bytes.Index == Int {
    i + 1 < bytes.count && (bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[")) && bytes[i + 1] != 0
  }

  /// JSON Feed and gzip, which are parsed whole; `nil` for XML.
  private static func parseWhole(_ bytes: UnsafeBufferPointer<UInt8>, data: Data, options: Options) throws
    -> ParsedFeed?
  {
    let i = textStart(bytes)
    guard i < bytes.count else { throw FeedParseError.empty }
    if opensJSON(bytes, at: i) {
      let (feed, warnings) = try JSONFeedParser.parse(i == 0 ? data : Data(bytes[i...]))
      return finished(feed, warnings: warnings, options: options)
    }
    if Gzip.isGzip(bytes) {
      // A saved .gz feed, or a server that compressed twice.
      guard let inflated = try Gzip.decompress(bytes, limit: options.maxBytes) else {
        throw FeedParseError.notAFeed(found: "corrupt gzip-compressed data")
      }
      var parsed = try parse(inflated, options: options)
      parsed.warnings.insert(FeedWarning(message: "the document was gzip-compressed"), at: 0)
      return parsed
    }
    return nil
  }

  /// Parses XML bytes in `encoding` (after any byte-order mark).
  private static func parseXML(_ bytes: UnsafeBufferPointer<UInt8>, encoding: String, options: Options) throws
    -> ParsedFeed
  {
    var converted: [UInt8]?
    var warnings: [FeedWarning] = []
    var encoding = encoding
    if encoding == "windows-1252", InputDecoder.isMultibyteUTF8(bytes.span) {
      // Declared Latin-1 but valid UTF-8 with multi-byte characters: the declaration is wrong (valid UTF-8
      // by accident is vanishingly rare in Latin text).
      warnings.append(FeedWarning(message: "the document declares a Latin-1 encoding but is UTF-8; read as UTF-8"))
      encoding = "utf-8"
    }
    if encoding != "utf-8" {
      let (utf8, warning) = InputDecoder.convert(bytes.span, from: encoding)
      converted = utf8
      if let warning { warnings.append(warning) }
    }
    var repairer = UTF8ChunkRepairer()
    let reader = XMLFeedReader(
      documentURL: options.documentURL, maxFieldBytes: options.maxFieldBytes, known: KnownItems.filter(options))
    func read(_ all: UnsafeBufferPointer<UInt8>) -> (Feed?, [FeedWarning]) {
      var offset = 0
      return reader.read { out in
        let end = min(all.count, offset + 64 * 1_024)
        let piece = UnsafeBufferPointer(rebasing: all[offset..<end])
        repairer.process(piece.span, isLast: end == all.count) { out.append(bytes: $0) }
        offset = end
        return offset < all.count
      }
    }
    let (feed, xmlWarnings) = if let converted { converted.withUnsafeBufferPointer(read) } else { read(bytes) }
    var parsed = try finishedXML(
      feed, warnings: xmlWarnings, repairer: repairer, reader: reader, options: options,
      html: FeedDiscovery.looksLikeHTML(Data(UnsafeBufferPointer(rebasing: bytes.prefix(2_048)))))
    parsed.warnings.insert(contentsOf: warnings, at: 0)
    return parsed
  }

  private static func finishedXML(
    _ feed: consuming Feed?, warnings: [FeedWarning], repairer: UTF8ChunkRepairer, reader: XMLFeedReader,
    options: Options, html: Bool
  ) throws(FeedParseError) -> ParsedFeed {
    guard let feed = feed.take() else {
      // `<!doctype html>` in lower case stops an XML parser before the first element.
      if html, reader.firstElement == nil { throw .notAFeed(found: "an HTML page") }
      throw .notAFeed(found: describe(firstElement: reader.firstElement, sawMarkup: repairer.sawMarkup))
    }
    var all = warnings
    if repairer.escapedAmpersands > 0 {
      all.insert(
        FeedWarning(
          message: "\(repairer.escapedAmpersands) '&' did not start a known entity and were kept as text"), at: 0)
    }
    if repairer.invalidBytes > 0 {
      all.insert(
        FeedWarning(message: "\(repairer.invalidBytes) byte(s) were not valid UTF-8 and were read as windows-1252"),
        at: 0)
    }
    return finished(feed, warnings: all, options: options, prepared: true)
  }

  /// Applies the item and category limits, replaces control characters, then gives every item its key.
  ///
  /// `prepared`: the items come from the XML pipeline, which did `ItemFinisher.prepare` already.
  ///
  /// The items are finished in place, never copied (a copy retains every field); those past `maxItems`
  /// are all at the end.
  private static func finished(
    _ feed: consuming Feed, warnings: [FeedWarning], options: Options, prepared: Bool = false
  ) -> ParsedFeed {
    var feed = feed
    var finisher = ItemFinisher(options: options)
    var items: [FeedItem] = []
    swap(&items, &feed.items)
    var kept = items.count
    for index in items.indices {
      let keep = prepared ? finisher.finish(prepared: &items[index]) != nil : finisher.finish(&items[index])
      if !keep, kept == items.count { kept = index }
    }
    items.removeSubrange(kept...)
    feed.items = items
    feed.title = feed.title.map(ControlCharacters.replaced)
    feed.link = feed.link.map(ControlCharacters.replaced)
    return ParsedFeed(feed: feed, warnings: warnings + finisher.warnings)
  }

  /// What happens to each item after it is normalized, one at a time: the item limit, the category limit,
  /// control characters, and its key.
  struct ItemFinisher {
    let options: Options
    private(set) var seen = 0
    private var cut = 0
    private var keys = FeedIdentity.KeyAssigner()

    init(options: Options) {
      self.options = options
    }

    /// The part of finishing that depends on no other item, so the pipeline's workers do it: control
    /// characters replaced, and `key` set to the base key.
    static func prepare(_ item: inout FeedItem) {
      ControlCharacters.clean(&item)
      item.key = FeedIdentity.baseKey(item)
    }

    /// Finishes `item`; false when it is past `maxItems` and is dropped.
    mutating func finish(_ item: inout FeedItem) -> Bool {
      Self.prepare(&item)
      return finish(prepared: &item) != nil
    }

    /// Finishes an item `prepare` has seen, in document order: nil when it is past `maxItems` and is
    /// dropped, else whether it changed (categories cut, or a key told apart from an earlier item's).
    mutating func finish(prepared item: inout FeedItem) -> Bool? {
      seen += 1
      guard seen <= options.maxItems else { return nil }
      var changed = false
      if item.categories.count > options.maxCategories {
        cut += 1
        item.categories.removeSubrange(options.maxCategories...)
        changed = true
      }
      return keys.assign(&item, base: item.key) || changed
    }

    /// The warnings about what the limits cut.
    var warnings: [FeedWarning] {
      var warnings: [FeedWarning] = []
      if seen > options.maxItems {
        warnings.append(
          FeedWarning(
            message: "the feed has \(seen) items; only the first \(options.maxItems) were read (max_items)"))
      }
      if cut > 0 {
        warnings.append(
          FeedWarning(
            message: "\(cut) item(s) had more than \(options.maxCategories) categories; the rest were ignored"))
      }
      return warnings
    }
  }

  /// What a document that is not a feed holds, in words.
  private static func describe(firstElement: String?, sawMarkup: Bool) -> String {
    if let name = firstElement {
      if name.lowercased() == "html" || name.lowercased().hasPrefix("html ") { return "an HTML page" }
      return "XML whose root element is <\(name)>, not rss, RDF or feed"
    }
    return sawMarkup ? "a document with no elements" : "text or binary data that is not XML or JSON"
  }
}
