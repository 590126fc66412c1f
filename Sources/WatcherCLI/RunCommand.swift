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
  let positionals = Positionals.none()
  let options = [
    Options.config, Options.stateDir,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let loaded = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    var config = loaded.config
    let path = loaded.path
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    let (lockedStore, code) = StateOptions.lockedStore(directory, terminal: terminal)
    guard let store = lockedStore else { return code }
    defer { store.unlock() }

    let log: @Sendable (String) -> Void = { terminal.error("\(ISODate.format(WallClock.now())) \($0)") }
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
    Self.logSchedule(config: config, store: store, log: log)
    // `watcher poll` and `catch-up` ask the daemon over this socket instead of waiting for the lock.
    let clients = Locked<[DaemonSocket.Client]>([])
    let socketPath = DaemonSocket.path(stateDirectory: directory, environment: terminal.environment)
    var listener: DaemonSocket.Listener?
    do {
      listener = try DaemonSocket.Listener(path: socketPath) { client in
        clients.withLock { $0.append(client) }
        wake.signal()
      }
      log("'watcher poll' and 'watcher catch-up' ask this daemon through \(socketPath)")
    } catch {
      log("warning: 'watcher poll' cannot ask this daemon: \(error)")
    }
    defer { listener?.stop() }
    let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
    let notifier = LibnotifyNotifier(environment: terminal.environment, openLinks: true)
    // A feed's parser warnings are logged once, not on every poll.
    var warned: Set<String> = []
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
        stopping: shutdown.stopping, killing: shutdown.killing,
        imageTransport: CurlTransport(userAgent: WatcherCLI.userAgent),
        log: { _ in })  // the journal lines say it
      let poller = Poller(
        config: config, store: store, transport: transport, runner: runner, cancellation: shutdown.stopping)
      // Requests from 'watcher poll' and 'catch-up', served between passes so nothing runs twice at once.
      let waiting = clients.withLock { waiting in
        defer { waiting = [] }
        return waiting
      }
      Self.serve(waiting, poller: poller, config: config, shutdown: shutdown, log: log)
      let now = WallClock.now()
      let pass = poller.pass(config.feeds, force: false, now: now)
      for line in KeptReport.lines(pass, keptNow: pass.outcomes.reduce(0) { $0 + $1.kept }) { log(line) }
      for outcome in pass.outcomes {
        let report = PollReport.lines(
          outcome, for: .daemon { warned.insert(outcome.feed.name + "\u{0}" + $0).inserted })
        for line in report { log(line) }
      }
      if shutdown.stopping.isCancelled {
        log("stopped; what did not finish stays pending for the next poll")
        return .success
      }
      // Sleep until the next feed, held notification or digest is due (with a little jitter so feeds spread
      // out), or a signal.
      let next = Schedule.nextWake(config: config, store: store, now: WallClock.now())
      let jitter = Double.random(in: 0...min(5, max(0, next) * 0.05))
      _ = wake.wait(timeout: .now() + min(max(next, 0.5) + jitter, 3_600))
    }
  }

  /// Runs the passes the waiting `watcher poll` and `catch-up` clients asked for, one after the other, each
  /// reporting to its own client.
  static func serve(
    _ clients: [DaemonSocket.Client], poller: Poller, config: Config, shutdown: Shutdown,
    log: (String) -> Void
  ) {
    for client in clients {
      let request = client.request
      let mode: Poller.Mode = request.command == "catch-up" ? .catchUp : .normal
      guard
        let feeds = request.feeds.isEmpty
          ? config.feeds : StateOptions.named(request.feeds, config: config, terminal: client.terminal)
      else {
        client.finish(ExitCode.usage.rawValue)
        continue
      }
      log(
        "'watcher \(request.command)' asked for a pass\(request.feeds.isEmpty ? "" : " of \(request.feeds.joined(separator: ", "))")"
      )
      let code = PollRun.execute(
        poller, feeds: feeds, named: !request.feeds.isEmpty, force: request.force, mode: mode,
        command: request.command, terminal: client.terminal, shutdown: shutdown)
      client.finish(code.rawValue)
    }
  }

  /// "next poll: swift in 14 min, advisories in 15 min, …": what the daemon watches and when.
  static func logSchedule(config: Config, store: StateStore, log: (String) -> Void) {
    let now = WallClock.now()
    let next = config.feeds.map { feed -> (String, Date) in
      let state = (try? store.load(url: feed.url, readOnly: true).state) ?? FeedState(url: feed.url)
      return (feed.name, Schedule.nextDue(feed, state: state, settings: config.settings))
    }.sorted { $0.1 < $1.1 }
    guard !next.isEmpty else {
      log("no feeds to watch: add one with 'watcher add URL'")
      return
    }
    let shown = next.prefix(5).map { "\($0.0) \($0.1 <= now ? "now" : StatusCommand.relative($0.1, now: now))" }
    log(
      "watching \(next.count) feed\(next.count == 1 ? "" : "s"); next poll: " + shown.joined(separator: ", ")
        + (next.count > 5 ? ", …" : ""))
  }
}
