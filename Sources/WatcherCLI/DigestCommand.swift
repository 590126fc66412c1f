// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherPoll
import WatcherState
import WatcherSupport

/// `watcher digest RULE --preview | --send-now`: what a digest rule has collected, and sending it now.
struct DigestCommand: Command {
  let name = "digest"
  let summary = "show what a digest rule has collected (--preview), or send it now (--send-now)"
  let positionals = Positionals.one("RULE", "the digest rule's name")
  let options = [
    Options.config, Options.stateDir,
    Options.preview, Options.sendNow,
    Options.json.described("with --preview: the digest as JSON (docs/json.md)"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let (preview, send) = (arguments.has(Options.preview), arguments.has(Options.sendNow))
    guard preview != send else {
      terminal.error("error: digest needs one of --preview (show it) and --send-now (send it)")
      return .usage
    }
    guard let (config, path) = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    let rule = arguments.positionals[0]
    let digestRules = config.rules.filter { $0.actions.digest != nil }.map(\.name)
    guard digestRules.contains(rule) else {
      let what =
        config.rules.contains { $0.name == rule } ? "the rule '\(rule)' has no digest:" : "no rule named '\(rule)'"
      terminal.error(
        "error: \(what) (digest rules: \(digestRules.isEmpty ? "none" : digestRules.joined(separator: ", ")))")
      if let suggestion = Suggestion.closest(to: rule, in: digestRules) {
        terminal.error("note: did you mean '\(suggestion)'?")
      }
      return .usage
    }
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    if preview {
      guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
      let digest = config.timed((try? store.digests(readOnly: true)) ?? []).first { $0.rule == rule }
      if arguments.has(Options.json) {
        terminal.print(Self.json(rule: rule, digest: digest).text)
        return .success
      }
      guard let digest, !digest.items.isEmpty else {
        terminal.print("the digest of rule '\(rule)' is empty: nothing collected since it last went out")
        return .success
      }
      let count = digest.items.count
      var out = "Digest '\(rule)': \(count) item\(count == 1 ? "" : "s"), goes out at \(WallClock.shown(digest.due))\n"
      for item in digest.items {
        out += Terminal.field("  \(item.feed): \(item.title ?? item.key)") + "\n"
        if let link = item.link { out += Terminal.field("      \(link)") + "\n" }
      }
      terminal.output(Array(out.utf8))
      return .success
    }
    // Sending changes state: the lock, as a poll takes it (or the daemon does it).
    let request = DaemonSocket.Request(.digest(rule: rule), config: DaemonSocket.canonical(path))
    return Handover.withPoller(config, directory: directory, request: request, terminal: terminal) {
      Self.sendNow(rule, poller: $0, terminal: terminal)
    }
  }

  /// `digest --preview --json`: the rule, when its digest goes out (null when it has nothing), its items.
  static func json(rule: String, digest: Digest?) -> JSONOutput {
    let items = digest?.items ?? []
    return .document([
      ("rule", .string(rule)), ("due", .optional(items.isEmpty ? nil : digest.map { ISODate.format($0.due) })),
      (
        "items",
        .array(
          items.map { item in
            .object([
              ("feed", .string(item.feed)), ("key", .string(item.key)), ("title", .optional(item.title)),
              ("link", .optional(item.link)), ("collected", .string(ISODate.format(item.collected))),
            ])
          })
      ),
    ])
  }

  /// Makes the rule's digest due now and delivers it as a pass would (its hook, Apprise, the notification;
  /// quiet hours still hold it).
  ///
  /// `report` gets the pass (the daemon logs it).
  static func sendNow(
    _ rule: String, poller: Poller, terminal: Terminal, report: (Poller.Pass) -> Void = { _ in }
  ) -> ExitCode {
    let now = WallClock.now()
    do {
      var digests = try poller.store.digests()
      guard let index = digests.firstIndex(where: { $0.rule == rule }), !digests[index].items.isEmpty else {
        terminal.print("the digest of rule '\(rule)' is empty: nothing to send")
        return .success
      }
      digests[index].due = now
      digests[index].nextTry = nil
      _ = try poller.store.saveDigests(digests)
    } catch {
      terminal.error("error: \(error)")
      return .failure
    }
    let pass = poller.pass([], force: false, now: now)
    report(pass)
    for line in KeptReport.lines(pass, keptNow: 0) { terminal.report(line) }
    let left = ((try? poller.store.digests(readOnly: true)) ?? []).first { $0.rule == rule }
    if let left, !left.items.isEmpty {
      terminal.error(
        "note: the digest of rule '\(rule)' waits until \(WallClock.shown(left.nextAttempt)) "
          + "(quiet hours, or its hook failed and is retried)")
    }
    return pass.digestProblems.isEmpty ? .success : .failure
  }
}
