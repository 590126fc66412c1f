// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherState
import WatcherSupport

/// `watcher snooze FEED [DURATION]`: the feed's notifications stop for a while.
///
/// A day by default (`settings.notify.snooze`), as "Snooze feed" on one of its notifications does. The feed is still polled
/// and its hooks still run; the snooze is kept in the state (`snoozed.json`), not the config.
struct SnoozeCommand: Command {
  let name = "snooze"
  let summary = "stop a feed's notifications for a while (default: a day); without a FEED, list the snoozed"
  let positionals = Positionals.any("FEED [DURATION]")
  let options = [
    Options.config, Options.stateDir,
    Options.json.described("without a FEED: the snoozed feeds as JSON (docs/json.md)"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    if arguments.positionals.isEmpty { return list(arguments, terminal: terminal) }
    guard (1...2).contains(arguments.positionals.count) else {
      terminal.error("error: snooze needs a FEED, and may take a DURATION (2h, 3d)")
      return .usage
    }
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    guard let feed = StateOptions.named([arguments.positionals[0]], config: config, terminal: terminal)?.first else {
      return .usage
    }
    var seconds = config.settings.notify.snooze
    if arguments.positionals.count == 2 {
      guard let given = ConfigMapper.parseDuration(arguments.positionals[1]), given > 0, given <= 366 * 86_400 else {
        terminal.error(
          "error: invalid duration '\(Terminal.field(arguments.positionals[1]))'; write it as 30m, 2h or 3d (at most a year)"
        )
        return .usage
      }
      seconds = given
    }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let now = WallClock.now()
    let until = now.addingTimeInterval(Double(seconds))
    do {
      try store.snooze(feed.name, until: until, now: now)
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    terminal.print(
      "'\(feed.name)' is snoozed until \(WallClock.shown(until)): it is polled, its hooks "
        + "run, it notifies nobody; 'watcher unsnooze \(feed.name)' ends it")
    return .success
  }

  /// `watcher snooze [--json]`: the feeds snoozed now, and until when.
  private func list(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let snoozed = store.snoozes(now: WallClock.now()).sorted { ($0.value, $0.key) < ($1.value, $1.key) }
    if arguments.has(Options.json) {
      let rows = snoozed.map {
        JSONOutput.object([("feed", .string($0.key)), ("until", .string(ISODate.format($0.value)))])
      }
      terminal.print(JSONOutput.document([("snoozed", .array(rows))]).text)
    } else if snoozed.isEmpty {
      terminal.print("no feed is snoozed")
    } else {
      for (feed, until) in snoozed {
        terminal.print(Terminal.field("\(feed): snoozed until \(WallClock.shown(until))"))
      }
    }
    return .success
  }
}

/// `watcher unsnooze FEED`: its notifications come back now.
struct UnsnoozeCommand: Command {
  let name = "unsnooze"
  let summary = "end a feed's snooze: its notifications come back"
  let positionals = Positionals.one("FEED", "feed FEED (as 'watcher status' lists them)")
  let options = [Options.config, Options.stateDir]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    guard let feed = StateOptions.named([arguments.positionals[0]], config: config, terminal: terminal)?.first else {
      return .usage
    }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let now = WallClock.now()
    guard let until = store.snoozes(now: now)[feed.name], until > now else {
      terminal.print("'\(feed.name)' is not snoozed")
      return .success
    }
    do {
      try store.snooze(feed.name, until: nil, now: now)
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    terminal.print("'\(feed.name)' notifies again")
    return .success
  }
}
