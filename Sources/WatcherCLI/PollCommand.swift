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

#if canImport(Glibc)
  import Glibc
#endif

/// Options and setup shared by the commands that use state.
enum StateOptions {
  /// The state directory: `--state-dir`, else `settings.state_dir`, else `$XDG_STATE_HOME/watcher`.
  static func directory(_ arguments: Arguments, config: Config, environment: [String: String]) -> String {
    if let explicit = arguments.value(Options.stateDir) { return HomePath.expand(explicit, environment: environment) }
    if let configured = config.settings.stateDir { return HomePath.expand(configured, environment: environment) }
    let home = HomePath.home(environment)
    let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/state"
    return stateHome + "/watcher"
  }

  /// The feeds `--feed` names (all when none), or nil after reporting an unknown name.
  static func feeds(_ arguments: Arguments, config: Config, terminal: Terminal) -> [FeedConfig]? {
    let names = arguments.values(Options.feed)
    return names.isEmpty ? config.feeds : named(names, config: config, terminal: terminal)
  }

  /// The configured feeds with these names, or nil after reporting an unknown one (with a did-you-mean).
  static func named(_ names: [String], config: Config, terminal: Terminal) -> [FeedConfig]? {
    var result: [FeedConfig] = []
    for name in names {
      guard let feed = config.feeds.first(where: { $0.name == name }) else {
        terminal.error("error: no feed named '\(name)' in the config")
        if let suggestion = Suggestion.closest(to: name, in: config.feeds.map(\.name)) {
          terminal.error("note: did you mean '\(suggestion)'?")
        }
        return nil
      }
      result.append(feed)
    }
    return result
  }

  /// Opens the store without its lock, for commands that only read it, or reports why it cannot.
  static func unlockedStore(_ directory: String, terminal: Terminal) -> StateStore? {
    do {
      return try StateStore(directory: directory)
    } catch {
      terminal.error("error: \(error)")
      return nil
    }
  }

  /// Opens and locks the store, or reports why not (exit 75 when another watcher holds it).
  static func lockedStore(_ directory: String, terminal: Terminal) -> (store: StateStore?, code: ExitCode) {
    do {
      let store = try StateStore(directory: directory)
      try store.lock()
      return (store, .success)
    } catch {
      terminal.error("error: \(error)")
      if case .locked = error { return (nil, .tempfail) }
      return (nil, .failure)
    }
  }
}

/// `watcher poll [--feed NAME]...`: one pass over the due (or named) feeds, then exit.
struct PollCommand: Command {
  let name = "poll"
  let summary = "one pass over the feeds that are due (or the named ones), then exit"
  let positionals = Positionals.none("name feeds with --feed")
  let options = [
    Options.config, Options.stateDir, Options.feed, Options.all.described("every feed, due or not"), Options.force,
    Options.dryRun,
    Options.json.described("what the pass did as JSON (docs/json.md); with --dry-run, the actions it would make"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    if arguments.has(Options.dryRun) { return DryRunPoll.run(arguments, terminal: terminal) }
    return PollRun.run(arguments, terminal: terminal, mode: .normal, command: name)
  }
}

/// `watcher catch-up [--feed NAME]...`: record every current item as seen without acting on it.
struct CatchUpCommand: Command {
  let name = "catch-up"
  let summary = "record every current item as seen, without notifying or running hooks"
  let positionals = Positionals.none("name feeds with --feed")
  let options = [
    Options.config, Options.stateDir, Options.feed, Options.all.described("every feed, due or not"), Options.force,
    Options.json.described("what the pass did as JSON (docs/json.md)"),
  ]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    PollRun.run(arguments, terminal: terminal, mode: .catchUp, command: name)
  }
}

/// What `poll`, `poll --dry-run` and `catch-up` read before anything else: no positional arguments, the
/// config, the feeds named with `--feed` (all when none), and the state directory.
enum PollSetup {
  /// An exit code as an error, so that `read` can return a `Result`.
  struct Stop: Error {
    let code: ExitCode
  }

  static func read(_ arguments: Arguments, terminal: Terminal, command: String) -> Result<
    (config: Config, feeds: [FeedConfig], directory: String, path: String), Stop
  > {
    let loaded =
      arguments.has(Options.dryRun)
      ? ConfigOption.loadForReading(arguments, terminal: terminal) : ConfigOption.load(arguments, terminal: terminal)
    guard let (config, path) = loaded else { return .failure(Stop(code: .config)) }
    if arguments.has(Options.all), !arguments.values(Options.feed).isEmpty {
      terminal.error("error: --all and --feed cannot go together")
      return .failure(Stop(code: .usage))
    }
    guard let feeds = StateOptions.feeds(arguments, config: config, terminal: terminal) else {
      return .failure(Stop(code: .usage))
    }
    return .success(
      (config, feeds, StateOptions.directory(arguments, config: config, environment: terminal.environment), path))
  }
}

/// The body of `poll` and `catch-up`.
enum PollRun {
  static func run(_ arguments: Arguments, terminal: Terminal, mode: Poller.Mode, command: String) -> ExitCode {
    let setup: (config: Config, feeds: [FeedConfig], directory: String, path: String)
    switch PollSetup.read(arguments, terminal: terminal, command: command) {
    case .success(let read): setup = read
    case .failure(let code): return code.code
    }
    let (config, feeds, directory, path) = setup
    let all = arguments.has(Options.all)
    // When the daemon holds the state, it does the pass, with the config on disk.
    let (lockedStore, code) = Handover.lockedStore(
      directory,
      request: DaemonSocket.Request(
        .poll(
          feeds: arguments.values(Options.feed), force: arguments.has(Options.force), all: all,
          catchUp: command == "catch-up", json: arguments.has(Options.json)), config: DaemonSocket.canonical(path)),
      terminal: terminal)
    guard let store = lockedStore else { return code }
    defer { store.unlock() }
    let shutdown = Shutdown()
    shutdown.install(extra: [SIGHUP])
    // Notifications go through a helper that outlives the poll, so that their buttons still work.
    let notifier = HelperNotifier(
      direct: LibnotifyNotifier(environment: terminal.environment, bubbles: directory + "/bubbles.json"),
      stateDirectory: directory,
      snooze: config.settings.notify.snooze, configPath: path)
    let runner = DeliveringActionRunner(
      notifier: notifier, settings: config.settings,
      environment: terminal.environment, stopping: shutdown.stopping, killing: shutdown.killing,
      imageTransport: CurlTransport(userAgent: WatcherCLI.userAgent),
      log: { _ in })  // each failure is reported once, below, naming its item
    // On a terminal, one line that counts fetches as they finish; nothing at all when stderr is a pipe or file.
    var progress: (@Sendable (Int, Int, Int) -> Void)?
    if terminal.errorsIsTerminal {
      progress = { done, failed, total in
        let errors = failed > 0 ? ", \(failed) failed" : ""
        terminal.errors(Array("\r\u{1B}[K\(command): \(done)/\(total) feeds fetched\(errors)".utf8))
      }
    }
    let transport = CurlTransport(userAgent: WatcherCLI.userAgent, progress: progress)
    let poller = Poller(
      config: config, store: store, transport: transport, runner: runner, cancellation: shutdown.stopping)
    let named = !arguments.values(Options.feed).isEmpty || all
    return execute(
      poller, feeds: feeds, named: named, force: arguments.has(Options.force), mode: mode, command: command,
      terminal: terminal, shutdown: shutdown, clearProgress: progress != nil, json: arguments.has(Options.json)
    ).code
  }

  /// One pass, and the words for it: what `poll` and `catch-up` print, and what the daemon sends back to a
  /// `poll` or `catch-up` that asked it.
  static func execute(
    _ poller: Poller, feeds: [FeedConfig], named: Bool, force: Bool, mode: Poller.Mode, command: String,
    terminal: Terminal, shutdown: Shutdown, clearProgress: Bool = false, json: Bool = false
  ) -> (code: ExitCode, pass: Poller.Pass) {
    let pass = poller.pass(feeds, force: named || mode == .catchUp, ignoreRetryAfter: force, mode: mode)
    let outcomes = pass.outcomes
    if clearProgress { terminal.errors(Array("\r\u{1B}[K".utf8)) }
    var failed = 0
    // An unreachable notification service is one error per poll, not one per feed.
    var actionProblems: [ActionProblem] = []
    for outcome in outcomes {
      for problem in outcome.actionProblems where !actionProblems.contains(problem) { actionProblems.append(problem) }
      if !outcome.failures.isEmpty { failed += 1 }
      for line in PollReport.lines(outcome, for: .poll(mode)) { terminal.report(line) }
    }
    for line in PollReport.notDue(outcomes) { terminal.report(line) }
    for problem in actionProblems { terminal.error("\(problem.label): \(problem)") }
    if actionProblems.contains(where: \.isFailure) { failed += 1 }
    for line in KeptReport.lines(pass, keptNow: outcomes.reduce(0) { $0 + $1.kept }) { terminal.report(line) }
    let polled = outcomes.reduce(0) { $0 + ($1.polled ? 1 : 0) }  // not a filtered copy: 680 bytes a feed
    let fresh = outcomes.reduce(0) { $0 + $1.newItems }
    let actions = outcomes.reduce(0) { $0 + $1.actions }
    var line = "\(command): \(polled) of \(outcomes.count) feeds polled, \(fresh) new item\(fresh == 1 ? "" : "s")"
    if mode == .normal { line += ", \(actions) action\(actions == 1 ? "" : "s")" }
    if failed > 0 { line += ", \(failed) failed" }
    terminal.print(line)
    let code: ExitCode = failed > 0 || shutdown.signal != nil ? .failure : .success
    if let signal = shutdown.signal {
      let pending = outcomes.reduce(0) { $0 + $1.pendingLeft }
      terminal.error(
        "\(command): stopped by signal \(signal); \(pending) action\(pending == 1 ? "" : "s") left pending for the next poll"
      )
    }
    if json { terminal.print(PollReport.json(pass, command: command, failed: failed, signal: shutdown.signal).text) }
    return (code, pass)
  }
}

/// `watcher poll --dry-run`: the poll without acting or saving, and what it would do.
enum DryRunPoll {
  static func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let setup: (config: Config, feeds: [FeedConfig], directory: String, path: String)
    switch PollSetup.read(arguments, terminal: terminal, command: "poll") {
    case .success(let read): setup = read
    case .failure(let code): return code.code
    }
    let (config, feeds, directory, _) = setup
    // No lock: nothing is written, so a running daemon does not stop a dry run.
    guard let store = StateOptions.unlockedStore(directory, terminal: terminal) else { return .failure }
    let poller = Poller(
      config: config, store: store, transport: CurlTransport(userAgent: WatcherCLI.userAgent),
      runner: PrintingActionRunner { _ in })
    let now = WallClock.now()
    let pass = poller.pass(
      feeds, force: !arguments.values(Options.feed).isEmpty || arguments.has(Options.all),
      ignoreRetryAfter: arguments.has(Options.force), now: now,
      dryRun: true)
    var actions: [JSONOutput] = []
    var text = ""
    var failed = 0
    for outcome in pass.outcomes {
      if !outcome.failures.isEmpty { failed += 1 }
      // The same per-feed lines as the poll ("3 new: 1 hook; 1 older than max_age", an item updated).
      for line in PollReport.lines(outcome, for: .poll(.normal)) { terminal.report(line) }
      let notifications = outcome.planned.filter { $0.kind == .notify }
      let batched = notifications.count > config.settings.notify.maxPerPoll
      for action in outcome.planned {
        var fields: [(String, JSONOutput)] = [
          ("feed", .string(outcome.feed.name)), ("kind", .string(action.kind.rawValue)), ("key", .string(action.key)),
          ("rule", .optional(action.label(feed: outcome.feed.name))), ("retry", .bool(action.attempts > 0)),
        ]
        let rule = action.label(feed: outcome.feed.name) ?? ""
        switch action.payload {
        case .notify(let notification):
          // Quiet hours hold it until they end, as the real poll would.
          let quiet = config.settings.notify.quiet
          let heldUntil = quiet.holds(notification.urgency, at: now) ? quiet.end(after: now) : nil
          fields += [
            ("summary", .string(notification.summary)), ("urgency", .string(notification.urgency.rawValue)),
            ("batched", .bool(batched)), ("held_until", .optional(heldUntil.map(ISODate.format))),
          ]
          if let heldUntil {
            text +=
              "\(outcome.feed.name): would hold for quiet hours until \(WallClock.shown(heldUntil)): \(notification.summary)\n"
          } else {
            text += "\(outcome.feed.name): would notify: \(notification.summary)\n"
          }
        case .hook(let hook):
          fields.append(("command", .string(hook.command ?? "")))
          if let arguments = hook.arguments { fields.append(("run", .array(arguments.map { .string($0) }))) }
          // A run: hook shows the arguments it gets (templates filled in), each one whole.
          let what =
            hook.arguments.map { "runs " + $0.map { JSONString.literal($0) }.joined(separator: " ") }
            ?? (hook.command ?? "")
          let title =
            HookEnvironment.variables(for: action)["WATCHER_TITLE"].map { " for \(JSONString.literal($0))" } ?? ""
          text += "\(outcome.feed.name): would run the hook of rule '\(rule)'\(title): \(what)\n"
        case .apprise(let apprise):
          fields.append(("title", .string(apprise.title)))
          text += "\(outcome.feed.name): would send through Apprise (rule '\(rule)'): \(apprise.title)\n"
        case .webhook(let webhook):
          let url = URLSecrets.redacted(webhook.url)
          fields.append(("url", .string(url)))
          let title = action.title.map { " \(JSONString.literal($0))" } ?? ""
          text += "\(outcome.feed.name): would POST\(title) to the webhook of rule '\(rule)': \(url)\n"
        }
        actions.append(.object(fields))
      }
      if batched {
        text += "\(outcome.feed.name): the \(notifications.count) notifications would be shown as one summary\n"
      }
      for (rule, title) in outcome.digested {
        text += "\(outcome.feed.name): would add \(JSONString.literal(title)) to the digest of rule '\(rule)'\n"
        actions.append(
          .object([
            ("feed", .string(outcome.feed.name)), ("kind", .string("digest")), ("rule", .string(rule)),
            ("title", .string(title)),
          ]))
      }
    }
    for line in PollReport.notDue(pass.outcomes, now: now) { terminal.report(line) }
    if arguments.has(Options.json) {
      terminal.print(JSONOutput.document([("actions", .array(actions))]).text)
    } else {
      terminal.output(Array(text.utf8))
      terminal.print(
        "poll --dry-run: \(actions.count) action\(actions.count == 1 ? "" : "s"); nothing was done or saved")
    }
    return failed > 0 ? .failure : .success
  }
}
