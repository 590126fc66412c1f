// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherActions
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `watcher run`: the daemon.
///
/// Polls every feed on its own interval until SIGINT or SIGTERM; SIGHUP reloads the config (a broken new config keeps
/// the old one running).
struct RunCommand: Command {
  let name = "run"
  let summary = "the daemon: poll every feed on its interval until SIGINT/SIGTERM (SIGHUP reloads the config)"
  let usage = "[--config FILE] [--state-dir DIR]"
  let options = [
    ConfigOption.spec, StateOptions.stateDir, OptionSpec(name: "help", short: "h", value: nil, help: "show this help"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard arguments.positionals.isEmpty else {
      terminal.error("error: 'watcher run' takes no arguments")
      return .usage
    }
    guard let loaded = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    var config = loaded.config
    let path = loaded.path
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    let (lockedStore, code) = StateOptions.lockedStore(directory, terminal: terminal)
    guard let store = lockedStore else { return code }
    defer { store.unlock() }

    let log: @Sendable (String) -> Void = { terminal.error("\(ISODate.format(Date())) \($0)") }
    let shutdown = Shutdown()
    let wake = DispatchSemaphore(value: 0)
    let signals = Locked<[Int32]>([])
    shutdown.install(extra: [SIGHUP]) { signal in
      signals.withLock { $0.append(signal) }
      if signal != SIGHUP {
        log("stopping (signal \(signal)): no new fetch or hook; running hooks get \(Int(Shutdown.hookGrace)) s")
      }
      wake.signal()
    }
    log(
      "watcher \(WatcherCLI.version) running: \(config.feeds.count) feeds, \(config.rules.count) rules, state in \(directory)"
    )
    let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
    let notifier = LibnotifyNotifier(environment: terminal.environment, openLinks: true)
    while true {
      for signal in signals.withLock({ pending in
        defer { pending = [] }; return pending
      }) {
        if signal == SIGHUP {
          do {
            config = try ConfigLoader.load(path: path)
            log("reloaded \(path): \(config.feeds.count) feeds, \(config.rules.count) rules")
          } catch {
            log("the new config is invalid; still running the previous one:")
            terminal.errors(Array(error.rendered.utf8))
          }
        } else {
          return .success
        }
      }
      let runner = DeliveringActionRunner(
        notifier: notifier, settings: config.settings, environment: terminal.environment,
        stopping: shutdown.stopping, killing: shutdown.killing, log: { log("warning: \($0)") })
      let poller = Poller(
        config: config, store: store, transport: transport, runner: runner, cancellation: shutdown.stopping)
      let now = Date()
      let pass = poller.pass(config.feeds, force: false, now: now)
      for line in KeptReport.lines(pass, keptNow: pass.outcomes.reduce(0) { $0 + $1.kept }) { log(line) }
      for outcome in pass.outcomes where outcome.polled {
        for warning in outcome.warnings { log("warning: feed '\(outcome.feed.name)': \(warning)") }
        for problem in outcome.actionProblems { log("\(problem.isFailure ? "error" : "note"): \(problem)") }
        if !outcome.failures.isEmpty {
          log("error: feed '\(outcome.feed.name)' (\(outcome.feed.url)): \(outcome.failureText)")
        } else if outcome.newItems > 0 {
          log("\(outcome.feed.name): \(outcome.newItems) new, \(outcome.actions) actions")
        }
      }
      if shutdown.stopping.isCancelled {
        log("stopped; what did not finish stays pending for the next poll")
        return .success
      }
      // Sleep until the next feed is due (with a little jitter so feeds spread out), or a signal.
      let next =
        config.feeds.compactMap { feed -> TimeInterval? in
          guard let state = try? store.load(url: feed.url, readOnly: true).state else { return nil }
          return Schedule.nextDue(feed, state: state, settings: config.settings).timeIntervalSince(Date())
        }.min() ?? 60
      let jitter = Double.random(in: 0...min(5, max(0, next) * 0.05))
      _ = wake.wait(timeout: .now() + min(max(next, 0.5) + jitter, 3_600))
    }
  }
}
