// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherCore

/// `watcher status [--json]`: per feed, what the state says.
struct StatusCommand: Command {
  let name = "status"
  let summary = "per feed: last poll, last success, next due, items known, errors, pending actions"
  let usage = "[--config FILE] [--state-dir DIR] [--json]"
  let options = [
    ConfigOption.spec, StateOptions.stateDir,
    OptionSpec(name: "json", value: nil, help: "print JSON (docs/status-json.md)"),
    OptionSpec(name: "help", short: "h", value: nil, help: "show this help"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let (config, _) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    let store: StateStore
    do {
      store = try StateStore(directory: directory)
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    let now = Date()
    let poller = Poller(
      config: config, store: store, transport: CurlTransport(userAgent: WatcherCLI.userAgent),
      runner: PrintingActionRunner { _ in })
    var rows: [JSONOutput] = []
    var table: [[String]] = [["FEED", "LAST POLL", "LAST OK", "NEXT", "ITEMS", "FAIL", "PENDING", "LAST ERROR"]]
    var notes: [String] = []
    for feed in config.feeds {
      let (state, warning) = store.load(url: feed.url)
      if let warning { notes.append("warning: \(warning)") }
      let interval = Double(feed.interval ?? config.settings.interval)
      var next = state.lastAttempt.map { $0.addingTimeInterval(interval) } ?? now
      if let notBefore = state.notBefore, notBefore > next { next = notBefore }
      rows.append(
        .object([
          ("name", .string(feed.name)), ("url", .string(feed.url)),
          ("last_attempt", .optional(state.lastAttempt.map(ISODate.format))),
          ("last_success", .optional(state.lastSuccess.map(ISODate.format))),
          ("next_due", .string(ISODate.format(next))), ("items", .int(state.items.count)),
          ("consecutive_failures", .int(state.consecutiveFailures)), ("last_error", .optional(state.lastError)),
          ("pending_actions", .int(state.pending.count)), ("dropped_actions", .int(state.dropped.count)),
          ("moved_to", .optional(state.movedTo)),
          ("due", .bool(poller.isDue(feed, state: state, now: now))),
        ]))
      table.append([
        feed.name, Self.relative(state.lastAttempt, now: now), Self.relative(state.lastSuccess, now: now),
        next <= now ? "due" : Self.relative(next, now: now), "\(state.items.count)", "\(state.consecutiveFailures)",
        "\(state.pending.count)", state.lastError.map { $0.count > 60 ? String($0.prefix(59)) + "…" : $0 } ?? "",
      ])
      for dropped in state.dropped.suffix(3) {
        notes.append(
          "feed '\(feed.name)': gave up on \(dropped.what) for '\(dropped.key)' at \(ISODate.format(dropped.time)): \(dropped.reason)"
        )
      }
      if let moved = state.movedTo {
        notes.append("feed '\(feed.name)' moved permanently to \(moved): change its url in the config")
      }
    }
    if arguments.flags.contains("json") {
      terminal.print(JSONOutput.object([("state_dir", .string(directory)), ("feeds", .array(rows))]).text)
    } else {
      let widths = (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 }
      // On a terminal (unless NO_COLOR), the header is bold and failing feeds are red.
      let color = terminal.outputIsTerminal && terminal.environment["NO_COLOR"] == nil
      var out = ""
      for (index, row) in table.enumerated() {
        let line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
          .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        let failing = index > 0 && row[5] != "0"
        let style = !color ? nil : index == 0 ? "1" : failing ? "31" : nil
        out += (style.map { "\u{1B}[\($0)m\(line)\u{1B}[0m" } ?? line) + "\n"
      }
      terminal.output(Array(out.utf8))
    }
    for note in notes { terminal.error(note) }
    return .success
  }

  /// "never", "just now", "3 min ago", "in 2 h", "5 d ago".
  static func relative(_ date: Date?, now: Date) -> String {
    guard let date else { return "never" }
    let seconds = Int(now.timeIntervalSince(date))
    let future = seconds < 0
    let magnitude = abs(seconds)
    let text: String
    switch magnitude {
    case ..<30: return "just now"
    case ..<3_600: text = "\(max(1, magnitude / 60)) min"
    case ..<172_800: text = "\(magnitude / 3_600) h"
    default: text = "\(magnitude / 86_400) d"
    }
    return future ? "in \(text)" : "\(text) ago"
  }
}
