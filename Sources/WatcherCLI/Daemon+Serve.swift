// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherPoll
import WatcherState
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

extension Daemon {
  /// Does what a client asked, with the config on disk, and answers it; its pass is logged like the
  /// daemon's own.
  func serve(_ client: DaemonSocket.Client) {
    let request = client.request
    let out = client.terminal
    reloadIfChanged(because: "before 'watcher \(request.command)'")
    if let asked = request.config, DaemonSocket.canonical(asked) != resolvedConfig {
      out.error(
        "error: the daemon (pid \(getpid())) runs the config \(resolvedConfig), not \(asked); "
          + "use that config, or stop the daemon ('systemctl --user stop watcher') to use another")
      client.finish(ExitCode.usage.rawValue)
      return
    }
    if let note = record.configNote { out.error("note: \(note)".trimming(.newlines)) }
    let code: ExitCode
    switch request.command {
    case "reload":
      if fileErrors == nil {
        out.print(
          "the daemon runs \(configPath), loaded at \(WallClock.shown(loaded)): \(config.feeds.count) feeds, \(config.rules.count) rules"
        )
      }
      code = fileErrors == nil ? .success : .config
    case "pending": code = pending(request, terminal: out)
    case "purge": code = purge(request.action ?? "", terminal: out)
    case "digest":
      log("'watcher digest --send-now' asked to send the digest of rule '\(request.action ?? "")'")
      code = DigestCommand.sendNow(request.action ?? "", poller: poller(), terminal: out, report: logPass)
    case "announce":
      code = announce(request, terminal: out)
    default: code = poll(request, terminal: out)
    }
    client.finish(code.rawValue)
    if client.isGone { log("'watcher \(request.command)' stopped reading; its answer was dropped") }
    schedule()
  }

  /// `poll` and `catch-up`: a pass of the feeds asked for, reported to the client and logged.
  private func poll(_ request: DaemonSocket.Request, terminal out: Terminal) -> ExitCode {
    let mode: Poller.Mode = request.command == "catch-up" ? .catchUp : .normal
    guard
      let feeds = request.feeds.isEmpty
        ? config.feeds : StateOptions.named(request.feeds, config: config, terminal: out)
    else { return .usage }
    let what =
      request.all ? " of every feed" : request.feeds.isEmpty ? "" : " of \(request.feeds.joined(separator: ", "))"
    log("'watcher \(request.command)' asked for a pass\(what)")
    let (code, pass) = PollRun.execute(
      poller(), feeds: feeds, named: !request.feeds.isEmpty || request.all, force: request.force, mode: mode,
      command: request.command, terminal: out, shutdown: shutdown)
    logPass(pass)
    return code
  }

  /// `pending --retry` and `--drop`.
  private func pending(_ request: DaemonSocket.Request, terminal out: Terminal) -> ExitCode {
    let keys = request.keys.isEmpty ? nil : Set(request.keys)
    log("'watcher pending --\(request.action ?? "retry")' asked\(keys.map { " for \($0.count) items" } ?? "")")
    return PendingRun.execute(
      retry: request.action != "drop", keys: keys, poller: poller(), terminal: out, report: logPass)
  }

  /// `items FEED --announce KEY`.
  private func announce(_ request: DaemonSocket.Request, terminal out: Terminal) -> ExitCode {
    guard let key = request.keys.first,
      let feed = StateOptions.named(Array(request.feeds.prefix(1)), config: config, terminal: out)?.first
    else { return .usage }
    log("'watcher items \(feed.name) --announce' asked to act on an item after all")
    let (code, pass) = Announce.execute(key, feed: feed, poller: poller(), terminal: out)
    if let pass { logPass(pass) }
    return code
  }

  /// `remove --purge`: the state of a feed the config no longer has.
  private func purge(_ url: String, terminal out: Terminal) -> ExitCode {
    guard !config.feeds.contains(where: { $0.url == url }) else {
      out.error("error: the daemon still watches \(url); remove it from \(configPath) first")
      return .failure
    }
    log("'watcher remove --purge' asked to delete the state of \(url)")
    return Subscriptions.purge(url: url, store: store, terminal: out)
  }
}
