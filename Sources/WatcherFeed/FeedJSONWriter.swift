// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherSupport
import WatcherXML

/// Writes a `ParsedFeed` in the stable `watcher parse --json` schema.
///
/// It streams through `sink` in chunks, so a 60 MB feed never needs its whole JSON in memory. The schema
/// (docs/parse-json.md):
///
/// ```
/// {"feed":{"title","link","format"},
///  "items":[{"key","id","title","link","author","categories":[],"published","updated","text","html",
///            "enclosures":[{"url","type","length"}],"image"}],
///  "warnings":["LINE:COL: message"]}
/// ```
/// Keys always appear in this order; a missing value is `null`; dates are ISO 8601 UTC to the second.
public struct FeedJSONWriter {
  private let sink: (Span<UInt8>) -> Void
  /// While writing item by item: the items written so far, and the bytes not yet handed to the sink (in
  /// one buffer for the whole document, so an item is encoded in place, with no allocation of its own).
  private var streamed = 0
  private var chunk = JSONBytes(ByteBuffer(capacity: (1 << 16) + (1 << 14)))

  /// Creates a writer that hands each encoded chunk to `sink`, in order, from where it is (valid only during
  /// the call: 64 KiB chunks of a 100 MB document are written, not copied into arrays).
  public init(sink: @escaping (Span<UInt8>) -> Void) {
    self.sink = sink
  }

  /// Writes the whole document.
  public mutating func write(_ parsed: ParsedFeed) {
    begin(parsed.feed)
    for item in parsed.feed.items { self.item(item) }
    end(warnings: parsed.warnings)
  }

  /// Starts a document written item by item (`item`, then `end`): its feed object and the items' `[`.
  public mutating func begin(_ feed: Feed) {
    var head = JSONBytes.array()
    head.raw("{\"feed\":{\"title\":")
    head.string(feed.title)
    head.raw(",\"link\":")
    head.string(feed.link)
    head.raw(",\"format\":")
    head.string(feed.format.rawValue)
    head.raw("},\"items\":[")
    sink(head.bytes.span)
    streamed = 0
    chunk.bytes.removeAll()
  }

  /// Writes the next item (buffered, and handed to the sink in chunks of about 64 KiB).
  public mutating func item(_ item: FeedItem) {
    chunk.item(item, first: streamed == 0)
    advance()
  }

  /// Writes the next item from its `encode`d bytes.
  public mutating func item(encoded: [UInt8]) {
    if streamed > 0 { chunk.raw(",") }
    chunk.bytes.append(bytes: encoded.span)
    advance()
  }

  /// One item as `item` writes it, without the comma that separates it from the one before; safe to call
  /// on any thread.
  @Sendable public static func encode(_ item: FeedItem) -> [UInt8] {
    // Room for the texts plus the rest, so the bytes are rarely moved as they grow.
    let estimate = (item.text?.utf8.count ?? 0) + (item.html?.utf8.count ?? 0) + (item.title?.utf8.count ?? 0)
    // Appended through a pointer, then copied once into the array.
    var bytes = JSONBytes(ByteBuffer(capacity: estimate + estimate / 8 + 512))
    bytes.item(item, first: true)
    return bytes.bytes.array
  }

  private mutating func advance() {
    streamed += 1
    if chunk.bytes.byteCount >= 65_536 { flush() }
  }

  /// Hands the buffered bytes to the sink, in place, and empties the buffer.
  private mutating func flush() {
    chunk.bytes.withBytes(sink)
    chunk.bytes.removeAll()
  }

  /// Ends a document started with `begin`: the warnings and the closing brackets.
  public mutating func end(warnings: [FeedWarning]) {
    chunk.raw("\n],\"warnings\":[")
    for (index, warning) in warnings.enumerated() {
      if index > 0 { chunk.raw(",") }
      chunk.string(warning.description)
    }
    chunk.raw("]}\n")
    flush()
  }

  /// One item as `watcher parse --json` prints it, with `extra` members added at the end (a hook's stdin
  /// adds its feed, rule and tags).
  public static func itemJSON(_ item: FeedItem, extra: [(String, JSONOutput)]) -> String {
    var bytes = encode(item)
    if bytes.last == UInt8(ascii: "}") { bytes.removeLast() }
    for (key, value) in extra {
      // The member as a one-member object, whose braces become the comma before it and nothing.
      let start = bytes.count
      JSONOutput.object([(key, value)]).write(to: &bytes)
      bytes[start] = UInt8(ascii: ",")
      bytes.removeLast()
    }
    bytes.append(UInt8(ascii: "}"))
    let skip = bytes.first == 10 ? 1 : 0
    return String(decoding: bytes[skip...], as: UTF8.self)
  }
}

extension JSONBytes where Out == [UInt8] {
  /// Bytes in an array, with room for a 64 KiB chunk.
  static func array(capacity: Int = 1 << 16) -> JSONBytes<[UInt8]> {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(capacity)
    return JSONBytes(bytes)
  }
}

/// JSON text being built: the item encoding and string escaping behind `FeedJSONWriter`.
private struct JSONBytes<Out: ByteAppender> {
  package var bytes: Out

  package init(_ bytes: Out) { self.bytes = bytes }

  /// One item on its own line, after a comma unless it is the document's `first`.
  package mutating func item(_ item: FeedItem, first: Bool) {
    if !first { raw(",") }
    raw("\n{\"key\":")
    string(item.key)
    raw(",\"id\":")
    string(item.id)
    raw(",\"title\":")
    string(item.title)
    raw(",\"link\":")
    string(item.link)
    raw(",\"author\":")
    string(item.author)
    raw(",\"categories\":[")
    for (k, category) in item.categories.enumerated() {
      if k > 0 { raw(",") }
      string(category)
    }
    raw("],\"published\":")
    date(item.published)
    raw(",\"updated\":")
    date(item.updated)
    raw(",\"text\":")
    string(item.text)
    raw(",\"html\":")
    string(item.html)
    raw(",\"enclosures\":[")
    for (k, enclosure) in item.enclosures.enumerated() {
      if k > 0 { raw(",") }
      raw("{\"url\":")
      string(enclosure.url)
      raw(",\"type\":")
      string(enclosure.type)
      raw(",\"length\":")
      raw(text: enclosure.length.map(String.init) ?? "null")
      raw("}")
    }
    raw("],\"image\":")
    string(item.image)
    if let content = item.content {
      raw(",\"content\":")
      string(content)
    }
    raw("}")
  }

  /// A date as an ISO 8601 string (or `null`), written straight into the bytes.
  package mutating func date(_ value: Date?) {
    guard let value else { return raw("null") }
    bytes.append(UInt8(ascii: "\""))
    ISODate.append(value, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
  }

  package mutating func raw(_ s: StaticString) {
    s.withUTF8Buffer { bytes.append(bytes: $0.span) }
  }

  /// Text that is JSON already, made at run time. (Not an overload of `raw(_:)`: a string literal would pick
  /// the `String` one, whose append is a loop over the string's UTF-8, for every key of every item.)
  package mutating func raw(text s: String) {
    s.withUTF8Span { bytes.append(bytes: $0) }
  }

  /// A JSON string (or `null`).
  package mutating func string(_ value: String?) {
    guard let value else {
      raw("null")
      return
    }
    JSONString.append(value, to: &bytes)
  }

}
