// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherState
import WatcherSupport

/// `watcher run`: the daemon (`Daemon`).
struct RunCommand: Command {
  let name = "run"
  let summary =
    "the daemon: poll every feed on its interval until SIGINT/SIGTERM; the config is live (a change on disk, SIGHUP or 'watcher reload' reloads it)"
  let positionals = Positionals.none()
  let options = [
    Options.config, Options.stateDir,
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    guard let loaded = ConfigOption.load(arguments, terminal: terminal) else { return .config }
    let directory = StateOptions.directory(arguments, config: loaded.config, environment: terminal.environment)
    let (lockedStore, code, held) = Handover.quietLock(directory, terminal: terminal)
    guard let store = lockedStore else {
      if code == .tempfail, let running = Handover.alreadyRunning(directory, terminal: terminal) {
        terminal.error("error: \(running)")
        terminal.error(
          "note: stop it with 'systemctl --user stop watcher' (or kill it), or use it: 'watcher poll', 'pending', "
            + "'reload' and 'status' work beside it")
      } else {
        terminal.errors(held)
      }
      return code
    }
    defer { store.unlock() }
    return Daemon(
      configPath: loaded.path, config: loaded.config, store: store, directory: directory, terminal: terminal
    ).run()
  }
}

/// `watcher reload`: the running daemon reads its config file again now, and says what it runs.
struct ReloadCommand: Command {
  let name = "reload"
  let summary = "make the running daemon read its config again now (it also does on a change and on SIGHUP)"
  let positionals = Positionals.none()
  let options = [Options.config, Options.stateDir]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    // The file may be broken: the daemon says so (and keeps its config); the state directory comes from
    // the last config that loaded, so --state-dir helps then.
    let path = ConfigLocator.candidates(explicit: arguments.value(Options.config), environment: terminal.environment)[0]
    let config = (try? ConfigLoader.load(path: path)) ?? Config()
    let directory = StateOptions.directory(arguments, config: config, environment: terminal.environment)
    let request = DaemonSocket.Request(.reload, config: DaemonSocket.canonical(path))
    if let code = Handover.ask(request, directory: directory, terminal: terminal) { return code }
    terminal.error("error: no watcher daemon runs for the state directory \(directory) ('watcher run' starts one)")
    return .failure
  }
}
