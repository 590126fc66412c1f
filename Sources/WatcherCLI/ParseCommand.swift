// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherSupport
import WatcherXML

/// `watcher parse FILE|URL [--json]`: parse one feed and print the normalized items.
struct ParseCommand: Command {
  let name = "parse"
  let summary = "parse one feed (a file, an http(s) URL, or - for stdin) and print its normalized items"
  let positionals = Positionals.one("FILE|URL|-", "FILE, http(s) or file:// URL, or - for standard input")
  let options = [
    Options.json.described("print the stable JSON schema (share/doc/watcher/parse-json.md) instead of text"),
    Options.charset,
    Options.maxSize,
    Options.maxItems,
    Self.base,
    Self.jsonl,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let source = arguments.positionals[0]
    var options = FeedParser.Options(charset: arguments.value(Options.charset))
    if let bytes = arguments.count(Options.maxSize) { options.maxBytes = bytes }
    if let items = arguments.count(Options.maxItems) { options.maxItems = items }
    if !FeedLocation.isHTTP(source), source != "-" {
      let path = FeedLocation.path(of: source)
      let head = (try? ChunkedFile(path: path).read(upTo: 2_048)).map { Array($0) }
      if Self.wantsPage(arguments, bytes: head) {
        let bytes: [UInt8]
        switch ChunkedFile.readRegularFile(path, maxBytes: options.maxBytes) {
        case .read(let data): bytes = Array(data)
        case .missing:
          terminal.error("error: \(source): no such file")
          return .failure
        case .failed(let reason):
          terminal.error("error: \(source): cannot read the page: \(reason)")
          return .failure
        }
        let url = arguments.value(Self.base) ?? "file://" + path
        return Self.printPage(
          bytes, source: source, url: url, charset: arguments.value(Options.charset), arguments: arguments,
          terminal: terminal)
      }
    }
    let json = arguments.has(Options.json)
    let box = WriterBox(json: json, sink: terminal.outputBytes)
    // A file or standard input streams: each item is written as soon as it is read, so memory stays flat
    // whatever the input's size. Items are encoded on the parser's worker threads: ahead, in batches, or
    // here, as they are handed over. A URL's body (at most --max-size) is parsed whole.
    let encode = json ? FeedJSONWriter.encode : FeedTextWriter.encode
    let result: Result<[FeedWarning], FeedLoadError>
    if FeedLocation.isHTTP(source) {
      let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
      let loaded =
        Self.wantsPage(arguments, bytes: nil) ? nil : FeedLoader.load(source, options: options, transport: transport)
      // A page (asked for, or what the URL turned out to be): its list of posts.
      if loaded == nil || { if case .failure(.page) = loaded { true } else { false } }(),
        case .success(.page(_, _, let page, let pageURL)) = FeedLoader.loadOrDiscover(
          source, options: options, transport: transport)
      {
        return Self.printPage(
          page, source: source, url: arguments.value(Self.base) ?? pageURL, charset: arguments.value(Options.charset),
          arguments: arguments, terminal: terminal)
      }
      result = (loaded ?? FeedLoader.load(source, options: options, transport: transport))
        .map { parsed in
          box.begin(parsed.feed)
          for item in parsed.feed.items { box.item(item, encoded: nil) }
          return parsed.warnings
        }
    } else if source == "-" {
      var input = ReadingSource { Array(terminal.readInput($0)) }
      result = FeedLoader.stream(
        input: &input, options: options, header: { box.begin($0) }, encode: encode,
        item: { box.item($0, encoded: $1) }
      ).map(\.warnings)
    } else {
      result = FeedLoader.stream(
        FeedLocation.path(of: source), options: options, header: { box.begin($0) }, encode: encode,
        item: { box.item($0, encoded: $1) }
      ).map(\.warnings)
    }
    let warnings: [FeedWarning]
    switch result {
    case .success(let found): warnings = found
    case .failure(let error):
      terminal.error("error: \(source): \(Self.explain(error))")
      return .failure
    }
    box.end(warnings: warnings)
    if !json {
      for warning in warnings {
        let place = warning.line > 0 ? "\(source):\(warning.line):\(warning.column)" : source
        terminal.error("\(place): warning: \(warning.message)")
      }
    }
    return .success
  }

  /// The error, with the option that lifts the cap it ran into.
  private static func explain(_ error: any Error) -> String {
    switch error {
    case FeedParseError.tooLarge, FeedLoadError.parse(.tooLarge), FeedLoadError.fetch(.tooLarge):
      return "\(error) (--max-size BYTES raises it)"
    default: return "\(error)"
    }
  }
}

/// The writer of either output, shared by the streaming parse's two callbacks.
///
/// Each is mutated in place (`?.`): taken out of an enum to be changed, its buffer would be copied for every
/// item.
private final class WriterBox {
  var json: FeedJSONWriter?
  var text: FeedTextWriter?

  init(json: Bool, sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
    if json {
      self.json = FeedJSONWriter(sink: { $0.withUnsafeBufferPointer(sink) })
    } else {
      text = FeedTextWriter(sink: sink)
    }
  }

  func begin(_ feed: Feed) {
    json?.begin(feed)
    text?.begin(feed)
  }

  func item(_ item: FeedItem, encoded: [UInt8]?) {
    if let encoded {
      json?.item(encoded: encoded)
      text?.item(encoded: encoded)
    } else {
      json?.item(item)
      text?.item(encoded: FeedTextWriter.encode(item))
    }
  }

  func end(warnings: [FeedWarning]) {
    json?.end(warnings: warnings)
    text?.end()
  }
}

/// `watcher parse`'s readable summary, written item by item as the JSON is: the feed's title, format and
/// link; each item's date, title, link, author, categories and the first line of its text (cut to 120
/// characters); then how many items there were.
package struct FeedTextWriter {
  private let sink: (UnsafeBufferPointer<UInt8>) -> Void
  private var chunk: [UInt8] = []
  private var count = 0

  init(sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
    self.sink = sink
    chunk.reserveCapacity((1 << 16) + (1 << 12))
  }

  mutating func begin(_ feed: Feed) {
    var head = "\(feed.title ?? "(untitled feed)") [\(feed.format.rawValue)]"
    if let link = feed.link { head += " \(link)" }
    chunk += (head + "\n").utf8
  }

  mutating func item(encoded: [UInt8]) {
    chunk += encoded
    count += 1
    if chunk.count >= 1 << 16 {
      chunk.withUnsafeBufferPointer(sink)
      chunk.removeAll(keepingCapacity: true)
    }
  }

  mutating func end() {
    chunk += "\n\(count) item\(count == 1 ? "" : "s")\n".utf8
    chunk.withUnsafeBufferPointer(sink)
    chunk.removeAll()
  }

  /// One item's lines; safe to call on any thread.
  @Sendable static func encode(_ item: FeedItem) -> [UInt8] {
    let (first, cut) = item.text.map(firstLine) ?? ("", false)
    // Appended through a pointer (some twelve short pieces an item), then copied once into the array.
    let out = ByteBuffer(capacity: 320 + (item.title?.utf8.count ?? 0) + first.utf8.count)
    func put(_ text: some StringProtocol) {
      if text.utf8.withContiguousStorageIfAvailable({ out.append(bytes: $0.span) }) == nil {
        for byte in text.utf8 { out.append(byte) }
      }
    }
    /// An indented line: a label, the value, and what ends it.
    func line(_ label: StaticString, _ value: some StringProtocol, _ end: StaticString = "\n") {
      put("    ")
      out.append(bytes: UnsafeBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount).span)
      put(value)
      out.append(bytes: UnsafeBufferPointer(start: end.utf8Start, count: end.utf8CodeUnitCount).span)
    }
    out.append(10)
    if let published = item.published {
      // "2026-11-26T08:15:00Z" as "2026-11-26 08:15".
      let start = out.byteCount
      var date = out  // the same buffer (a class), as the inout the encoder takes
      ISODate.append(published, to: &date)
      out.truncate(to: start + 16)
      if out.byteCount > start + 10 { out[start + 10] = UInt8(ascii: " ") }
    } else {
      put("(no date)       ")
    }
    put("  ")
    put(item.title ?? "(untitled)")
    out.append(10)
    if let link = item.link { line("", link) }
    if let author = item.author { line("by ", author) }
    if let category = item.categories.first {
      line("categories: ", category, "")
      for category in item.categories.dropFirst() {
        put(", ")
        put(category)
      }
      out.append(10)
    }
    if item.text != nil { line("", first, cut ? "…\n" : "\n") }
    return out.array
  }

  /// The text's first line, and whether it is cut (after 119 characters, when longer than 120).
  ///
  /// An ellipsis goes in place of what is cut. Only the first 120 characters are ever counted.
  package static func firstLine(of text: String) -> (line: Substring, cut: Bool) {
    let newline = text.withUTF8Span { ByteScanning.firstIndex(of: 10, or: 10, in: $0) }
    let line = text[..<text.utf8.index(text.startIndex, offsetBy: newline)]
    // A character is at least one byte.
    if newline <= 120 { return (line, false) }
    // Where the 120th character starts, found from the bytes: two scalars below U+0300 (ASCII, Latin-1,
    // Latin Extended, IPA: lead bytes below 0xCC) always have a character boundary between them (no
    // combining mark, joiner, regional indicator, Hangul or prepended mark is among them; a CR could join
    // only the LF, which ends the line). So in a run of such scalars each is a character of its own but the
    // last, which what follows may join: that one, or a character that starts with any other scalar, is
    // walked by Swift's own grapheme breaking.
    let end = text.withUTF8Span {
      $0.withUnsafeBufferPointer { bytes -> Int in
        var offset = 0
        var needed = 119
        while needed > 0, offset < newline {
          var index = offset
          var leads = 0
          var last = offset
          while index < newline {
            let byte = bytes[index]
            if byte >= 0xCC { break }
            if byte & 0xC0 != 0x80 {
              if leads == needed { return index }
              leads += 1
              last = index
            }
            index += 1
          }
          if leads > 0 {
            needed -= leads - 1
            offset = last
          }
          let here = text.utf8.index(text.startIndex, offsetBy: offset)
          offset = text.utf8.distance(from: text.startIndex, to: line.index(after: here))
          needed -= 1
        }
        return offset
      }
    }
    let cut = text.utf8.index(text.startIndex, offsetBy: end)
    // Whole when at most one character follows the first 119.
    guard cut < line.endIndex, line.index(after: cut) < line.endIndex else { return (line, false) }
    return (line[..<cut], true)
  }
}
