// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import FoundationEssentials
import Glibc
import WatcherActions
import WatcherConfig
import WatcherSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The `watcher` command line: picks the command, parses its arguments, runs it, returns the exit status.
///
/// Never calls `exit`, so tests run it in-process.
public enum WatcherCLI {
  /// The version `--version` prints and the User-Agent carries.
  public static let version = "0.1.0"

  /// Where to learn about watcher, for the User-Agent.
  ///
  /// The project has no public home yet; `.invalid` is a reserved name that can never point at someone
  /// else's site. Change it when there is one.
  public static let projectURL = "https://watcher.invalid/"

  /// The User-Agent for every request: the version and where to learn about watcher.
  public static let userAgent = "watcher/\(version) (+\(projectURL))"

  static let commands: [any Command] = [
    InitCommand(), RunCommand(), ReloadCommand(), PollCommand(), CatchUpCommand(), StatusCommand(), CheckCommand(),
    TestRulesCommand(),
    ParseCommand(), ExtractCommand(), AddCommand(), RemoveCommand(), LogCommand(), ItemsCommand(), PendingCommand(),
    DigestCommand(),
    NotifyTestCommand(), TestOutputCommand(), SnoozeCommand(), UnsnoozeCommand(), ScoreCommand(), SuggestCommand(),
    StoriesCommand(),
    LabelCommand(up: true), LabelCommand(up: false), LabelsCommand(),
    ImportOPMLCommand(), MCPCommand(),
    ExportOPMLCommand(), CompletionsCommand(),
  ]

  /// Process-wide setup, before any thread starts: SIGPIPE ignored (a closed pipe is an error, not death),
  /// and for the commands that poll (and `log --follow`), SIGINT, SIGTERM and SIGHUP blocked so that a
  /// signal thread receives them and they stop cleanly (`Shutdown`).
  public static func prepareProcess(_ arguments: [String]) {
    signal(SIGPIPE, SIG_IGN)
    let follows = arguments.first == "log" && arguments.contains("--follow")
    if ["run", "poll", "catch-up"].contains(arguments.first) || follows {
      SignalWaiter.block([SIGINT, SIGTERM, SIGHUP])
    }
    // The hook spawner is forked now, while the process is small and has one thread (HookRunner).
    if ["run", "poll", "pending"].contains(arguments.first) { HookRunner.prepare() }
  }

  /// Process-wide teardown before `exit`: the hook supervisors end and are waited for.
  public static func finishProcess() { HookRunner.finish() }

  /// Runs `watcher` with `arguments` (without the program name).
  public static func run(_ arguments: [String], terminal: Terminal = .standard) -> Int32 {
    guard let first = arguments.first else {
      terminal.error(overview())
      return ExitCode.usage.rawValue
    }
    switch first {
    case NotifyHelper.argument:
      return NotifyHelper.main(arguments, terminal: terminal)
    case "--version", "-V", "version":
      terminal.print("watcher \(version)")
      return ExitCode.success.rawValue
    case "--help", "-h":
      terminal.print(overview())
      return ExitCode.success.rawValue
    case "help":
      guard arguments.count > 1 else {
        terminal.print(overview())
        return ExitCode.success.rawValue
      }
      if arguments[1] == "help" {
        terminal.print(
          "usage: watcher help [COMMAND]\n\nshow the commands, or one command's usage and options "
            + "(the same as 'watcher COMMAND --help')\n\nThe manual: man watcher; the rules language: man watcher-rules"
        )
        return ExitCode.success.rawValue
      }
      guard let command = commands.first(where: { $0.name == arguments[1] }) else {
        return unknownCommand(arguments[1], terminal: terminal)
      }
      terminal.print(help(for: command))
      return ExitCode.success.rawValue
    default: break
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      if first.hasPrefix("-") {
        terminal.error("error: unknown option '\(first)'; a command comes first (see 'watcher --help')")
        return ExitCode.usage.rawValue
      }
      return unknownCommand(first, terminal: terminal)
    }
    // With --json, every line on either stream is JSON (JSONMode).
    let jsonMode = arguments.contains("--json") && command.options.contains { $0.name == Options.json.name }
    let terminal = jsonMode ? JSONMode.terminal(terminal) : terminal
    do throws(UsageError) {
      let parsed = try ArgumentParser.parse(
        Array(arguments.dropFirst()), options: command.allOptions, command: command.name)
      if parsed.has(Options.help) {
        terminal.print(help(for: command))
        return ExitCode.success.rawValue
      }
      if let error = command.positionals.check(parsed.positionals, command: command.name) { throw error }
      return command.run(parsed, terminal: terminal).rawValue
    } catch {
      terminal.error("error: \(error.message)")
      if let note = error.note { terminal.error("note: \(note)") }
      return ExitCode.usage.rawValue
    }
  }

  private static func unknownCommand(_ name: String, terminal: Terminal) -> Int32 {
    terminal.error("error: unknown command '\(name)'")
    if let suggestion = Suggestion.closest(to: name, in: commands.map(\.name)) {
      terminal.error("note: did you mean '\(suggestion)'?")
    } else {
      terminal.error("note: see 'watcher --help' for the commands")
    }
    return ExitCode.usage.rawValue
  }

  static func overview() -> String {
    var lines = [
      "watcher \(version): watch RSS, Atom and JSON feeds; notify or run a hook for the items that match your rules",
      "",
      "usage: watcher COMMAND [OPTIONS]",
      "",
      "commands:",
    ]
    let width = (commands.map(\.name.count).max() ?? 0) + 2
    for command in commands {
      lines.append("  \(command.name.padded(to: width))\(command.summary)")
    }
    lines += [
      "  help COMMAND".padded(to: width + 2) + "show a command's options",
      "",
      "  --version     print the version",
      "  -h, --help    show this help",
      "",
      "The manual: man watcher; the rules language: man watcher-rules",
    ]
    return lines.joined(separator: "\n")
  }

  static func help(for command: any Command) -> String {
    // The synopsis, wrapped at 100 columns under its first word.
    var synopsis: [String] = ["usage: watcher \(command.name)"]
    for word in command.usage {
      if synopsis[synopsis.count - 1].count + word.count + 1 > 100 {
        synopsis.append(String(repeating: " ", count: 14))
      }
      synopsis[synopsis.count - 1] += (synopsis[synopsis.count - 1].hasSuffix("  ") ? "" : " ") + word
    }
    var lines = synopsis + ["", command.summary, "", "options:"]
    for option in command.allOptions {
      var left = "--\(option.name)"
      if let short = option.short { left = "-\(short), " + left }
      if let value = option.value { left += " \(value)" }
      lines.append("  \(left.padded(to: 26))\(option.help)")
    }
    return lines.joined(separator: "\n")
  }
}
