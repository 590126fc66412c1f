// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherCore

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
    let cancellation = Cancellation()
    let wake = DispatchSemaphore(value: 0)
    let signals = Locked<[Int32]>([])
    SignalWaiter.start([SIGINT, SIGTERM, SIGHUP]) { signal in
      signals.withLock { $0.append(signal) }
      if signal != SIGHUP { cancellation.cancel() }
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
          log("stopping (signal \(signal))")
          return .success
        }
      }
      let runner = DeliveringActionRunner(
        notifier: notifier, settings: config.settings, environment: terminal.environment,
        log: { log("warning: \($0)") })
      let poller = Poller(
        config: config, store: store, transport: transport, runner: runner, cancellation: cancellation)
      let now = Date()
      for outcome in poller.poll(config.feeds, force: false, now: now) where outcome.polled {
        for warning in outcome.warnings { log("warning: feed '\(outcome.feed.name)': \(warning)") }
        for error in outcome.actionErrors { log("error: \(error)") }
        if let error = outcome.error {
          log("error: feed '\(outcome.feed.name)' (\(outcome.feed.url)): \(error)")
        } else if outcome.newItems > 0 {
          log("\(outcome.feed.name): \(outcome.newItems) new, \(outcome.actions) actions")
        }
      }
      if cancellation.isCancelled {
        log("stopping")
        return .success
      }
      // Sleep until the next feed is due (with a little jitter so feeds spread out), or a signal.
      let next =
        config.feeds.compactMap { feed -> TimeInterval? in
          let (state, _) = store.load(url: feed.url)
          let interval = Double(feed.interval ?? config.settings.interval)
          var due = (state.lastAttempt ?? now).addingTimeInterval(interval)
          if let notBefore = state.notBefore, notBefore > due { due = notBefore }
          return due.timeIntervalSince(Date())
        }.min() ?? 60
      let jitter = Double.random(in: 0...min(5, max(0, next) * 0.05))
      _ = wake.wait(timeout: .now() + min(max(next, 0.5) + jitter, 3_600))
    }
  }
}

/// Receives signals on a dedicated thread with `sigwait` (LINUX-NOTES §6): the signals are blocked in every
/// thread from the start of the process (`WatcherCLI.prepareProcess`), so none is ever delivered elsewhere or
/// missed.
enum SignalWaiter {
  static func start(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
    let thread = Thread {
      var set = sigset_t()
      sigemptyset(&set)
      for signal in signals { sigaddset(&set, signal) }
      while true {
        var received: Int32 = 0
        if sigwait(&set, &received) == 0 { handler(received) }
      }
    }
    thread.start()
  }

  /// Blocks `signals` in the calling thread (and so in every thread it starts afterwards).
  static func block(_ signals: [Int32]) {
    var set = sigset_t()
    sigemptyset(&set)
    for signal in signals { sigaddset(&set, signal) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }
}
