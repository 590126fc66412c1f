// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import Foundation

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
    // $WATCHER_NAME and ${WATCHER_NAME}
    let pattern = try? NSRegularExpression(pattern: "\\$\\{?(WATCHER_[A-Za-z0-9_]*)")
    let range = NSRange(command.startIndex..., in: command)
    var unknown: [String] = []
    for match in pattern?.matches(in: command, range: range) ?? [] {
      guard let nameRange = Range(match.range(at: 1), in: command) else { continue }
      let name = String(command[nameRange])
      if !HookAction.variableNames.contains(name), environment[name] == nil, !unknown.contains(name) {
        unknown.append(name)
      }
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
    for field in Template.Field.allCases where command.contains("{\(field.rawValue)}") {
      let variable = "WATCHER_" + (field.rawValue == "text" ? "TEXT" : field.rawValue.uppercased())
      found.append(
        Diagnostic(
          message: "'{\(field.rawValue)}' is not expanded in a shell command", mark: hook.mark,
          notes: [
            "templates fill notifications, never shell commands (that would run item text as code)",
            HookAction.variableNames.contains(variable)
              ? "use \"$\(variable)\" (quoted), or hook: { run: [PROGRAM, \"{\(field.rawValue)}\"] }"
              : "use hook: { run: [PROGRAM, \"{\(field.rawValue)}\"] }",
          ]))
      break
    }
    // A script named by path as the first word: it must exist and be executable.
    let first =
      command.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
    if first.hasPrefix("/") || first.hasPrefix("~/") {
      let path = (first as NSString).expandingTildeInPath
      if !FileManager.default.isExecutableFile(atPath: path) {
        let exists = FileManager.default.fileExists(atPath: path)
        found.append(
          Diagnostic(
            message: exists
              ? "the hook's script \(path) is not executable" : "the hook's script \(path) does not exist",
            mark: hook.mark, notes: [exists ? "chmod +x \(path)" : "check the path; ~ is your home directory"]))
      }
    }
    return found
  }
}
