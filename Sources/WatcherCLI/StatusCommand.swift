// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherPoll
import WatcherState
import WatcherSupport

/// `watcher status [--json]`: per feed, what the state says.
struct StatusCommand: Command {
  let name = "status"
  let summary = "per feed: last poll, last success, next due, items known, errors, pending actions"
  let positionals = Positionals.none()
  let options = [
    Options.config, Options.stateDir,
    Options.json.described("print JSON (share/doc/watcher/status-json.md)"), Options.wide,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.loadForReading(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let now = WallClock.now()
    var rows: [JSONOutput] = []
    var table: [[String]] = [
      ["FEED", "LAST POLL", "LAST OK", "NEXT", "ITEMS", "FAIL", "PENDING", "LAST ERROR", "SCHEDULE"]
    ]
    var notes: [String] = []
    let holds = (try? store.hostHolds(readOnly: true)) ?? [:]
    let snoozes = store.snoozes(now: now).filter { $0.value > now }
    for feed in config.feeds {
      // Read only: status never moves, repairs or writes anything.
      let state: FeedState
      var readError: String?
      do {
        let loaded = try store.load(url: feed.url, readOnly: true)
        state = loaded.state
        if let problem = loaded.restarted {
          notes.append(
            "warning: feed '\(feed.name)': \(problem); the next poll moves it aside and starts the feed again")
        }
      } catch {
        state = FeedState(url: feed.url)
        readError = "\(error)"
        notes.append("error: feed '\(feed.name)': \(error)")
      }
      let plan = Schedule.plan(
        feed, state: state, settings: config.settings, hostHold: Schedule.hold(feed, in: holds), now: now)
      let next = plan.at
      let due = next <= now
      let lastError = readError ?? state.lastError ?? state.lastActionError
      // A feed whose actions failed last time counts as failing, as the poll's summary line counted it.
      let failures = readError != nil ? 1 : state.consecutiveFailures + (state.lastActionError == nil ? 0 : 1)
      rows.append(
        Self.row(
          feed, state: state, next: max(next, state.lastAttempt ?? now), due: due, reasons: plan.reasons,
          lastError: lastError, snoozedUntil: snoozes[feed.name], now: now))
      table.append([
        feed.name, Self.relative(state.lastAttempt, now: now), Self.relative(state.lastSuccess, now: now),
        due ? "due" : Self.relative(next, now: now), "\(state.items.count)",
        "\(failures)", "\(state.pending.count)",
        lastError.map { $0.count > 60 ? String($0.prefix(59)) + "…" : $0 } ?? "",
        plan.reasons.joined(separator: "; "),
      ])
      notes += Self.notes(feed, state: state, now: now)
      if let until = snoozes[feed.name] {
        notes.append(
          "feed '\(feed.name)' is snoozed until \(WallClock.local(until)): no notifications "
            + "('watcher unsnooze \(feed.name)')")
      }
    }
    let (kept, notificationNotes) = Self.notificationNotes(store, quiet: config.settings.notify.quiet, now: now)
    notes += notificationNotes
    let daemon = DaemonRecord.find(stateDirectory: directory, environment: terminal.environment)
    if let daemon {
      notes.insert(
        "the daemon runs (pid \(daemon.pid), since \(WallClock.shown(daemon.started))) the config \(daemon.config), "
          + "loaded at \(WallClock.shown(daemon.loaded))",
        at: 0)
      if let note = daemon.configNote { notes.insert("error: \(note)".trimming(.newlines), at: 1) }
    }
    if arguments.has(Options.json) {
      let daemonJSON: JSONOutput =
        daemon.map {
          .object([
            ("pid", .int(Int($0.pid))), ("config", .string($0.config)),
            ("started", .string(ISODate.format($0.started))),
            ("config_loaded", .string(ISODate.format($0.loaded))), ("config_errors", .optional($0.errors)),
          ])
        } ?? .null
      terminal.print(
        JSONOutput.document([
          ("state_dir", .string(directory)), ("kept_notifications", .int(kept)), ("daemon", daemonJSON),
          ("feeds", .array(rows)),
        ]).text)
    } else {
      let width = arguments.has(Options.wide) ? nil : terminal.width
      terminal.output(
        Array(
          Self.render(
            table, color: terminal.outputIsTerminal && terminal.environment["NO_COLOR"] == nil, width: width
          ).utf8))
    }
    if let problem = store.writeProblem() {
      notes.insert(
        "error: cannot write the state directory \(directory): \(problem); polls record nothing and act on nothing until it can be written",
        at: 0)
    }
    for note in notes { terminal.error(note) }
    return .success
  }

  /// One feed's row of `status --json`.
  static func row(
    _ feed: FeedConfig, state: FeedState, next: Date, due: Bool, reasons: [String], lastError: String?,
    snoozedUntil: Date?, now: Date
  ) -> JSONOutput {
    .object([
      ("name", .string(feed.name)), ("url", .string(URLSecrets.redacted(feed.url))),
      ("last_attempt", .optional(state.lastAttempt.map(ISODate.format))),
      ("last_success", .optional(state.lastSuccess.map(ISODate.format))),
      ("next_due", .string(ISODate.format(next))),
      ("items", .int(state.items.count)),
      ("consecutive_failures", .int(state.consecutiveFailures)), ("last_error", .optional(lastError)),
      ("last_action_error", .optional(state.lastActionError)),
      ("pending_actions", .int(state.pending.count)), ("dropped_actions", .int(state.dropped.count)),
      ("moved_to", .optional(state.movedTo)),
      ("identity", .string(!feed.identityChosen && state.autoIdentity != nil ? "link" : feed.identity.rawValue)),
      ("identity_reason", .optional(feed.identityChosen ? nil : state.autoIdentityReason)),
      ("due", .bool(due)), ("next_because", .array(reasons.map { .string($0) })),
      ("health", .optional(FeedHealth.current(state, now: now)?.summary)),
      ("snoozed_until", .optional(snoozedUntil.map(ISODate.format))),
    ])
  }

  /// How many notifications are kept for the notification service, and the notes on those kept and held.
  static func notificationNotes(_ store: StateStore, quiet: QuietHours, now: Date) -> (kept: Int, notes: [String]) {
    var notes: [String] = []
    var stored: [KeptNotification] = []
    do {
      stored = try store.keptNotifications(readOnly: true)
    } catch {
      notes.append("error: \(error)")
    }
    let held = stored.filter { $0.until != nil }.count
    let kept = stored.count - held
    if held > 0 {
      notes.append(
        "\(held) notification\(held == 1 ? " is" : "s are") held for quiet hours"
          + (quiet.isQuiet(now)
            ? " until \(WallClock.local(quiet.end(after: now)))" : "; quiet hours are over: the next poll shows them"))
    }
    if kept > 0 {
      notes.append(
        "\(kept) notification\(kept == 1 ? " is" : "s are") kept until the notification service can be reached; "
          + "the next poll shows them")
    }
    return (kept, notes)
  }

  /// The notes under the table for one feed: its pending actions and why, what was given up, a move.
  static func notes(_ feed: FeedConfig, state: FeedState, now: Date = WallClock.now()) -> [String] {
    var notes: [String] = []
    if !state.pending.isEmpty {
      // Why each is pending: its last failure, or not tried yet (watcher stopped, or the state was not saved).
      var reasons: [String] = []
      for action in state.pending {
        let what =
          "\(action.kind == .notify ? "notification" : action.kind.rawValue) of rule '\(action.label(feed: feed.name) ?? "feed notify")'"
        let reason =
          "\(what): " + (action.lastError.map { "failed \(action.attempts)×, last: \($0)" } ?? "not run yet")
        if !reasons.contains(reason) { reasons.append(reason) }
      }
      notes.append(
        "feed '\(feed.name)': \(state.pending.count) pending (retried at each one's next try; see 'watcher pending'): "
          + reasons.prefix(3).joined(separator: "; "))
    }
    for dropped in state.dropped.suffix(3) {
      notes.append(
        "feed '\(feed.name)': gave up on \(dropped.what) for '\(dropped.key)' at \(WallClock.shown(dropped.time)): \(dropped.reason)"
      )
    }
    if let reason = state.autoIdentityReason, !feed.identityChosen {
      notes.append("feed '\(feed.name)': identity: link: \(reason) (set 'identity:' in its entry to choose)")
    }
    if let rekey = state.lastRekey { notes.append("feed '\(feed.name)': \(rekey)") }
    if let health = FeedHealth.current(state, now: now), health.kind != .moved {
      notes.append("feed '\(feed.name)': \(health.summary); \(health.advice)")
    }
    if let moved = state.movedTo {
      notes.append("feed '\(feed.name)' moved permanently to \(moved): change its url in the config")
    }
    return notes
  }

  /// The table, columns aligned; with `color` (a terminal, unless NO_COLOR) the header is bold and failing
  /// feeds are red.
  ///
  /// Within `width` columns (a terminal's), no row wraps: the columns that matter least go first (LAST OK,
  /// SCHEDULE, PENDING), then LAST ERROR is cut, then each line; without a width every column is whole.
  static func render(_ table: [[String]], color: Bool, width: Int? = nil) -> String {
    let failing = table.indices.map { $0 > 0 && table[$0][5] != "0" }
    var table = table
    func widths() -> [Int] { (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 } }
    func total() -> Int { widths().reduce(0, +) + 2 * (table[0].count - 1) }
    if let width {
      for header in ["LAST OK", "SCHEDULE", "PENDING"] where total() > width {
        guard let column = table[0].firstIndex(of: header) else { continue }
        for index in table.indices { table[index].remove(at: column) }
      }
      if total() > width, let error = table[0].firstIndex(of: "LAST ERROR") {
        let room = max(10, widths()[error] - (total() - width))
        for index in table.indices { table[index][error] = Terminal.clip(table[index][error], room) }
      }
    }
    let widths = widths()
    var out = ""
    for (index, row) in table.enumerated() {
      var line = zip(row, widths).map { $0.padded(to: $1) }
        .joined(separator: "  ").trimming(.spaces)
      if let width, line.count > width { line = Terminal.clip(line, width) }
      let failing = failing[index]
      let style = !color ? nil : index == 0 ? "1" : failing ? "31" : nil
      out += (style.map { "\u{1B}[\($0)m\(line)\u{1B}[0m" } ?? line) + "\n"
    }
    return out
  }

  /// "never", "just now", "3 min ago", "in 2 h", "5 d ago".
  static func relative(_ date: Date?, now: Date) -> String {
    guard let date else { return "never" }
    let seconds = Int(max(min(now.timeIntervalSince(date), 1e12), -1e12))
    let future = seconds < 0
    // A time to come is never "just now": a retry 30 s away is not due.
    if future, -seconds < 60 { return -seconds < 1 ? "just now" : "in under a minute" }
    guard abs(seconds) >= 30 else { return "just now" }
    let text = SpokenDuration.text(Double(max(abs(seconds), 60)))
    return future ? "in \(text)" : "\(text) ago"
  }
}
