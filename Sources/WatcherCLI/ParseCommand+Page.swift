// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherSupport

/// `watcher parse PAGE`: the list of posts found on a page that has no feed, and where it was found.
extension ParseCommand {
  static let base = OptionSpec(
    name: "base", value: "URL",
    help: "read the input as a web page fetched from URL and print the posts of its list (links resolve against URL)")
  static let jsonl = OptionSpec(
    name: "jsonl", help: "with a page: one JSON line per post, or one status line saying why there is none")

  /// Whether the input is to be read as a page: asked for, or a file that is HTML.
  static func wantsPage(_ arguments: Arguments, bytes: [UInt8]?) -> Bool {
    if arguments.has(base) || arguments.has(jsonl) { return true }
    guard let bytes else { return false }
    return FeedDiscovery.looksLikeHTML(Data(bytes.prefix(2_048)))
  }

  /// Prints the page's posts as text, a JSON document or JSON lines.
  static func printPage(
    _ bytes: [UInt8], source: String, url: String, charset: String?, arguments: Arguments, terminal: Terminal
  ) -> ExitCode {
    let listing = PageItems.read(bytes, url: url, encoding: charset)
    if arguments.has(jsonl) {
      guard listing.status == .list else {
        terminal.print(
          JSONOutput.object([("status", .string(listing.status.rawValue)), ("reason", .string(listing.reason))]).text)
        return .success
      }
      for item in listing.items { terminal.print(json(item).text) }
      return .success
    }
    if arguments.has(Options.json) {
      terminal.print(
        JSONOutput.document([
          ("page", .string(url)), ("status", .string(listing.status.rawValue)), ("reason", .string(listing.reason)),
          ("selector", .optional(listing.selector)), ("items", .array(listing.items.map(json))),
        ]).text)
      return .success
    }
    let feeds = FeedDiscovery.links(in: String(decoding: bytes, as: UTF8.self), pageURL: url).map(\.url)
    guard listing.status == .list else {
      terminal.error("error: \(Printable.line(source)): \(FeedLoadError.page(links: feeds))")
      terminal.error("note: no list of posts on it either: \(listing.reason)")
      return .failure
    }
    if let feed = feeds.first {
      terminal.error("note: the page links to the feed \(Printable.line(feed)): 'watcher add' subscribes to it")
    }
    terminal.print("\(Printable.line(url)): found \(Printable.line(listing.reason))")
    for item in listing.items {
      terminal.print("")
      terminal.print("\(Printable.line(item.date ?? "(no date)"))  \(Printable.line(item.title))")
      terminal.print("    \(Printable.line(item.link))")
      if let summary = item.summary { terminal.print("    \(Printable.line(String(summary.prefix(120))))") }
    }
    terminal.print("\n\(listing.items.count) item\(listing.items.count == 1 ? "" : "s")")
    return .success
  }

  static func json(_ item: PageItem) -> JSONOutput {
    var members: [(String, JSONOutput)] = [("title", .string(item.title)), ("link", .string(item.link))]
    if let date = item.date { members.append(("date", .string(date))) }
    if let summary = item.summary { members.append(("summary", .string(summary))) }
    if let image = item.image { members.append(("image", .string(image))) }
    members.append(("id", .string(item.link)))
    return .object(members)
  }
}
