// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Dispatch
import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherFetch
import WatcherPoll
import WatcherState
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon: one loop that polls every feed on its interval, serves the commands handed to it, and
/// keeps its config live.
///
/// Everything that changes state happens on this loop, one thing at a time: a pass of its own, a request
/// from a client (`poll`, `catch-up`, `pending`, `reload`, `purge`), a reload. Signals, clients and the
/// config watcher only queue what they bring and wake the loop. It sleeps until the next thing is due.
final class Daemon {
  let configPath: String
  /// The config file with symlinks resolved: what a client's `--config` is compared with.
  let resolvedConfig: String
  var config: Config
  /// The bytes the running config was loaded from, and when.
  var configText: Data?
  /// The text of the config it runs (the last that loaded), for the record: the dry runs read it while the
  /// file has errors.
  var runningText: Data?
  var loaded: Date
  /// The errors of the file on disk, when it changed and does not load.
  var fileErrors: String?
  let store: StateStore
  let directory: String
  let terminal: Terminal
  let started = WallClock.now()

  let shutdown = Shutdown()
  let wake: DispatchSemaphore
  /// Set when a notification's button was clicked: the next pass runs its hook now.
  let clicked: Locked<Bool>
  let signals = Locked<[Int32]>([])
  let clients = Locked<[DaemonSocket.Client]>([])
  /// When the config file last changed on disk, until the loop takes it.
  let configChanged = Locked<Date?>(nil)
  let systemd: SystemdNotifier
  let socketPath: String
  let transport = CurlTransport(userAgent: WatcherCLI.userAgent)
  let notifier: LibnotifyNotifier
  /// When it does what: its next pass, a reload, a back-off.
  var plan = DaemonPlan()
  /// A feed's parser warnings are logged once, not on every poll.
  var warned: Set<String> = []

  init(configPath: String, config: Config, store: StateStore, directory: String, terminal: Terminal) {
    self.configPath = configPath
    resolvedConfig = DaemonSocket.canonical(configPath)
    self.config = config
    configText = FileManager.default.contents(atPath: configPath)
    runningText = configText
    loaded = WallClock.now()
    self.store = store
    self.directory = directory
    self.terminal = terminal
    systemd = SystemdNotifier(environment: terminal.environment)
    socketPath = DaemonSocket.path(stateDirectory: directory, environment: terminal.environment)
    let (wake, clicked) = (DispatchSemaphore(value: 0), Locked(false))
    (self.wake, self.clicked) = (wake, clicked)
    notifier = LibnotifyNotifier(
      environment: terminal.environment,
      clicks: StoreClicks(directory: directory, snoozeFor: config.settings.notify.snooze) { _ in
        clicked.withLock { $0 = true }
        wake.signal()
      }, bubbles: directory + "/bubbles.json")
  }

  func log(_ line: String) { terminal.error("\(ISODate.format(WallClock.now())) \(line)") }

  /// Runs until SIGINT or SIGTERM.
  func run() -> ExitCode {
    let (signals, wake, terminal) = (signals, wake, terminal)
    shutdown.install(extra: [SIGHUP]) { signal in
      signals.withLock { $0.append(signal) }
      if signal != SIGHUP {
        terminal.error(
          "\(ISODate.format(WallClock.now())) stopping (signal \(signal)): no new fetch or hook; running hooks get \(Int(Shutdown.hookGrace)) s"
        )
      }
      wake.signal()
    }
    log(
      "watcher \(WatcherCLI.version) running: \(config.feeds.count) feeds, \(config.rules.count) rules, "
        + "config \(configPath), state in \(directory)")
    logSchedule()
    let listener = listen()
    defer { listener?.stop() }
    let changed = configChanged
    let watcher = ConfigWatcher(path: configPath) {
      changed.withLock { $0 = WallClock.now() }
      wake.signal()
    }
    if watcher == nil { log("warning: cannot watch \(configPath) for changes; reload with SIGHUP or 'watcher reload'") }
    let record = DaemonRecord.path(socket: socketPath)
    writeRecord()
    defer { unlink(record) }
    // Hooks, webhooks and fetches beat while they are waited on: a batch longer than the watchdog's
    // interval is not a hang (each has its own timeout).
    let notifier = systemd
    Heartbeat.install(every: systemd.watchdogInterval) { notifier.send("WATCHDOG=1") }
    defer { Heartbeat.install(every: nil) {} }
    systemd.send("READY=1\nSTATUS=\(statusLine(Schedule.overview(config: config, store: store, now: WallClock.now())))")
    return loop()
  }

  private func loop() -> ExitCode {
    while true {
      systemd.send("WATCHDOG=1")
      for signal in signals.withLock({ pending in
        defer { pending = [] }
        return pending
      }) {
        guard signal == SIGHUP else { return stop() }
        reload(because: "SIGHUP")
      }
      if let changed = configChanged.withLock({ changed in
        defer { changed = nil }
        return changed
      }) {
        plan.configFileChanged(at: changed)
      }
      if plan.takeReload(at: WallClock.now()) { reloadIfChanged(because: "the file changed") }
      let waiting = clients.withLock { waiting in
        defer { waiting = [] }
        return waiting
      }
      for client in waiting where !shutdown.stopping.isCancelled { serve(client) }
      for client in waiting where shutdown.stopping.isCancelled { client.finish(ExitCode.failure.rawValue) }
      if shutdown.stopping.isCancelled { return stop() }
      if clicked.withLock({ clicked in
        defer { clicked = false }
        return clicked
      }) {
        plan.passSoon(at: WallClock.now())
      }
      if plan.passDue(at: WallClock.now()) { pass() }
      // Its state directory gone or replaced: nothing it does could be saved, and another watcher could
      // take the directory. It stops with a failure, so that systemd starts it again with a directory.
      if let problem = store.lockProblem() {
        log("error: the state directory \(store.directory): \(problem) while the daemon ran; stopping")
        systemd.send("STOPPING=1")
        return .tempfail
      }
      _ = wake.wait(timeout: .now() + plan.sleep(at: WallClock.now(), watchdog: systemd.watchdogInterval))
    }
  }

  private func stop() -> ExitCode {
    systemd.send("STOPPING=1")
    log("stopped; what did not finish stays pending for the next poll")
    return .success
  }

  /// The daemon's own pass over the due feeds, logged; then when the next one is due (later when feeds
  /// could not save their state: ``DaemonPlan/passed(startedAt:unsaved:)``).
  private func pass() {
    let now = WallClock.now()
    let pass = poller().pass(config.feeds, force: false, now: now)
    logPass(pass)
    schedule()
    let unsaved = pass.outcomes.contains { outcome in
      outcome.failures.contains { if case .save = $0 { true } else { false } }
    }
    if let wait = plan.passed(startedAt: now, unsaved: unsaved) {
      log("warning: feeds could not save their state; the next pass is in \(Int(wait / 60)) min")
    }
  }

  /// Sets when the next pass is due (with a little jitter so feeds spread out) and tells systemd.
  func schedule() {
    let now = WallClock.now()
    let overview = Schedule.overview(config: config, store: store, now: now)
    plan.schedule(
      at: now, wake: overview.wake, jitter: DaemonPlan.jitter(wake: overview.wake, unit: .random(in: 0...1)))
    systemd.send("STATUS=\(statusLine(overview))")
  }

  /// "9 feeds, 0 failing, next poll 10:42" (for `systemctl --user status`).
  func statusLine(_ overview: Schedule.Overview) -> String {
    var line = "\(config.feeds.count) feed\(config.feeds.count == 1 ? "" : "s"), \(overview.failing) failing"
    if let next = overview.nextPoll {
      line += ", next poll \(WallClock.local(next))"
    }
    if fileErrors != nil { line += "; the config file has errors (running the one loaded before)" }
    return line
  }

  /// Every item acted on, each action's outcome, what was kept: the story of a pass, its own or handed over.
  func logPass(_ pass: Poller.Pass) {
    for line in KeptReport.lines(pass, keptNow: pass.outcomes.reduce(0) { $0 + $1.kept }) { log(line) }
    for outcome in pass.outcomes {
      let report = PollReport.lines(
        outcome, for: .daemon { self.warned.insert(outcome.feed.name + "\u{0}" + $0).inserted })
      for line in report { log(line) }
    }
    for entry in pass.digestJournal { log(LogCommand.line(entry, time: false)) }
  }

  /// A poller with the config the daemon runs now.
  func poller() -> Poller {
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: config.settings, environment: terminal.environment,
      stopping: shutdown.stopping, killing: shutdown.killing,
      imageTransport: CurlTransport(userAgent: WatcherCLI.userAgent),
      log: { _ in })  // the journal lines say it
    var poller = Poller(
      config: config, store: store, transport: transport, runner: runner, cancellation: shutdown.stopping)
    let systemd = systemd
    poller.heartbeat = { systemd.send("WATCHDOG=1") }
    return poller
  }

  private func listen() -> DaemonSocket.Listener? {
    let (clients, wake) = (clients, wake)
    do {
      let listener = try DaemonSocket.Listener(path: socketPath) { client in
        clients.withLock { $0.append(client) }
        wake.signal()
      }
      log("'watcher poll', 'catch-up', 'pending', 'reload' and 'status' work beside this daemon (\(socketPath))")
      return listener
    } catch {
      log("warning: commands cannot ask this daemon: \(error)")
      return nil
    }
  }

  /// What the daemon says about itself: its pid, its config and when it was loaded, the file's errors.
  var record: DaemonRecord {
    DaemonRecord(
      pid: getpid(), config: resolvedConfig, started: started, loaded: loaded, errors: fileErrors,
      text: runningText.map { String(decoding: $0, as: UTF8.self) })
  }

  func writeRecord() { record.write(to: DaemonRecord.path(socket: socketPath)) }

  /// "next poll: swift in 14 min, advisories in 15 min, …": what the daemon watches and when.
  func logSchedule() {
    let now = WallClock.now()
    let next = config.feeds.map { feed -> (String, Date) in
      let state = (try? store.load(url: feed.url, readOnly: true, items: false).state) ?? FeedState(url: feed.url)
      return (feed.name, Schedule.nextDue(feed, state: state, settings: config.settings, now: now))
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

// MARK: - The config, live

extension Daemon {
  /// Reloads when the file's bytes differ from the running config's (or it had errors).
  func reloadIfChanged(because reason: String) {
    let text = FileManager.default.contents(atPath: configPath)
    guard text != configText else { return }
    reload(because: reason, text: text)
  }

  /// Loads the config file; one that does not load keeps the old config running, its errors logged once
  /// (until they change) and said by `status` and every handed-over command.
  func reload(because reason: String, text: Data? = nil) {
    systemd.reloading()
    defer { systemd.send("READY=1") }
    let text = text ?? FileManager.default.contents(atPath: configPath)
    do {
      let new = try ConfigLoader.load(path: configPath)
      config = new
      configText = text
      runningText = text
      loaded = WallClock.now()
      fileErrors = nil
      log("reloaded \(configPath) (\(reason)): \(config.feeds.count) feeds, \(config.rules.count) rules")
      // New feeds may be due at once; the next pass is worked out afresh.
      plan.reloaded()
    } catch {
      let rendered = error.rendered
      configText = text
      if rendered != fileErrors {
        log(
          "the new config is invalid; still running the previous one (loaded at \(ISODate.format(loaded))); "
            + "\(reason):")
        terminal.errors(Array(rendered.utf8))
      }
      fileErrors = rendered
    }
    writeRecord()
    systemd.send("STATUS=\(statusLine(Schedule.overview(config: config, store: store, now: WallClock.now())))")
  }
}
