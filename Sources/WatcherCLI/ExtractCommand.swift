// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherSupport

/// `watcher extract URL|FILE [--base URL] [--json]`: the article's title and main text, as `full_text` sees it.
struct ExtractCommand: Command {
  let name = "extract"
  let summary = "print the title and main text of a web article (a URL or a saved page), as full_text reads it"
  let positionals = Positionals.one("URL|FILE", "http(s) URL or FILE (a saved web page)")
  let options = [
    Options.base,
    Options.json.described("print {\"url\", \"title\", \"content\"} as JSON"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let source = arguments.positionals[0]
    if let base = arguments.value(Options.base), !FeedLocation.isHTTP(base) {
      terminal.error("error: --base needs an http(s) URL, not '\(base)'")
      return .usage
    }
    let result = ArticleLoader.load(source, transport: CurlTransport(userAgent: WatcherCLI.userAgent))
    guard case .success(let article) = result else {
      if case .failure(let error) = result { terminal.error("error: \(source): \(error)") }
      return .failure
    }
    let url = arguments.value(Options.base) ?? source
    if arguments.has(Options.json) {
      let json = JSONOutput.object([
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
