// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A `watcher` subcommand: what it takes is declared once, in `options` and `positionals`; the parser adds
/// `--help` and makes the synopsis and the errors for a wrong number of arguments from them.
protocol Command: Sendable {
  /// The name users type.
  var name: String { get }
  /// One line for `watcher --help`.
  var summary: String { get }
  /// The options it accepts (`--help` is added to every command).
  var options: [OptionSpec] { get }
  /// The positional arguments it takes.
  var positionals: Positionals { get }
  /// Runs with parsed arguments (the positional count already checked).
  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode
}

extension Command {
  /// Every option, `--help` last.
  var allOptions: [OptionSpec] { options + [Options.help] }

  /// The synopsis after `watcher NAME`, a part each: its positional arguments, then its options.
  var usage: [String] { ([positionals.synopsis] + options.map(\.synopsis)).filter { !$0.isEmpty } }
}
