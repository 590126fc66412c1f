// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherConfig
import WatcherSupport

/// `--config F`, shared by the commands that read the config.
enum ConfigOption {
  /// Loads the config the arguments and environment point at, or prints why not and returns the exit code.
  static func load(_ arguments: Arguments, terminal: Terminal) -> (config: Config, path: String)? {
    load(arguments, terminal: terminal, forReading: false)
  }

  /// `load` for the commands that only read (status, log, pending, items, the dry runs): a config file with
  /// errors blinds none of them.
  ///
  /// The errors are printed, then the command goes on with the config the daemon runs (when one runs on
  /// this file), else with what the rest of the file says, and says which.
  static func loadForReading(_ arguments: Arguments, terminal: Terminal) -> (config: Config, path: String)? {
    load(arguments, terminal: terminal, forReading: true)
  }

  private static func load(_ arguments: Arguments, terminal: Terminal, forReading: Bool) -> (
    config: Config, path: String
  )? {
    let candidates = ConfigLocator.candidates(
      explicit: arguments.value(Options.config), environment: terminal.environment)
    let path = candidates[0]
    do {
      return (try ConfigLoader.load(path: path), path)
    } catch {
      guard forReading, case .invalid(_, _, let source) = error else {
        report(error, candidates: candidates, arguments, terminal: terminal)
        return nil
      }
      terminal.errors(Array(error.rendered.utf8))
      let partial = ConfigLoader.partial(source, path: path)
      let directory = StateOptions.directory(arguments, config: partial, environment: terminal.environment)
      if let daemon = DaemonRecord.find(stateDirectory: directory, environment: terminal.environment),
        daemon.config == DaemonSocket.canonical(path), let text = daemon.text,
        let running = try? ConfigLoader.parse(
          text, path: path, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path)
      {
        terminal.error(
          "note: \(path) has errors (above); this uses the config the daemon (pid \(daemon.pid)) runs, loaded at "
            + "\(WallClock.shown(daemon.loaded))")
        return (running, path)
      }
      terminal.error("note: \(path) has errors (above); this uses what the rest of the file says")
      return (partial, path)
    }
  }

  /// Prints why the config at `candidates[0]` did not load (every place looked at, when none exists).
  static func report(_ error: ConfigError, candidates: [String], _ arguments: Arguments, terminal: Terminal) {
    if case .notFound = error {
      terminal.errors(Array(ConfigError.notFound(tried: candidates).rendered.utf8))
    } else {
      terminal.errors(Array(error.rendered.utf8))
      daemonNote(arguments, terminal: terminal)
    }
  }
}

extension ConfigOption {
  /// Beside a config that does not load: what the daemon (if one runs) does meanwhile.
  static func daemonNote(_ arguments: Arguments, terminal: Terminal) {
    let directory = StateOptions.directory(arguments, config: Config(), environment: terminal.environment)
    guard let daemon = DaemonRecord.find(stateDirectory: directory, environment: terminal.environment) else { return }
    terminal.error(
      "note: the daemon (pid \(daemon.pid)) runs the config loaded at \(WallClock.shown(daemon.loaded)) "
        + "until the file has no errors")
  }
}

/// `watcher check [--config F]`: validate the config and print every problem.
struct CheckCommand: Command {
  let name = "check"
  let summary = "validate the config; print every problem (exit 78 if invalid)"
  let positionals = Positionals.none()
  let options = [Options.config, Options.json.described("print the problems as JSON (docs/check-json.md)")]

  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode {
    let json = arguments.has(Options.json)
    let candidates = ConfigLocator.candidates(
      explicit: arguments.value(Options.config), environment: terminal.environment)
    let path = candidates[0]
    // Every mistake at once: when the file has errors, the hooks, scripts and fetch options of what it
    // does say are checked too, so fixing one error never reveals another that was there all along.
    let config: Config
    var errors: [Diagnostic] = []
    do {
      config = try ConfigLoader.load(path: path)
    } catch {
      guard case .invalid(_, let diagnostics, let source) = error else {
        if json {
          terminal.error(Self.json(path: path, config: nil, problems: [], unreadable: error.rendered).text)
        } else {
          ConfigOption.report(error, candidates: candidates, arguments, terminal: terminal)
        }
        return .config
      }
      errors = diagnostics
      config = ConfigLoader.partial(source, path: path)
    }
    let findings = Self.findings(config, environment: terminal.environment)
    let all = (errors.isEmpty ? config.notices + findings : errors + findings).sorted {
      ($0.mark ?? Mark(line: 0, column: 0)) < ($1.mark ?? Mark(line: 0, column: 0))
    }
    let count = all.filter { $0.severity == .error }.count
    if json {
      terminal.print(Self.json(path: path, config: count > 0 ? nil : config, problems: all, unreadable: nil).text)
      return count > 0 ? .config : .success
    }
    if !all.isEmpty {
      let source = try? String(contentsOfFile: path, encoding: .utf8)
      terminal.errors(Array(DiagnosticRenderer.render(all, path: path, source: source).utf8))
    }
    if count > 0 {
      terminal.error("\(count) error\(count == 1 ? "" : "s") in \(path)")
      if !errors.isEmpty { ConfigOption.daemonNote(arguments, terminal: terminal) }
      return .config
    }
    let feeds = config.feeds.count
    let rules = config.rules.count
    terminal.print("\(path): \(feeds) feed\(feeds == 1 ? "" : "s"), \(rules) rule\(rules == 1 ? "" : "s"): OK")
    return .success
  }

  /// `check --json`: whether the config is valid, its size when it is, and every problem with its place.
  static func json(path: String, config: Config?, problems: [Diagnostic], unreadable: String?) -> JSONOutput {
    .object([
      ("version", .int(1)), ("config", .string(path)),
      ("valid", .bool(unreadable == nil && !problems.contains { $0.severity == .error })),
      ("feeds", config.map { .int($0.feeds.count) } ?? .null), ("rules", config.map { .int($0.rules.count) } ?? .null),
      ("unreadable", .optional(unreadable.map(Printable.lines))),
      (
        "problems",
        .array(
          problems.map { problem in
            .object([
              ("severity", .string(problem.severity.rawValue)), ("message", .string(problem.message)),
              ("line", problem.mark.map { .int($0.line) } ?? .null),
              ("column", problem.mark.map { .int($0.column) } ?? .null),
              ("notes", .array(problem.notes.map { .string($0) })),
            ])
          })
      ),
    ])
  }

  /// What `check` finds beyond the config's own rules: hooks, Apprise and webhook targets, fetch options.
  static func findings(_ config: Config, environment: [String: String]) -> [Diagnostic] {
    Self.hookMistakes(config, environment: environment)
      + (config.rules.compactMap(\.actions.apprise) + config.feeds.compactMap(\.apprise)).flatMap {
        AppriseLint.check($0, environment: environment)
      }
      + config.rules.compactMap(\.actions.webhook).flatMap { WebhookLint.check($0, environment: environment) }
      + FetchLint.check(nil, settings: config.settings, environment: environment)
      + config.feeds.flatMap { FetchLint.check($0, settings: config.settings, environment: environment) }
  }

  /// Every shell hook's mistakes: `HookLint`'s, and the shell's own syntax check (`sh -n`, which reads the
  /// command without running any of it).
  static func hookMistakes(_ config: Config, environment: [String: String]) -> [Diagnostic] {
    let hooks =
      config.rules.compactMap(\.actions.hook) + config.feeds.compactMap(\.hook)
      + config.rules.flatMap { $0.actions.buttons.map(\.hook) } + config.rules.compactMap(\.actions.digestHook)
    var found: [Diagnostic] = []
    var checked: Set<String> = []
    for hook in hooks where hook.run == nil && checked.insert(hook.command).inserted {
      found += HookLint.check(hook, environment: environment)
      if let reason = ShellSyntax.problem(hook.command) {
        found.append(
          Diagnostic(
            message: "the hook's command is not valid shell: \(reason)", mark: hook.mark,
            notes: ["the command runs as /bin/sh -c COMMAND; check its quotes and brackets"]))
      }
    }
    return found
  }
}
