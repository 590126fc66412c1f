// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

/// A `watcher` subcommand.
protocol Command: Sendable {
  /// The name users type.
  var name: String { get }
  /// One line for `watcher --help`.
  var summary: String { get }
  /// The synopsis after `watcher NAME`.
  var usage: String { get }
  /// The options it accepts.
  var options: [OptionSpec] { get }
  /// Runs with parsed arguments.
  func run(_ arguments: Arguments, terminal: Terminal) -> ExitCode
}
