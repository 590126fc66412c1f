// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

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
    /// The document's URL, when it came from one: relative links are resolved against it.
    public var documentURL: String?
    /// The charset the transport reported (HTTP `Content-Type`), used when the document declares none.
    public var charset: String?

    /// Creates options; the defaults suit feeds from the web.
    public init(
      maxBytes: Int = 20_000_000, maxFieldBytes: Int = 1_048_576, documentURL: String? = nil, charset: String? = nil
    ) {
      self.maxBytes = maxBytes
      self.maxFieldBytes = maxFieldBytes
      self.documentURL = documentURL
      self.charset = charset
    }
  }

  /// Parses a document held in memory.
  public static func parse(_ data: Data, options: Options = Options()) throws(FeedParseError) -> ParsedFeed {
    guard data.count <= options.maxBytes else { throw .tooLarge(limit: options.maxBytes) }
    let result: Result<ParsedFeed, FeedParseError> = data.withUnsafeBytes { raw in
      do {
        return .success(try parse(bytes: raw.bindMemory(to: UInt8.self), data: data, options: options))
      } catch let error as FeedParseError {
        return .failure(error)
      } catch {
        return .failure(.notAFeed(found: "\(error)"))
      }
    }
    return try result.get()
  }

  /// Reads and parses a file, reading no more than `maxBytes + 1` bytes of it.
  public static func parse(contentsOf path: String, options: Options = Options()) throws -> ParsedFeed {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
    }
    defer { try? handle.close() }
    let data = try handle.read(upToCount: options.maxBytes + 1) ?? Data()
    return try parse(data, options: options)
  }

  private static func parse(bytes: UnsafeBufferPointer<UInt8>, data: Data, options: Options) throws -> ParsedFeed {
    var i = 0
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    while i < bytes.count, bytes[i] == 32 || (bytes[i] >= 9 && bytes[i] <= 13) { i += 1 }
    guard i < bytes.count else { throw FeedParseError.empty }
    let first = bytes[i]
    if (first == UInt8(ascii: "{") || first == UInt8(ascii: "[")) && i + 1 < bytes.count && bytes[i + 1] != 0 {
      let (feed, warnings) = try JSONFeedParser.parse(i == 0 ? data : Data(bytes[i...]))
      return finished(feed, warnings: warnings)
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
    let decoder = InputDecoder(bytes, charsetHint: options.charset)
    let reader = XMLFeedReader(documentURL: options.documentURL, maxFieldBytes: options.maxFieldBytes)
    var firstByte: UInt8 = 0
    let (feed, xmlWarnings) = decoder.withUTF8(of: bytes) { utf8 -> (Feed?, [FeedWarning]) in
      firstByte = utf8.first ?? 0
      guard firstByte == UInt8(ascii: "<") else { return (nil, []) }
      return reader.read(utf8)
    }
    guard let feed else {
      throw FeedParseError.notAFeed(found: describe(firstElement: reader.firstElement, firstByte: firstByte, bytes))
    }
    return finished(feed, warnings: decoder.warnings + xmlWarnings)
  }

  private static func finished(_ feed: Feed, warnings: [FeedWarning]) -> ParsedFeed {
    var feed = feed
    FeedIdentity.assignKeys(&feed.items)
    return ParsedFeed(feed: feed, warnings: warnings)
  }

  /// What a document that is not a feed holds, in words.
  private static func describe(firstElement: String?, firstByte: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
    if let name = firstElement {
      if name.lowercased() == "html" || name.lowercased().hasPrefix("html ") { return "an HTML page" }
      return "XML whose root element is <\(name)>, not rss, RDF or feed"
    }
    let sample = bytes.prefix(512)
    let binary = sample.contains { $0 == 0 || ($0 < 9) }
    if binary { return "binary data" }
    if firstByte != UInt8(ascii: "<") { return "text that is not XML or JSON" }
    return "a document with no elements"
  }
}
