// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherSupport
import WatcherXML

/// `watcher extract URL|FILE [--base URL] [--json] [--feed NAME | --selector CSS_OR_XPATH]`: the article's title and main
/// text, as `full_text` sees it (with a feed's `content_selector:`, as that feed's `full_text` sees it).
struct ExtractCommand: Command {
  let name = "extract"
  let summary = "print the title and main text of a web article (a URL or a saved page), as full_text reads it"
  let positionals = Positionals.one("URL|FILE", "http(s) URL or FILE (a saved web page)")
  let options = [
    Options.base,
    Options.json.described("print {\"url\", \"title\", \"content\"} as JSON"),
    Self.feed, Self.selector,
    Options.config,
  ]

  static let feed = OptionSpec(
    name: "feed", value: "NAME", help: "read the page as this configured feed's full_text does (its content_selector)")
  static let selector = OptionSpec(
    name: "selector", value: "CSS_OR_XPATH",
    help: "take the text of what this CSS selector (or XPath, starting with /) matches, as content_selector: does")

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    var source = arguments.positionals[0]
    if let base = arguments.value(Options.base), !FeedLocation.isHTTP(base) {
      terminal.error("error: --base needs an http(s) URL, not '\(base)'")
      return .usage
    }
    var selector: HTMLSelector?
    if let text = arguments.value(Self.selector) {
      do {
        selector = try HTMLSelector(text)
      } catch {
        terminal.error("error: --selector '\(Terminal.field(text))': \(error)")
        return .usage
      }
    }
    if let name = arguments.value(Self.feed) {
      guard selector == nil else {
        terminal.error("error: give --feed or --selector, not both")
        return .usage
      }
      guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
      guard let feed = StateOptions.named([name], config: config, terminal: terminal)?.first else { return .usage }
      selector = feed.contentSelector
      if let rewrite = feed.linkRewrite, FeedLocation.isHTTP(source), rewrite.apply(source) != source {
        source = rewrite.apply(source)
        terminal.error("note: feed '\(feed.name)' fetches its pages at \(Terminal.field(source))")
      }
      if let selector {
        terminal.error("note: feed '\(feed.name)' reads its pages with content_selector '\(selector.text)'")
      }
    }
    let result = ArticleLoader.load(
      source, transport: CurlTransport(userAgent: WatcherCLI.userAgent), selector: selector)
    guard case .success(let article) = result else {
      if case .failure(let error) = result { terminal.error("error: \(source): \(error)") }
      return .failure
    }
    let url = arguments.value(Options.base) ?? source
    if arguments.has(Options.json) {
      let json = JSONOutput.document([
        ("url", .string(url)), ("title", .optional(article.title)), ("content", .string(article.text)),
      ])
      terminal.output(json.pretty + [10])
    } else {
      terminal.print(article.title ?? "(no title)")
      terminal.print("")
      terminal.print(article.text.isEmpty ? "(no text)" : article.text)
    }
    return .success
  }
}
