// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport
import WatcherXML

#if canImport(Glibc)
  import Glibc
#endif

/// `watcher add URL [--name N] [--tag T]... [--print]`: subscribes to a feed.
///
/// The URL may be the feed or a site's page: a page's `<link rel="alternate">` feeds are listed and the
/// first is taken. The config is edited as `import-opml` edits it (comments kept, `.bak`, written only if
/// the result loads; created when there is none).
struct AddCommand: Command {
  let name = "add"
  let summary = "subscribe to a feed (a site's page URL is resolved to its feed); edits the config"
  let positionals = Positionals.one("URL", "URL (a feed, or a site's page that links to one)")
  let options = [
    Options.config,
    Options.name,
    Options.tag,
    Options.notifyAll,
    Options.fullText,
    Options.interval,
    Options.latest,
    Options.print.described("print the YAML entry instead of editing the config"),
    Self.page,
    Self.select,
  ]

  static let page = OptionSpec(
    name: "page", help: "watch the page's own list of posts as a feed (page: URL), for a site that has no feed")
  static let select = OptionSpec(
    name: "select", help: "with --page: also write the CSS selector of the list found (items:), to read and keep")

  /// A host (and path) written without a scheme, that is not a file: `www.example.org/blog`.
  static func bareHost(_ given: String) -> String? {
    guard !URLResolver.hasScheme(given) || given.lowercased().hasPrefix("localhost:"), !given.hasPrefix("/"),
      !given.hasPrefix("."), !given.hasPrefix("~"), !FileManager.default.fileExists(atPath: given)
    else { return nil }
    let host = given.prefix { $0 != "/" && $0 != ":" }
    guard host.contains(".") || host.lowercased() == "localhost", !given.contains(where: \.isWhitespace) else {
      return nil
    }
    return given
  }

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let given = arguments.positionals[0]
    // The entry's own settings, checked before anything is fetched.
    var interval: (seconds: Int?, auto: Bool?) = (nil, nil)
    if arguments.value(Options.interval) == "auto" {
      interval.auto = true
    } else if let seconds = arguments.duration(Options.interval) {
      interval = (seconds, false)
    }
    let latest = arguments.count(Options.latest)
    guard let (config, path, text) = Subscriptions.editableConfig(arguments, terminal: terminal) else {
      return .config
    }
    let asPage = arguments.has(Self.page) || arguments.has(Self.select)
    guard
      let (url, parsed, page) = Self.find(
        given, options: FeedParser.options(config.settings), terminal: terminal, asPage: asPage,
        select: arguments.has(Self.select))
    else { return .failure }
    if let existing = config.feeds.first(where: { ConfigEditor.normalized($0.url) == ConfigEditor.normalized(url) }) {
      terminal.error("error: \(url) is already in the config as '\(existing.name)'")
      return .failure
    }
    let title = parsed.feed.title?.trimming().nilIfEmpty
    var name =
      arguments.value(Options.name)
      ?? ConfigEditor.uniqueName(title: title, url: url, taken: Set(config.feeds.map(\.name)))
    name = name.trimming(.spaces)
    if config.feeds.contains(where: { $0.name == name }) {
      terminal.error("error: a feed named '\(name)' is already in the config; choose another with --name")
      return .failure
    }
    let tags = (arguments.values(Options.tag)).map(FeedConfig.slugify).filter { !$0.isEmpty }
    var feed = FeedConfig(url: url, name: name, title: title, tags: tags)
    feed.page = page
    (feed.interval, feed.autoInterval) = interval
    feed.notify = arguments.has(Options.notifyAll)
    if arguments.has(Options.fullText) { feed.fullText = true }
    feed.firstPoll = latest.map { .latest($0) }
    // The site's home page, for export-opml's htmlUrl: only a web link, cleaned of controls.
    feed.site = parsed.feed.link.flatMap { FeedLocation.isHTTP($0) && !$0.contains(where: \.isNewline) ? $0 : nil }
    let description =
      "'\(name)'" + (title.map { " (\"\($0)\")" } ?? "")
      + ": \(url), \(parsed.feed.items.count) item\(parsed.feed.items.count == 1 ? "" : "s") now"
    if arguments.has(Options.print) {
      terminal.output(Array(("feeds:\n" + ConfigEditor.entries([feed])).utf8))
      return .success
    }
    do {
      let header = "# watcher config, started by 'watcher add'; see watcher-rules(5).\n"
      let edited = try ConfigEditor.adding([feed], to: text ?? header, path: path)
      let backup = try ConfigEditor.write(edited, to: path)
      terminal.print("added \(description)")
      terminal.print("to \(path)" + (backup.map { " (the old file is \($0))" } ?? ""))
      if let latest {
        terminal.print(
          "its first poll acts on its newest \(latest) item\(latest == 1 ? "" : "s") (first_poll: latest \(latest))")
      }
      Subscriptions.tellDaemon(arguments, config: config, path: path, terminal: terminal)
      return .success
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
  }

  /// The feed at `given`: the URL itself (a bare host tried with https, then http), or the first feed its
  /// page links to; what went wrong said, and nil.
  static func find(
    _ given: String, options: FeedParser.Options, terminal: Terminal, asPage: Bool = false, select: Bool = false
  ) -> (String, ParsedFeed, FeedConfig.Page?)? {
    var given = given
    let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
    let found: Result<FeedLoader.Found, FeedLoadError>
    if let bare = Self.bareHost(given) {
      // `www.example.org` (no scheme, no such file): https, then http, as `check` suggests.
      var result = FeedLoader.loadOrDiscover("https://" + bare, options: options, transport: transport)
      given = "https://" + bare
      if case .failure(.fetch) = result {
        terminal.error("note: https://\(bare) did not answer; trying http://\(bare)")
        let plain = FeedLoader.loadOrDiscover("http://" + bare, options: options, transport: transport)
        if case .failure(.fetch) = plain {} else { (result, given) = (plain, "http://" + bare) }
      }
      found = result
    } else {
      found = FeedLoader.loadOrDiscover(given, options: options, transport: transport)
    }
    var url = given
    let parsed: ParsedFeed
    switch found {
    case .failure(let error):
      terminal.error("error: \(given): \(error)")
      return nil
    case .success(.feed(let feed)):
      guard !asPage else {
        terminal.error("error: \(given) is a feed, not a page: add it without --page")
        return nil
      }
      parsed = feed
    case .success(.page(let links, let refused, let page, let pageURL)):
      for reason in refused { terminal.error(Terminal.field("ignored the page's feed link \(reason)")) }
      if asPage {
        return Self.pageFeed(page, url: pageURL, given: given, select: select, options: options, terminal: terminal)
      }
      guard let first = links.first else {
        let listing = PageItems.read(page, url: pageURL)
        if listing.status == .list || listing.alternative != nil,
          Self.confirm(
            "\(given) links to no feed; found \(listing.reason). Watch it as a feed?", terminal: terminal)
        {
          return Self.pageFeed(page, url: pageURL, given: given, select: select, options: options, terminal: terminal)
        }
        terminal.error(
          "error: \(given): the page links to no feed (no <link rel=\"alternate\"> of an RSS, Atom or JSON Feed type)")
        if listing.status == .list || listing.alternative != nil {
          terminal.error(Terminal.field("note: no feed; found \(listing.reason)"))
          terminal.error(
            "note: watch it as a feed: watcher add \(given) --page (--select also writes the selector it found)")
        } else {
          terminal.error(Terminal.field("note: no list of posts on it either: \(listing.reason)"))
          terminal.error("note: give the feed's own URL; sites often link it as 'RSS' or 'Feed'")
        }
        return nil
      }
      if links.count > 1 {
        terminal.error(
          "\(given) links to \(links.count) feeds; taking the first (name another with 'watcher add URL'):")
        for link in links {
          terminal.error(Terminal.field("  \(link.url)  \(link.type)\(link.title.map { "  \"\($0)\"" } ?? "")"))
        }
      }
      url = first.url
      switch FeedLoader.load(url, options: options, transport: transport) {
      case .success(let feed): parsed = feed
      case .failure(let error):
        terminal.error("error: \(url) (linked from \(given)): \(error)")
        return nil
      }
    }
    return (url, parsed, nil)
  }

  /// Whether the person at the terminal answers yes to `question` (never asked when standard input or
  /// standard error is not a terminal: scripts get the error and the note instead).
  static func confirm(_ question: String, terminal: Terminal) -> Bool {
    guard terminal.errorsIsTerminal, isatty(0) == 1 else { return false }
    terminal.errors(Array(Terminal.field(question + " [y/N] ").utf8))
    var answer: [UInt8] = []
    while answer.count < 64 {
      let byte = terminal.readInput(1)
      guard let first = byte.first, first != UInt8(ascii: "\n") else { break }
      answer.append(first)
    }
    return answer.first.map { $0 | 0x20 == UInt8(ascii: "y") } ?? false
  }

  /// The page's list of posts as a page feed (`--page`), with its selector pinned (`--select`).
  static func pageFeed(
    _ page: [UInt8], url: String, given: String, select: Bool, options: FeedParser.Options, terminal: Terminal
  ) -> (
    String, ParsedFeed, FeedConfig.Page?
  )? {
    var (listing, url, page) = (PageItems.read(page, url: url), url, page)
    // A page built from WordPress's REST API: its posts, read from the route it names.
    if listing.status != .list, let api = listing.alternative {
      terminal.error(Terminal.field("note: no list in the page itself; reading the posts of \(api)"))
      let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
      if case .success(let body) = FeedLoader.linked(api, from: url, options: options, transport: transport) {
        let posts = PageItems.read(body, url: api)
        if posts.status == .list { (listing, url, page) = (posts, api, body) }
      }
    }
    guard listing.status == .list else {
      terminal.error(Terminal.field("error: \(given): no list of posts on the page: \(listing.reason)"))
      return nil
    }
    terminal.error(Terminal.field("found \(listing.reason)"))
    var options = FeedConfig.Page()
    if select {
      if let text = listing.selector, let rows = try? HTMLSelector(text) {
        options.pins = PageItems.Pins(items: rows)
      } else {
        terminal.error("note: the list comes from the data the page embeds, not its markup: no selector to write")
      }
    }
    guard case .success(let parsed) = FeedLoader.page(page, url: url, charset: nil, page: options) else { return nil }
    return (url, parsed, options)
  }
}

/// `watcher remove NAME [--purge]`: unsubscribes (the reverse of `add`).
struct RemoveCommand: Command {
  let name = "remove"
  let summary = "unsubscribe from a feed: remove its entry from the config (--purge also deletes its state)"
  let positionals = Positionals.one("NAME", "feed NAME (as 'watcher status' lists them)")
  let options = [
    Options.config, Options.stateDir,
    Options.purge,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let name = arguments.positionals[0]
    guard let (config, path, text) = Subscriptions.editableConfig(arguments, terminal: terminal), let text else {
      return .config
    }
    let matching =
      config.feeds.first { $0.name == name }
      ?? config.feeds.first { ConfigEditor.normalized($0.url) == ConfigEditor.normalized(name) }
    guard let feed = matching else {
      _ = StateOptions.named([name], config: config, terminal: terminal)  // says so, with a did-you-mean
      return .usage
    }
    do {
      let edited = try ConfigEditor.removing(feed, from: config, text: text, path: path)
      let backup = try ConfigEditor.write(edited, to: path)
      terminal.print(
        "removed '\(feed.name)' (\(URLSecrets.redacted(feed.url))) from \(path)"
          + (backup.map { " (the old file is \($0))" } ?? ""))
      Subscriptions.tellDaemon(arguments, config: config, path: path, terminal: terminal)
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    guard arguments.has(Options.purge) else { return .success }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    // Beside a running daemon, the daemon deletes it (it no longer watches the feed once it reloaded).
    let (store, code) = Handover.lockedStore(
      directory,
      request: DaemonSocket.Request(.purge(url: feed.url), config: DaemonSocket.canonical(path)),
      terminal: terminal)
    guard let store else { return code }
    defer { store.unlock() }
    return Subscriptions.purge(url: feed.url, store: store, terminal: terminal)
  }
}

/// What `add` and `remove` share.
enum Subscriptions {
  /// The config to edit: loaded (an empty one when there is no file yet), its path, and its text.
  ///
  /// The text is nil when there is no file. A config that does not load is left alone, after its errors are shown.
  static func editableConfig(_ arguments: Arguments, terminal: Terminal) -> (Config, String, String?)? {
    let path = ConfigLocator.candidates(explicit: arguments.value(Options.config), environment: terminal.environment)[0]
    guard FileManager.default.fileExists(atPath: path) else { return (Config(), path, nil) }
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else {
      terminal.error("note: fix the config first; watcher leaves a config it cannot read alone")
      return nil
    }
    return (config, path, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
  }

  /// After an edit of the config: a daemon that runs it reloads it now (it would notice on its own).
  static func tellDaemon(_ arguments: Arguments, config: Config, path: String, terminal: Terminal) {
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    Handover.reloadDaemon(configPath: path, directory: directory, terminal: terminal)
  }

  /// Deletes the state of a feed the config no longer has, with the lock held.
  static func purge(url: String, store: StateStore, terminal: Terminal) -> ExitCode {
    let state = store.path(for: url)
    if unlink(state) == 0 {
      store.syncDirectory()
      terminal.print("deleted its state (\(state))")
    } else if errno != ENOENT {
      terminal.error("error: cannot delete \(state): \(String(cString: strerror(errno)))")
      return .failure
    }
    return .success
  }

}

extension String {
  /// nil for an empty string.
  var nilIfEmpty: String? { isEmpty ? nil : self }
}
