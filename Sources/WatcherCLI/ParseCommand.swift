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
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let source = arguments.positionals[0]
    var options = FeedParser.Options(charset: arguments.value(Options.charset))
    let limits = [(Options.maxSize, "bytes", \FeedParser.Options.maxBytes), (Options.maxItems, "items", \.maxItems)]
    for (option, unit, limit) in limits {
      guard let text = arguments.value(option) else { continue }
      guard let value = Int(text), value > 0 else {
        terminal.error("error: --\(option.name) needs a positive number of \(unit), not '\(text)'")
        return .usage
      }
      options[keyPath: limit] = value
    }
    // A file as JSON streams: each item is written as soon as it is read, so memory stays flat whatever
    // the file's size.
    if arguments.has(Options.json), source != "-", !FeedLocation.isHTTP(source) {
      let box = WriterBox(FeedJSONWriter(sink: terminal.output))
      // Items are encoded on the parser's worker threads: ahead, in batches, or here, as they are handed over.
      let result = FeedLoader.stream(
        FeedLocation.path(of: source), options: options, header: { box.writer.begin($0) },
        encode: FeedJSONWriter.encode,
        item: { item, encoded in
          if let encoded { box.writer.item(encoded: encoded) } else { box.writer.item(item) }
        })
      switch result {
      case .success(let streamed):
        box.writer.end(warnings: streamed.warnings)
        return .success
      case .failure(let error):
        terminal.error("error: \(source): \(Self.explain(error))")
        return .failure
      }
    }
    let parsed: ParsedFeed
    if source == "-" {
      // One byte past the cap is enough to tell that the input is too large.
      do {
        parsed = try FeedParser.parse(terminal.readInput(options.maxBytes + 1), options: options)
      } catch {
        terminal.error("error: \(source): \(Self.explain(error))")
        return .failure
      }
    } else {
      switch FeedLoader.load(source, options: options, transport: CurlTransport(userAgent: WatcherCLI.userAgent)) {
      case .success(let feed): parsed = feed
      case .failure(let error):
        terminal.error("error: \(source): \(Self.explain(error))")
        return .failure
      }
    }
    if arguments.has(Options.json) {
      var writer = FeedJSONWriter(sink: terminal.output)
      writer.write(parsed)
    } else {
      printText(parsed, terminal: terminal)
      for warning in parsed.warnings {
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

  private func printText(_ parsed: ParsedFeed, terminal: Terminal) {
    let feed = parsed.feed
    var out = "\(feed.title ?? "(untitled feed)") [\(feed.format.rawValue)]"
    if let link = feed.link { out += " \(link)" }
    out += "\n\(feed.items.count) item\(feed.items.count == 1 ? "" : "s")\n"
    for item in feed.items {
      let date = item.published.map { ISODate.format($0).prefix(16).replacing("T", with: " ") }
      out += "\n\(date ?? "(no date)       ")  \(item.title ?? "(untitled)")\n"
      if let link = item.link { out += "    \(link)\n" }
      if let author = item.author { out += "    by \(author)\n" }
      if !item.categories.isEmpty { out += "    categories: \(item.categories.joined(separator: ", "))\n" }
      if let text = item.text {
        let line = text.prefix { $0 != "\n" }
        out += "    \(line.count > 120 ? line.prefix(119) + "…" : line)\n"
      }
      // Written in pieces, so a feed of 50,000 items never becomes one giant string.
      if out.utf8.count >= 1 << 16 {
        terminal.output(Array(out.utf8))
        out = ""
      }
    }
    terminal.output(Array(out.utf8))
  }

}

/// The JSON writer, shared by the streaming parse's two callbacks.
private final class WriterBox {
  var writer: FeedJSONWriter
  init(_ writer: FeedJSONWriter) { self.writer = writer }
}
