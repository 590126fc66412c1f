// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// `watcher like FEED ITEM...` and `watcher dislike FEED ITEM...`: a 👍 or 👎 for items, kept in the state
/// directory with what the item says, for the learner (`watcher score`).
struct LabelCommand: Command {
  let up: Bool
  var name: String { up ? "like" : "dislike" }
  var summary: String {
    up
      ? "give items a 👍: the learner scores items like them higher"
      : "give items a 👎: the learner scores items like them lower"
  }
  let positionals = Positionals.any("FEED ITEM")
  let options = [Options.config, Options.stateDir]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard arguments.positionals.count >= 2 else {
      terminal.error("error: 'watcher \(name)' needs a feed and at least one item: watcher \(name) FEED ITEM...")
      terminal.error("note: ITEM is an item's key ('watcher items FEED --json' lists them) or words of its title")
      return .usage
    }
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    guard let feed = StateOptions.named([arguments.positionals[0]], config: config, terminal: terminal)?.first else {
      return .usage
    }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let found = Labels.items(of: feed, config: config, store: store, terminal: terminal)
    let wanted = Array(arguments.positionals.dropFirst())
    return Labels.label(wanted, up: up, feed: feed, found: found, store: store, terminal: terminal)
      ? .success : .failure
  }
}

/// `watcher labels [--undo FEED ITEM] [--json]`: the labels kept, newest first, and taking one back.
struct LabelsCommand: Command {
  let name = "labels"
  let summary = "list the 👍 and 👎 given (newest first), or take one back with --undo FEED ITEM"
  let positionals = Positionals.any("[FEED ITEM]")
  static let undo = OptionSpec(
    name: "undo", help: "take back the label of ITEM in FEED (its key or words of its title)")
  let options = [Options.config, Options.stateDir, Options.json.described("print JSON"), Self.undo]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    var labels: [Label]
    do { labels = try store.labels() } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    if arguments.has(Self.undo) { return Self.undo(arguments.positionals, store: store, terminal: terminal) }
    guard arguments.positionals.isEmpty else {
      terminal.error("error: 'watcher labels' takes arguments only with --undo")
      return .usage
    }
    if arguments.has(Options.json) {
      let rows: [JSONOutput] = labels.reversed().map { label in
        .object([
          ("feed", .string(label.feed)), ("key", .string(label.key)), ("title", .string(label.title)),
          ("label", .string(label.up ? "like" : "dislike")), ("time", .string(ISODate.format(label.time))),
        ])
      }
      terminal.print(JSONOutput.document([("labels", .array(rows))]).text)
      return .success
    }
    guard !labels.isEmpty else {
      terminal.print("no labels yet: 'watcher like FEED ITEM' and 'watcher dislike FEED ITEM' give them")
      return .success
    }
    let ups = labels.count { $0.up }
    terminal.print("\(labels.count) labels: \(ups) 👍, \(labels.count - ups) 👎")
    for label in labels.reversed() {
      terminal.print(
        Terminal.field("\(label.up ? "👍" : "👎") \(WallClock.shown(label.time))  \(label.feed): \(label.title)"))
    }
    return .success
  }
}

/// What the label commands share: finding an item of a feed by its key or title.
enum Labels {
  struct Found {
    var key: String
    var item: FeedItem
  }

  /// The feed's items now (fetched), and those the journal remembers that are no longer in it.
  static func items(of feed: FeedConfig, config: Config, store: StateStore, terminal: Terminal) -> [Found] {
    var found: [Found] = []
    let state = (try? store.load(url: feed.url, readOnly: true).state) ?? FeedState(url: feed.url)
    let identity = FeedDecider.identity(feed, state: state)
    switch FeedLoader.load(
      [feed], settings: config.settings, transport: CurlTransport(userAgent: WatcherCLI.userAgent))[0]
    {
    case .success(let parsed):
      found = parsed.feed.items.map { Found(key: identity.key(of: $0), item: $0) }
    case .failure(let error):
      terminal.error("note: feed '\(feed.name)' could not be read (\(error)); looking in the journal only")
    }
    let limits = JournalLimits(keepFor: config.settings.journalKeepFor, keepMax: config.settings.journalKeepMax)
    var keys = Set(found.map(\.key))
    for entry in store.journal(limits: limits, now: WallClock.now()).entries.reversed()
    where entry.feed == feed.name && keys.insert(entry.key).inserted {
      found.append(Found(key: entry.key, item: FeedItem(key: entry.key, title: entry.title, link: entry.link)))
    }
    return found
  }

  /// Labels each of `wanted` 👍 (`up`) or 👎, saying which; false when one named no single item (the others
  /// are labelled) or the labels cannot be written.
  static func label(
    _ wanted: [String], up: Bool, feed: FeedConfig, found: [Found], store: StateStore, terminal: Terminal
  ) -> Bool {
    guard !wanted.isEmpty else { return true }
    var given: [Label] = []
    var shown: [String] = []
    var missing = false
    let now = WallClock.now()
    for name in wanted {
      guard let item = match(name, in: found, terminal: terminal) else {
        missing = true
        continue
      }
      given.append(Label(key: item.key, item: Relevance.Item(item.item, feed: feed.name), up: up, time: now))
      shown.append("\(up ? "👍" : "👎") \(Terminal.field(item.item.title ?? item.key))  [\(feed.name)]")
    }
    guard !given.isEmpty else { return false }
    do { try store.updateLabels { $0 += given } } catch {
      terminal.error("error: \(error)")
      return false
    }
    for line in shown { terminal.print(line) }
    return !missing
  }

  /// The one item `wanted` names: its key, else the only title containing those words; `nil` after saying
  /// why not.
  static func match(_ wanted: String, in found: [Found], terminal: Terminal) -> Found? {
    if let exact = found.first(where: { $0.key == wanted }) { return exact }
    let words = wanted.lowercased()
    let matching = found.filter { ($0.item.title ?? "").lowercased().contains(words) }
    guard matching.count == 1 else {
      terminal.error(
        "error: \(matching.isEmpty ? "no item of the feed matches" : "\(matching.count) items of the feed match") "
          + "'\(Terminal.field(wanted))'"
          + (matching.isEmpty ? "" : ": give more of the title, or the key ('watcher items FEED --json')"))
      return nil
    }
    return matching[0]
  }
}

extension LabelsCommand {
  /// `--undo FEED ITEM`: takes back the one label of FEED whose key is ITEM or whose title has its words.
  static func undo(_ positionals: [String], store: StateStore, terminal: Terminal) -> ExitCode {
    guard positionals.count == 2 else {
      terminal.error("error: 'watcher labels --undo' needs a feed and an item: watcher labels --undo FEED ITEM")
      return .usage
    }
    let (feed, wanted) = (positionals[0], positionals[1].lowercased())
    let outcome: Result<Label, Refusal>
    do {
      // Under the labels' lock: a label given meanwhile is kept.
      outcome = try store.updateLabels { labels in
        let matching = labels.indices.filter {
          labels[$0].feed == feed
            && (labels[$0].key == positionals[1] || labels[$0].title.lowercased().contains(wanted))
        }
        guard matching.count == 1, let index = matching.first else { return .failure(Refusal(count: matching.count)) }
        return .success(labels.remove(at: index))
      }
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    switch outcome {
    case .success(let removed):
      terminal.print("took back \(removed.up ? "👍" : "👎") \(Terminal.field(removed.title))  [\(removed.feed)]")
      return .success
    case .failure(let refusal):
      let labels = refusal.count == 0 ? "no label" : "\(refusal.count) labels"
      terminal.error(
        "error: \(labels) of feed '\(Terminal.field(feed))' \(refusal.count == 0 ? "matches" : "match") "
          + "'\(Terminal.field(positionals[1]))'")
      return .failure
    }
  }

  /// How many labels an `--undo` matched, when not one.
  struct Refusal: Error {
    var count: Int
  }
}
