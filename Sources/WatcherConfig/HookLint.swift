// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation
import WatcherSupport

/// The mistakes in a shell hook that `watcher check` can see without running it (the shell's own syntax
/// check is the CLI's, which runs `sh -n`): a `$WATCHER_…` variable that does not exist, a `{field}`
/// template (not expanded in a shell command), and a script path that is not an executable file.
public enum HookLint {
  /// The diagnostics for one shell hook; `environment` is what hooks inherit (a `$WATCHER_…` set there is
  /// the user's own).
  public static func check(_ hook: HookAction, environment: [String: String] = [:]) -> [Diagnostic] {
    guard hook.run == nil else { return [] }
    var found: [Diagnostic] = []
    let command = hook.command
    var unknown: [String] = []
    for name in variables(in: command)
    where !HookAction.variableNames.contains(name) && environment[name] == nil && !unknown.contains(name) {
      unknown.append(name)
    }
    for name in unknown {
      // A near miss of a real name is a typo (an error); another name may come from the daemon's own
      // environment (a warning).
      let suggestion = Suggestion.closest(to: name, in: HookAction.variableNames)
      var notes = suggestion.map { ["did you mean '$\($0)'?"] } ?? ["unless your environment sets it, it is empty"]
      notes.append("hooks get " + HookAction.variableNames.map { "$\($0)" }.joined(separator: ", "))
      found.append(
        Diagnostic(
          suggestion == nil ? .warning : .error, message: "the hook uses '$\(name)', which watcher does not set",
          mark: hook.mark, notes: notes))
    }
    if let field = Template.Field.allCases.first(where: { command.contains("{\($0.rawValue)}") }) {
      found.append(
        Diagnostic(
          message: "'{\(field.rawValue)}' is not expanded in a shell command", mark: hook.mark,
          notes: [
            "templates fill notifications, never shell commands (that would run item text as code)",
            "use \"$WATCHER_\(field.rawValue.uppercased())\" (quoted), or hook: { run: [PROGRAM, \"{\(field.rawValue)}\"] }",
          ]))
    }
    // A script named by path as the first word: it must exist and be executable.
    let first =
      command.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
    if first.hasPrefix("/") || first.hasPrefix("~/") {
      let path = HomePath.expand(first)
      switch HookProgram.problem(at: path) {
      case .missing?:
        found.append(
          Diagnostic(
            message: "the hook's script \(path) does not exist", mark: hook.mark,
            notes: ["check the path; ~ is your home directory"]))
      case .notExecutable?:
        found.append(
          Diagnostic(
            message: "the hook's script \(path) is not executable", mark: hook.mark, notes: ["chmod +x \(path)"]))
      case nil: break
      }
    }
    return found
  }

  /// The names after `$` or `${` that start with `WATCHER_`, in order.
  static func variables(in command: String) -> [String] {
    var names: [String] = []
    var rest = Substring(command)
    while let dollar = rest.firstIndex(of: "$") {
      var start = rest.index(after: dollar)
      if start < rest.endIndex, rest[start] == "{" { start = rest.index(after: start) }
      let name = rest[start...].prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
      if name.hasPrefix("WATCHER_") { names.append(String(name)) }
      rest = rest[rest.index(after: dollar)...]
    }
    return names
  }
}
