// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherState
import WatcherSupport

/// `watcher log [--feed NAME] [--since D] [--json] [--follow]`: what watcher did, from the journal, newest
/// last; with `--follow`, each entry as it is written.
struct LogCommand: Command {
  let name = "log"
  let summary = "what watcher did: every item acted on, each action and its outcome (newest last)"
  let positionals = Positionals.none("name feeds with --feed")
  let options = [
    Options.config, Options.stateDir,
    Options.feed.described("only this feed (repeatable)"),
    Options.since,
    Options.json.described("print JSON (share/doc/watcher/log-json.md); with --follow, one entry per line"),
    Options.follow,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let now = WallClock.now()
    let since = arguments.since(Options.since, now: now)
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let limits = JournalLimits(keepFor: config.settings.journalKeepFor, keepMax: config.settings.journalKeepMax)
    var (entries, unreadable) = store.journal(limits: limits, since: since, now: now)
    if case let names = arguments.values(Options.feed), !names.isEmpty {
      let known = Set(config.feeds.map(\.name) + entries.map(\.feed))
      for name in names where !known.contains(name) {
        terminal.error("error: no feed named '\(name)' in the config or the journal")
        if let suggestion = Suggestion.closest(to: name, in: Array(known)) {
          terminal.error("note: did you mean '\(suggestion)'?")
        }
        return .usage
      }
      entries = entries.filter { names.contains($0.feed) }
    }
    if unreadable > 0 {
      terminal.error(
        "warning: \(unreadable) line\(unreadable == 1 ? "" : "s") of \(store.journalPath) could not be read")
    }
    if arguments.has(Options.follow) {
      let feeds = Set(arguments.values(Options.feed))
      return follow(store.journalPath, since: since == nil ? [] : entries, feeds: feeds, arguments, terminal)
    }
    if arguments.has(Options.json) {
      terminal.print(JSONOutput.document([("entries", .array(entries.map(\.json)))]).text)
      return .success
    }
    if entries.isEmpty {
      terminal.error(
        "nothing in the journal\(since == nil ? "" : " since then") (\(store.journalPath)): no item was acted on")
      return .success
    }
    var text = ""
    for entry in entries { text += Self.line(entry) + "\n" }
    terminal.output(Array(text.utf8))
    return .success
  }

  /// Prints `earlier`, then each entry as it is written (of `feeds`, when named), until SIGINT or SIGTERM:
  /// text lines, or one JSON object per line (`--json`) for `jq` and scripts.
  func follow(
    _ path: String, since earlier: [JournalEntry], feeds: Set<String>, _ arguments: Arguments, _ terminal: Terminal
  ) -> ExitCode {
    let json = arguments.has(Options.json)
    let shutdown = Shutdown()
    shutdown.install()
    let follower = JournalFollower(path: path)
    func show(_ entries: [JournalEntry]) {
      var text: [UInt8] = []
      for entry in entries where feeds.isEmpty || feeds.contains(entry.feed) {
        if json { entry.json.write(to: &text) } else { text += Array(Self.line(entry).utf8) }
        text.append(10)
      }
      if !text.isEmpty { terminal.output(text) }
    }
    show(earlier)
    while !shutdown.stopping.isCancelled {
      show(follower.next())
      usleep(200_000)
    }
    show(follower.next())
    return .success
  }

  /// "2026-11-30 13:05  swift  "Swift 6.3 Released"  hook (rule 'releases'): failed, will retry: exit 3".
  static func line(_ entry: JournalEntry, time showTime: Bool = true) -> String {
    let time = WallClock.shown(entry.time)
    // An event of the feed itself (its ids changed, an item edited) has no item: no "(untitled: )".
    let title =
      entry.title.map { JSONString.literal($0) } ?? (entry.key.isEmpty ? "(the feed)" : "(untitled: \(entry.key))")
    let rule = entry.rule.map { " (rule '\($0)')" } ?? ""
    let what: String
    switch entry.outcome {
    case .shown: what = "shown"
    case .kept: what = "not shown, kept for later"
    case .ok: what = entry.action == "hook" || entry.action.hasSuffix("_hook") ? "exit 0" : "done"
    case .retry: what = "failed, will retry"
    case .dropped: what = "dropped"
    case .stopped: what = "not run, watcher was stopping; still pending"
    case .interrupted: what = "started, then stopped with watcher; still pending (will be retried)"
    case .held: what = "held"
    case .duplicate: what = "not taken, the same story"
    case .rekeyed: what = "recognised, not announced"
    case .updated: what = "updated, not new"
    case .resembled: what = "new, announced though it resembled a known item"
    case .grouped: what = "grouped into a story across feeds"
    }
    let attempt = entry.attempt > 1 ? " (attempt \(entry.attempt))" : ""
    return (showTime ? "\(time)  " : "") + "\(entry.feed)  \(title)  \(entry.action)\(rule): \(what)\(attempt)"
      + (entry.detail.map { ": \($0)" } ?? "")
  }
}
