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
    switch request.ask {
    case .reload:
      if fileErrors == nil {
        out.print(
          "the daemon runs \(configPath), loaded at \(WallClock.shown(loaded)): \(config.feeds.count) feeds, \(config.rules.count) rules"
        )
      }
      code = fileErrors == nil ? .success : .config
    case .pending(let drop, let keys): code = pending(drop: drop, keys: keys, terminal: out)
    case .purge(let url): code = purge(url, terminal: out)
    case .digest(let rule):
      log("'watcher digest --send-now' asked to send the digest of rule '\(rule)'")
      code = DigestCommand.sendNow(rule, poller: poller(), terminal: out, report: logPass)
    case .announce(let feed, let key): code = announce(key, feed: feed, terminal: out)
    case .poll(let feeds, let force, let all, let catchUp, let json):
      code = poll(feeds, force: force, all: all, catchUp: catchUp, json: json, terminal: out)
    }
    client.finish(code.rawValue)
    if client.isGone { log("'watcher \(request.command)' stopped reading; its answer was dropped") }
    schedule()
  }

  /// `poll` and `catch-up`: a pass of the feeds asked for, reported to the client and logged.
  private func poll(
    _ names: [String], force: Bool, all: Bool, catchUp: Bool, json: Bool, terminal out: Terminal
  ) -> ExitCode {
    let command = catchUp ? "catch-up" : "poll"
    guard let feeds = names.isEmpty ? config.feeds : StateOptions.named(names, config: config, terminal: out)
    else { return .usage }
    let what = all ? " of every feed" : names.isEmpty ? "" : " of \(names.joined(separator: ", "))"
    log("'watcher \(command)' asked for a pass\(what)")
    let (code, pass) = PollRun.execute(
      poller(), feeds: feeds, named: !names.isEmpty || all, force: force, mode: catchUp ? .catchUp : .normal,
      command: command, terminal: out, shutdown: shutdown, json: json)
    logPass(pass)
    return code
  }

  /// `pending --retry` and `--drop`.
  private func pending(drop: Bool, keys: [String], terminal out: Terminal) -> ExitCode {
    let keys = keys.isEmpty ? nil : Set(keys)
    log("'watcher pending --\(drop ? "drop" : "retry")' asked\(keys.map { " for \($0.count) items" } ?? "")")
    return PendingRun.execute(retry: !drop, keys: keys, poller: poller(), terminal: out, report: logPass)
  }

  /// `items FEED --announce KEY`.
  private func announce(_ key: String, feed name: String, terminal out: Terminal) -> ExitCode {
    guard let feed = StateOptions.named([name], config: config, terminal: out)?.first else { return .usage }
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
