// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig

/// One option a command accepts.
struct OptionSpec: Sendable {
  /// The long name without dashes (`json`, `config`).
  var name: String
  /// A one-letter form, for the few common options.
  var short: Character?
  /// The value's placeholder (`FILE`), or `nil` for a flag.
  var value: String?
  /// A one-line description for help.
  var help: String
}

/// Command-line arguments after parsing against a command's options.
struct Arguments {
  /// Flags given (by long name).
  var flags: Set<String> = []
  /// Option values, in order, by long name.
  var values: [String: [String]] = [:]
  /// Positional arguments.
  var positionals: [String] = []

  /// The last value of an option.
  func value(_ name: String) -> String? { values[name]?.last }
}

/// A usage error, rendered as `error: …` plus a hint, exit 64.
struct UsageError: Error {
  var message: String
  var note: String?
}

/// Our small argument parser: long options (`--json`, `--config F`, `--config=F`), a few short ones, `--` to end options, and `-` as a positional (standard input).
///
/// Unknown options get a did-you-mean.
enum ArgumentParser {
  static func parse(_ argv: [String], options: [OptionSpec], command: String) throws(UsageError) -> Arguments {
    var result = Arguments()
    var index = 0
    var onlyPositionals = false
    while index < argv.count {
      let arg = argv[index]
      index += 1
      if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
        result.positionals.append(arg)
        continue
      }
      if arg == "--" {
        onlyPositionals = true
        continue
      }
      var name: String
      var inline: String?
      let spec: OptionSpec?
      if arg.hasPrefix("--") {
        name = String(arg.dropFirst(2))
        if let eq = name.firstIndex(of: "=") {
          inline = String(name[name.index(after: eq)...])
          name = String(name[..<eq])
        }
        spec = options.first { $0.name == name }
      } else {
        name = String(arg.dropFirst())
        spec = name.count == 1 ? options.first { $0.short == name.first } : nil
      }
      guard let spec else {
        let suggestion = Suggestion.closest(to: name, in: options.map(\.name)).map { "did you mean '--\($0)'?" }
        throw UsageError(
          message: "unknown option '\(arg)' for '\(command)'",
          note: suggestion ?? "see 'watcher help \(command)' for its options")
      }
      if spec.value != nil {
        let value: String
        if let inline {
          value = inline
        } else if index < argv.count {
          value = argv[index]
          index += 1
        } else {
          throw UsageError(message: "option '--\(spec.name)' needs a value (\(spec.value ?? "VALUE"))", note: nil)
        }
        result.values[spec.name, default: []].append(value)
      } else {
        guard inline == nil else { throw UsageError(message: "option '--\(spec.name)' takes no value", note: nil) }
        result.flags.insert(spec.name)
      }
    }
    return result
  }
}
