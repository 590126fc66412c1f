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

/// What a command does when the state directory is locked: when `watcher run` holds it, the daemon is asked
/// to do the work (over its socket), and its answer is the command's.
enum Handover {
  /// Takes the lock, or, when a daemon holds it, hands `request` to the daemon: the store to use, or the
  /// exit code the command ends with (the daemon's, or the lock's when no daemon answers).
  static func lockedStore(
    _ directory: String, request: @autoclosure () -> DaemonSocket.Request, terminal: Terminal
  ) -> (store: StateStore?, code: ExitCode) {
    // The lock's message waits: when a daemon holds the lock, it is asked to do the work instead.
    let (store, code, held) = quietLock(directory, terminal: terminal)
    if let store { return (store, .success) }
    if code == .tempfail, let answer = ask(request(), directory: directory, terminal: terminal) {
      return (nil, answer)
    }
    terminal.errors(held)
    return (nil, code)
  }

  /// Runs `body` with a poller over the locked state (a real notifier and hook runner), or hands `request` to
  /// the daemon that holds the lock: for the commands that act (`pending --retry`, `digest --send-now`).
  static func withPoller(
    _ config: Config, directory: String, request: @autoclosure () -> DaemonSocket.Request, terminal: Terminal,
    _ body: (Poller) -> ExitCode
  ) -> ExitCode {
    let (lockedStore, code) = lockedStore(directory, request: request(), terminal: terminal)
    guard let store = lockedStore else { return code }
    defer { store.unlock() }
    let runner = DeliveringActionRunner(
      notifier: LibnotifyNotifier(environment: terminal.environment), settings: config.settings,
      environment: terminal.environment, imageTransport: CurlTransport(userAgent: WatcherCLI.userAgent),
      log: { terminal.error("warning: \($0)") })
    return body(
      Poller(config: config, store: store, transport: CurlTransport(userAgent: WatcherCLI.userAgent), runner: runner))
  }

  /// Takes the lock without printing why it could not: the store, or the exit code and the message kept.
  static func quietLock(_ directory: String, terminal: Terminal) -> (StateStore?, ExitCode, [UInt8]) {
    let held = Locked<[UInt8]>([])
    var quiet = terminal
    quiet.errors = { bytes in held.withLock { $0 += bytes } }
    let (store, code) = StateOptions.lockedStore(directory, terminal: quiet)
    return (store, code, held.withLock { $0 })
  }

  /// Asks the daemon that uses `directory`; nil when none answers.
  static func ask(_ request: DaemonSocket.Request, directory: String, terminal: Terminal) -> ExitCode? {
    let path = DaemonSocket.path(stateDirectory: directory, environment: terminal.environment)
    // Ctrl-C or SIGTERM ends the wait (the daemon finishes what it started).
    let shutdown = Shutdown()
    shutdown.install()
    switch DaemonSocket.ask(request, path: path, terminal: terminal, interrupted: shutdown.stopping) {
    case .status(let status): return ExitCode(rawValue: status) ?? .failure
    case .refused: return .failure
    case .noDaemon: return nil
    }
  }

  /// After `add`, `remove` or `import-opml` edited the config: a daemon that runs reloads it now (it would
  /// see the change on its own within a moment; this makes it certain, and says so).
  static func reloadDaemon(configPath: String, directory: String, terminal: Terminal) {
    guard DaemonRecord.find(stateDirectory: directory, environment: terminal.environment) != nil else { return }
    _ = ask(
      DaemonSocket.Request(.reload, config: DaemonSocket.canonical(configPath)), directory: directory,
      terminal: terminal)
  }

  /// "a watcher daemon already runs (pid 42, config F)": what a command that needs the lock says beside one.
  static func alreadyRunning(_ directory: String, terminal: Terminal) -> String? {
    guard let record = DaemonRecord.find(stateDirectory: directory, environment: terminal.environment) else {
      return nil
    }
    return "a watcher daemon already runs (pid \(record.pid), config \(record.config), state \(directory))"
  }
}
