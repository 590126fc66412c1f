// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport

/// `watcher pending [--retry | --drop] [KEY...]`: the actions waiting for a retry.
struct PendingCommand: Command {
  let name = "pending"
  let summary = "actions waiting for a retry: list them, run them now (--retry) or forget them (--drop)"
  let positionals = Positionals.any("KEY")
  let options = [
    Options.config, Options.stateDir,
    Options.retry,
    Options.drop,
    Options.json.described("print the list as JSON (share/doc/watcher/log-json.md)"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let retry = arguments.has(Options.retry)
    let drop = arguments.has(Options.drop)
    guard !(retry && drop) else {
      terminal.error("error: --retry and --drop cannot go together")
      return .usage
    }
    // Listing reads beside a broken config; retrying and dropping act, and wait for a config that loads.
    let loaded =
      retry || drop
      ? ConfigOption.load(arguments, terminal: terminal) : ConfigOption.loadForReading(arguments, terminal: terminal)
    guard let (config, path) = loaded else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    let keys = arguments.positionals.isEmpty ? nil : Set(arguments.positionals)
    guard retry || drop else { return list(config: config, directory: directory, keys: keys, arguments, terminal) }
    // Retrying and dropping change state: they take the lock, as a poll does (or the daemon does them).
    let request = DaemonSocket.Request(
      .pending(drop: drop, keys: arguments.positionals), config: DaemonSocket.canonical(path))
    return Handover.withPoller(config, directory: directory, request: request, terminal: terminal) {
      PendingRun.execute(retry: retry, keys: keys, poller: $0, terminal: terminal)
    }
  }

  private func list(
    config: Config, directory: String, keys: Set<String>?, _ arguments: Arguments, _ terminal: Terminal
  ) -> ExitCode {
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    var rows: [JSONOutput] = []
    var table: [[String]] = [["FEED", "ITEM", "KEY", "RULE", "ACTION", "ATTEMPTS", "NEXT TRY", "LAST ERROR"]]
    let now = WallClock.now()
    for feed in config.feeds {
      guard let state = try? store.load(url: feed.url, readOnly: true, items: false).state else { continue }
      for action in state.pending where keys?.contains(action.key) ?? true {
        var title = action.title ?? ""
        if action.title == nil, case .hook(let hook) = action.payload {
          title = hook.environment?["WATCHER_TITLE"] ?? ""
        }
        rows.append(
          .object([
            ("feed", .string(feed.name)), ("key", .string(action.key)), ("title", .string(title)),
            ("rule", .optional(action.label(feed: feed.name))), ("action", .string(action.kind.rawValue)),
            ("attempts", .int(action.attempts)), ("last_error", .optional(action.lastError)),
            ("created", .string(ISODate.format(action.created))),
            ("next_try", .string(action.nextTry.map(ISODate.format) ?? "next poll")),
          ]))
        table.append([
          feed.name, Terminal.clip(title, 40), Terminal.clip(action.key, 30),
          action.label(feed: feed.name) ?? "(feed notify)",
          action.kind.rawValue, "\(action.attempts)",
          action.nextTry.map { $0 <= now ? "next poll" : StatusCommand.relative($0, now: now) } ?? "next poll",
          Terminal.clip(action.lastError ?? "", 60),
        ])
      }
    }
    let all = (try? store.keptNotifications(readOnly: true)) ?? []
    let held = all.filter { $0.until != nil }
    let kept = all.filter { $0.until == nil }
    if arguments.has(Options.json) {
      let heldRows: [JSONOutput] = held.map {
        .object([
          ("feed", .string($0.feed)), ("title", .optional($0.action.title)),
          ("summary", .string($0.action.what)),
          ("until", .optional($0.until.map(ISODate.format))),
        ])
      }
      terminal.print(
        JSONOutput.document([
          ("pending", .array(rows)), ("kept_notifications", .int(kept.count)), ("held", .array(heldRows)),
          (
            "digests",
            .array(
              (config.timed((try? store.digests(readOnly: true)) ?? [])).map {
                .object([
                  ("rule", .string($0.rule)), ("items", .int($0.items.count)), ("due", .string(ISODate.format($0.due))),
                ])
              })
          ),
        ]).text)
      return .success
    }
    if rows.isEmpty {
      terminal.print("no pending actions")
    } else {
      terminal.print(Terminal.columns(table))
      terminal.print(
        "\(rows.count) pending; each is tried again at its next try with its rule's current hook "
          + "('watcher pending --retry' runs them now, '--drop' forgets them)")
    }
    for digest in config.timed((try? store.digests(readOnly: true)) ?? []) {
      terminal.print(
        "digest of rule '\(digest.rule)': \(digest.items.count) item\(digest.items.count == 1 ? "" : "s"), "
          + "goes out at \(WallClock.shown(digest.due))")
    }
    if let until = held.compactMap(\.until).min() {
      terminal.print(
        "\(held.count) notification\(held.count == 1 ? " is" : "s are") held for quiet hours; "
          + "they go out at \(WallClock.shown(until))\(held.count > 1 ? " as one summary" : ""):")
      for entry in held {
        // A summary starts with its feed's name by default: the feed is named once.
        var text = entry.action.what
        if text.hasPrefix(entry.feed + ": ") { text.removeFirst(entry.feed.count + 2) }
        terminal.print(Terminal.field("  \(entry.feed): \(text)"))
      }
    }
    if !kept.isEmpty {
      terminal.print(
        "\(kept.count) notification\(kept.count == 1 ? " is" : "s are") kept until the notification service "
          + "can be reached")
    }
    return .success
  }
}

/// `pending --retry` and `--drop` with the lock held: by the command, or by the daemon it handed them to.
enum PendingRun {
  /// `report` gets the retries' outcomes (the daemon logs them).
  static func execute(
    retry: Bool, keys: Set<String>?, poller: Poller, terminal: Terminal, report: (Poller.Pass) -> Void = { _ in }
  ) -> ExitCode {
    let (config, store) = (poller.config, poller.store)
    // The buttons clicked since the last pass are pending hooks first (and can be named by their item).
    for problem in poller.absorbClicks(now: WallClock.now()) { terminal.error("error: \(problem)") }
    if let keys {
      let pending = config.feeds.flatMap { feed in
        (try? store.load(url: feed.url, readOnly: true, items: false).state.pending) ?? []
      }
      let known = Set(pending.map(\.key))
      for key in keys.sorted() where !known.contains(key) {
        terminal.error("error: no pending action for the item '\(key)' ('watcher pending' lists them)")
        return .usage
      }
    }
    if !retry {
      var total = 0
      var failed = false
      for (feed, count, failure) in poller.dropPending(config.feeds, keys: keys, now: WallClock.now()) {
        if let failure {
          terminal.error("error: feed '\(feed.name)': \(failure)")
          failed = true
        }
        total += count
      }
      terminal.print("dropped \(total) pending action\(total == 1 ? "" : "s")")
      return failed ? .failure : .success
    }
    let outcomes = poller.retryPending(config.feeds, keys: keys, now: WallClock.now())
    report(Poller.Pass(outcomes: outcomes))
    var problems: [ActionProblem] = []
    for outcome in outcomes {
      for problem in outcome.actionProblems where !problems.contains(problem) { problems.append(problem) }
      for line in PollReport.lines(outcome, for: .failuresOnly) { terminal.error(line) }
    }
    for problem in problems { terminal.error("\(problem.label): \(problem)") }
    let left = outcomes.reduce(0) { $0 + $1.pendingLeft }
    let kept = outcomes.reduce(0) { $0 + $1.kept }
    terminal.print(
      "retried the pending actions of \(outcomes.count) feed\(outcomes.count == 1 ? "" : "s"): \(left) still pending"
        + (kept > 0 ? ", \(kept) notification\(kept == 1 ? "" : "s") kept for later" : ""))
    return !problems.contains(where: \.isFailure) && outcomes.allSatisfy(\.failures.isEmpty) ? .success : .failure
  }
}
