// SPDX-License-Identifier: MIT
// Copyright the watcher authors.

import WatcherConfig

/// One option a command accepts, declared once (`Options.swift`) and looked up by that declaration.
struct OptionSpec: Sendable, Equatable {
  /// The long name without dashes (`json`, `config`).
  var name: String
  /// A one-letter form, for the few common options.
  var short: Character?
  /// The value's placeholder (`FILE`), or `nil` for a flag.
  var value: String?
  /// A one-line description for help.
  var help: String
  /// Whether it may be given more than once (`--feed A --feed B`); shown as `...` in the synopsis.
  var repeatable = false

  init(name: String, short: Character? = nil, value: String? = nil, help: String, repeatable: Bool = false) {
    self.name = name
    self.short = short
    self.value = value
    self.help = help
    self.repeatable = repeatable
  }

  /// The same option, described for one command's help.
  func described(_ help: String) -> OptionSpec {
    var copy = self
    copy.help = help
    return copy
  }

  /// How the synopsis shows it: `[--name VALUE]...`.
  var synopsis: String {
    "[--\(name)\(value.map { " " + $0 } ?? "")]\(repeatable ? "..." : "")"
  }
}

/// The positional arguments a command takes, declared once: the synopsis and the error for a wrong count
/// are made from it.
struct Positionals: Sendable {
  enum Count: Sendable {
    case none, one, any
  }

  var count: Count
  /// The placeholder in the synopsis (`FILE|URL|-`).
  var placeholder: String
  /// For `one`: what the argument is, as the error says it ("needs exactly one FILE (…)"); for `none`: where
  /// such arguments go instead ("name feeds with --feed").
  var hint: String?

  /// No positional arguments; `hint` says what to use instead.
  static func none(_ hint: String? = nil) -> Positionals { Positionals(count: .none, placeholder: "", hint: hint) }
  /// Exactly one, shown as `placeholder`; `what` describes it in the error.
  static func one(_ placeholder: String, _ what: String) -> Positionals {
    Positionals(count: .one, placeholder: placeholder, hint: what)
  }
  /// Any number (none included).
  static func any(_ placeholder: String) -> Positionals { Positionals(count: .any, placeholder: placeholder) }

  /// How the synopsis shows them.
  var synopsis: String {
    switch count {
    case .none: return ""
    case .one: return placeholder
    case .any: return "[\(placeholder)...]"
    }
  }

  /// The usage error for `given` arguments, or `nil` when the count is right.
  func check(_ given: [String], command: String) -> UsageError? {
    switch count {
    case .none where !given.isEmpty:
      return UsageError(message: "'watcher \(command)' takes no arguments\(hint.map { "; \($0)" } ?? "")")
    case .one where given.count != 1:
      return UsageError(message: "'watcher \(command)' needs exactly one \(hint ?? placeholder)")
    default: return nil
    }
  }
}

/// Command-line arguments after parsing against a command's options.
struct Arguments {
  /// Flags given (by long name).
  private var flags: Set<String> = []
  /// Option values, in order, by long name.
  private var values: [String: [String]] = [:]
  /// Positional arguments.
  var positionals: [String] = []

  init() {}

  /// Whether the flag was given.
  func has(_ option: OptionSpec) -> Bool { flags.contains(option.name) }
  /// The last value given to the option.
  func value(_ option: OptionSpec) -> String? { values[option.name]?.last }
  /// Every value given to the option, in order.
  func values(_ option: OptionSpec) -> [String] { values[option.name] ?? [] }

  fileprivate mutating func add(_ option: OptionSpec, value: String?) {
    if let value {
      values[option.name, default: []].append(value)
    } else {
      flags.insert(option.name)
    }
  }
}

/// A usage error, rendered as `error: …` plus a hint, exit 64.
struct UsageError: Error {
  var message: String
  var note: String?

  init(message: String, note: String? = nil) {
    self.message = message
    self.note = note
  }
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
        result.add(spec, value: value)
      } else {
        guard inline == nil else { throw UsageError(message: "option '--\(spec.name)' takes no value", note: nil) }
        result.add(spec, value: nil)
      }
    }
    return result
  }
}
