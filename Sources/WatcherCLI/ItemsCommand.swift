// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherFeed
import WatcherFetch
import WatcherPoll
import WatcherRules
import WatcherState
import WatcherSupport

/// `watcher items FEED [--since D] [--json]`: what a feed publishes now, acted on or not, and why.
///
/// The feed is read as `test-rules` reads it (nothing is written); each item is joined with what the
/// state knows (when it was first seen) and what the journal says was done with it, and what the rules
/// decide for it says why the rest were not acted on.
struct ItemsCommand: Command {
  let name = "items"
  let summary = "what a feed publishes now, acted on or not, and why"
  let positionals = Positionals.one("FEED", "the feed's name")
  let options = [
    Options.config, Options.stateDir,
    Options.since.described("only items first seen (or, never seen, published) since: 30m, 2d, 1w or a date"),
    Options.json.described("print JSON"),
    Options.announce,
    Self.like,
    Self.dislike,
  ]

  static let like = OptionSpec(
    name: "like", value: "ITEM", help: "give ITEM (its key or title words) a 👍, for the learner (repeatable)",
    repeatable: true)
  static let dislike = OptionSpec(
    name: "dislike", value: "ITEM", help: "give ITEM (its key or title words) a 👎, for the learner (repeatable)",
    repeatable: true)

  /// One item and what became of it.
  struct Row {
    var item: FeedItem
    var key: String
    var firstSeen: Date?
    var done: [JournalEntry]
    var status: String
    var why: String
    /// The learned score, when a rule or template uses it and the learner has one.
    var score: String?
    /// Its story across feeds, when it is in one that more than one feed carries: which, and why.
    var story: String?
  }

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let now = WallClock.now()
    let since = arguments.since(Options.since, now: now)
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    guard let feed = StateOptions.named([arguments.positionals[0]], config: config, terminal: terminal)?.first else {
      return .usage
    }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    if let key = arguments.value(Options.announce) {
      return Announce.run(key, feed: feed, arguments, terminal: terminal)
    }
    // Labelling many at once: what `like` and `dislike` do, for each ITEM given.
    if !arguments.values(Self.like).isEmpty || !arguments.values(Self.dislike).isEmpty {
      guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
      let found = Labels.items(of: feed, config: config, store: store, terminal: terminal)
      let liked = Labels.label(
        arguments.values(Self.like), up: true, feed: feed, found: found, store: store, terminal: terminal)
      let disliked = Labels.label(
        arguments.values(Self.dislike), up: false, feed: feed, found: found, store: store, terminal: terminal)
      return liked && disliked ? .success : .failure
    }
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let state = (try? store.load(url: feed.url, readOnly: true).state) ?? FeedState(url: feed.url)
    let limits = JournalLimits(keepFor: config.settings.journalKeepFor, keepMax: config.settings.journalKeepMax)
    var journal: [String: [JournalEntry]] = [:]
    for entry in store.journal(limits: limits, now: now).entries where entry.feed == feed.name {
      journal[entry.key, default: []].append(entry)
    }
    let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
    let parsed: ParsedFeed
    switch FeedLoader.load([feed], settings: config.settings, transport: transport)[0] {
    case .success(let feed): parsed = feed
    case .failure(let error):
      terminal.error("error: feed '\(feed.name)' (\(URLSecrets.redacted(feed.url))): \(error)")
      return .failure
    }
    let engine = RuleEngine(rules: config.rules, settings: config.settings.notify).learning(
      from: store, feeds: config.feeds, byTag: config.settings.scoreByTag)
    let identity = FeedDecider.identity(feed, state: state)
    let radar = (try? store.storyRadar(readOnly: true)) ?? StoryRadar()
    let inStories = Dictionary(
      radar.entries.filter { $0.feed == feed.name }.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
    // The feed's first poll: the items it recorded share its time.
    let firstPoll = state.items.values.map(\.firstSeen).min()
    var rows: [Row] = []
    for item in parsed.feed.items {
      let key = identity.key(of: item)
      let known = state.initialized ? state.items[key] : nil
      if let since, (known?.firstSeen ?? item.published ?? now) < since { continue }
      let decision = engine.evaluate(item, feed: feed, now: now).split(by: engine.spreadRules).now
      let done = journal[key] ?? []
      var row = Row(item: item, key: key, firstSeen: known?.firstSeen, done: done, status: "", why: "")
      if engine.usesScore, let score = engine.scorer?(item, feed.name) {
        let moved = engine.scoreReasons?(item, feed.name) ?? []
        row.score = Relevance.shown(score) + (moved.isEmpty ? "" : ", most moved by " + moved.joined(separator: ", "))
      }
      if let entry = inStories[StoryRadar.storedKey(key)], case let feeds = radar.feeds(of: entry.story),
        feeds.count > 1
      {
        row.story =
          "story \(entry.story) (\(feeds.count) feeds: \(feeds.joined(separator: ", "))): "
          + StoriesCommand.why(entry)
      }
      (row.status, row.why) = Self.explain(
        decision, known: known, done: done, firstPoll: firstPoll, settings: config.settings, item: item, feed: feed)
      rows.append(row)
    }
    if arguments.has(Options.json) {
      terminal.print(Self.json(rows, feed: feed).text)
      return .success
    }
    guard !rows.isEmpty else {
      terminal.print(
        "\(feed.name): no items\(since == nil ? "" : " since then") (\(parsed.feed.items.count) in the feed)")
      return .success
    }
    var out = ""
    for row in rows {
      let when = row.firstSeen.map { "seen \(WallClock.shown($0))" } ?? "not seen yet"
      out += Terminal.field("\(row.item.title ?? "(untitled: \(row.key))")") + "  [\(when)]\n"
      out += Terminal.field("    \(row.status): \(row.why)") + "\n"
      if let score = row.score { out += Terminal.field("    learned score: \(score)") + "\n" }
      if let story = row.story { out += Terminal.field("    \(story)") + "\n" }
      for entry in row.done {
        out += Terminal.field("    \(WallClock.shown(entry.time))  " + LogCommand.line(entry, time: false)) + "\n"
      }
    }
    terminal.output(Array(out.utf8))
    return .success
  }

  /// `values` without repeats, in their order.
  private static func distinct(_ values: [String]) -> [String] {
    values.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
  }

  /// The item's status ("acted on", "not acted on", "new") and why, in words.
  static func explain(
    _ decision: Decision, known: FeedState.KnownItem?, done: [JournalEntry], firstPoll: Date?, settings: Settings,
    item: FeedItem, feed: FeedConfig
  ) -> (String, String) {
    let matched = distinct(decision.matches.map(\.rule)).map { "'\($0)'" }.joined(separator: ", ")
    var would: [String] = []
    if !decision.notifications.isEmpty { would.append("notify") }
    if !decision.hooks.isEmpty { would.append("run \(decision.hooks.count == 1 ? "a hook" : "hooks")") }
    if !decision.webhooks.isEmpty { would.append("post a webhook") }
    let actions = would.joined(separator: " and ")
    // Taken for a known item under a new key: not announced (the journal says which, and why).
    if let rekeyed = done.last(where: { $0.action == "identity" && $0.outcome == .rekeyed }) {
      return (
        "not announced",
        "recognised as a known item: \(rekeyed.detail ?? "its feed changed its ids"); "
          + "'watcher items \(feed.name) --announce \(rekeyed.key)' acts on it after all"
      )
    }
    let done = done.filter { $0.action != "identity" }
    if !done.isEmpty {
      // The rules the journal says acted, not those that match now: a rule added since did not act on it.
      let kinds = distinct(done.map(\.action))
      let acted = distinct(done.compactMap(\.rule)).map { "'\($0)'" }.joined(separator: ", ")
      return ("acted on", kinds.joined(separator: ", ") + (acted.isEmpty ? "" : " (rules \(acted))"))
    }
    if let muted = decision.mutedBy { return ("not acted on", "muted by rule '\(muted)'") }
    guard decision.isTouched, !actions.isEmpty else {
      return (
        known == nil ? "new" : "not acted on",
        matched.isEmpty ? "no rule matched it" : "rules \(matched) matched, with nothing to do (tags only)"
      )
    }
    guard let known else { return ("new", "the next poll will \(actions) (rules \(matched))") }
    let tooOld = settings.maxAge.map { maxAge in
      item.published.map { $0 < known.firstSeen.addingTimeInterval(-Double(maxAge)) } ?? false
    }
    if let firstPoll, known.firstSeen.timeIntervalSince(firstPoll) < 60,
      (feed.firstPoll ?? settings.firstPoll) != .all
    {
      return ("not acted on", "it was there at the feed's first poll, which records items without acting on them")
    }
    if tooOld == true, let maxAge = settings.maxAge {
      return ("not acted on", "it was older than max_age (\(SpokenDuration.text(Double(maxAge)))) when first seen")
    }
    return (
      "not acted on",
      "rules \(matched) would \(actions), but the journal has nothing for it (its story was acted on for another "
        + "feed, or the entry is older than the journal keeps)"
    )
  }

  static func json(_ rows: [Row], feed: FeedConfig) -> JSONOutput {
    .document([
      ("feed", .string(feed.name)),
      (
        "items",
        .array(
          rows.map { row in
            .object([
              ("key", .string(row.key)), ("title", .optional(row.item.title)), ("link", .optional(row.item.link)),
              ("published", .optional(row.item.published.map(ISODate.format))),
              ("first_seen", .optional(row.firstSeen.map(ISODate.format))), ("status", .string(row.status)),
              ("why", .string(row.why)), ("story", .optional(row.story)), ("actions", .array(row.done.map(\.json))),
            ])
          })
      ),
    ])
  }
}
